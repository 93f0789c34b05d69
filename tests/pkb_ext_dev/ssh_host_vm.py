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
"""A local-cloud host as a phase sees a VM: commands run over its ssh.

HostVm(plan, 'db1') has what the net phase and its fidelity measurement use
(name, internal_ip, machine_type, RemoteCommand), without PKB's static VM
machinery, e.g. for `pkb-ext bench`:

  plan = pkb_ext.local.cloud.PlanOf(pkb_ext.local.layout.DefaultStateDir())
  fidelity.MeasureNetwork(HostVm(plan, 'client'), HostVm(plan, 'db1'))

The local cloud installs nothing, so Install and InstallPackages refuse.
"""

import subprocess

from perfkitbenchmarker import errors
from perfkitbenchmarker import linux_virtual_machine

from pkb_ext.local import sshd

# PKB runs a command again while ssh itself fails (exit status
# linux_virtual_machine.RETRYABLE_SSH_RETCODE), up to --ssh_retries times;
# this is that flag's default.
SSH_RETRIES = 10


class HostVm:
  """One local-cloud host; see the module docstring."""

  machine_type = 'local'

  def __init__(self, plan, name: str):
    self._plan = plan
    self.name = name
    self.internal_ip = plan.Host(name).ip
    self.ip_address = self.internal_ip
    self.commands = []

  def RemoteCommandWithReturnCode(
      self, command, ignore_failure=False, timeout=None, **kw
  ):
    del kw
    self.commands.append(command)
    for _ in range(SSH_RETRIES):  # as PKB's RemoteHostCommandWithReturnCode
      proc = subprocess.run(
          sshd.SshArgv(self._plan, self._plan.Host(self.name), command),
          capture_output=True,
          text=True,
          timeout=timeout or 600,
          check=False,
      )
      if proc.returncode != linux_virtual_machine.RETRYABLE_SSH_RETCODE:
        break
    if proc.returncode and not ignore_failure:
      raise errors.VirtualMachine.RemoteCommandError(
          f'{command!r} on {self.name} exited {proc.returncode}:'
          f' {proc.stderr.strip()}'
      )
    return proc.stdout, proc.stderr, proc.returncode

  def RemoteCommand(self, command, ignore_failure=False, timeout=None, **kw):
    stdout, stderr, _ = self.RemoteCommandWithReturnCode(
        command, ignore_failure=ignore_failure, timeout=timeout, **kw
    )
    return stdout, stderr

  def Install(self, package_name):
    raise errors.Setup.InvalidSetupError(
        f'the local cloud installs nothing ({package_name} on {self.name})'
    )

  InstallPackages = Install
