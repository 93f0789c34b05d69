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
"""Tests for cloud_report.tpcc.cockroach: its shell commands, run in sh."""

import os
import shutil
import subprocess
import tempfile
import threading
import unittest

from benchmarks.cloud_report.tpcc import cockroach
from tests import pkb_common_test_case

_PRLIMIT = shutil.which('prlimit')


def _Sh(command, prefix=(), env=None):
  """Runs command in /bin/sh as PKB's remote commands run; (status, err)."""
  proc = subprocess.run(
      [*prefix, '/bin/sh', '-c', command],
      capture_output=True,
      text=True,
      env=env,
      timeout=120,
      check=False,
  )
  return proc.returncode, proc.stderr


@unittest.skipUnless(_PRLIMIT, 'needs prlimit (util-linux)')
class OpenFilesTest(pkb_common_test_case.PkbCommonTestCase):
  """RaiseOpenFilesCommand: raise the shell's limit, or say why not."""

  def testTheWorkloadNeedsTwoConnectionsPerWarehouseAndHeadroom(self):
    self.assertEqual(cockroach.WorkloadOpenFiles(2500), 2 * 2500 + 1024)

  def testWithinTheHardLimitTheSoftLimitIsRaised(self):
    command = cockroach.RaiseOpenFilesCommand(400, 'the test')
    status, err = _Sh(
        f'{command} && test "$(ulimit -Sn)" -ge 400',
        prefix=(_PRLIMIT, '--nofile=256:1024'),
    )
    self.assertEqual((status, err), (0, ''))

  def testAboveTheHardLimitWithoutSudoItFailsWithTheMark(self):
    command = cockroach.RaiseOpenFilesCommand(4000, 'the test')
    status, err = _Sh(
        f'{command} && echo ran',
        prefix=(_PRLIMIT, '--nofile=256:1024'),
        env={'PATH': tempfile.mkdtemp()},  # no sudo to call
    )
    self.assertEqual(status, 1)
    self.assertTrue(err.startswith(cockroach.OPEN_FILES_MARK), err)
    self.assertIn('the test needs 4000 open files; the soft limit is 256', err)


class StopTest(pkb_common_test_case.PkbCommonTestCase):
  """StopCommand ends the node its pid file names, and nothing else."""

  def testStopsTheNodeByItsPidFile(self):
    """TERM to the pid in the file; another process is left; runs twice."""
    store = self.create_tempdir().full_path
    # pylint: disable-next=consider-using-with
    node = subprocess.Popen(['sleep', '300'])
    # pylint: disable-next=consider-using-with
    other = subprocess.Popen(['sleep', '300'])
    self.addCleanup(other.kill)
    self.addCleanup(node.kill)
    # Reaped as soon as it ends, as a node's parent (its init) would.
    reaper = threading.Thread(target=node.wait)
    reaper.start()
    with open(cockroach.PidFile(store), 'w', encoding='utf-8') as f:
      f.write(f'{node.pid}\n')
    self.assertEqual(_Sh(cockroach.StopCommand(store)), (0, ''))
    reaper.join(timeout=10)
    self.assertIsNotNone(node.returncode)
    self.assertIsNone(other.poll())
    self.assertFalse(os.path.exists(cockroach.PidFile(store)))
    self.assertEqual(_Sh(cockroach.StopCommand(store)), (0, ''))  # again


if __name__ == '__main__':
  unittest.main()
