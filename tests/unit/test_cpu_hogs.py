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
"""Tests for pkb_ext_dev.load: the bounded CPU hogs the local tier runs under."""

import os
import time

from absl.testing import absltest
from pkb_ext_dev import load


class CpuHogsTest(absltest.TestCase):

  def testHogsBurnCpuAndStopByPid(self):
    # Under a loaded machine a hog gets what the scheduler leaves it: wait
    # (bounded) until it has burnt 0.3 CPU s instead of a fixed second, and
    # leave the starvation check to testAStarvedHogFailsTheCheck.
    hogs = load.CpuHogs(1, seconds=60, min_share=0.01).Start()
    (pid,) = hogs.pids
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and load.Stat(pid)[1] < 0.3:
      time.sleep(0.1)
    self.assertTrue(hogs.Alive())
    report = hogs.Stop()
    self.assertGreater(report.cpu_s[0], 0.2)
    self.assertGreater(report.busy_share, 0.01)
    self.assertEqual(report.ended_early, ())
    self.assertFalse(os.path.exists(f'/proc/{pid}'))
    self.assertIn('1 CPU hog(s)', report.Summary())

  def testAHogThatEndedEarlyFailsTheCheck(self):
    hogs = load.CpuHogs(1, seconds=0.3).Start()
    time.sleep(1.5)
    with self.assertRaisesRegex(load.HogError, r'ended before Stop .*0 s'):
      hogs.Stop()
    self.assertLen(hogs.report.ended_early, 1)
    self.assertGreater(hogs.report.cpu_s[0], 0.0)  # a zombie keeps its times

  def testAStarvedHogFailsTheCheck(self):
    # No process gets 1.5 cores' worth from one thread: the check must fire.
    hogs = load.CpuHogs(1, seconds=60, min_share=1.5).Start()
    time.sleep(0.5)
    with self.assertRaisesRegex(load.HogError, 'less than 150% of a core'):
      hogs.Stop()

  def testNoHogsIsANoOp(self):
    with load.CpuHogs(0, seconds=1) as hogs:
      self.assertEqual(hogs.pids, ())
    self.assertEqual(hogs.report.cpu_s, ())
    self.assertEqual(hogs.report.busy_share, 0.0)

  def testTheBoundIsChecked(self):
    with self.assertRaises(ValueError):
      load.CpuHogs(1, seconds=0)
    with self.assertRaises(ValueError):
      load.CpuHogs(-1, seconds=1)


if __name__ == '__main__':
  absltest.main()
