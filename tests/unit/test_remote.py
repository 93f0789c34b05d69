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
"""The shared remote-output helpers, run for real where they are shell."""

import subprocess

from absl.testing import absltest
from absl.testing import parameterized

from pkb_cloud_report.benchmarks.cloud_report import remote


class LastIntegerTest(parameterized.TestCase):

  @parameterized.parameters(
      ('count\n60\n', 60),  # cockroach sql --format=csv
      ('3500\n', 3500),  # psql -tA
      ('  7  \n\n', 7),
      ('', None),
      ('count\n', None),
      ('60\nERROR: lost\n', None),
      ('-3\n', None),
      ('1.5\n', None),
  )
  def testLastInteger(self, output, want):
    self.assertEqual(remote.LastInteger(output), want)


class BoundedTest(absltest.TestCase):

  def testItEndsTheCommandsProcessGroup(self):
    command = remote.Bounded("sh -c 'sleep 31.7 & sleep 31.7; echo late'", 1)
    proc = subprocess.run(
        ['bash', '-c', command], capture_output=True, text=True, timeout=60
    )
    self.assertIn(proc.returncode, remote.TIMED_OUT)
    self.assertEqual(proc.stdout, '')
    left = subprocess.run(
        ['pgrep', '-f', '^sleep 31.7$'], capture_output=True, text=True
    )
    self.assertEqual(left.stdout, '')  # the background sleep ended too

  def testABoundBelowASecondIsRefused(self):
    with self.assertRaises(ValueError):
      remote.Bounded('true', 0)


if __name__ == '__main__':
  absltest.main()
