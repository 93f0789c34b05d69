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
"""Suite overhead: a smoke run's wall time outside the measured tool runs.

`pkb-ext bench` runs stock `pkb.py --benchmarks=cloud_report_2021` with the
smoke preset on an up local cloud, and watches, from this machine, every
process of the cloud's hosts (their network namespaces) while it runs:

  W          wall time of the pkb.py process (start to exit; the cloud is
             already up, so `pkb-ext local up` is not in it);
  tool run   a process of a host that is a benchmark tool, and its lifetime:
             start from /proc/PID/stat (10 ms ticks), end halfway between the
             last poll that saw it and the first that did not (polls every
             50 ms);
  measured   the tool runs whose output becomes samples: CoreMark, fio's
             reported jobs, netperf, the TTFB worker, go-tpc `tpcc run`
             steps;
  method     tool runs the method needs but does not report: fio's fill
             (precondition), go-tpc `tpcc prepare` (load), go-tpc ramp runs;
  T(x)       the length of the union of the intervals of the runs x (phases
             run one after the other, so overlap is rare, never counted
             twice);

  overhead_pct = 100 * (W - T(measured)) / W        the issue's figure
  harness_pct  = 100 * (W - T(measured + method)) / W

Everything else is overhead: PKB's start, its static-VM preparation (ssh
checks, lscpu, ...), CoreMark's build, PostgreSQL's start, pushing files,
every ssh round trip, parsing, spooling and cleanup.
"""

import dataclasses
import os
import re
import subprocess
import sys
import threading
import time
from typing import Iterable, Sequence

MEASURED = 'measured'
METHOD = 'method'
TARGET_PCT = 10.0
POLL_S = 0.05
_NETNS_DIR = '/run/netns'


@dataclasses.dataclass(frozen=True)
class ToolRun:
  """One tool process of a host and when it ran (machine clock, epoch s)."""

  host: str
  tool: str
  kind: str  # MEASURED or METHOD
  start: float
  end: float
  cmdline: str

  @property
  def seconds(self) -> float:
    return self.end - self.start


def Classify(comm: str, cmdline: str, parent_cmdline: str = ''):
  """Returns (tool, kind) for a tool process, or None for anything else.

  Args:
    comm: /proc/PID/comm (the executable's name, at most 15 characters).
    cmdline: its command line, arguments separated by spaces.
    parent_cmdline: its parent's command line (the go-tpc ramp run is told
      apart by the log file its shell writes to).
  """
  if comm == 'fio':
    kind = METHOD if '--section=fill-disk-ignore' in cmdline else MEASURED
    return 'fio', kind
  if comm == 'netperf':
    return 'netperf', MEASURED
  if '/cloud_report_coremark/bin/coremark' in cmdline.split(' ', 1)[0]:
    return 'coremark', MEASURED
  if comm.startswith('python') and 'ttfb_worker.py' in cmdline:
    return 'ttfb_worker', MEASURED
  if comm == 'go-tpc':
    if ' tpcc prepare' in cmdline:
      return 'go-tpc', METHOD
    if ' tpcc run' in cmdline:
      ramp = re.search(r'-ramp\.\w+\b', parent_cmdline)
      return 'go-tpc', METHOD if ramp else MEASURED
  return None


def UnionSeconds(intervals: Iterable[tuple[float, float]]) -> float:
  """Returns the length of the union of [start, end] intervals."""
  total, current = 0.0, None
  for start, end in sorted(intervals):
    if end <= start:
      continue
    if current is None or start > current[1]:
      if current:
        total += current[1] - current[0]
      current = [start, end]
    else:
      current[1] = max(current[1], end)
  if current:
    total += current[1] - current[0]
  return total


def Overhead(wall_s: float, runs: Sequence[ToolRun]) -> dict:
  """The overhead figures of a run of wall_s seconds with these tool runs."""
  if wall_s <= 0:
    raise ValueError(f'wall time must be > 0, got {wall_s}')
  measured = UnionSeconds((r.start, r.end) for r in runs if r.kind == MEASURED)
  tools = UnionSeconds((r.start, r.end) for r in runs)
  by_tool = {}
  for r in runs:
    entry = by_tool.setdefault(f'{r.tool} ({r.kind})', [0, 0.0])
    entry[0] += 1
    entry[1] += r.seconds
  return {
      'wall_s': wall_s,
      'measured_tool_s': measured,
      'all_tool_s': tools,
      'overhead_s': wall_s - measured,
      'overhead_pct': 100.0 * (wall_s - measured) / wall_s,
      'harness_s': wall_s - tools,
      'harness_pct': 100.0 * (wall_s - tools) / wall_s,
      'tool_runs': {
          k: {'runs': n, 'seconds': round(s, 2)}
          for k, (n, s) in sorted(by_tool.items())
      },
  }


def _BootEpoch() -> float:
  """When the machine booted, epoch seconds (finer than /proc/stat btime)."""
  return time.time() - time.clock_gettime(time.CLOCK_BOOTTIME)


def _Read(path: str) -> str:
  with open(path, 'rb') as f:
    return f.read().replace(b'\0', b' ').decode(errors='replace').strip()


