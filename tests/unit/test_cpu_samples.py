# Copyright 2026 The pkb_ext Authors.
#
# Licensed under the Apache License, Version 2.0 (the "License");
# you may not use this file except in compliance with the License.
# You may obtain a copy of the License at
#
#   http://www.apache.org/licenses/LICENSE-2.0
#
# Unless required by applicable law or agreed to in writing, software
# distributed under the License is distributed on an "AS IS" BASIS,
# WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
# See the License for the specific language governing permissions and
# limitations under the License.
"""Tests for the cpu phase's samples (per run and per-mode summaries)."""

import dataclasses
import math
import pathlib
import statistics

from absl import flags
from absl.testing import absltest
from absl.testing import parameterized

from pkb_ext.suite.cpu import parser as coremark
from pkb_ext.suite.cpu import samples as cpu
from pkb_ext.suite import phase_modules
from pkb_ext.suite import stats

DATA = pathlib.Path(__file__).resolve().parent.parent / 'data' / 'coremark'


def _Parse(name):
  return coremark.Parse((DATA / name).read_text())


# PKB's parser reads its parallelism flag into its metadata (at its default
# here): the outputs below are parsed as this module loads.
if not flags.FLAGS.is_parsed():
  flags.FLAGS.mark_as_parsed()


SINGLE = _Parse('single_core.txt')
SINGLE_SHORT = _Parse('single_core_short.txt')
ALL = _Parse('all_core_pthread_2.txt')
ALL_SHORT = _Parse('all_core_pthread_2_short.txt')


def _WithScore(result, score):
  return dataclasses.replace(result, score=score)


def _ByMetric(samples):
  out = {s.metric: s for s in samples}
  assert len(out) == len(samples), [s.metric for s in samples]
  return out


class FromResultTest(parameterized.TestCase):

  def testOneRunSample(self):
    (s,) = cpu.FromResult(ALL, {'coremark_version': 'v1.01'}, 'all', 3)
    self.assertEqual(s.metric, 'coremark_score')
    self.assertEqual(s.unit, 'iterations/sec')
    self.assertEqual(s.value, ALL.score)
    md = s.metadata
    self.assertEqual(md['mode'], 'all')
    self.assertEqual(md['iteration'], 3)
    self.assertEqual(md['threads'], 2)
    self.assertEqual(md['parallelism'], 'pthread')
    # PKB's sample metadata, as its parser gives it.
    self.assertEqual(md['iterations'], 220000)
    self.assertEqual(md['total_time_sec'], 16.442)
    self.assertEqual(md['total_ticks'], 16442)
    self.assertEqual(md['size'], 666)
    self.assertEqual(md['thread_count'], 2)
    self.assertIs(md['valid_for_reporting'], True)
    self.assertEqual(md['invalid_reason'], '')
    self.assertEqual(md['coremark_version'], 'v1.01')

  def testShortRunSaysWhy(self):
    (s,) = cpu.FromResult(SINGLE_SHORT)
    self.assertEqual(s.metadata['mode'], 'single')  # inferred: one context
    self.assertEqual(s.metadata['parallelism'], 'none')
    self.assertIs(s.metadata['valid_for_reporting'], False)
    self.assertIn('< 10 s', s.metadata['invalid_reason'])

  def testNoModeInMetricNames(self):
    for name in cpu.METRICS:
      for mode in ('single', 'all', 'multi'):
        self.assertNotIn(mode, name.split('_'))

  def testCatalogHasNoClash(self):
    catalog = phase_modules.Catalog()
    for name, unit in cpu.METRICS.items():
      self.assertEqual(catalog[name], unit)

  def testUnknownModeIsRefused(self):
    with self.assertRaisesRegex(ValueError, 'unknown CoreMark mode'):
      cpu.FromResult(SINGLE, mode='multi')


class SummaryTest(parameterized.TestCase):

  def testStatisticsOfTheRuns(self):
    scores = [30000.5, 31000.25, 29500.0, 30500.75]
    runs = [_WithScore(ALL, v) for v in scores]
    got = _ByMetric(cpu.Summary(runs, 'all', {'x': 1}))
    want = stats.Summarize(scores)
    self.assertAlmostEqual(got['coremark_score_mean'].value, want.mean)
    self.assertEqual(got['coremark_score_mean'].value, statistics.fmean(scores))
    self.assertEqual(got['coremark_score_min'].value, 29500.0)
    self.assertEqual(got['coremark_score_max'].value, 31000.25)
    self.assertAlmostEqual(
        got['coremark_score_stddev'].value, statistics.stdev(scores)
    )
    self.assertAlmostEqual(
        got['coremark_score_ci95_half_width'].value, want.ci95_half_width
    )
    self.assertAlmostEqual(got['coremark_score_cv'].value, want.cv_pct)
    self.assertEqual(got['coremark_score_cv'].unit, '%')
    self.assertAlmostEqual(
        got['coremark_score_per_vcpu'].value, statistics.fmean(scores) / 2
    )
    md = got['coremark_score_mean'].metadata
    self.assertEqual(md['mode'], 'all')
    self.assertEqual(md['threads'], 2)
    self.assertEqual((md['runs'], md['runs_valid_for_reporting'], md['n']),
                     (4, 4, 4))  # fmt: skip
    self.assertIs(md['valid_for_reporting'], True)
    self.assertEqual(md['x'], 1)
    self.assertNotIn('iteration', md)

  def testSingleCoreHasNoPerVcpuScore(self):
    got = _ByMetric(cpu.Summary([SINGLE, SINGLE], 'single'))
    self.assertNotIn('coremark_score_per_vcpu', got)
    self.assertEqual(got['coremark_score_mean'].value, SINGLE.score)

  def testShortRunsAreLeftOutOfTheStatistics(self):
    runs = [_WithScore(ALL, 100.0), _WithScore(ALL_SHORT, 1e6), ALL]
    got = _ByMetric(cpu.Summary(runs, 'all'))
    self.assertEqual(got['coremark_score_max'].value, ALL.score)
    self.assertEqual(got['coremark_score_min'].value, 100.0)
    md = got['coremark_score_mean'].metadata
    self.assertEqual((md['runs'], md['runs_valid_for_reporting'], md['n']),
                     (3, 2, 2))  # fmt: skip
    self.assertIs(md['valid_for_reporting'], True)

  def testOnlyShortRunsAreSummarizedButMarked(self):
    runs = [ALL_SHORT, _WithScore(ALL_SHORT, 12000.0)]
    got = _ByMetric(cpu.Summary(runs, 'all'))
    self.assertEqual(
        got['coremark_score_mean'].value,
        statistics.fmean([ALL_SHORT.score, 12000.0]),
    )
    md = got['coremark_score_mean'].metadata
    self.assertIs(md['valid_for_reporting'], False)
    self.assertEqual(md['summarized_runs'], 'all (none valid)')

  def testOneRunHasNoConfidenceInterval(self):
    got = _ByMetric(cpu.Summary([SINGLE], 'single'))
    self.assertNotIn('coremark_score_ci95_half_width', got)
    self.assertEqual(got['coremark_score_stddev'].value, 0.0)
    self.assertTrue(all(math.isfinite(s.value) for s in got.values()))

  def testRefusals(self):
    with self.assertRaisesRegex(ValueError, 'no CoreMark runs'):
      cpu.Summary([], 'all')
    with self.assertRaisesRegex(ValueError, 'different thread counts'):
      cpu.Summary([SINGLE, ALL], 'all')
    with self.assertRaisesRegex(ValueError, 'unknown CoreMark mode'):
      cpu.Summary([SINGLE], 'both')


if __name__ == '__main__':
  absltest.main()
