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

  harness_s    = W - T(measured + method)            the fixed costs
  overhead_pct = 100 * (W - T(measured)) / W
  harness_pct  = 100 * harness_s / W

Everything else is harness: PKB's start, its static-VM preparation (ssh
checks, lscpu, ...), CoreMark's build, PostgreSQL's start, pushing files,
every ssh round trip, parsing, spooling and cleanup. A smoke run's tools run
for seconds, so these fixed costs dominate its wall time by construction.
Breakdown (FixedCosts): per phase (Install + Setup + Run + Cleanup, windows
from PKB's log lines `cloud_report: phase P: STAGE starting` and `... done in
S s`) and outside the phases (pkb.py's start, provisioning, teardown): wall,
tool and harness seconds and the ssh/scp commands PKB ran (its `Ran: {ssh
...}` lines).

At the report's durations (AtReport) the same harness seconds are set
against the tool time the smoke run's tool runs would take with the
report's settings (flag defaults): CoreMark runs times report runs / smoke
runs; each measured fio job the report's runtime + ramp; each netperf run
the report's duration; each measured go-tpc step the report's step
duration, each ramp run its ramp; the rest (fio's fill, go-tpc's load, the
TTFB worker) as measured. That counts the smoke run's number of steps and
tests, not the report's (more), and loads 3 warehouses, not thousands, so
the share is an upper bound.
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
  if comm == 'coremark.exe':  # PKB's make runs it (the cpu phase's too)
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
    if not cmdline:
      # Mid-exec (the new name is set before the new command line is), or
      # exiting: looked at again at the next poll.
      return
    found = Classify(comm, cmdline, parent)
    live_parent = self._live.get(fields[1])
    if found and live_parent and live_parent[5] == cmdline:
      found = None  # a fork of a tool run (a subshell): part of that run
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
    # Parents first (lower PIDs, barring wrap-around), so that a tool's fork
    # is seen as its parent's.
    for pid in sorted(pids - self._outside - self._live.keys(), key=int):
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
    r' (Install|Setup|Prepare|Run|Cleanup) done in ([0-9.]+) s'
)


_START_LINE = re.compile(
    r'^(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3}) .*cloud_report: phase (\w+):'
    r' (Install|Setup|Prepare|Run|Cleanup) starting$'
)
_LOG_LINE = re.compile(r'^(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d),(\d{3}) ')
_SSH = re.compile(r' Ran: \{(ssh|scp) ')


def _LogTime(line: str) -> float | None:
  """Epoch seconds of a PKB log line (logged in local time), or None."""
  m = _LOG_LINE.match(line)
  if not m:
    return None
  return time.mktime(time.strptime(m.group(1), '%Y-%m-%d %H:%M:%S')) + (
      int(m.group(2)) / 1000
  )


def PhaseWindows(log_text: str) -> list[tuple[str, str, float, float]]:
  """(phase, stage, start, end) of each phase stage, from PKB's log.

  A stage starts at its `P: STAGE starting` line (exact to the log's
  millisecond; a short stage's `done in S s` is rounded to 0.1 s) and ends
  at its `done` line; without a `starting` line it starts S before its end.
  """
  out, started = [], {}
  for line in log_text.splitlines():
    m = _START_LINE.match(line)
    if m:
      started[(m.group(2), m.group(3))] = _LogTime(line)
      continue
    m = _PHASE_LINE.match(line)
    when = _LogTime(line) if m else None
    if when is not None:
      start = started.pop((m.group(2), m.group(3)), None)
      if start is None:
        start = when - float(m.group(4))
      out.append((m.group(2), m.group(3), start, when))
  return out


def SshTimes(log_text: str) -> list[float]:
  """When each ssh or scp command PKB ran ended (its `Ran: {ssh ...}` lines
  in the run's pkb.log)."""
  out = []
  for line in log_text.splitlines():
    if _SSH.search(line):
      when = _LogTime(line)
      if when is not None:
        out.append(when)
  return out


def _Clip(runs: Sequence[ToolRun], start: float, end: float) -> float:
  return UnionSeconds((max(r.start, start), min(r.end, end)) for r in runs)


def FixedCosts(
    wall_s: float,
    runs: Sequence[ToolRun],
    windows: Sequence[tuple[str, str, float, float]],
    ssh_times: Sequence[float],
) -> dict:
  """Harness seconds and ssh commands per phase and outside the phases.

  Args:
    wall_s: pkb.py's wall time.
    runs: the tool runs.
    windows: PhaseWindows of its log.
    ssh_times: SshTimes of its log.
  """
  phases = {}
  inside = []
  for phase, _, start, end in windows:
    entry = phases.setdefault(
        phase, {'wall_s': 0.0, 'tool_s': 0.0, 'ssh_commands': 0}
    )
    entry['wall_s'] += end - start
    entry['tool_s'] += _Clip(runs, start, end)
    entry['ssh_commands'] += sum(1 for t in ssh_times if start <= t <= end)
    inside.append((start, end))
  for entry in phases.values():
    entry['harness_s'] = entry['wall_s'] - entry['tool_s']
  in_phases = UnionSeconds(inside)
  tool_in_phases = sum(e['tool_s'] for e in phases.values())
  ssh_in_phases = sum(e['ssh_commands'] for e in phases.values())
  outside_tool = UnionSeconds((r.start, r.end) for r in runs) - tool_in_phases
  outside = {
      'wall_s': wall_s - in_phases,
      'tool_s': max(0.0, outside_tool),
      'ssh_commands': len(ssh_times) - ssh_in_phases,
  }
  outside['harness_s'] = outside['wall_s'] - outside['tool_s']
  rounded = {
      name: {k: round(v, 2) for k, v in entry.items()}
      for name, entry in sorted(phases.items())
  }
  return {
      'phases': rounded,
      'outside_phases': {k: round(v, 2) for k, v in outside.items()},
      'ssh_commands': len(ssh_times),
  }


# Settings the report's tool time is computed from: name -> flag.
REPORT_SETTINGS = {
    'coremark_runs': 'cloud_report_coremark_runs',
    'fio_runtime_s': 'cloud_report_fio_runtime_s',
    'fio_ramp_s': 'cloud_report_fio_ramp_time_s',
    'netperf_duration_s': 'cloud_report_netperf_duration_s',
    'tpcc_duration': 'cloud_report_tpcc_duration',
    'tpcc_ramp': 'cloud_report_tpcc_ramp',
}


def _Seconds(value) -> float:
  text = str(value).strip()
  units = {'s': 1, 'm': 60, 'h': 3600}
  if text and text[-1] in units:
    return float(text[:-1]) * units[text[-1]]
  return float(text)


def AtReport(
    runs: Sequence[ToolRun],
    harness_s: float,
    report: dict[str, str],
    smoke: dict[str, str],
) -> dict:
  """The harness's share of a run at the report's settings (an upper bound).

  Args:
    runs: the smoke run's tool runs.
    harness_s: its harness seconds (taken as fixed costs).
    report: REPORT_SETTINGS name -> the report's value (flag default).
    smoke: the same names -> the smoke run's values.
  """

  def Report(name):
    return _Seconds(report[name]) if name in report else None

  total = 0.0
  by_tool = {}
  for r in runs:
    key = f'{r.tool} ({r.kind})'
    s = None
    if r.tool == 'coremark' and 'coremark_runs' in smoke:
      runs_ = Report('coremark_runs')
      s = (
          None
          if runs_ is None
          else r.seconds * runs_ / _Seconds(smoke['coremark_runs'])
      )
    elif r.tool == 'fio' and r.kind == MEASURED:
      runtime, ramp = Report('fio_runtime_s'), Report('fio_ramp_s')
      s = None if runtime is None else runtime + (ramp or 0.0)
    elif r.tool == 'netperf':
      s = Report('netperf_duration_s')
    elif r.tool == 'go-tpc' and ' tpcc run' in r.cmdline:
      s = Report('tpcc_duration' if r.kind == MEASURED else 'tpcc_ramp')
    if s is None:  # as measured
      s = r.seconds
    by_tool[key] = by_tool.get(key, 0.0) + s
    total += s
  return {
      'tool_s': round(total, 1),
      'harness_s': round(harness_s, 2),
      'harness_share_pct': 100.0 * harness_s / (harness_s + total),
      'tool_s_by_tool': {k: round(v, 1) for k, v in sorted(by_tool.items())},
      'settings': {'report': dict(report), 'smoke': dict(smoke)},
  }


def PhaseSeconds(log_text: str) -> dict[str, float]:
  """Seconds of each phase's Install/Setup/Run/Cleanup, from PKB's log."""
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
    settings: tuple[dict[str, str], dict[str, str]] | None = None,
) -> dict:
  """Runs the smoke suite with stock pkb.py under the tracer; returns figures.

  Args:
    cloud_env: environment naming the local cloud (PKB_EXT_LOCAL_STATE...).
    namespaces: host name -> network namespace of that cloud.
    work_dir: where the flag file, PKB's temp dir, log and samples go.
    run_uri: PKB's run_uri.
    extra_flags: more pkb.py flags.
    timeout_s: the run's limit.
    settings: (report, smoke) values of REPORT_SETTINGS for AtReport; None
      leaves at_report out.
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
  runs = [r for r in runs if r.start >= started - 1]
  result = Overhead(wall, runs)
  debug_log = os.path.join(work_dir, 'pkb', 'runs', run_uri, 'pkb.log')
  try:
    with open(debug_log, errors='replace') as f:
      ssh_log = f.read()
  except OSError:
    ssh_log = log_text
  result.update(
      pkb_returncode=rc,
      pkb_log=log_path,
      phase_seconds=PhaseSeconds(log_text),
      hosts_traced=sorted(namespaces),
      fixed_costs=FixedCosts(
          wall, runs, PhaseWindows(log_text), SshTimes(ssh_log)
      ),
  )
  if settings:
    result['at_report'] = AtReport(runs, result['harness_s'], *settings)
  return result
