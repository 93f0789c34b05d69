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
"""Tests for pkb-ext bench: parts, verdicts, the JSON file and the table.

The parts that need no local cloud (stepping, calibrate, and the NDJSON
half of publish with a small sample count) run for real; the local-cloud
parts are covered by `pkb-ext bench` itself and by the local tier. The
verdict tests construct the pairs' figures (calibrate's runs), so each
interval lies inside, outside or across its target by construction.
"""

import contextlib
import io
import json
import os
import statistics
from unittest import mock

from absl.testing import absltest
from absl.testing import parameterized

from pkb_ext_dev import bench
from pkb_ext_dev import bench_calibrate
from pkb_ext_dev import bench_fidelity
from pkb_ext_dev import bench_publish
from pkb_ext_dev import bench_sitting
from pkb_ext_dev import bench_plan
from pkb_ext_dev import bench_stepping

_KEYS = {
    'fio_iops_ratio',
    'netperf_rr_ratio',
    'coremark_ratio',
    'harness_s_per_run',
    'harness_pct_at_report',
    'bisect_step_ratio',
    'tpcc_minutes_ratio_sim',
    'tpcc_search_minutes_ratio',
    'ndjson_samples_per_s',
    'bq_publish_100k_s',
    'vs_pkb_coremark_ratio',
    'vs_pkb_fio_iops_ratio',
    'vs_pkb_netperf_rr_ratio',
    'vs_pkb_harness_s_ratio',
    'calibrate_ratio',
    'plan_wall_time_ratio',
    'vm_hours_per_row',
    'vm_hours_per_row_report',
}


def _Cli(argv):
  out, err = io.StringIO(), io.StringIO()
  with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
    rc = bench.Main(argv)
  return rc, out.getvalue(), err.getvalue()


class PartsTest(parameterized.TestCase):

  @parameterized.parameters(
      ('all', list(bench.PARTS)),
      ('fidelity', ['fio', 'netperf', 'coremark']),
      ('publish,stepping', ['stepping', 'publish']),
      ('overhead, fio', ['fio', 'overhead']),
      ('stepping,stepping', ['stepping']),
  )
  def testParse(self, text, want):
    self.assertEqual(bench.ParseParts(text), want)

  @parameterized.parameters('iperf', 'stepping,iperf', '', ',')
  def testRefused(self, text):
    with self.assertRaisesRegex(ValueError, '--only'):
      bench.ParseParts(text)

  def testCliRefusesUnknownPart(self):
    rc, _, err = _Cli(['--out', '/dev/null', '--only', 'iperf'])
    self.assertEqual(rc, 2)
    self.assertIn("unknown part 'iperf'", err)


