# Copyright 2026 PerfKitBenchmarker Authors. All rights reserved.
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
"""Tests for the TPC-C stepping search of the 2021 Cloud Report."""

import unittest

from benchmarks.cloud_report.tpcc import pass_rules
from benchmarks.cloud_report.tpcc import stepping
from tests import pkb_common_test_case

_REPORT = pass_rules.RULES['report']


def _Measure(capacity):
  """A machine whose p90 stays under 5 s up to `capacity` warehouses."""

  def Measure(level, iteration):
    del iteration
    p90 = 1000.0 if level <= capacity else 9000.0
    return stepping.Measurement(
        metrics={
            'tpmc': 12.0 * min(level, capacity),
            'efficiency_pct': 95.0,
            'p50_ms': p90 / 2,
            'p90_ms': p90,
            'p95_ms': p90 * 1.2,
            'p99_ms': p90 * 2,
            'max_ms': p90 * 4,
        }
    )

  return Measure


def _Search(strategy, capacity, **kwargs):
  plan = stepping.Plan(strategy, 2500, 250, 5000)
  return stepping.Search(plan, _REPORT, _Measure(capacity), **kwargs)


class PlanTest(pkb_common_test_case.PkbCommonTestCase):
  """The warehouse grid of a search."""

  def testReportGrid(self):
    self.assertEqual(
        stepping.Plan('linear', 2500, 250, 3500).levels,
        (2500, 2750, 3000, 3250, 3500),
    )

  def testInvalidPlans(self):
    with self.assertRaisesRegex(ValueError, 'unknown stepping strategy'):
      stepping.Plan('random', 1, 1, 2)
    with self.assertRaisesRegex(ValueError, 'maximum 4 is below the start 5'):
      stepping.Plan('bisect', 5, 1, 4)


class SearchTest(pkb_common_test_case.PkbCommonTestCase):
  """The search strategies against simulated machines."""

  def testLinearStopsAtTheFirstFailingStep(self):
    result = _Search('linear', capacity=3000)
    self.assertEqual(result.max_passing, 3000)
    self.assertEqual(
        [(s.level, s.passed) for s in result.steps],
        [(2500, True), (2750, True), (3000, True), (3250, False)],
    )
    self.assertEqual(
        result.steps[-1].reason, 'fail (report): p90 9000 ms >= 5000 ms'
    )

  def testBisectFindsWhatLinearFinds(self):
    for capacity in range(2400, 5300, 125):
      linear = _Search('linear', capacity)
      bisect = _Search('bisect', capacity)
      self.assertEqual(bisect.max_passing, linear.max_passing, capacity)
    self.assertIsNone(_Search('bisect', 2400).max_passing)
    self.assertEqual(_Search('linear', 9999).max_passing, 5000)

  def testNextRejectsAForeignHistory(self):
    plan = stepping.Plan('linear', 2500, 250, 5000)
    with self.assertRaisesRegex(stepping.SearchStateError, 'in order'):
      stepping.Next(plan, [(2500, True), (3750, True)])

  def testResumesFromItsStore(self):
    """A second search reads the saved steps and runs none again."""

    class Store:
      saved = []

      def Load(self):
        return list(self.saved)

      def Save(self, steps):
        self.saved = [stepping.Step.FromJson(s.ToJson()) for s in steps]

    store = Store()
    measured = []

    def Measure(level, iteration):
      measured.append(level)
      return _Measure(3000)(level, iteration)

    plan = stepping.Plan('linear', 2500, 250, 5000)
    first = stepping.Search(plan, _REPORT, Measure, store=store)
    self.assertEqual(first.max_passing, 3000)
    measured.clear()
    again = stepping.Search(plan, _REPORT, Measure, store=store)
    self.assertEqual(measured, [])
    self.assertEqual(again.max_passing, 3000)
    self.assertEqual(again.resumed_steps, 4)


class PassRuleTest(pkb_common_test_case.PkbCommonTestCase):
  """The named pass rules of a TPC-C step."""

  def testCrlScriptRuleNeedsEfficiencyAndP95(self):
    rule = pass_rules.RULES['crl_script']
    passed, _ = rule.Judge({'efficiency_pct': 86.0, 'p95_ms': 9000.0})
    self.assertTrue(passed)
    passed, reason = rule.Judge({'efficiency_pct': 84.0, 'p95_ms': 9000.0})
    self.assertFalse(passed)
    self.assertIn('efficiency', reason)

  def testUnknownRule(self):
    with self.assertRaisesRegex(ValueError, 'unknown pass rule'):
      pass_rules.ParseRule('fastest')


if __name__ == '__main__':
  unittest.main()