class ProcessTracer:
  """Records the tool runs of the hosts of given network namespaces."""

  def __init__(self, namespaces: dict[str, str], interval_s: float = POLL_S):
    """Args: namespaces: host name -> network namespace name (or path)."""
    self._hosts = {}
    for host, netns in namespaces.items():
      self._hosts[os.stat(os.path.join(_NETNS_DIR, netns)).st_ino] = host
    self._interval = interval_s
    self._ticks = os.sysconf('SC_CLK_TCK')
    self._boot = _BootEpoch()
    self._outside: set[str] = set()  # not a process of our hosts
    self._inside: dict[str, str] = {}  # our hosts' non-tools: pid -> comm
    self._live: dict[str, list] = {}  # [host, tool, kind, start, seen, cmd]
    self.runs: list[ToolRun] = []
    self._stop = threading.Event()
    self._thread = None

  def _Look(self, pid: str, now: float) -> None:
    """Classifies a process of ours, new or one whose comm changed (exec)."""
    try:
      stat = _Read(f'/proc/{pid}/stat')
      comm = stat[stat.index('(') + 1 : stat.rindex(')')]
      if self._inside.get(pid) == comm:
        return
      if pid not in self._inside:
        host = self._hosts.get(os.stat(f'/proc/{pid}/ns/net').st_ino)
        if host is None:
          self._outside.add(pid)
          return
      else:
        host = self._hosts[os.stat(f'/proc/{pid}/ns/net').st_ino]
      fields = stat[stat.rindex(')') + 2 :].split()
      cmdline = _Read(f'/proc/{pid}/cmdline')
      parent = _Read(f'/proc/{fields[1]}/cmdline')
    except (OSError, ValueError, IndexError, KeyError):
      return
    found = Classify(comm, cmdline, parent)
    if not found:
      self._inside[pid] = comm  # looked at again if it execs
      return
    self._inside.pop(pid, None)
    start = self._boot + int(fields[19]) / self._ticks
    self._live[pid] = [host, *found, min(start, now), now, cmdline]

  def Poll(self) -> None:
    """Looks at /proc once."""
    now = time.time()
    pids = {p for p in os.listdir('/proc') if p.isdigit()}
    self._outside &= pids
    self._inside = {p: c for p, c in self._inside.items() if p in pids}
    for pid in pids - self._outside - self._live.keys():
      self._Look(pid, now)
    for pid in list(self._live):
      record = self._live[pid]
      if pid in pids:
        record[4] = now
        continue
      del self._live[pid]
      host, tool, kind, start, seen, cmd = record
      self.runs.append(
          ToolRun(host, tool, kind, start, (seen + now) / 2, cmd[:300])
      )

  def _Loop(self) -> None:
    while not self._stop.wait(self._interval):
      self.Poll()

  def Start(self) -> 'ProcessTracer':
    self.Poll()
    self._thread = threading.Thread(target=self._Loop, daemon=True)
    self._thread.start()
    return self

  def Stop(self) -> list[ToolRun]:
    """Stops polling; runs still alive end now. Returns every run."""
    self._stop.set()
    if self._thread:
      self._thread.join()
    now = time.time()
    for host, tool, kind, start, _, cmd in self._live.values():
      self.runs.append(ToolRun(host, tool, kind, start, now, cmd[:300]))
    self._live.clear()
    self.runs.sort(key=lambda r: r.start)
    return self.runs


_PHASE_LINE = re.compile(
    r'^(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3}) .*cloud_report: phase (\w+):'
    r' (Prepare|Run|Cleanup) done in ([0-9.]+) s'
)


def PhaseSeconds(log_text: str) -> dict[str, float]:
  """Seconds of each phase's Prepare/Run/Cleanup, from PKB's log."""
  out = {}
  for line in log_text.splitlines():
    m = _PHASE_LINE.match(line)
    if m:
      out[f'{m.group(2)}.{m.group(3)}'] = float(m.group(4))
  return out


def SmokeRun(
    cloud_env: dict[str, str],
    namespaces: dict[str, str],
    work_dir: str,
    run_uri: str,
    extra_flags: Sequence[str] = (),
    timeout_s: float = 3600,
) -> dict:
  """Runs the smoke suite with stock pkb.py under the tracer; returns figures.

  Args:
    cloud_env: environment naming the local cloud (PKB_EXT_LOCAL_STATE...).
    namespaces: host name -> network namespace of that cloud.
    work_dir: where the flag file, PKB's temp dir, log and samples go.
    run_uri: PKB's run_uri.
    extra_flags: more pkb.py flags.
    timeout_s: the run's limit.
  """
  bin_dir = os.path.dirname(sys.executable)
  flag_file = os.path.join(work_dir, 'flags')
  proc = subprocess.run(
      [os.path.join(bin_dir, 'pkb-ext'), 'local', 'flags', '--preset=smoke',
       f'--spool-dir={work_dir}/spool'],
      env=cloud_env, capture_output=True, text=True, check=False,
  )  # fmt: skip
  if proc.returncode:
    raise RuntimeError(f'pkb-ext local flags failed: {proc.stderr[-2000:]}')
  with open(os.open(flag_file, os.O_WRONLY | os.O_CREAT, 0o600), 'w') as f:
    f.write(proc.stdout)
  argv = [
      sys.executable, os.path.join(bin_dir, 'pkb.py'),
      '--benchmarks=cloud_report_2021', f'--flagfile={flag_file}',
      f'--temp_dir={work_dir}/pkb', f'--json_path={work_dir}/samples.json',
      f'--run_uri={run_uri}', *extra_flags,
  ]  # fmt: skip
  log_path = os.path.join(work_dir, 'pkb.out')
  tracer = ProcessTracer(namespaces).Start()
  started = time.time()
  with open(log_path, 'w') as log:
    rc = subprocess.run(
        argv, env=cloud_env, stdout=log, stderr=subprocess.STDOUT,
        timeout=timeout_s, check=False,
    ).returncode  # fmt: skip
  wall = time.time() - started
  runs = tracer.Stop()
  with open(log_path, errors='replace') as f:
    log_text = f.read()
  result = Overhead(wall, [r for r in runs if r.start >= started - 1])
  result.update(
      pkb_returncode=rc,
      pkb_log=log_path,
      phase_seconds=PhaseSeconds(log_text),
      hosts_traced=sorted(namespaces),
  )
  return result
