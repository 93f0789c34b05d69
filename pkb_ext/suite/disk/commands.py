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
"""The io phase's shell commands and error text, pure (no flags, VM or I/O).

fio runs one job of the rendered job file per command, ended on the VM at
its bound (remote.Bounded); the file system commands are PKB's own
(LinuxVirtualMachine.FormatDisk and MountDisk), so a phase that formats a
data disk leaves it as PKB would.
"""

import re
import shlex

from benchmarks.cloud_report import remote


def OutputFile(job: str) -> str:
  """Where fio writes a job's JSON on the VM (as fio.sh's --output)."""
  return f'cloud_report_fio_{job}.json'


TAG_PREFIX = 'fio-'  # remote.Bounded's tag of a fio job: fio-<job>


def FioCommand(
    fio: str, target: str, job_file: str, job: str, timeout_s: int
) -> str:
  """Runs one job; its JSON stays in OutputFile(job) and is also the
  command's stdout (no second round trip to read it).

  fio (with its job processes) is ended on the VM after timeout_s
  (remote.Bounded); a timeout of the ssh session alone would leave fio
  writing to the disk. It is tracked under the tag fio-<job>, so that a
  resumed attempt ends it first (leftovers.EndLeftovers).
  """
  q, out = shlex.quote, shlex.quote(OutputFile(job))
  fio_command = (
      f'{fio} --output-format=json --output={out}'
      f' --filename={q(target)} --section={q(job)} {q(job_file)}'
  )
  return (
      f'sudo rm -f {out} && sudo'
      f' {remote.Bounded(fio_command, timeout_s, TAG_PREFIX + job)}'
      f' && cat {out}'
  )


def MkfsCommand(device: str, fs_type: str, block_size: int | None) -> str:
  """PKB's LinuxVirtualMachine.FormatDisk command for a scratch disk."""
  device = shlex.quote(device)
  if fs_type == 'xfs':
    return f'sudo mkfs.xfs -f -i size={block_size or 512} {device}'
  return (
      'sudo mke2fs -F -E lazy_itable_init=0,discard -O ^has_journal -t ext4'
      f' -b {block_size or 4096} {device}'
  )


def MountCommand(device: str, mount_point: str, options: str) -> str:
  """PKB's MountDisk command (without adding a second fstab line)."""
  opts = f'-o {shlex.quote(options)} ' if options else ''
  mp = shlex.quote(mount_point)
  return (
      f'sudo mkdir -p {mp} && sudo mount {opts}{shlex.quote(device)} {mp}'
      f' && sudo chown "$(id -un):$(id -gn)" {mp}'
  )


def UnmountCommand(device: str, mount_point: str) -> str:
  """Unmounts mount_point only if `device` is what is mounted there."""
  mp, dev = shlex.quote(mount_point), shlex.quote(device)
  return (
      f'if mountpoint -q {mp}; then'
      f' src=$(findmnt -nvfo SOURCE --mountpoint {mp});'
      f' if [ "$(readlink -f "$src")" = "$(readlink -f {dev})" ]; then'
      f' sudo umount {mp}; fi; fi'
  )


_RETURN_CODE = re.compile(r'Got non-zero return code \((-?\d+)\)')


def FioFailure(job: str, where: str, message: str) -> str:
  """Names a failed fio job and fio's own stderr (pure).

  PKB's RemoteCommandError of a RobustRemoteCommand names its wait script
  (`python3 /tmp/pkb/wait_for_command.py …`) first and the tool's stderr
  last; the user needs the job, the exit status and that stderr.

  Args:
    job: the fio job (section) name.
    where: 'vm:device'.
    message: the RemoteCommandError's text.
  """
  m = _RETURN_CODE.search(message)
  status = f' (exit status {m.group(1)})' if m else ''
  _, found, stderr = message.rpartition('STDERR:')
  detail = ' '.join((stderr if found else message).split())
  if len(detail) > 600:
    detail = detail[:600] + ' …'
  return f'fio job {job} on {where} failed{status}: {detail or "no stderr"}'


def ExitStatus(message: str) -> int | None:
  """The exit status a PKB RemoteCommandError's text names (None: none)."""
  m = _RETURN_CODE.search(message)
  return int(m.group(1)) if m else None
