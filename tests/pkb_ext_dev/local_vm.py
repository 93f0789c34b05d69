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
"""A stand-in VM that runs commands on this machine, for phase tests.

LocalVm has the parts of PKB's VM interface that phases use (RemoteCommand,
RobustRemoteCommand, RemoteCommandWithReturnCode, Install, PushFile,
PushDataFile, RemoteCopy, NumCpusForBenchmark, ...) and runs every command
with bash in a private working directory, so real tools (fio, netperf,
CoreMark) run for real without ssh. It records each command in `commands`.

Use it where the local cloud is not needed; the local tier uses real hosts.
"""

import os
import shutil
import subprocess
import tempfile

from perfkitbenchmarker import data
from perfkitbenchmarker import errors


class LocalVm:
  """Runs a phase's commands locally; see module docstring."""

  CLOUD = 'Local'
  OS_TYPE = 'debian12'
  BASE_OS_TYPE = 'debian'

  def __init__(
      self,
      name='local-vm',
      work_dir=None,
      internal_ip='127.0.0.1',
      scratch_disks=(),
      installer=None,
  ):
    self.name = name
    self.work_dir = work_dir or tempfile.mkdtemp(prefix=f'pkb-ext-{name}-')
    self.internal_ip = internal_ip
    self.ip_address = internal_ip
    self.zone = 'local-1'
    self.machine_type = 'local'
    self.scratch_disks = list(scratch_disks)
    self.commands = []
    self.installed = []
    # PKB's record of installed packages (placement.MarkInstalled adds to it).
    self._installed_packages = set()
    self._installer = installer

  def NumCpusForBenchmark(self, report_only_physical_cpus=False):
    del report_only_physical_cpus
    return os.cpu_count()

  def RemoteCommandWithReturnCode(
      self, command, ignore_failure=False, timeout=None, **kwargs
  ):
    del kwargs
    self.commands.append(command)
    proc = subprocess.run(
        ['bash', '-c', command],
        cwd=self.work_dir,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    if proc.returncode and not ignore_failure:
      raise errors.VirtualMachine.RemoteCommandError(
          f'{command!r} exited {proc.returncode}: {proc.stderr.strip()}'
      )
    return proc.stdout, proc.stderr, proc.returncode

  def RemoteCommand(self, command, ignore_failure=False, timeout=None, **kw):
    stdout, stderr, _ = self.RemoteCommandWithReturnCode(
        command, ignore_failure=ignore_failure, timeout=timeout, **kw
    )
    return stdout, stderr

  RobustRemoteCommand = RemoteCommand

  def Install(self, package_name):
    self.installed.append(package_name)
    if self._installer:
      self._installer(self, package_name)

  def PushFile(self, source_path, remote_path=''):
    dest = remote_path or os.path.basename(source_path)
    if not os.path.isabs(dest):
      dest = os.path.join(self.work_dir, dest)
    if os.path.isdir(dest):
      dest = os.path.join(dest, os.path.basename(source_path))
    shutil.copy(source_path, dest)

  def PushDataFile(self, data_file, remote_path='', should_double_copy=None):
    del should_double_copy
    self.PushFile(data.ResourcePath(data_file), remote_path)

  def RemoteCopy(self, file_path, remote_path='', copy_to=True):
    if copy_to:
      self.PushFile(file_path, remote_path)
    else:
      src = remote_path
      if not os.path.isabs(src):
        src = os.path.join(self.work_dir, src)
      shutil.copy(src, file_path)

  def GetInternalIPs(self):
    return [self.internal_ip]