class VerdictTest(parameterized.TestCase):

  @parameterized.parameters(
      ('fio_iops_ratio', 0.97, 'PASS'),
      ('fio_iops_ratio', 0.9699, 'MISS'),
      ('coremark_ratio', 1.2, 'PASS'),
      ('harness_pct_at_report', 10.0, 'PASS'),
      ('harness_pct_at_report', 10.01, 'MISS'),
      ('harness_s_per_run', 30.0, '-'),
      ('bisect_step_ratio', 0.5, 'PASS'),
      ('bisect_step_ratio', 0.51, 'MISS'),
      ('tpcc_minutes_ratio_sim', 0.40, 'PASS'),
      ('tpcc_minutes_ratio_sim', 0.41, 'MISS'),
      ('tpcc_search_minutes_ratio', 0.5, 'PASS'),
      ('tpcc_search_minutes_ratio', 0.51, 'MISS'),
      ('ndjson_samples_per_s', 5.0, 'MISS'),
      ('ndjson_samples_per_s', 100_000, 'PASS'),
      ('bq_publish_100k_s', 5.0, '-'),
      ('netperf_rr_ratio', None, 'n/a'),
      # A range: both ends count.
      ('vs_pkb_coremark_ratio', 0.97, 'PASS'),
      ('vs_pkb_coremark_ratio', 1.03, 'PASS'),
      ('vs_pkb_fio_iops_ratio', 1.0, 'PASS'),
      ('vs_pkb_fio_iops_ratio', 0.9699, 'MISS'),
      ('vs_pkb_netperf_rr_ratio', 1.0301, 'MISS'),
      ('vs_pkb_netperf_rr_ratio', None, 'n/a'),
      ('vs_pkb_harness_s_ratio', 1.0, 'PASS'),
      ('vs_pkb_harness_s_ratio', 1.01, 'MISS'),
  )
  def testVerdict(self, figure, value, want):
    self.assertEqual(bench.Verdict(figure, value), want)

  @parameterized.parameters(
      ('>=', 0.97, '>= 0.97'),
      ('<=', 100_000, '<= 100,000'),
      ('in', (0.97, 1.03), '0.97..1.03'),
      (None, None, ''),
  )
  def testTargetText(self, op, target, want):
    self.assertEqual(bench.TargetText(op, target), want)

  def testUnknownComparisonIsRefused(self):
    with mock.patch.dict(bench.FIGURES, {'x': ('vs_pkb', '~', 1.0)}):
      with self.assertRaisesRegex(ValueError, "unknown comparison '~'"):
        bench.Verdict('x', 1.0)

  def testTableShowsARangeTarget(self):
    figures = dict.fromkeys(bench.FIGURES)
    figures['vs_pkb_fio_iops_ratio'] = 1.05
    figures['vs_pkb_coremark_ratio'] = 0.99
    rows = {
        line.split()[0]: line.split()
        for line in bench.Table(figures, {}).splitlines()[1:]
    }
    self.assertEqual(rows['vs_pkb_fio_iops_ratio'][1:], ['1.05', '0.97..1.03',
                                                         'MISS'])  # fmt: skip
    self.assertEqual(rows['vs_pkb_coremark_ratio'][1:], ['0.99', '0.97..1.03',
                                                         'PASS'])  # fmt: skip

  def testTableShowsErrorsAndNotRun(self):
    figures = dict.fromkeys(bench.FIGURES)
    figures['bisect_step_ratio'] = 0.61
    table = bench.Table(figures, {'overhead': 'pkb.py exited 1'})
    rows = {line.split()[0]: line for line in table.splitlines()[1:]}
    self.assertEqual(set(rows), set(bench.FIGURES))
    self.assertIn('MISS', rows['bisect_step_ratio'])
    self.assertIn('ERROR', rows['harness_s_per_run'])
    self.assertIn('pkb.py exited 1', rows['harness_pct_at_report'])
    self.assertIn('not run', rows['coremark_ratio'])


