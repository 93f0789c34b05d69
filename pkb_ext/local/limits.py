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
"""A local machine type's limits on its hosts (root only).

Each host gets a cgroup of its own (named like its namespace) in the cpu and
blkio hierarchies (cgroup v1): a CFS quota there caps the CPU time of its
sshd and of everything started through it, and a weight well above other
processes' lets it have that time on a busy machine (a cloud's vCPUs are
its own), and blkio throttling caps the
IOPS and bytes per second of its data disk. A token bucket filter (tbf) on
both ends of its veth caps its network each way. Processes the local cloud
starts in a host's namespace by other means (the object storage emulators on
the client) stay outside its cgroup, as a cloud's services are not bounded by
a client VM's size.
"""

import contextlib
import errno
import os
import time

from pkb_ext.local import layout
from pkb_ext.local import machine_types
from pkb_ext.local import system

CGROUP_ROOT = '/sys/fs/cgroup'
CONTROLLERS = ('cpu', 'blkio')
# A tbf's queue: how long a packet may wait for tokens before it is dropped.
TBF_LATENCY = '100ms'
# GSO on a veth hands tbf packets of up to 64 KiB: the bucket holds at least
# that, or at least 10 ms at the rate, whichever is larger.
_MIN_BURST_BYTES = 64 * 1024
# How long Remove waits for a cgroup to empty: a process that was just
# killed stays in its cgroup (rmdir fails with EBUSY) until the kernel has
# finished with it.
REMOVE_WAIT_S = 5.0
_REMOVE_POLL_S = 0.1


def CgroupName(plan: layout.Plan, host: layout.Host) -> str:
  return f'{plan.prefix}-{host.name}'


def CgroupDir(controller: str, name: str) -> str:
  return os.path.join(CGROUP_ROOT, controller, name)


def CgroupSettings(
    mtype: machine_types.MachineType, disk_dev: str | None
) -> dict[str, list[tuple[str, str]]]:
  """The files to write in each controller's cgroup, in order (pure).

  Args:
    mtype: the machine type.
    disk_dev: the data disk's MAJOR:MINOR, or None for a host without one.
  """
  cpu = [
      ('cpu.cfs_period_us', str(machine_types.CPU_PERIOD_US)),
      ('cpu.cfs_quota_us', str(mtype.cpu_quota_us)),
      ('cpu.shares', str(mtype.cpu_shares)),
  ]
  blkio = []
  if disk_dev:
    for op in ('read', 'write'):
      blkio += [
          (f'blkio.throttle.{op}_iops_device', f'{disk_dev} {mtype.disk_iops}'),
          (
              f'blkio.throttle.{op}_bps_device',
              f'{disk_dev} {mtype.disk_bytes_per_s}',
          ),
      ]
  return {'cpu': cpu, 'blkio': blkio}


