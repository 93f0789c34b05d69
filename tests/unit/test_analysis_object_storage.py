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
"""Object storage in the analysis: views, report section and compare.

The samples are the phase's own (object_storage.samples.FromResult over
distributions the parser computes) from request values made up here, so
the right percentiles are known by construction.
"""

import os
import random
import shutil
import tempfile
from unittest import mock

from absl.testing import absltest
from matplotlib import pyplot

from pkb_ext.analysis import backends
from pkb_ext.analysis import compare
from pkb_ext.analysis import object_storage_report
from pkb_ext.analysis import report
from pkb_ext.analysis import runner
from pkb_ext import paths
from pkb_ext.suite.object_storage import parser
from pkb_ext.suite.object_storage import samples as os_samples
from pkb_ext.suite import stats

PROVIDERS = {'s3': 1.0, 'gcs': 2.0, 'azure': 3.0}
RUN_SCALES = (1.0, 1.02, 0.98)  # mean 1: the means are the values
MIB = 1048576
# TTFB of the latency workload: 1..1001 ms, so p50 = 501, p90 = 901,
# p99 = 991 and p99.9 = 1000 (linear interpolation over 1,001 values).
TTFB_VALUES = [float(i) for i in range(1, 1002)]
TTFB_EXPECTED = {'p50': 501.0, 'p90': 901.0, 'p99': 991.0, 'p99.9': 1000.0}
# Throughput of 100 single requests of 1 MiB (its p99.9 is derived) and of
# 200 of 16 KiB (too many to derive it).
_RANDOM = random.Random(7)
MBPS_100 = [_RANDOM.uniform(50, 150) for _ in range(100)]
MBPS_200 = [_RANDOM.uniform(5, 15) for _ in range(200)]
FIXTURE = os.path.join(
    paths.RepoRoot(), 'tests', 'data', 'analysis', 'samples_3x2.ndjson'
)


def _Result(provider, scale, ttfb_scale=1.0):
  header = parser.Header(provider, 'sdk', '1', '3.11', 'b', 'p/', None, None)

  def Group(metric, unit, workload, values, ps, **dims):
    return parser.Group(
        metric,
        unit,
        workload,
        'get',
        parser.Distribute(values, ps),
        **dims,
    )

  ttfb = [v * scale * ttfb_scale for v in TTFB_VALUES]
  groups = (
      Group(
          'ttfb',
          'ms',
          'latency',
          ttfb,
          parser.LATENCY_PERCENTILES,
          connection='new',
      ),
      Group(
          'throughput',
          'MB/s',
          'throughput',
          [v * scale for v in MBPS_100],
          parser.THROUGHPUT_PERCENTILES,
          object_size_bytes=MIB,
      ),
      Group(
          'throughput',
          'MB/s',
          'throughput',
          [v * scale for v in MBPS_200],
          parser.THROUGHPUT_PERCENTILES,
          object_size_bytes=16384,
      ),
  )
  return parser.TtfbResult(header, (), (), groups, (), False, ())


def Samples(ttfb_scale=None):
  """Three runs of three providers; ttfb_scale: {provider: factor}."""
  rows = []
  for run, run_scale in enumerate(RUN_SCALES):
    for provider, scale in PROVIDERS.items():
      factor = (ttfb_scale or {}).get(provider, 1.0)
      result = _Result(provider, scale * run_scale, factor)
      for s in os_samples.FromResult(result):
        rows.append({
            'metric': s.metric,
            'value': s.value,
            'unit': s.unit,
            'run_uri': f'run{run}',
            'metadata': (
                s.metadata
                | {
                    'phase': 'object_storage',
                    'cloud': 'Local',
                    'machine_type': 'local-small',
                    'disk_type': 'local-ssd',
                    'report_version': '2021',
                }
            ),
        })
  return rows


def _Backend(rows, table='samples', backend=None):
  backend = backend or backends.DuckDbBackend()
  backend.LoadRows(
      (backends.NormalizeSample(r, f'row {i}') for i, r in enumerate(rows)),
      backend.AddTable(table),
  )
  return backend


def _Aggregates(rows):
  analysis = runner.Analysis(_Backend(rows))
  return {
      (r['provider'], r['figure'], r['detail'], r['percentile']): r
      for r in analysis.Query('object_storage_aggregates')
  }


class ViewsTest(absltest.TestCase):

  @classmethod
  def setUpClass(cls):
    super().setUpClass()
    cls.rows = _Aggregates(Samples())

  def testTtfbPercentilesAreTheConstructedOnes(self):
    for provider, scale in PROVIDERS.items():
      for p, want in TTFB_EXPECTED.items():
        r = self.rows[(provider, 'ttfb', f'{provider} GET new connection', p)]
        self.assertEqual(r['n'], 3)
        self.assertAlmostEqual(r['mean'], want * scale, places=6)
        self.assertFalse(r['higher_is_better'])

  def testThroughputTailIsItsLowValues(self):
    for provider, scale in PROVIDERS.items():
      values = [v * scale for v in MBPS_100]
      for p, q in (('p50', 50), ('p90', 10), ('p99', 1), ('p99.9', 0.1)):
        runs = [parser.Percentile(values, q) * s for s in RUN_SCALES]
        r = self.rows[(provider, 'throughput', f'{provider} GET 1 MiB', p)]
        self.assertAlmostEqual(r['mean'], stats.Summarize(runs).mean, places=6)
        self.assertTrue(r['higher_is_better'])

  def testCi95OverRepetitionsMatchesStats(self):
    runs = [parser.Percentile(MBPS_100, 1) * s for s in RUN_SCALES]
    r = self.rows[('s3', 'throughput', 's3 GET 1 MiB', 'p99')]
    self.assertAlmostEqual(
        r['ci95_half_width'], stats.Summarize(runs).ci95_half_width, places=6
    )

  def testNoP999WhereItCannotBeDerived(self):
    keys = [k for k in self.rows if k[2] == 's3 GET 16 KiB']
    self.assertCountEqual([k[3] for k in keys], ['p50', 'p90', 'p99'])

  def testPhasesOwnP01IsUsed(self):
    rows = Samples()
    extra = [
        dict(r, value=4.25, metadata=r['metadata'] | {'statistic': 'p0.1'})
        for r in rows
        if r['metadata'].get('object_size_bytes') == 16384
        and r['metadata'].get('statistic') == 'p1'
        and r['metadata']['provider'] == 's3'
    ]
    got = _Aggregates(rows + extra)[
        ('s3', 'throughput', 's3 GET 16 KiB', 'p99.9')
    ]
    self.assertAlmostEqual(got['mean'], 4.25)