class FidelitySummaryTest(absltest.TestCase):

  def testFigureIsTheMedianPairRatio(self):
    # A burst of other work halves the third phase run: the ratio of means
    # moves, the median pair ratio does not.
    got = bench_fidelity.Summary(
        phase=(100.0, 99.0, 50.0, 98.0, 101.0),
        raw=(100.0, 100.0, 100.0, 100.0, 100.0),
        seconds=12.34,
        phase_ratio=0.896,
    )
    self.assertAlmostEqual(got['ratio'], 0.99)
    # The burst widens the interval across the target: no verdict.
    self.assertEqual(got['verdict'], 'INCONCLUSIVE')
    self.assertAlmostEqual(got['ratio_of_means'], 0.896)
    self.assertEqual(got['phase_module_ratio'], 0.896)
    self.assertEqual(got['pair_ratios'], [1.0, 0.99, 0.5, 0.98, 1.01])
    self.assertGreater(got['pair_ratio_cv_pct'], 20)
    self.assertEqual(got['seconds'], 12.3)

  def testMissAndSinglePair(self):
    got = bench_fidelity.Summary(phase=(90.0,), raw=(100.0,), seconds=1)
    self.assertAlmostEqual(got['ratio'], 0.9)
    self.assertEqual(got['verdict'], 'INCONCLUSIVE')  # no interval
    self.assertIsNone(got['pair_ratio_cv_pct'])

  def testConfidenceIntervals(self):
    got = bench_fidelity.Summary(
        phase=(93.0, 95.0, 97.0, 94.0, 96.0, 95.0), raw=(100.0,) * 6,
        seconds=1,
    )  # fmt: skip
    # The mean's, for reference: 0.95, sd 0.01414 over 6 pairs, t(5) = 2.571.
    lo, hi = got['pair_ratio_mean_ci95']
    self.assertAlmostEqual(got['pair_ratio_mean'], 0.95)
    half = 2.571 * 0.0141421 / 6**0.5
    self.assertAlmostEqual(lo, 0.95 - half, places=4)
    self.assertAlmostEqual(hi, 0.95 + half, places=4)
    self.assertIsNone(bench_fidelity.ConfidenceInterval([1.0]))
    # The verdict's: 0.93 and 0.97 trimmed, 0.94..0.96 kept (mean 0.95);
    # winsorized 0.94, 0.94, 0.95, 0.95, 0.96, 0.96 (variance 0.0004 / 5):
    # se^2 = 5 x 0.00008 / (4 x 3), t(3) = 3.182.
    self.assertAlmostEqual(got['ratio'], 0.95)
    lo, hi = got['pair_ratio_ci95']
    half = 3.182 * (5 * 0.00008 / 12) ** 0.5
    self.assertAlmostEqual(lo, 0.95 - half, places=4)
    self.assertAlmostEqual(hi, 0.95 + half, places=4)
    self.assertLess(hi, 1.0)  # below 1 beyond noise
    # Five pairs have none.
    five = bench_fidelity.Summary((93.0, 95.0, 97.0, 94.0, 96.0), (100.0,) * 5,
                                  seconds=1)  # fmt: skip
    self.assertIsNone(five['pair_ratio_ci95'])
    self.assertEqual(five['verdict'], 'INCONCLUSIVE')

  def testT975(self):
    self.assertEqual(bench_fidelity.T975(1), 12.706)
    self.assertEqual(bench_fidelity.T975(19), 2.093)
    self.assertEqual(bench_fidelity.T975(35), 2.042)  # df 30's, wider
    self.assertEqual(bench_fidelity.T975(500), 1.96)
    with self.assertRaises(ValueError):
      bench_fidelity.T975(0)

  def testNotesPrintTheIntervalsWithTheRatio(self):
    result = bench_fidelity.Summary(
        phase=(93.0, 95.0, 97.0, 94.0, 96.0, 95.0), raw=(100.0,) * 6,
        seconds=1,
    ) | {'device_kind': 'tmpfs loop (direct I/O)'}  # fmt: skip
    (note,) = bench.Notes({'fidelity': {'io': result}})
    self.assertRegex(
        note,
        r'^note: io ratio 0.9500 = 20 % trimmed mean of 6 pair ratios, 95 %'
        r' CI 0.93\d\d to 0.96\d\d; their median 0.9500, mean 0.9500 \(95 %'
        r' CI 0.93\d\d to 0.96\d\d\), CV 1.5 % \(tmpfs loop',
    )

  def testCliRefusesTooFewFioPairs(self):
    rc, _, err = _Cli(['--out', '/dev/null', '--only', 'fio',
                       '--fio-pairs', '1'])  # fmt: skip
    self.assertEqual(rc, 2)
    self.assertIn('--fio-pairs must be >= 6', err)

  def testCliRefusesAWorkDirItCannotMake(self):
    rc, _, err = _Cli(['--out', '/dev/null', '--only', 'stepping',
                       '--work-dir', '/dev/null/runs'])  # fmt: skip
    self.assertEqual(rc, 2)
    self.assertIn('pkb-ext bench: --work-dir: ', err)
    self.assertIn('/dev/null/runs', err)

  def testNotesFlagNoisyFidelity(self):
    details = {
        'machine': {'cpus': 2},
        'fidelity': {
            'io': {
                'pair_ratio_cv_pct': 30.0,
                'loadavg_1m_before': 6.5,
            },  # no CI
            'net': {'pair_ratio_cv_pct': 1.0, 'loadavg_1m_before': 0.2},
            'cpu': {'error': 'RunError: x'},
        },
    }
    notes = bench.Notes(details)
    self.assertLen(notes, 1)
    self.assertIn('io pair ratios vary by 30 %', notes[0])
    self.assertIn('load average 6.5 on 2 CPUs', notes[0])

  def testNotesSplitTheOverheadRun(self):
    details = {
        'overhead': {
            'wall_s': 400.4,
            'measured_tool_s': 300.2,
            'all_tool_s': 350.0,
            'harness_s': 50.4,
            'harness_pct': 12.46,
            'overhead_pct': 25.03,
            'fixed_costs': {
                'phases': {'cpu': {'harness_s': 10.04, 'ssh_commands': 12}},
                'outside_phases': {'harness_s': 20.0, 'ssh_commands': 30},
            },
            'at_report': {'tool_s': 9000.0, 'harness_share_pct': 0.556},
        }
    }
    self.assertEqual(
        bench.Notes(details),
        [
            (
                'note: smoke run 400 s, measured tool runs 300 s, all tool runs'
                ' 350 s: harness 50.4 s (12.5 % of the smoke run; overhead_pct'
                ' 25.0)'
            ),
            (
                'note: harness seconds/ssh commands per phase: cpu 10.0 s/12'
                ' ssh, outside phases 20.0 s/30 ssh'
            ),
            (
                "note: at the report's settings the same tool runs take 9,000"
                " s: harness 0.56 % (an upper bound: the smoke run's step and"
                ' test counts)'
            ),
        ],
    )
    self.assertEqual(bench.Notes({'overhead': {'error': 'x'}}), [])


