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
"""Tests for benchmarks.cloud_report.tpcc.stepping: plans, strategies, pass rules."""

import functools
import io

from absl.testing import absltest
from absl.testing import parameterized

from pkb_ext_dev import bench_stepping
from benchmarks.cloud_report.tpcc import pass_rules
from benchmarks.cloud_report.tpcc import stepping

REPORT = pass_rules.RULES['report']


def _Plan(strategy, start=2500, step=250, maximum=5000):
  return stepping.Plan(strategy, start, step, maximum)


def _Run(strategy, capacity, **plan):
  curve = bench_stepping.CapacityCurve(capacity=capacity)
  return stepping.Search(_Plan(strategy, **plan), REPORT, curve.Measure)


class PlanTest(parameterized.TestCase):

  def testLevels(self):
    self.assertEqual(
        _Plan('linear').levels,
        (2500, 2750, 3000, 3250, 3500, 3750, 4000, 4250, 4500, 4750, 5000),
    )
    self.assertEqual(_Plan('linear', 1, 3, 8).levels, (1, 4, 7))

  @parameterized.parameters(
      ('random', 1, 1, 2, 'unknown stepping strategy'),
      ('linear', 0, 1, 2, 'start and step must be >= 1'),
      ('linear', 1, 0, 2, 'start and step must be >= 1'),
      ('bisect', 5, 1, 4, 'maximum 4 is below the start 5'),
  )
  def testInvalid(self, strategy, start, step, maximum, message):
    with self.assertRaisesRegex(ValueError, message):
      stepping.Plan(strategy, start, step, maximum)


class LinearTest(absltest.TestCase):

  def testStopsAtFirstFailure(self):
    plan = _Plan('linear')
    self.assertEqual(stepping.Next(plan, []).next_level, 2500)
    d = stepping.Next(plan, [(2500, True), (2750, True)])
    self.assertEqual((d.next_level, d.max_passing), (3000, 2750))
    d = stepping.Next(plan, [(2500, True), (2750, True), (3000, False)])
    self.assertEqual((d.next_level, d.max_passing), (None, 2750))

  def testStartFails(self):
    d = stepping.Next(_Plan('linear'), [(2500, False)])
    self.assertEqual((d.next_level, d.max_passing), (None, None))

  def testAllPass(self):
    plan = _Plan('linear', 1, 1, 3)
    d = stepping.Next(plan, [(1, True), (2, True), (3, True)])
    self.assertEqual((d.next_level, d.max_passing), (None, 3))

  def testRejectsForeignHistory(self):
    with self.assertRaisesRegex(stepping.SearchStateError, 'in order'):
      stepping.Next(_Plan('linear'), [(2500, True), (3750, True)])

  def testRejudgedHistoryEndsAtItsFirstFailure(self):
    d = stepping.Next(
        _Plan('linear'), [(2500, True), (2750, False), (3000, True)]
    )
    self.assertEqual((d.next_level, d.max_passing), (None, 2500))


class BisectTest(absltest.TestCase):

  def testBisectsThenConfirmsTheEdge(self):
    result = _Run('bisect', capacity=3125)  # edge 3000
    self.assertEqual(result.max_passing, 3000)
    self.assertEqual(
        [(s.level, s.passed, s.confirm) for s in result.steps],
        [
            (3750, False, False),  # the middle of the grid first
            (3000, True, False),
            (3500, False, False),
            (3250, False, False),
            (3000, True, True),  # the edge's pass predates 3250's failure
        ],
    )

  def testNoConfirmWhenTheLastRunPassedAtTheEdge(self):
    result = _Run('bisect', capacity=3625)  # edge 3500
    self.assertEqual([s.level for s in result.steps][-1], 3500)
    self.assertFalse(any(s.confirm for s in result.steps))

  def testFailedConfirmationMovesTheEdgeDown(self):
    plan = _Plan('bisect')
    history = [(3750, False), (3000, True), (3500, False), (3250, False)]
    d = stepping.Next(plan, history)
    self.assertEqual((d.next_level, d.confirm), (3000, True))
    d = stepping.Next(plan, history + [(3000, False)])
    self.assertEqual((d.next_level, d.max_passing), (2750, None))

  def testStartFails(self):
    result = _Run('bisect', capacity=2400)
    self.assertIsNone(result.max_passing)
    self.assertEqual([s.level for s in result.steps], [3750, 3000, 2750, 2500])

  def testRejectsOffGridLevels(self):
    with self.assertRaisesRegex(stepping.SearchStateError, 'not on the grid'):
      stepping.Next(_Plan('bisect'), [(2600, True)])


