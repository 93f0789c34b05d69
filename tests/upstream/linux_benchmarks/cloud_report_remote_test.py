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
"""Tests for the 2021 Cloud Report's remote command helpers."""

import unittest

from absl.testing import parameterized

from benchmarks.cloud_report import remote
from tests import pkb_common_test_case


class LastIntegerTest(pkb_common_test_case.PkbCommonTestCase):
  """The count a SQL client printed last, or None."""

  @parameterized.parameters(
      ('count\n60\n', 60),  # cockroach sql --format=csv
      ('3500\n', 3500),  # a bare count
      ('  7  \n\n', 7),
      ('', None),
      ('count\n', None),
      ('60\nERROR: lost\n', None),
      ('-3\n', None),
      ('1.5\n', None),
  )
  def testLastInteger(self, output, want):
    self.assertEqual(remote.LastInteger(output), want)


if __name__ == '__main__':
  unittest.main()