class EvidenceVerdictTest(parameterized.TestCase):

  @parameterized.parameters(
      ('vs_pkb_coremark_ratio', 1.288, [0.713, 1.814], 'INCONCLUSIVE'),
      ('vs_pkb_coremark_ratio', 1.0, [0.98, 1.02], 'PASS'),
      ('vs_pkb_coremark_ratio', 1.1, [1.05, 1.15], 'MISS'),
      ('netperf_rr_ratio', 0.99, [0.962, 1.01], 'INCONCLUSIVE'),
      ('netperf_rr_ratio', 0.99, [0.975, 1.01], 'PASS'),
      ('vs_pkb_harness_s_ratio', 1.009, [0.98, 1.04], 'INCONCLUSIVE'),
      ('vs_pkb_harness_s_ratio', 1.009, [1.001, 1.02], 'MISS'),
      ('calibrate_ratio', 1.0, None, 'INCONCLUSIVE'),  # no interval
  )
  def testPairedFiguresAreJudgedByTheirInterval(self, figure, value, ci,
                                                want):  # fmt: skip
    self.assertEqual(bench.Verdict(figure, value, {'ci95': ci}), want)

  @parameterized.parameters(
      ({'a': 'PASS', 'b': '-', 'c': 'n/a'}, {}, 0),
      ({'a': 'PASS', 'b': 'INCONCLUSIVE'}, {}, 4),
      ({'a': 'MISS', 'b': 'INCONCLUSIVE'}, {}, 3),
      ({'a': 'MISS'}, {'fio': 'x'}, 1),
  )
  def testExitStatus(self, verdicts, errors, want):
    self.assertEqual(bench.ExitStatus(verdicts, errors), want)

  def testTableShowsTheEvidence(self):
    figures = dict.fromkeys(bench.FIGURES)
    figures['calibrate_ratio'] = 1.002
    evidence = {'calibrate_ratio': {'ci95': [0.99, 1.01], 'pairs': 8,
                                    'pairs_used': 6,
                                    'flagged_pairs': [3, 4]}}  # fmt: skip
    (row,) = [
        line
        for line in bench.Table(figures, {}, evidence).splitlines()
        if line.startswith('calibrate_ratio')
    ]
    self.assertRegex(
        row, r'1.002 +0.97..1.03  PASS  \(CI 0.99..1.01, 6 of 8 pairs \(2'
        r' flagged\)\)$'
    )  # fmt: skip


_ORDER_SEED = 11


def _Rates(ratios):
  """Calibrate's run figures, in call order, giving these pair ratios.

  The sitting's run order with --order-seed _ORDER_SEED says which runs
  first in each pair; B is 100.
  """
  order = bench_sitting.Sitting(
      'in', (0.97, 1.03), 1, bench_sitting.Policy(order_seed=_ORDER_SEED)
  )
  calls = []
  for i, ratio in enumerate(ratios):
    pair = [100.0 * ratio, 100.0]
    calls += pair[::-1] if order.RawFirst(i) else pair
  return calls


