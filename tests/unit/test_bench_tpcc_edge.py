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
"""Tests for pkb_ext_dev.bench_tpcc_edge's pure parts and the bench part.

The searches here run on machines whose p90 at each level is given, so the
edge, each search's steps and the ratios are known by construction; the
real runs are tests/matrix/test_tpcc_edge.py's and `pkb-ext bench --only
tpcc_edge`'s.
"""

import contextlib
import io
import json
import os
from unittest import mock

from absl.testing import absltest

from benchmarks.cloud_report.tpcc import params as tpcc_params
from benchmarks.cloud_report.tpcc import pass_rules
from benchmarks.cloud_report.tpcc import stepping
from pkb_ext_dev import bench
from pkb_ext_dev import bench_tpcc_edge

GRID = bench_tpcc_edge.Grid(
    warehouses=6, full_s=15, probe_s=3, ramp_s=1, limit_ms=100
)


def _Searches(edge: int, grid=GRID, probe_edge=None, wall=(16.5, 4.5)):
  """linear and probe on a machine passing up to `edge` (probes: probe_edge)."""

  def Measure(full: bool):
    top = edge if full or probe_edge is None else probe_edge

    def Run(level, iteration):
      del iteration
      avg = 50.0 if level <= top else 150.0
      return stepping.Measurement(
          {'avg_ms': avg, 'p90_ms': 2 * avg, 'tpmc': 100.0},
          extra={'wall_s': wall[not full]},
      )

    return Run

  rule = pass_rules.ParseRule(grid.rule)
  return {
      s: stepping.Search(
          stepping.Plan(s, 1, 1, grid.warehouses),
          rule,
          Measure(True),
          probe_measure=Measure(False),
      )
      for s in bench_tpcc_edge.STRATEGIES
  }


class GridTest(absltest.TestCase):

  def testTheRuleIsACustomRuleThePhaseAccepts(self):
    rule = pass_rules.ParseRule(GRID.rule)
    self.assertEqual(GRID.rule, 'custom:avg_ms<100')
    self.assertEqual(tpcc_params.RuleProblems(rule), [])
    self.assertTrue(rule.Judge({'avg_ms': 99.9})[0])
    self.assertFalse(rule.Judge({'avg_ms': 100.0})[0])

  def testThreadsGrowWithTheTypesCores(self):
    flags = GRID.Flags(0.4, '/bin/go-tpc')
    self.assertEqual(
        flags['cloud_report_tpcc_gotpc_threads_per_warehouse'],
        GRID.threads_per_warehouse_per_core * 0.4,
    )
    self.assertEqual(flags['cloud_report_tpcc_max_warehouses'], 6)
    self.assertEqual(flags['cloud_report_tpcc_duration'], '15s')
    self.assertEqual(flags['cloud_report_tpcc_probe_duration'], '3s')
    self.assertEqual(flags['cloud_report_tpcc_engine'], 'postgres')


class ReportMeansTest(absltest.TestCase):

  def testEachReportsNewOrderMean(self):
    # A real one-process step's output (tests/data/tpcc/PROVENANCE.md).
    data = os.path.join(
        os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
        'data/tpcc/gotpc_v1.0.9_pg15_2wh_4threads_4500ms_interval1s.txt',
    )
    with open(data) as f:
      self.assertEqual(
          bench_tpcc_edge.ReportMeans(f.read()), [7.2, 5.2, 4.6, 5.0]
      )


class CompareTest(absltest.TestCase):

  def testAnEdgeNearTheTopOfTheGrid(self):
    # linear: 1..6, failing at 6 (6 full steps); probe: probes at 4 (pass),
    # 6 (fail), 5 (pass), then 5 passes and 6 fails at full length.
    c = bench_tpcc_edge.Compare(GRID, _Searches(5))
    self.assertEqual(c['problems'], [])
    self.assertEqual(c['linear']['trail'], 'F1+ F2+ F3+ F4+ F5+ F6-')
    self.assertEqual(c['probe']['trail'], 'p4+ p6- p5+ F5+ F6-')
    # A step's time: 1 s ramp, its measured time, half a 1 s report
    # interval.
    self.assertEqual(c['linear']['nominal_s'], 6 * 16.5)
    self.assertEqual(c['probe']['nominal_s'], 3 * 4.5 + 2 * 16.5)
    self.assertAlmostEqual(c['minutes_ratio'], 46.5 / 99)
    self.assertAlmostEqual(c['wall_ratio'], (3 * 4.5 + 2 * 16.5) / (6 * 16.5))
    self.assertEqual(c['linear']['latency_ms']['F6']['avg_ms'], 150.0)
    self.assertEqual(c['linear']['latency_ms']['F6']['p90_ms'], 300.0)

  def testAnEdgeAtTheStartCostsProbeMore(self):
    c = bench_tpcc_edge.Compare(GRID, _Searches(1))
    self.assertEqual(c['problems'], [])
    self.assertGreater(c['minutes_ratio'], 1.0)

  def testNoFailureInTheGridIsAProblem(self):
    c = bench_tpcc_edge.Compare(GRID, _Searches(6))
    self.assertLen(c['problems'], 2)
    self.assertIn('not inside the grid 1..6', c['problems'][0])
    self.assertIn('max_level', c['problems'][0])

  def testNoPassIsAProblem(self):
    c = bench_tpcc_edge.Compare(GRID, _Searches(0))
    self.assertIn('max passing None', c['problems'][0])

  def testProbesThatMisleadAreOverruledAndCost(self):
    # Probes pass everywhere; the full runs fail above 3: probe still finds
    # linear's maximum, at full length, and pays for it.
    results = _Searches(3, probe_edge=6)
    c = bench_tpcc_edge.Compare(GRID, results)
    self.assertEqual(c['problems'], [])
    self.assertEqual(c['probe']['max_passing'], 3)
    self.assertEqual(c['probe']['trail'], 'p4+ p6+ F6- F5- F4- F3+')

  def testDifferentMaximaAreAProblem(self):
    results = _Searches(3)
    results['probe'] = _Searches(4)['probe']
    c = bench_tpcc_edge.Compare(GRID, results)
    self.assertEqual(c['problems'], ['linear found 3, probe 4'])


