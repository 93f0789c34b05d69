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
"""Bounded CPU hogs: busy loops a test starts and stops itself.

Each hog is a Python busy loop in its own process group that ends by itself
after `seconds` (a bound, should its starter die), is stopped by its PID
only, and reports how much CPU it got: a hog that was starved, or ended
early, did not keep the machine busy, and Stop() says so.

  with load.CpuHogs(2, seconds=600) as hogs:
    ...  # the work under load
  hogs.report  # wall and CPU seconds per hog, load averages
"""

import dataclasses
import os
import subprocess
import sys
import time

from pkb_ext import errors
from pkb_ext.local import system

_LOOP = (
    'import time\n'
    'end = time.monotonic() + {seconds}\n'
    'while time.monotonic() < end:\n'
    '  pass\n'
)
_CLOCK_TICKS = os.sysconf('SC_CLK_TCK')


class HogError(errors.Error, AssertionError):
  """The hogs did not keep the machine busy (ended early or starved)."""


@dataclasses.dataclass(frozen=True)
class Report:
  """What the hogs did: wall seconds, CPU seconds per hog, load averages."""

  pids: tuple[int, ...]
  wall_s: float
  cpu_s: tuple[float, ...]
  ended_early: tuple[int, ...]  # PIDs that exited before Stop
  loadavg_start: tuple[float, float, float]
  loadavg_stop: tuple[float, float, float]

  @property
  def busy_share(self) -> float:
    """The hogs' CPU seconds over their wall seconds (cores kept busy)."""
    return sum(self.cpu_s) / self.wall_s if self.wall_s > 0 else 0.0

  def Summary(self) -> str:
    return (
        f'{len(self.pids)} CPU hog(s) {list(self.pids)}:'
        f' {self.wall_s:.0f} s wall, CPU s'
        f' {", ".join(f"{c:.0f}" for c in self.cpu_s)}'
        f' ({self.busy_share:.2f} cores busy); load average'
        f' {self.loadavg_start[0]:.1f} at start, {self.loadavg_stop[0]:.1f}'
        ' at stop'
    )


def Stat(pid: int) -> tuple[bool, float]:
  """(still running, utime + stime in s) of a child not yet waited for.

  A child that exited is a zombie until waited for, and keeps its times; a
  process that is gone is (False, 0.0).
  """
  fields = system.StatFields(pid)
  if fields is None:
    return False, 0.0
  return fields[0] != 'Z', (int(fields[11]) + int(fields[12])) / _CLOCK_TICKS


class CpuHogs:
  """`count` busy loops, each bounded to `seconds`, stopped by PID."""

  def __init__(self, count: int, seconds: float, min_share: float = 0.2):
    """Args:

    count: how many busy loops (0: none, a no-op).
    seconds: each loop ends by itself after this long.
    min_share: Stop raises HogError if a hog got less CPU than this share of
      one core over its life.
    """
    if count < 0 or seconds <= 0:
      raise ValueError(f'need count >= 0 and seconds > 0: {count}, {seconds}')
    self.count, self.seconds, self.min_share = count, seconds, min_share
    self._procs: list[subprocess.Popen] = []
    self._started = 0.0
    self._load = (0.0, 0.0, 0.0)
    self.report: Report | None = None

  def Start(self) -> 'CpuHogs':
    self._load = os.getloadavg()
    self._started = time.monotonic()
    code = _LOOP.format(seconds=float(self.seconds))
    self._procs = [
        subprocess.Popen(
            [sys.executable, '-c', code],
            start_new_session=True,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
        )
        for _ in range(self.count)
    ]
    return self

  @property
  def pids(self) -> tuple[int, ...]:
    return tuple(p.pid for p in self._procs)

  def Alive(self) -> bool:
    """Whether every hog still runs (without waiting for any)."""
    return all(Stat(p.pid)[0] for p in self._procs)

  def Stop(self, check: bool = True) -> Report:
    """Kills the hogs (by PID) and returns the Report.

    Raises:
      HogError: if check and a hog ended early or got less than min_share of
        a core (it did not keep the machine busy).
    """
    wall = time.monotonic() - self._started
    stats = [Stat(p.pid) for p in self._procs]  # before any wait
    ended = tuple(p.pid for p, (running, _) in zip(self._procs, stats)
                  if not running)  # fmt: skip
    cpu = [seconds for _, seconds in stats]
    for proc in self._procs:
      proc.kill()
      proc.wait()
    self.report = Report(
        pids=self.pids,
        wall_s=wall,
        cpu_s=tuple(cpu),
        ended_early=ended,
        loadavg_start=self._load,
        loadavg_stop=os.getloadavg(),
    )
    self._procs = []
    if check:
      problems = []
      if ended:
        problems.append(
            f'hog(s) {list(ended)} ended before Stop (the work outlasted'
            f' their {self.seconds:.0f} s bound)'
        )
      starved = [
          pid
          for pid, c in zip(self.report.pids, cpu)
          if wall > 0 and c / wall < self.min_share
      ]
      if starved:
        problems.append(
            f'hog(s) {starved} got less than {self.min_share:.0%} of a core'
        )
      if problems:
        raise HogError('; '.join(problems) + f': {self.report.Summary()}')
    return self.report

  def __enter__(self) -> 'CpuHogs':
    return self.Start()

  def __exit__(self, exc_type, exc, tb) -> None:
    self.Stop(check=exc_type is None)