class CalibrateVerdictTest(parameterized.TestCase):
  """`--only calibrate` end to end, with constructed run figures."""

  def setUp(self):
    super().setUp()
    self.out = self.create_tempfile().full_path

  def _Bench(self, ratios, *argv):
    # No pair is flagged: the machine's other work must not decide here.
    with (
        mock.patch.object(bench_calibrate, 'Iterations', return_value=1000),
        mock.patch.object(bench_calibrate, 'Rate', side_effect=_Rates(ratios)),
    ):
      rc, out, err = _Cli([
          '--out', self.out, '--only', 'calibrate', '--interference-max',
          '1e9', '--order-seed', str(_ORDER_SEED), *argv,
      ])  # fmt: skip
    with open(self.out) as f:
      return rc, out, err, json.load(f)

  @parameterized.named_parameters(
      ('inside', [1.0, 1.002, 0.998, 1.001, 1.0, 0.999], 'PASS', 0),
      ('outside', [1.10, 1.102, 1.098, 1.101, 1.1, 1.099], 'MISS', 3),
      ('across', [0.95, 1.05, 0.96, 1.04, 1.0, 1.01], 'INCONCLUSIVE', 4),
      # The vs_pkb CoreMark pairs: 1.288, a MISS by value; three
      # pairs have no interval.
      ('issue_coremark', [1.472, 1.031, 1.288], 'INCONCLUSIVE', 4),
  )
  def testVerdictExitStatusAndJson(self, ratios, verdict, status):
    rc, out, _, doc = self._Bench(
        ratios, '--pairs', str(len(ratios)), '--time-cap', '0'
    )
    self.assertEqual(rc, status)
    details = doc['details']
    self.assertEqual(details['verdicts']['calibrate_ratio'], verdict)
    self.assertEqual(details['exit_status'], status)
    evidence = details['evidence']['calibrate_ratio']
    self.assertEqual(evidence['pairs'], len(ratios))
    self.assertEqual(evidence['pairs_used'], len(ratios))
    want = bench_sitting.TrimmedInterval(ratios)
    if want is None:
      self.assertIsNone(evidence['ci95'])
    else:
      self.assertSequenceAlmostEqual(evidence['ci95'], want, places=4)
    self.assertAlmostEqual(
        doc['calibrate_ratio'], statistics.fmean(sorted(ratios)[1:-1])
    )
    self.assertRegex(
        out, rf'calibrate_ratio .* 0.97..1.03  {verdict}  \((no )?CI'
    )
    interference = details['calibrate']['interference']
    self.assertLen(interference, len(ratios))
    for note in interference:
      self.assertGreaterEqual(set(note), {'loadavg_1m', 'other_cpu_s',
                                          'steal_s', 'ours_cpu_s',
                                          'other_share', 'flagged'})  # fmt: skip

  def testPairsAreAddedUntilDecided(self):
    ratios = [0.95, 1.05, 1.0] + [1.0, 1.001, 0.999] * 9
    rc, out, _, doc = self._Bench(ratios, '--pairs', '3')
    self.assertEqual(rc, 0)
    evidence = doc['details']['evidence']['calibrate_ratio']
    self.assertEqual(evidence['stop_reason'], 'decided')
    self.assertGreater(evidence['pairs'], 3)
    self.assertLess(evidence['pairs'], len(ratios))
    self.assertNotIn('no more pairs', out)

  def testThePairCapLeavesItInconclusive(self):
    rc, out, _, doc = self._Bench([0.9, 1.1] * 5, '--pairs', '3',
                                  '--max-pairs', '8')  # fmt: skip
    self.assertEqual(rc, 4)
    evidence = doc['details']['evidence']['calibrate_ratio']
    self.assertEqual(evidence['pairs'], 8)
    self.assertEqual(evidence['stop_reason'], 'pair cap (8)')
    self.assertIn('calibrate_ratio: no more pairs after 8: reached the pair'
                  ' cap (8)', out)  # fmt: skip

  @parameterized.parameters(
      (['--max-pairs', '5'], '--max-pairs must be >= 6'),
      (['--time-cap', '-1'], '--time-cap must be >= 0'),
      (['--interference-max', '0'], '--interference-max > 0'),
      (['--hog-at-pair', '-2'], '--hog-at-pair and --hog-cpus'),
      (['--hog-seconds', '0'], '--hog-seconds and --calibrate-seconds'),
      (['--time-cap', 'nan'], 'must be finite numbers'),
  )
  def testBadSittingOptionsAreUsageErrors(self, argv, message):
    path = os.path.join(self.create_tempdir().full_path, 'b.json')
    rc, out, err = _Cli(['--out', path, '--only', 'calibrate', *argv])
    self.assertEqual(rc, 2)
    self.assertEqual(err.count('\n'), 1, err)
    self.assertIn(message, err)
    self.assertEqual(out, '')
    self.assertFalse(os.path.exists(path))