def TbfArgs(mtype: machine_types.MachineType) -> list[str]:
  """`tc qdisc replace ... root` arguments of a link's cap (pure)."""
  burst = max(_MIN_BURST_BYTES, mtype.network_mbps * 1_000_000 // 8 // 100)
  return [
      'tbf',
      'rate', f'{mtype.network_mbps}mbit',
      'burst', str(burst),
      'latency', TBF_LATENCY,
  ]  # fmt: skip


def _Write(path: str, value: str) -> None:
  try:
    with open(path, 'w') as f:
      f.write(value)
  except OSError as e:
    raise system.LocalCloudError(f'cannot write {value!r} to {path}: {e}')


def DeviceNumber(device: str) -> str:
  """Returns a block device's MAJOR:MINOR."""
  try:
    rdev = os.stat(device).st_rdev
  except OSError as e:
    raise system.LocalCloudError(f'cannot stat {device}: {e}') from e
  return f'{os.major(rdev)}:{os.minor(rdev)}'


def _Tree(pid: int) -> list[int]:
  """A process and its descendants."""
  out, todo = [], [pid]
  while todo:
    p = todo.pop()
    out.append(p)
    todo.extend(system.Children(p))
  return out


def Apply(
    plan: layout.Plan,
    host: layout.Host,
    mtype: machine_types.MachineType,
    sshd_pid: int,
    disk: str | None,
) -> list[str]:
  """Caps a host at its machine type's limits, idempotently.

  Nothing is created unless every controller's hierarchy is mounted. If a
  step fails, the cgroups this call created are removed again (their
  processes back in the hierarchy's root) before the error is raised; a
  cgroup that existed before keeps what was written to it, and `down`
  removes it (Remove).

  Args:
    plan: the local cloud.
    host: the host.
    mtype: its machine type.
    sshd_pid: the host's sshd (moved into the cgroups with what it runs).
    disk: the host's data disk (a loop device), or None.

  Returns:
    The cgroup directories (existing or created).
  """
  name = CgroupName(plan, host)
  settings = CgroupSettings(mtype, DeviceNumber(disk) if disk else None)
  missing = [
      c for c in CONTROLLERS
      if not os.path.exists(os.path.join(CgroupDir(c, ''), 'cgroup.procs'))
  ]  # fmt: skip
  if missing:
    raise system.LocalCloudError(
        f'no cgroup v1 {" or ".join(missing)} hierarchy under {CGROUP_ROOT}'
        f' (needed for machine type {mtype.name}); nothing was applied'
    )
  created = []
  try:
    for controller in CONTROLLERS:
      path = CgroupDir(controller, name)
      try:
        os.mkdir(path)
        created.append(path)
      except FileExistsError:
        pass
      except OSError as e:
        raise system.LocalCloudError(
            f'cannot create cgroup {path} (cgroup v1 {controller} controller'
            f' needed for machine type {mtype.name}): {e}'
        ) from e
      for filename, value in settings[controller]:
        _Write(os.path.join(path, filename), value)
      for pid in _Tree(sshd_pid):
        try:
          _Write(os.path.join(path, 'cgroup.procs'), str(pid))
        except system.LocalCloudError:
          if os.path.exists(f'/proc/{pid}'):  # not merely ended meanwhile
            raise
    tbf = TbfArgs(mtype)
    system.Run(['tc', 'qdisc', 'replace', 'dev', host.veth, 'root', *tbf])
    system.Run([
        'tc', '-n', host.netns, 'qdisc', 'replace', 'dev', 'eth0', 'root',
        *tbf,
    ])  # fmt: skip
  except system.LocalCloudError:
    for path in reversed(created):
      _Undo(path)
    raise
  return [CgroupDir(c, name) for c in CONTROLLERS]


def _Undo(path: str) -> None:
  """Moves a cgroup's processes to its parent and removes it, if it can.

  What it cannot undo is left to `down` (Remove).
  """
  parent = os.path.join(os.path.dirname(path), 'cgroup.procs')
  pids = []
  with contextlib.suppress(OSError):
    with open(os.path.join(path, 'cgroup.procs')) as f:
      pids = f.read().split()
  for pid in pids:
    with contextlib.suppress(system.LocalCloudError):
      _Write(parent, pid)
  with contextlib.suppress(system.LocalCloudError):
    _Rmdir(path)


def _Rmdir(path: str) -> None:
  """Removes a cgroup, waiting up to REMOVE_WAIT_S for it to empty."""
  deadline = time.monotonic() + REMOVE_WAIT_S
  while True:
    try:
      os.rmdir(path)
      return
    except OSError as e:
      busy = e.errno == errno.EBUSY
      if not busy or time.monotonic() >= deadline:
        raise system.LocalCloudError(
            f'cannot remove cgroup {path}: {e}'
            + (
                f' (a process is still in it after {REMOVE_WAIT_S:g} s)'
                if busy
                else ''
            )
        ) from e
    time.sleep(_REMOVE_POLL_S)


def Remove(plan: layout.Plan, host: layout.Host) -> list[str]:
  """Removes a host's cgroups (its processes must have ended).

  A process that has just been killed may still be in its cgroup for a
  moment: each removal is retried for up to REMOVE_WAIT_S. The tbf qdiscs
  go with the host's links.

  Returns:
    A line per cgroup removed.
  """
  removed = []
  name = CgroupName(plan, host)
  for controller in CONTROLLERS:
    path = CgroupDir(controller, name)
    if not os.path.isdir(path):
      continue
    _Rmdir(path)
    removed.append(f'cgroup {path}')
  return removed


def Read(plan: layout.Plan, host: layout.Host) -> dict:
  """What is applied to a host now: cgroup values and its link's qdisc."""
  name = CgroupName(plan, host)
  out = {}
  for controller in CONTROLLERS:
    path = CgroupDir(controller, name)
    if not os.path.isdir(path):
      continue
    for filename in os.listdir(path):
      if filename.startswith(('cpu.cfs_', 'blkio.throttle.')) and (
          filename.endswith(('_us', '_device'))
      ):
        with open(os.path.join(path, filename)) as f:
          value = f.read().strip()
        if value:
          out[filename] = value
  qdisc = system.Run(
      ['tc', 'qdisc', 'show', 'dev', host.veth, 'root'], check=False
  ).stdout.strip()
  if 'tbf' in qdisc:
    out['qdisc'] = qdisc
  return out
