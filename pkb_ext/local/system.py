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
"""Thin wrappers over the system calls the local cloud makes (root only)."""

import logging
import os
import signal
import subprocess
import time

from pkb_ext import errors


class LocalCloudError(errors.Error):
  """A step of up/down failed; the message says which and why."""


def Run(argv, check=True, input_text=None, timeout=120):
  """Runs a command; returns CompletedProcess, raises LocalCloudError."""
  logging.debug('local: %s', ' '.join(argv))
  try:
    proc = subprocess.run(
        argv,
        input=input_text,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
  except (OSError, subprocess.TimeoutExpired) as e:
    raise LocalCloudError(f'{" ".join(argv)}: {e}') from e
  if check and proc.returncode:
    raise LocalCloudError(
        f'{" ".join(argv)} exited {proc.returncode}: '
        f'{(proc.stderr or proc.stdout).strip()}'
    )
  return proc


def RequireRoot() -> None:
  if os.geteuid() != 0:
    raise LocalCloudError(
        'the local cloud needs root (network namespaces, loop devices, '
        'mounts): run it with sudo'
    )


def StatFields(pid: int) -> list[str] | None:
  """The fields of /proc/PID/stat after the command name (fields[0] is the
  state, fields[11] and [12] utime and stime), or None if it is gone."""
  try:
    with open(f'/proc/{pid}/stat') as f:
      stat = f.read()
  except OSError:
    return None
  # The command name (field 2) may hold spaces; fields after it are plain.
  return stat[stat.rindex(')') + 2 :].split()


def StartTime(pid: int) -> int | None:
  """Returns a process's start time in clock ticks, or None if it is gone.

  A PID plus its start time names one process for good: a recycled PID has
  another start time.
  """
  fields = StatFields(pid)
  if fields is None or fields[0] == 'Z':
    return None
  return int(fields[19])


def IsAlive(pid: int | None, start_time: int | None) -> bool:
  return bool(pid) and StartTime(pid) == start_time and start_time is not None


def Terminate(pids, timeout=10.0) -> list[int]:
  """Sends SIGTERM, then SIGKILL after timeout, to exactly these PIDs.

  Args:
    pids: (pid, start_time) pairs; a PID whose start time changed is skipped.
    timeout: seconds to wait before SIGKILL.

  Returns:
    The PIDs that were signalled.
  """
  live = [(p, t) for p, t in pids if IsAlive(p, t)]
  for pid, _ in live:
    try:
      os.kill(pid, signal.SIGTERM)
    except ProcessLookupError:
      pass
  deadline = time.monotonic() + timeout
  while time.monotonic() < deadline:
    if not any(IsAlive(p, t) for p, t in live):
      break
    time.sleep(0.1)
  for pid, start in live:
    if IsAlive(pid, start):
      try:
        os.kill(pid, signal.SIGKILL)
      except ProcessLookupError:
        pass
  for _ in range(50):
    if not any(IsAlive(p, t) for p, t in live):
      break
    time.sleep(0.1)
  return [p for p, _ in live]


def Comm(pid: int) -> str:
  try:
    with open(f'/proc/{pid}/comm') as f:
      return f.read().strip()
  except OSError:
    return '?'


def CmdLine(pid: int) -> str:
  try:
    with open(f'/proc/{pid}/cmdline', 'rb') as f:
      return f.read().replace(b'\0', b' ').decode(errors='replace').strip()
  except OSError:
    return ''


def Children(pid: int) -> list[int]:
  try:
    with open(f'/proc/{pid}/task/{pid}/children') as f:
      return [int(p) for p in f.read().split()]
  except OSError:
    return []


def NsPid(pid: int) -> int | None:
  """Returns a process's PID in its own (innermost) PID namespace."""
  try:
    with open(f'/proc/{pid}/status') as f:
      for line in f:
        if line.startswith('NSpid:'):
          return int(line.split()[-1])
  except OSError:
    pass
  return None


def MachineCpuTicks(path: str = '/proc/stat') -> dict[str, int]:
  """The machine's CPU time so far, all CPUs, in clock ticks (USER_HZ).

  Keys: busy (user + nice + system, what processes' utime and stime add up
  to), irq (irq + softirq), steal (taken by the hypervisor), idle (idle +
  iowait).

  Raises:
    ValueError: the file has no aggregate `cpu` line.
  """
  with open(path) as f:
    for line in f:
      if line.startswith('cpu '):
        t = [int(v) for v in line.split()[1:]] + [0] * 10
        return {
            'busy': t[0] + t[1] + t[2],
            'idle': t[3] + t[4],
            'irq': t[5] + t[6],
            'steal': t[7],
        }
  raise ValueError(f'{path}: no aggregate cpu line')