class LocalCloudOursTest(parameterized.TestCase):

  @parameterized.parameters(
      ('ssh', 'ssh -A -p 22 pkb@10.9.8.2 -2 -o ControlPersist=30m', True),
      ('ssh', 'ssh: /tmp/x/ssh_connections/10.9.8.2 [mux]', True),
      ('ssh', 'ssh -p 22 pkb@10.9.8.20 true', False),  # not a host's address
      ('ssh', 'ssh 10.9.8.3 true', True),
      ('sshd', 'sshd: pkb@10.9.8.2', False),
  )
  def testSshToTheHostsIsOurs(self, comm, cmdline, want):
    self.assertEqual(
        bench.IsSshTo(comm, cmdline, {'10.9.8.2', '10.9.8.3'}), want
    )


class CalibrateForRealTest(absltest.TestCase):

  def testAShortSittingWithAHog(self):
    out = self.create_tempfile().full_path
    rc, text, _ = _Cli(['--out', out, '--only', 'calibrate', '--pairs', '4',
                        '--max-pairs', '6', '--calibrate-seconds', '0.2',
                        '--hog-at-pair', '2', '--hog-seconds', '0.6',
                        '--hog-cpus', '1'])  # fmt: skip
    with open(out) as f:
      doc = json.load(f)
    details = doc['details']
    verdict = details['verdicts']['calibrate_ratio']
    self.assertEqual(rc, {'PASS': 0, 'MISS': 3, 'INCONCLUSIVE': 4}[verdict])
    self.assertNotEqual(verdict, 'MISS')  # identical runs never differ
    hog = details['evidence']['calibrate_ratio']['hog']
    self.assertEqual(hog['started_in_pair'], 2)
    self.assertIn('summary', hog)
    notes = details['calibrate']['interference']
    self.assertTrue(notes[1]['flagged'], notes[1])  # the hog's pair
    self.assertIn(2, details['calibrate']['flagged_pairs'])
    self.assertIn('CPU hog started in pair 2', text)
    self.assertIn('flagged for interference', text)