class SummaryTest(absltest.TestCase):

  def _Compared(self, name, edge):
    return bench_tpcc_edge.Compare(GRID, _Searches(edge)) | {'type': name}

  def testTheFigureIsTheLargestRatio(self):
    a, b = self._Compared('local-s', 5), self._Compared('local-m', 4)
    s = bench_tpcc_edge.Summary([a, b])
    self.assertEqual(s['problems'], [])
    self.assertEqual(
        s['tpcc_search_minutes_ratio'],
        max(a['minutes_ratio'], b['minutes_ratio']),
    )
    self.assertEqual(s['types'], ['local-s', 'local-m'])

  def testAnyProblemLeavesNoFigure(self):
    bad = {'type': 'local-l', 'problems': ['RuntimeError: up failed']}
    s = bench_tpcc_edge.Summary([self._Compared('local-s', 5), bad])
    self.assertIsNone(s['tpcc_search_minutes_ratio'])
    self.assertEqual(s['problems'], ['local-l: RuntimeError: up failed'])

  def testRunReportsATypeThatRaised(self):
    good = self._Compared('local-s', 5) | {'leftovers': []}

    def Fake(name, grid, log, work_dir):
      del grid, log, work_dir
      if name == 'local-m':
        raise RuntimeError('up failed')
      return good

    out = io.StringIO()
    with mock.patch.object(bench_tpcc_edge, 'RunOnType', side_effect=Fake):
      result = bench_tpcc_edge.Run(['local-s', 'local-m'], out=out)
    self.assertIsNone(result['tpcc_search_minutes_ratio'])
    self.assertEqual(result['problems'], ['local-m: RuntimeError: up failed'])
    self.assertIn('local-m  RuntimeError: up failed', out.getvalue())
    self.assertIn('p4+ p6- p5+ F5+ F6-', out.getvalue())


class BenchPartTest(absltest.TestCase):

  def setUp(self):
    super().setUp()
    self.out = self.create_tempfile().full_path

  def _Cli(self, argv):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
      rc = bench.Main(['--out', self.out, '--only', 'tpcc_edge', *argv])
    with open(self.out) as f:
      return rc, out.getvalue(), err.getvalue(), json.load(f)

  def testTheMeasuredFigureAndItsNote(self):
    s = bench_tpcc_edge.Compare(GRID, _Searches(5)) | {'type': 'local-s'}
    with (
        mock.patch.object(os, 'geteuid', return_value=0),
        mock.patch.object(bench_tpcc_edge, 'RunOnType', return_value=s) as run,
    ):
      rc, out, _, doc = self._Cli(['--tpcc-edge-types', 'local-s'])
    self.assertEqual(rc, 0)
    self.assertEqual(run.call_args.args[0], 'local-s')
    self.assertAlmostEqual(doc['tpcc_search_minutes_ratio'], 46.5 / 99)
    self.assertIsNone(doc['tpcc_minutes_ratio_sim'])
    self.assertRegex(
        out,
        r'tpcc_search_minutes_ratio +0.4697 +<= 0.5  PASS  \(measured:'
        r' local-s 0.470\)',
    )

  def testAProblemIsAnErrorNotAFigure(self):
    s = bench_tpcc_edge.Compare(GRID, _Searches(6)) | {'type': 'local-s'}
    with (
        mock.patch.object(os, 'geteuid', return_value=0),
        mock.patch.object(bench_tpcc_edge, 'RunOnType', return_value=s),
    ):
      rc, out, _, doc = self._Cli(['--tpcc-edge-types', 'local-s'])
    self.assertEqual(rc, 1)
    self.assertIsNone(doc['tpcc_search_minutes_ratio'])
    self.assertIn('not inside the grid', doc['details']['errors']['tpcc_edge'])
    self.assertRegex(out, r'tpcc_search_minutes_ratio +ERROR')

  def testNeedsRoot(self):
    with (
        mock.patch.object(os, 'geteuid', return_value=1000),
        mock.patch.object(bench_tpcc_edge, 'RunOnType') as run,
    ):
      rc, _, err, _ = self._Cli([])
    self.assertEqual(rc, 1)
    self.assertIn('run the bench as root', err)
    run.assert_not_called()

  def testUnknownTypeIsAUsageError(self):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
      rc = bench.Main(['--out', self.out, '--only', 'tpcc_edge',
                       '--tpcc-edge-types', 'local-s,local-x'])  # fmt: skip
    self.assertEqual(rc, 2)
    self.assertIn('--tpcc-edge-types local-s,local-x', err.getvalue())


if __name__ == '__main__':
  absltest.main()
