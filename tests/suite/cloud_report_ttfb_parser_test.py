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
"""Tests for the 2021 Cloud Report's object storage (TTFB) parser."""

import unittest

from pkb_ext.suite.object_storage import parser as ttfb
from tests import pkb_common_test_case


class TtfbTest(pkb_common_test_case.PkbCommonTestCase):

  def testPercentileInterpolatesBetweenRanks(self):
    self.assertEqual(ttfb.Percentile([10, 20], 50), 15)
    self.assertAlmostEqual(ttfb.Percentile(list(range(1, 1001)), 99.9), 999.001)


if __name__ == '__main__':
  unittest.main()
