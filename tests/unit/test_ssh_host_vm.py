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
"""HostVm runs a command again while ssh itself fails, as PKB's VM does.

An `ssh` of the test's own, first on PATH, counts its calls and exits 255
(ssh's own failure) a given number of times before it answers.
"""

import dataclasses
import os
from unittest import mock

from absl.testing import absltest
from perfkitbenchmarker import errors

from pkb_ext_dev import ssh_host_vm


@dataclasses.dataclass
class _Host:
  ip: str = '10.0.0.2'


class _Plan:
  ssh_port = 2022
  key_file = '/nonexistent/key'

  def Host(self, name):
    del name
    return _Host()


class HostVmSshRetryTest(absltest.TestCase):

  def _Ssh(self, failures: int, then_status: int = 0) -> str:
    """Puts a fake ssh first on PATH; returns the file counting its calls."""
    bin_dir = self.create_tempdir().full_path
    calls = os.path.join(bin_dir, 'calls')
    with open(os.path.join(bin_dir, 'ssh'), 'w') as f:
      f.write(
          '#!/bin/sh\n'
          f'echo x >>{calls}\n'
          f'[ "$(wc -l <{calls})" -le {failures} ] && exit 255\n'
          f'echo answered; exit {then_status}\n'
      )
    os.chmod(os.path.join(bin_dir, 'ssh'), 0o755)
    patcher = mock.patch.dict(
        os.environ, {'PATH': bin_dir + os.pathsep + os.environ['PATH']}
    )
    patcher.start()
    self.addCleanup(patcher.stop)
    return calls

  def _Calls(self, calls: str) -> int:
    with open(calls) as f:
      return len(f.readlines())

  def testSshFailuresAreRetriedUntilTheCommandRuns(self):
    calls = self._Ssh(failures=2)
    vm = ssh_host_vm.HostVm(_Plan(), 'db1')
    stdout, _ = vm.RemoteCommand('true')
    self.assertEqual(stdout.strip(), 'answered')
    self.assertEqual(self._Calls(calls), 3)
    self.assertEqual(vm.commands, ['true'])

  def testSshFailingEveryTimeStopsAtTheRetriesAndRaises(self):
    calls = self._Ssh(failures=1000)
    vm = ssh_host_vm.HostVm(_Plan(), 'db1')
    with self.assertRaisesRegex(
        errors.VirtualMachine.RemoteCommandError, 'exited 255'
    ):
      vm.RemoteCommand('true')
    self.assertEqual(self._Calls(calls), ssh_host_vm.SSH_RETRIES)

  def testACommandsOwnFailureIsNotRetried(self):
    calls = self._Ssh(failures=0, then_status=1)
    vm = ssh_host_vm.HostVm(_Plan(), 'db1')
    _, _, status = vm.RemoteCommandWithReturnCode('false', ignore_failure=True)
    self.assertEqual(status, 1)
    self.assertEqual(self._Calls(calls), 1)


if __name__ == '__main__':
  absltest.main()
