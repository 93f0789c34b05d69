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
"""Tests for cloud_report.tpcc.engines' judging of a step, and its params.

The step outputs are real (a 9-node CockroachDB v22.1.2 run at 3,750 active
warehouses, 720 s): what a step's output means is judged against what the
step asked for.
"""

import os
import unittest

from absl import flags
from benchmarks.cloud_report.tpcc import engines
from benchmarks.cloud_report.tpcc import params as tpcc_params
from tests import pkb_common_test_case

_RUN = os.path.join(
    os.path.dirname(__file__),
    os.pardir,
    'data',
    'cloud_report',
    'tpcc',
    'cockroach_v22.1.2_9node_8vcpu_3750wh_tail.txt',
)


def _Output():
  with open(_RUN, encoding='utf-8') as f:
    return f.read()


class ToMeasurementTest(pkb_common_test_case.PkbCommonTestCase):
  """A step's output, its exit status and what it asked for: a verdict."""

  def testACompleteRunIsAMeasurement(self):
    m = engines.ToMeasurement(_Output(), 0, 3750, 720)
    self.assertIsNone(m.error)
    self.assertEqual(m.metrics['tpmc'], 46975.0)
    self.assertEqual(m.extra['tool'], 'cockroach')

  def testWhatIsNoResult(self):
    for args, kwargs, error in (
        ((1, 3750, 720), {}, 'cockroach exited with status 1'),
        ((0, 3750, 1800), {}, 'the run ended after 720 s of 1800 s'),
        ((0, 2000, 720), {}, 'computed its efficiency over 3750 warehouses'),
        ((124, 3750, 720), {'bound_s': 900}, 'did not end within 900 s'),
    ):
      with self.subTest(error=error):
        m = engines.ToMeasurement(_Output(), *args, **kwargs)
        self.assertIn(error, m.error)
        # A bounded run's output is not read; the others keep its figures.
        self.assertEqual(bool(m.metrics), args[0] != 124)

  def testAnotherToolsOutputIsNoResult(self):
    m = engines.ToMeasurement('[Summary] NEW_ORDER - Takes(s): 1.0\n', 0, 1, 1)
    self.assertIn('not `cockroach workload run tpcc` output', m.error)


class ParamsTest(pkb_common_test_case.PkbCommonTestCase):
  """The flags' defaults are the report's; a bad duration is one line."""

  def testTheReportsDefaults(self):
    params = tpcc_params.Params()
    self.assertEqual(
        (params.plan.start, params.plan.step, params.plan.maximum),
        (2500, 250, 3500),
    )
    self.assertEqual((params.duration_s, params.ramp_s), (1800, 60))
    self.assertEqual(params.rule.name, 'report')
    self.assertGreater(params.StepTimeout(), params.duration_s)

  def testADurationIsCheckedWhenGiven(self):
    check = tpcc_params.DurationValidator('cloud_report_tpcc_duration')
    self.assertTrue(check('30m'))
    with self.assertRaisesRegex(
        flags.ValidationError, r'^--cloud_report_tpcc_duration: .*90s, 30m'
    ):
      check('30 minutes')


if __name__ == '__main__':
  unittest.main()