class ReportSectionTest(absltest.TestCase):

  def _Write(self, rows=None, path=None):
    backend = backends.DuckDbBackend()
    if path:
      backend.LoadNdjson([path])
    else:
      _Backend(rows, backend=backend)
    out = tempfile.mkdtemp()
    self.addCleanup(shutil.rmtree, out)
    report.Write(runner.Analysis(backend), out, 'test samples')
    texts = {}
    for name in ('report.md', 'report.html'):
      with open(os.path.join(out, name), encoding='utf-8') as f:
        texts[name] = f.read()
    return out, texts

  def testSectionTablesAndChart(self):
    out, texts = self._Write(Samples())
    chart = os.path.join(out, object_storage_report.CHART)
    with open(chart, 'rb') as f:
      self.assertEqual(f.read(8), b'\x89PNG\r\n\x1a\n')
    self.assertGreater(os.path.getsize(chart), 10_000)
    for text in texts.values():
      self.assertIn('Object storage', text)
      self.assertIn(object_storage_report.CHART, text)
      self.assertIn('p99.9 (ms)', text)
      self.assertIn('p99.9 (MB/s)', text)
      self.assertNotIn(object_storage_report.NONE_NOTE, text)
    # s3's latency TTFB row: p50 .. p99.9 with their CI95.
    row = next(
        line
        for line in texts['report.md'].splitlines()
        if '| s3 | GET | latency |' in line
    )
    self.assertIn('| 501 ± ', row)
    self.assertIn('| 1,000 ± ', row)

  def testNoObjectStorageSamplesIsOneLine(self):
    out, texts = self._Write(path=FIXTURE)
    self.assertFalse(
        os.path.exists(os.path.join(out, object_storage_report.CHART))
    )
    for text in texts.values():
      self.assertEqual(text.count(object_storage_report.NONE_NOTE), 1)

  def testChartHasAPanelPerFigureAndOpWithALogAxis(self):
    rows = list(_Aggregates(Samples()).values())
    path = os.path.join(tempfile.mkdtemp(), 'c.png')
    self.addCleanup(shutil.rmtree, os.path.dirname(path))
    figures = []
    original = pyplot.close
    with mock.patch.object(
        pyplot, 'close', side_effect=lambda f: figures.append(f) or original(f)
    ):
      self.assertTrue(object_storage_report.Chart(rows, path))
    axes = figures[0].axes
    self.assertLen(axes, 2)  # TTFB and throughput, GET only
    for ax in axes:
      self.assertEqual(ax.get_yscale(), 'log')
      self.assertEqual(
          [t.get_text() for t in ax.get_xticklabels()],
          list(object_storage_report.PERCENTILES),
      )
    # One line per provider and connection (latency workload) or size.
    self.assertLen(axes[0].get_lines(), len(PROVIDERS))
    self.assertLen(axes[1].get_lines(), len(PROVIDERS) * 2)


class CompareTest(absltest.TestCase):

  def _Compare(self, b_rows):
    backend = _Backend(Samples())
    _Backend(b_rows, 'samples_b', backend)
    a = compare.SamplesSide(runner.Analysis(backend), 'A')
    b = compare.SamplesSide(
        runner.Analysis(backend, samples_ref='samples_b'), 'B'
    )
    return compare.Comparison(backend, a, b, compare.Settings()).Run()

  def testSameSamplesFlagNothing(self):
    result = self._Compare(Samples())
    verdicts = {r['verdict'] for r in result.rows}
    self.assertEqual(verdicts, {'no significant change'})
    self.assertLen(result.rows, 3 * (4 + 4 + 3))

  def testDoubledTtfbOfOneProviderFlagsExactlyIt(self):
    result = self._Compare(Samples(ttfb_scale={'gcs': 2.0}))
    flagged = sorted(
        (r['benchmark'], r['match_key'])
        for r in result.rows
        if r['verdict'] != 'no significant change'
    )
    self.assertEqual(
        flagged,
        sorted(
            (
                f'object_storage_ttfb_{p}',
                'Local / local-small / local-ssd / gcs GET new connection',
            )
            for p in ('p50', 'p90', 'p99', 'p99_9')
        ),
    )
    for r in result.rows:
      if r['verdict'] != 'no significant change':
        self.assertEqual(r['verdict'], 'worse')
        self.assertAlmostEqual(r['change_pct'], 100.0, places=6)


if __name__ == '__main__':
  absltest.main()
