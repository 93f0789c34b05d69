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
"""Tests for the default bounds of the cloud report's long remote waits."""

import math
import unittest

from benchmarks.cloud_report import timeouts
from tests import pkb_common_test_case


class BoundTest(pkb_common_test_case.PkbCommonTestCase):
  """A wait's bound: its expected time plus a clamped quarter of it."""

  def testTheMarginIsAQuarterBetweenTenMinutesAndAnHour(self):
    self.assertEqual(timeouts.Bound(0), 600)
    self.assertEqual(timeouts.Bound(100), 700)
    self.assertEqual(timeouts.Bound(4000), 5000)
    self.assertEqual(timeouts.Bound(20000), 23600)
    self.assertEqual(timeouts.Bound(2400.5), 3001)  # rounded up

  def testANonDurationIsRefused(self):
    for bad in (-1, float('nan'), float('inf')):
      with self.assertRaisesRegex(ValueError, 'not a duration'):
        timeouts.Bound(bad)


class ExpectedSecondsTest(pkb_common_test_case.PkbCommonTestCase):
  """The expected times the bounds are taken of."""

  def testImportAtTheDefaultAndAGivenRate(self):
    # 20,000 warehouses in 2.5 hours on 6 nodes, by construction.
    self.assertAlmostEqual(timeouts.ImportSeconds(20000, 6), 2.5 * 3600)
    self.assertEqual(timeouts.ImportSeconds(100, 2, 50), 3600)
    with self.assertRaisesRegex(ValueError, 'node'):
      timeouts.ImportSeconds(100, 0)
    with self.assertRaisesRegex(ValueError, 'per node-hour'):
      timeouts.ImportSeconds(100, 1, float('nan'))

  def testTheFillEndsAtTheDiskOrTheJobFilesRuntime(self):
    self.assertEqual(timeouts.FillSeconds(500), 2000)  # at FILL_MBPS
    self.assertEqual(timeouts.FillSeconds(500, 100), 5000)
    self.assertEqual(timeouts.FillSeconds(500, limit_s=122), 122)
    self.assertEqual(timeouts.FillSeconds(1, limit_s=122), 4)
    with self.assertRaisesRegex(ValueError, 'disk size'):
      timeouts.FillSeconds(-1)
    with self.assertRaisesRegex(ValueError, 'fill rate'):
      timeouts.FillSeconds(1, 0)
    with self.assertRaisesRegex(ValueError, 'fill time limit'):
      timeouts.FillSeconds(1, limit_s=math.inf)

  def testAStepIsItsRampThenItsDuration(self):
    self.assertEqual(timeouts.StepSeconds(60, 1800), 1860.0)


if __name__ == '__main__':
  unittest.main()
