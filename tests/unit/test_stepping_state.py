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
"""Tests for benchmarks.cloud_report.tpcc.stepping's saved state: resume without repeating."""

import json
import os

from absl.testing import absltest

from pkb_ext_dev import bench_stepping
from benchmarks.cloud_report.tpcc import pass_rules
from benchmarks.cloud_report.tpcc import stepping
from pkb_ext.suite.tpcc import stepping_state

FINGERPRINT = {'engine': 'postgres', 'duration_s': 1800, 'warehouses': 5000}


class _Interrupted(Exception):
  pass


class _Recorder:
  """A measure callback over a simulated curve that can fail on a call."""

  def __init__(self, capacity, interrupt_at=None):
    self.curve = bench_stepping.CapacityCurve(capacity=capacity)
    self.calls = []
    self.interrupt_at = interrupt_at

  def __call__(self, level, iteration):
    if self.interrupt_at is not None and len(self.calls) == self.interrupt_at:
      raise _Interrupted(f'PKB died running {level}')
    self.calls.append((level, iteration))
    return self.curve.Measure(level)


class StateStoreTest(absltest.TestCase):

  def setUp(self):
    super().setUp()
    self.dir = self.create_tempdir().full_path
    self.path = os.path.join(self.dir, 'state.json')
    self.plan = stepping.Plan('linear', 2500, 250, 5000)
    self.rule = pass_rules.RULES['report']

  def _Store(self, run_id='run1', fingerprint=None):
    return stepping_state.StateStore(
        self.path, run_id, fingerprint or FINGERPRINT
    )

  def testResumesWithoutRepeatingSteps(self):
    first = _Recorder(capacity=3400, interrupt_at=3)
    with self.assertRaises(_Interrupted):
      stepping.Search(self.plan, self.rule, first, self._Store())
    self.assertEqual(first.calls, [(2500, 1), (2750, 2), (3000, 3)])
    with open(self.path) as f:
      saved = json.load(f)
    self.assertEqual([s['level'] for s in saved['steps']], [2500, 2750, 3000])
    self.assertEqual(saved['run_id'], 'run1')

    second = _Recorder(capacity=3400)
    result = stepping.Search(self.plan, self.rule, second, self._Store())
    self.assertEqual(second.calls, [(3250, 4), (3500, 5)])
    self.assertEqual(result.max_passing, 3250)
    self.assertEqual(result.resumed_steps, 3)
    self.assertEqual(result.steps_used, 5)

    third = _Recorder(capacity=3400)
    again = stepping.Search(self.plan, self.rule, third, self._Store())
    self.assertEqual(third.calls, [])  # finished: nothing is re-run
    self.assertEqual(again.steps, result.steps)

  def testAGivenUpEdgeIsKeptOnResume(self):
    def Crashes(level, iteration):
      if level == 2750:
        return stepping.Measurement({}, error='go-tpc exited 2')
      return _Recorder(3400).curve.Measure(level, iteration)

    first = stepping.Search(self.plan, self.rule, Crashes, self._Store())
    self.assertEqual((first.max_passing, first.end), (2500, 'no_result'))
    with open(self.path) as f:
      saved = json.load(f)['steps']
    self.assertEqual([(s['level'], s['error'], s['gave_up']) for s in saved],
                     [(2500, None, False),
                      (2750, 'go-tpc exited 2', True)])  # fmt: skip
    again = _Recorder(capacity=3400)
    result = stepping.Search(self.plan, self.rule, again, self._Store())
    self.assertEqual(again.calls, [])  # the search had ended
    self.assertEqual(result.steps, first.steps)

  def testResumeRetriesALowestLevelThatGaveNoResult(self):
    def Crashes(level, iteration):
      del level, iteration
      return stepping.Measurement({}, error='go-tpc exited 2')

    first = stepping.Search(self.plan, self.rule, Crashes, self._Store())
    self.assertTrue(first.failed_without_result)
    fixed = _Recorder(capacity=3400)
    result = stepping.Search(self.plan, self.rule, fixed, self._Store())
    self.assertEqual(fixed.calls[0], (2500, 2))  # tried again
    self.assertEqual(result.max_passing, 3250)
    self.assertEqual(result.resumed_steps, 1)
    self.assertFalse(result.steps[0].gave_up)

  def testSavedStepsAreRejudgedWithTheCurrentRule(self):
    stepping.Search(self.plan, self.rule, _Recorder(3400), self._Store())
    strict = pass_rules.ParseRule('custom:p90_ms<400')
    rec = _Recorder(3400)
    result = stepping.Search(self.plan, strict, rec, self._Store())
    self.assertEqual(rec.calls, [])
    self.assertEqual(result.max_passing, None)  # 2500's p90 is above 400 ms
    self.assertTrue(result.steps[0].reason.startswith('fail (custom:'))

  def testAnotherRunIdStartsOver(self):
    stepping.Search(self.plan, self.rule, _Recorder(3400), self._Store('a'))
    rec = _Recorder(2600)
    result = stepping.Search(self.plan, self.rule, rec, self._Store('b'))
    self.assertEqual(rec.calls, [(2500, 1), (2750, 2)])
    self.assertEqual(result.max_passing, 2500)

  def testAnotherFingerprintIsRefused(self):
    stepping.Search(self.plan, self.rule, _Recorder(3400), self._Store())
    store = self._Store(fingerprint=FINGERPRINT | {'duration_s': 60})
    with self.assertRaisesRegex(stepping.SearchStateError, 'use a new run_uri'):
      stepping.Search(self.plan, self.rule, _Recorder(3400), store)

  def testStrategyChangeIsCheckedAgainstTheHistory(self):
    bisect = stepping.Plan('bisect', 2500, 250, 5000)
    stepping.Search(bisect, self.rule, _Recorder(3400), self._Store())
    with self.assertRaisesRegex(stepping.SearchStateError, 'in order'):
      stepping.Search(self.plan, self.rule, _Recorder(3400), self._Store())

  def testProbeSearchResumesWithoutRepeatingSteps(self):
    plan = stepping.Plan('probe', 2500, 250, 5000)
    # Full runs pass up to 3250, probes (a higher curve) up to 3500.
    full, probes = _Recorder(3400), _Recorder(3600, interrupt_at=2)
    clean = stepping.Search(
        plan, self.rule, _Recorder(3400), probe_measure=_Recorder(3600)
    )
    with self.assertRaises(_Interrupted):
      stepping.Search(
          plan, self.rule, full, self._Store(), probe_measure=probes
      )
    self.assertEqual(probes.calls, [(3750, 1), (3000, 2)])
    with open(self.path) as f:
      saved = json.load(f)['steps']
    self.assertEqual([s['probe'] for s in saved], [True, True])

    full, probes = _Recorder(3400), _Recorder(3600)
    result = stepping.Search(
        plan, self.rule, full, self._Store(), probe_measure=probes
    )
    self.assertEqual(probes.calls, [(3500, 3)])  # 3750 and 3000 not re-run
    self.assertEqual(full.calls, [(3500, 4), (3250, 5)])
    self.assertEqual(result.resumed_steps, 2)
    self.assertEqual(result.steps, clean.steps)
    self.assertEqual(result.max_passing, 3250)
    self.assertEqual(
        [s.kind for s in result.steps],
        ['probe', 'probe', 'probe', 'confirmation', 'confirmation'],
    )

  def testCorruptFile(self):
    with open(self.path, 'w') as f:
      f.write('{"version": 1, "steps": [')
    with self.assertRaisesRegex(stepping.SearchStateError, 'cannot read'):
      self._Store().Load()

  def testAtomicWriteLeavesNoTemporaryFile(self):
    stepping.Search(self.plan, self.rule, _Recorder(2900), self._Store())
    self.assertEqual(os.listdir(self.dir), ['state.json'])


if __name__ == '__main__':
  absltest.main()