class RunTest(absltest.TestCase):

  def setUp(self):
    super().setUp()
    self.out = self.create_tempfile().full_path

  def _Read(self):
    with open(self.out) as f:
      return json.load(f)

  def testSteppingForRealWritesEveryKey(self):
    rc, out, _ = _Cli(['--out', self.out, '--only', 'stepping'])
    doc = self._Read()
    verdicts = doc['details']['verdicts']
    self.assertEqual(rc, 3 if 'MISS' in verdicts.values() else 0)
    self.assertEqual(doc['details']['exit_status'], rc)
    self.assertEqual(set(doc), _KEYS | {'details'})
    stepping = doc['details']['stepping']
    self.assertAlmostEqual(
        doc['bisect_step_ratio'],
        stepping['bisect_steps'] / stepping['linear_steps'],
    )
    self.assertIsNone(doc['fio_iops_ratio'])
    self.assertEqual(doc['details']['parts'], ['stepping'])
    verdict = doc['details']['verdicts']['bisect_step_ratio']
    self.assertIn(verdict, ('PASS', 'MISS'))
    self.assertRegex(out, rf'bisect_step_ratio .* {verdict}')
    drifting = stepping['drifting']
    self.assertTrue(drifting['probe_agrees'])
    self.assertAlmostEqual(
        doc['tpcc_minutes_ratio_sim'],
        drifting['minutes']['probe'] / drifting['minutes']['linear'],
    )
    verdict = doc['details']['verdicts']['tpcc_minutes_ratio_sim']
    self.assertIn(verdict, ('PASS', 'MISS'))
    self.assertRegex(out, rf'tpcc_minutes_ratio_sim .* <= 0.4  {verdict}')
    self.assertIsNone(doc['tpcc_search_minutes_ratio'])  # tpcc_edge's
    self.assertRegex(out, r'ndjson_samples_per_s +not run +>= 100,000  n/a')

  def testProbeDisagreeingWithLinearIsAnErrorNotAFigure(self):
    def Disagrees(out):
      del out
      return {
          'bisect_step_ratio': 0.5,
          'tpcc_search_minutes_ratio': None,
          'drifting': {
              'probe_agrees': False,
              'disagreements': {'probe': [(3000, 9, 3250)]},
          },
      }

    with mock.patch.object(bench_stepping, 'Run', side_effect=Disagrees):
      rc, out, _ = _Cli(['--out', self.out, '--only', 'stepping'])
    self.assertEqual(rc, 1)
    doc = self._Read()
    self.assertIsNone(doc['tpcc_minutes_ratio_sim'])
    self.assertIn('1 simulated machine', doc['details']['errors']['stepping'])
    self.assertRegex(out, r'tpcc_minutes_ratio_sim +ERROR')

  def testPlanFiguresAndAMissingMatrixRecord(self):
    rows = {
        'vm_hours_per_row': 11.5, 'vm_hours_per_row_report': 16.8,
    }  # fmt: skip
    empty = self.create_tempdir().full_path
    with mock.patch.object(bench_plan, 'VmHoursPerRow', return_value=rows):
      rc, out, _ = _Cli(['--out', self.out, '--only', 'plan',
                         '--matrix-out', empty])  # fmt: skip
    doc = self._Read()
    self.assertEqual(rc, 3)  # 11.5 VM-hours a row misses <= 9
    self.assertEqual(doc['vm_hours_per_row'], 11.5)
    self.assertEqual(doc['vm_hours_per_row_report'], 16.8)
    self.assertIsNone(doc['plan_wall_time_ratio'])
    self.assertIn(
        f"needs a matrix run's record in {empty}",
        doc['details']['plan']['wall_time'],
    )
    self.assertRegex(out, r'vm_hours_per_row +11.5 +<= 9  MISS')

  def testPlanWallTimeRatioFromARecord(self):
    record = self.create_tempdir()
    record.create_file('pkb-runs.tsv', 'repeated\tcpu,io,net\t3\t3\t200\n')
    record.create_file('pkb-args', '--cloud_report_fio_runtime_s=2\n\n')
    record.create_file('flags', '--cloud_report_coremark_runs=1\n')
    runs, flagfile, args = bench_plan.ReadRecord(record.full_path)
    (run,) = runs
    self.assertEqual(
        bench_plan.PlanArgv(run, flagfile, args)[3:],
        ['--run_processes=3', '--run_stage_iterations=3',
         f'--flagfile={flagfile}', '--cloud_report_fio_runtime_s=2',
         '--cloud_report_phases=cpu,io,net'],
    )  # fmt: skip
    with mock.patch.object(
        bench_plan, 'Predict', return_value={'wall_s': 220.0}
    ) as predict:
      result = bench_plan.WallTimeRatio(record.full_path)
    predict.assert_called_once_with(bench_plan.PlanArgv(run, flagfile, args))
    self.assertAlmostEqual(result['plan_wall_time_ratio'], 1.1)

  def testPublishWithFewSamplesLeavesThe100kFigureOut(self):
    def Fake(out, n):
      print('spooled', file=out)
      return {'ndjson_samples_per_s': 1234.0, 'bq_publish_100k_s': 9.0,
              'samples': n}  # fmt: skip

    with mock.patch.object(bench_publish, 'Run', side_effect=Fake) as run:
      rc, _, _ = _Cli(['--out', self.out, '--only', 'publish',
                       '--samples', '500'])  # fmt: skip
    self.assertEqual(rc, bench.EXIT_MISS)  # 1,234 samples/s: below target
    self.assertEqual(run.call_args.kwargs['n'], 500)
    doc = self._Read()
    self.assertEqual(doc['ndjson_samples_per_s'], 1234.0)
    self.assertIsNone(doc['bq_publish_100k_s'])

  def testAFailingPartIsAnErrorNotAFigure(self):
    with mock.patch.object(
        bench_publish, 'Run', side_effect=RuntimeError('emulator missing')
    ):
      rc, out, err = _Cli(['--out', self.out, '--only', 'publish'])
    self.assertEqual(rc, 1)
    doc = self._Read()
    self.assertIsNone(doc['ndjson_samples_per_s'])
    self.assertIn('emulator missing', doc['details']['errors']['publish'])
    self.assertIn('publish: RuntimeError: emulator missing', err)
    self.assertIn('ERROR', out)

  def testLocalPartsNeedAnUpCloudOrRoot(self):
    state = '/nonexistent/pkb-ext-bench-test-state'
    with (
        mock.patch.object(bench.LocalCloud, 'Healthy', return_value=False),
        mock.patch.object(os, 'geteuid', return_value=1000),
    ):
      rc, _, err = _Cli(['--out', self.out, '--only', 'overhead',
                         '--state-dir', state])  # fmt: skip
    self.assertEqual(rc, 1)
    self.assertIn('needs root', err)
    self.assertIsNone(self._Read()['harness_s_per_run'])

  def testACloudUpOnAnOsImageIsRefusedBeforeAnyRun(self):
    from pkb_ext.local import layout  # pylint: disable=g-import-not-at-top

    state = '/nonexistent/pkb-ext-bench-test-state'
    plan = layout.Plan(state_dir=state, image='debian12')
    with (
        mock.patch.object(bench.LocalCloud, 'Healthy', return_value=True),
        mock.patch('pkb_ext.local.cloud.PlanOf', return_value=plan),
        mock.patch.object(bench_fidelity, 'Measure') as measure,
    ):
      rc, _, err = _Cli(['--out', self.out, '--only', 'netperf',
                         '--state-dir', state])  # fmt: skip
    self.assertEqual(rc, 1)
    self.assertIn(f'the local cloud at {state} is up on image debian12', err)
    self.assertIn('pkb-ext local down', err)
    measure.assert_not_called()
    self.assertIsNone(self._Read()['netperf_rr_ratio'])

  def testBadStateDirIsAnErrorOfTheLocalParts(self):
    rc, _, err = _Cli(['--out', self.out, '--only', 'fio,stepping',
                       '--state-dir', '/tmp/x'])  # fmt: skip
    self.assertEqual(rc, 1)
    self.assertIn('fio: local cloud /tmp/x: --state-dir /tmp/x', err)
    doc = self._Read()
    self.assertIsNone(doc['fio_iops_ratio'])
    self.assertIsNotNone(doc['bisect_step_ratio'])