class CapacityCurveTest(parameterized.TestCase):
  """Bisect against linear on simulated machines (pkb_ext_dev.bench_stepping)."""

  @parameterized.parameters(range(2400, 5400, 50))
  def testSameMaxAsLinear(self, capacity):
    linear = _Run('linear', capacity)
    bisect = _Run('bisect', capacity)
    self.assertEqual(bisect.max_passing, linear.max_passing)
    expected = None if capacity < 2500 else min(5000, capacity // 250 * 250)
    self.assertEqual(linear.max_passing, expected)

  def testFewerStepsForAHighEdge(self):
    linear = _Run('linear', 4400)
    bisect = _Run('bisect', 4400)
    self.assertEqual((linear.max_passing, bisect.max_passing), (4250, 4250))
    self.assertEqual(linear.steps_used, 9)
    self.assertEqual([s.level for s in bisect.steps], [3750, 4500, 4250])

  def testMoreStepsWhenTheEdgeIsTheStart(self):
    self.assertEqual(_Run('linear', 2600).steps_used, 2)
    self.assertEqual(_Run('bisect', 2600).steps_used, 4)

  def testNoBisectionWithConfirmationNeedsFewerSteps(self):
    """Bisect's total over the grid equals the best possible decision tree."""

    @functools.cache
    def Best(lo, hi, last_passed_at_lo):
      # Total steps over the edges lo..hi-1 (those >= 0), choosing each probe
      # optimally, with the confirmation rule of stepping.Next.
      edges = hi - max(lo, 0)
      if hi - lo <= 1:
        return 0 if lo < 0 or last_passed_at_lo else edges
      return min(
          edges + Best(m, hi, True) + Best(lo, m, False)
          for m in range(lo + 1, hi)
      )

    totals = bench_stepping.Run(io.StringIO())
    self.assertEqual(totals['bisect_steps'], Best(-1, 11, False))

  def testFewerStepsOverTheRange(self):
    out = io.StringIO()
    totals = bench_stepping.Run(out)
    self.assertEqual(totals['machines'], 11)
    self.assertLess(totals['bisect_steps'], totals['linear_steps'])
    self.assertLess(totals['bisect_step_ratio'], 1.0)
    self.assertIn('bisect_step_ratio', out.getvalue())


def _Split(full_edge, probe_edge):
  """(measure, probe_measure, runs): full runs pass up to full_edge, short
  probes up to probe_edge (p90 1 s below, 9 s above)."""
  runs = []

  def Make(edge, kind):
    def Measure(level, iteration):
      runs.append((kind, level, iteration))
      return stepping.Measurement({'p90_ms': 1000.0 if level <= edge else 9e3})

    return Measure

  return Make(full_edge, 'full'), Make(probe_edge, 'probe'), runs


def _ProbeSearch(full_edge, probe_edge, **plan):
  measure, probe_measure, runs = _Split(full_edge, probe_edge)
  result = stepping.Search(
      _Plan('probe', **plan), REPORT, measure, probe_measure=probe_measure
  )
  return result, runs


def _Trail(result):
  return [
      (s.kind, s.level, s.passed) for s in result.steps
  ]  # fmt: skip


class ProbeTest(parameterized.TestCase):

  def testShortProbePassesWhereTheFullRunFails(self):
    # Short runs pass up to 3500, full-length ones only up to 3000 (latency
    # creeps up over a full run): the probes' edge is 3500, and the search
    # goes on at full length from there down to linear's answer.
    result, runs = _ProbeSearch(full_edge=3000, probe_edge=3500)
    measure, _, _ = _Split(3000, 3500)
    linear = stepping.Search(_Plan('linear'), REPORT, measure)
    self.assertEqual(linear.max_passing, 3000)
    self.assertEqual(result.max_passing, linear.max_passing)
    self.assertEqual(
        _Trail(result),
        [
            ('probe', 3750, False),  # the middle of the grid first
            ('probe', 3000, True),
            ('probe', 3500, True),  # passes short; fails at full length
            ('confirmation', 3500, False),  # disagrees with its probe
            ('confirmation', 3250, False),
            ('confirmation', 3000, True),  # a full pass next to a full fail
        ],
    )
    probe_passed = {s.level for s in result.steps if s.probe and s.passed}
    full_failed = {s.level for s in result.steps if s.confirm and not s.passed}
    self.assertEqual(probe_passed & full_failed, {3500})
    self.assertEqual(result.probes_used, 3)
    self.assertEqual(
        [kind for kind, _, _ in runs], ['probe'] * 3 + ['full'] * 3
    )
    self.assertIs(result.step_at_max, result.steps[-1])

  def testShortProbeFailsWhereTheFullRunPasses(self):
    # Warm-up: probes fail above 2750, full runs pass up to 3250.
    result, _ = _ProbeSearch(full_edge=3250, probe_edge=2750)
    self.assertEqual(result.max_passing, 3250)
    self.assertEqual(
        [(k, l, p) for k, l, p in _Trail(result) if k == 'confirmation'],
        [
            ('confirmation', 2750, True),
            ('confirmation', 3000, True),
            ('confirmation', 3250, True),
            ('confirmation', 3500, False),
        ],
    )

  def testAgreeingProbesNeedTwoFullRuns(self):
    result, _ = _ProbeSearch(full_edge=4250, probe_edge=4250)
    self.assertEqual(result.max_passing, 4250)
    self.assertEqual(
        [(s.level, s.passed) for s in result.steps if not s.probe],
        [(4250, True), (4500, False)],
    )

  def testMaximumNeedsOneFullRun(self):
    result, _ = _ProbeSearch(full_edge=9999, probe_edge=9999)
    self.assertEqual(result.max_passing, 5000)
    self.assertEqual(
        [(s.level, s.passed) for s in result.steps if not s.probe],
        [(5000, True)],
    )

  def testNothingPassesEndsOnAFullFailAtTheStart(self):
    result, _ = _ProbeSearch(full_edge=0, probe_edge=0)
    self.assertIsNone(result.max_passing)
    self.assertEqual(
        [(s.level, s.passed) for s in result.steps if not s.probe],
        [(2500, False)],
    )
    self.assertIsNone(result.step_at_max)

  def testProbePassAloneIsNotTheAnswer(self):
    # Every probe passes, every full run fails: no probe's pass counts.
    result, _ = _ProbeSearch(full_edge=0, probe_edge=9999)
    self.assertIsNone(result.max_passing)
    self.assertEqual(result.steps[-1].level, 2500)
    self.assertFalse(result.steps[-1].passed)

  @parameterized.parameters(
      (full, probe)
      for full in (0, 2500, 2750, 3500, 4750, 5000)
      for probe in (0, 2500, 3000, 4000, 5000)
  )
  def testSameAnswerAsLinear(self, full, probe):
    measure, _, _ = _Split(full, probe)
    linear = stepping.Search(_Plan('linear'), REPORT, measure)
    result, _ = _ProbeSearch(full, probe)
    self.assertEqual(result.max_passing, linear.max_passing)

  def testSmallGrid(self):
    result, _ = _ProbeSearch(full_edge=5, probe_edge=5, start=5, maximum=5)
    self.assertEqual(result.max_passing, 5)
    self.assertEqual(
        _Trail(result), [('probe', 5, True), ('confirmation', 5, True)]
    )

  def testNeedsAProbeCallback(self):
    with self.assertRaisesRegex(ValueError, 'probe_measure'):
      stepping.Search(_Plan('probe'), REPORT, lambda l, i: None)

  def testOtherStrategiesRefuseProbeHistory(self):
    with self.assertRaisesRegex(
        stepping.SearchStateError, 'probes at \\[3750\\]'
    ):
      stepping.Next(_Plan('bisect'), [(3750, True, True)])

  def testResumesFromLinearHistoryAtFullLength(self):
    d = stepping.Next(_Plan('probe'), [(2500, True), (2750, True)])
    self.assertEqual((d.next_level, d.probe, d.confirm), (3000, False, True))

  def testStepJsonKeepsTheKind(self):
    result, _ = _ProbeSearch(full_edge=3000, probe_edge=3500)
    again = [stepping.Step.FromJson(s.ToJson()) for s in result.steps]
    self.assertEqual(again, list(result.steps))


class DriftingMachineTest(absltest.TestCase):
  """probe against linear on machines that drift (pkb_ext_dev.bench_stepping)."""

  def testProbeGivesLinearsAnswerOnEveryMachine(self):
    passed_short_failed_full = 0
    for edge, machine in bench_stepping.DriftingMachines(per_edge=2):
      linear = bench_stepping.SearchMachine('linear', machine)
      probe = bench_stepping.SearchMachine('probe', machine)
      self.assertEqual(probe.max_passing, linear.max_passing, (edge, machine))
      full = {s.level: s.passed for s in probe.steps if not s.probe}
      passed_short_failed_full += sum(
          1
          for s in probe.steps
          if s.probe and s.passed and full.get(s.level) is False
      )
    self.assertGreater(passed_short_failed_full, 0)

  def testShortRunsSeeTheFastEarlyMinutes(self):
    machine = bench_stepping.MachineWithEdge(
        3100, creep=0.12, warmup=0.0, noise=0.0, seed='x'
    )
    self.assertLess(machine.P90Ms(3000, 30), 5000)
    self.assertGreater(machine.P90Ms(3150, 30), 5000)
    self.assertLess(machine.P90Ms(3150, 5), 5000)  # a probe would pass
    short, full = machine.Run(3150, 5), machine.Run(3150, 30)
    self.assertLess(short.metrics['p90_ms'], 5000)
    self.assertGreater(full.metrics['p90_ms'], 5000)

  def testRunsAreSeededPerLevelLengthAndRepeat(self):
    _, machine = bench_stepping.DriftingMachines(per_edge=1)[3]
    self.assertEqual(machine.Run(3000, 5), machine.Run(3000, 5))
    self.assertNotEqual(
        machine.Run(3000, 5, 0).metrics, machine.Run(3000, 5, 1).metrics
    )

  def testMinutesRatio(self):
    out = io.StringIO()
    totals = bench_stepping.Run(out, per_edge=2)
    drifting = totals['drifting']
    self.assertTrue(drifting['probe_agrees'])
    self.assertEqual(
        totals['tpcc_search_minutes_ratio'], drifting['minutes_ratio']
    )
    self.assertLess(drifting['minutes']['probe'], drifting['minutes']['linear'])
    self.assertEqual(
        drifting['minutes']['linear'], drifting['steps']['linear'] * 31
    )
    self.assertIn('tpcc_search_minutes_ratio', out.getvalue())


class PassRuleTest(parameterized.TestCase):

  def testReport(self):
    self.assertEqual(
        REPORT.Judge({'p90_ms': 4999.9}),
        (True, 'pass (report): p90 4999.9 ms < 5000 ms'),
    )
    self.assertEqual(
        REPORT.Judge({'p90_ms': 5000.0}),
        (False, 'fail (report): p90 5000 ms >= 5000 ms'),
    )

  def testCrlScriptNeedsBoth(self):
    rule = pass_rules.RULES['crl_script']
    self.assertTrue(rule.Judge({'efficiency_pct': 85.1, 'p95_ms': 9999})[0])
    passed, reason = rule.Judge({'efficiency_pct': 85.0, 'p95_ms': 15569.3})
    self.assertFalse(passed)
    self.assertEqual(
        reason,
        'fail (crl_script): efficiency 85% <= 85%; p95 15569.3 ms >= 10000 ms',
    )

  def testMissingMetricFails(self):
    passed, reason = REPORT.Judge({'p95_ms': 10.0})
    self.assertFalse(passed)
    self.assertIn('no p90_ms measured', reason)

  def testCustom(self):
    rule = pass_rules.ParseRule('custom:p90_ms<250, tpmc>100')
    self.assertTrue(rule.Judge({'p90_ms': 249, 'tpmc': 101})[0])
    self.assertFalse(rule.Judge({'p90_ms': 249, 'tpmc': 100})[0])

  @parameterized.parameters(
      ('fast', 'unknown pass rule'),
      ('custom:p90<5', "unknown metric 'p90'"),
      ('custom:p90_ms=5', 'cannot read'),
      ('custom:p90_ms<fast', 'cannot read'),
      ('custom:', 'cannot read'),
  )
  def testBadRules(self, spec, message):
    with self.assertRaisesRegex(ValueError, message):
      pass_rules.ParseRule(spec)

  def testErrorIsNoVerdict(self):
    step = stepping.Judge(
        REPORT, 10, stepping.Measurement({}, error='go-tpc panicked: x')
    )
    self.assertFalse(step.passed)
    self.assertEqual(step.reason, 'no result: go-tpc panicked: x')
    self.assertEqual(stepping.Verdicts([step]), [])


def _Flaky(curve_measure, no_result):
  """A measure callback whose run at each level in no_result (level ->
  count) produces no result that many times first."""
  left = dict(no_result)
  runs = []

  def Measure(level, iteration):
    runs.append(level)
    if left.get(level):
      left[level] -= 1
      return stepping.Measurement({}, error=f'crashed at {level}')
    return curve_measure(level, iteration)

  return Measure, runs


class NoResultTest(parameterized.TestCase):

  @parameterized.parameters(stepping.LINEAR, stepping.BISECT)
  def testRetriedLevelGivesTheSameMax(self, strategy):
    plan = stepping.Plan(strategy, 2500, 250, 5000)
    curve = bench_stepping.CapacityCurve(capacity=3625)
    clean = stepping.Search(plan, REPORT, curve.Measure)
    measure, runs = _Flaky(curve.Measure, {clean.steps[1].level: 1})
    flaky = stepping.Search(plan, REPORT, measure, no_result_retries=1)
    self.assertEqual(flaky.max_passing, clean.max_passing)
    self.assertEqual(flaky.steps_used, clean.steps_used + 1)
    self.assertEqual(runs[1], runs[2])  # the same level again
    self.assertEqual(flaky.steps[1].reason, f'no result: crashed at {runs[1]}')

  def testGivesUpAfterTheRetriesAndEndsThere(self):
    plan = stepping.Plan(stepping.LINEAR, 2500, 250, 5000)
    curve = bench_stepping.CapacityCurve(capacity=3625)
    measure, runs = _Flaky(curve.Measure, {2750: 5})
    result = stepping.Search(plan, REPORT, measure, no_result_retries=2)
    self.assertEqual(runs, [2500, 2750, 2750, 2750])
    self.assertEqual(result.max_passing, 2500)
    self.assertEqual(result.end, stepping.END_NO_RESULT)
    self.assertFalse(result.failed_without_result)
    self.assertEqual([s.gave_up for s in result.steps],
                     [False, False, False, True])  # fmt: skip
    self.assertEqual(result.edge_step, result.steps[-1])
    self.assertEqual(
        result.steps[-1].reason,
        'no result: crashed at 2750 (given up after its retries: the level'
        ' fails)',
    )
    self.assertEqual(result.step_at_max, result.steps[0])

  def testALatencyFailureEndsAsFail(self):
    plan = stepping.Plan(stepping.LINEAR, 2500, 250, 5000)
    curve = bench_stepping.CapacityCurve(capacity=3625)
    result = stepping.Search(plan, REPORT, curve.Measure)
    self.assertEqual(result.end, stepping.END_FAIL)
    self.assertEqual(result.edge_step.level, 3750)
    self.assertFalse(result.failed_without_result)

  def testFirstLevelWithoutResultFailsThePhase(self):
    plan = stepping.Plan(stepping.LINEAR, 2500, 250, 5000)
    curve = bench_stepping.CapacityCurve(capacity=3625)
    measure, runs = _Flaky(curve.Measure, {2500: 9})
    result = stepping.Search(plan, REPORT, measure, no_result_retries=1)
    self.assertEqual(runs, [2500, 2500])
    self.assertIsNone(result.max_passing)
    self.assertTrue(result.failed_without_result)

  @parameterized.parameters(stepping.BISECT, stepping.PROBE)
  def testGiveUpCountsAsAFailureInEveryStrategy(self, strategy):
    plan = stepping.Plan(strategy, 2500, 250, 5000)
    curve = bench_stepping.CapacityCurve(capacity=4100)

    # A workload that dies at 4,000 and above: the edge is 3,750.
    def Measure(level, iteration):
      if level >= 4000:
        return stepping.Measurement({}, error='connection reset by peer')
      return curve.Measure(level, iteration)

    result = stepping.Search(
        plan, REPORT, Measure, no_result_retries=1, probe_measure=Measure
    )
    self.assertEqual(result.max_passing, 3750)
    self.assertEqual(result.end, stepping.END_NO_RESULT)
    self.assertEqual(result.edge_step.level, 4000)

  def testEndIsMaxLevelWhenEveryLevelPasses(self):
    plan = stepping.Plan(stepping.LINEAR, 2500, 250, 3000)
    curve = bench_stepping.CapacityCurve(capacity=9000)
    result = stepping.Search(plan, REPORT, curve.Measure)
    self.assertEqual(
        (result.max_passing, result.end, result.edge_step),
        (3000, stepping.END_MAX_LEVEL, None),
    )

  def testNegativeRetriesRefused(self):
    plan = stepping.Plan(stepping.LINEAR, 2500, 250, 5000)
    with self.assertRaisesRegex(ValueError, 'negative'):
      stepping.Search(plan, REPORT, lambda l, i: None, no_result_retries=-1)


class NoThroughputTest(parameterized.TestCase):
  """A step that completed no transaction fails under every rule."""

  # cockroach workload's summary when nothing completed: every figure 0.
  EMPTY = {k: 0.0 for k in pass_rules.METRIC_KEYS} | {'elapsed_s': 1800.0}

  @parameterized.parameters(
      'report', 'crl_script', 'custom:p90_ms<5000', 'custom:errors<1'
  )
  def testEmptySummaryFails(self, rule):
    step = stepping.Judge(
        pass_rules.ParseRule(rule), 3000, stepping.Measurement(self.EMPTY)
    )
    self.assertFalse(step.passed)
    self.assertIn('no throughput: tpmC 0', step.reason)
    self.assertTrue(step.verdict)  # a verdict, not a no-result retry

  def testEveryLatencyZeroFails(self):
    metrics = dict(self.EMPTY, tpmc=100.0, efficiency_pct=90.0)
    step = stepping.Judge(REPORT, 3000, stepping.Measurement(metrics))
    self.assertFalse(step.passed)
    self.assertIn('every latency 0 ms', step.reason)

  def testSomeLatencyZeroStillPasses(self):
    metrics = dict(self.EMPTY, tpmc=100.0, efficiency_pct=90.0, max_ms=40.0)
    step = stepping.Judge(REPORT, 3000, stepping.Measurement(metrics))
    self.assertTrue(step.passed, step.reason)

  def testLinearSearchStopsAtTheEmptyStep(self):
    plan = stepping.Plan(stepping.LINEAR, 2500, 250, 3500)
    curve = bench_stepping.CapacityCurve(capacity=9000)

    def Measure(level, iteration):
      if level == 3000:
        return stepping.Measurement(self.EMPTY)
      return curve.Measure(level, iteration)

    result = stepping.Search(plan, REPORT, Measure)
    self.assertEqual(result.max_passing, 2750)
    self.assertEqual([s.level for s in result.steps], [2500, 2750, 3000])
    self.assertEqual(result.end, stepping.END_FAIL)


if __name__ == '__main__':
  absltest.main()