if __name__ == '__main__':
  absltest.main()


class RawNetperfTest(absltest.TestCase):
  """The raw side of net fidelity is the phase's measurement typed by hand."""

  def testTheRawCommandAsksForTheReportsSelectors(self):
    # pylint: disable=g-import-not-at-top,import-outside-toplevel
    from pkb_ext.suite.net import stages as network
    from pkb_ext_dev import fidelity

    command = fidelity.RawRrCommand('netperf', '10.0.0.2', network.Params())
    self.assertIn(' -t TCP_RR ', command)
    (selectors,) = [w for w in command.split() if 'P50_LATENCY' in w]
    self.assertEqual(tuple(selectors.split(',')), network.REPORT_RR_SELECTORS)
    self.assertIn(' -O ', command)

  def testTheRateIsReadFromARealCapture(self):
    # pylint: disable=g-import-not-at-top,import-outside-toplevel
    from pkb_ext_dev import fidelity
    from perfkitbenchmarker import errors

    path = os.path.join(
        os.path.dirname(__file__), '..', 'data', 'netperf', 'tcp_rr_human.txt'
    )
    with open(path) as f:
      self.assertEqual(fidelity.RawRrRate(f.read()), 56218.227)
    with self.assertRaisesRegex(errors.Benchmarks.RunError, 'raw netperf'):
      fidelity.RawRrRate('netperf: send_omni: connection refused\n')
