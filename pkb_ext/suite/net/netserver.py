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
"""The net phase's shell commands around netperf, pure.

Each netserver is started on its own control port with a pid file in
WORK_DIR and stopped by that pid, never by name (PKB's netperf cleanup runs
`killall netserver`, which would also end other runs' servers); concurrent
netperf streams run in one shell, each output marked so it can be split.
"""

import posixpath
import re
from typing import Sequence

from perfkitbenchmarker import errors

from benchmarks.cloud_report import remote

WORK_DIR = 'cloud_report_netperf'  # relative: the login's home on a VM
# The VM attribute where Prepare keeps the netperf it installed, for Run.

STREAM_MARK = '@@@ cloud_report netperf stream '
STREAM_MARK_LINE = re.compile(
    '^' + re.escape(STREAM_MARK) + r'(\d+) exit (\d*)$', re.M
)


def Pidfile(port: int) -> str:
  return posixpath.join(WORK_DIR, f'netserver-{port}.pid')


def StopNetserverCommand(port: int) -> str:
  """Stops the netserver whose PID our pidfile holds, and its children.

  netserver forks a child per test that inherits the listening socket, so
  stopping only the parent can leave the port held. The phase starts
  netserver as the leader of its own process group (setsid), and this stops
  the members of that group that run `netserver -p PORT` and no other
  process: a reused PID or anyone else's netserver is never hit. It waits
  until they are gone (SIGKILL after 10 s) and the port is free (up to
  10 s more, where `ss` exists). Prints `stopped PID`, `gone PID` or
  nothing.
  """
  pidfile = Pidfile(port)
  mine = f'pgrep -g "$pid" -f "netserver -p {port} "'
  return (
      f'if [ -f {pidfile} ]; then pid=$(cat {pidfile}); '
      f'if ps -o args= -p "$pid" | grep -q "netserver -p {port} " || '
      f'{mine} >/dev/null; then '
      f'pids="$pid $({mine} | tr "\\n" " ")"; '
      'kill $pids 2>/dev/null; '
      f'for i in $(seq 100); do {mine} >/dev/null || '
      'kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done; '
      f'left=$({mine}); [ -n "$left" ] && kill -9 $left 2>/dev/null; '
      f'for i in $(seq 100); do {mine} >/dev/null || break; sleep 0.1; done; '
      'echo "stopped $pid"; '
      'else echo "gone $pid"; fi; '
      f'rm -f {pidfile}; '
      'if command -v ss >/dev/null; then for i in $(seq 100); do '
      f'[ -z "$(ss -Hltn "sport = :{port}")" ] && break; sleep 0.1; done; '
      'fi; fi'
  )


START_ATTEMPTS = 3  # netserver starts tried while the port stays taken
START_WAIT_S = 30  # how long one start may take to say it listens


def StartNetserverCommand(
    netserver: str, port: int, wait_s: int = START_WAIT_S
) -> str:
  """Starts netserver in the foreground mode (-D) in the background.

  With -D netserver does not daemonize, so `$!` is its PID; setsid makes it
  the leader of its own process group, which its per-test children join,
  so StopNetserverCommand can stop them all. The command writes the PID to
  the pidfile, waits until netserver says it listens (up to wait_s
  seconds), and prints the PID. A netserver of an earlier run recorded in
  our pidfile is stopped first, and the log of an earlier start is removed
  before each start (the started process truncates it only when it gets to
  run, so a wait could read the earlier start's words). A port that is
  taken when netserver starts is tried START_ATTEMPTS times, 2 s apart. A
  start that fails
  prints netserver's log and, where `ss` exists, the sockets on the port
  and their processes; a netserver that said nothing in time is ended.
  """
  log = posixpath.join(WORK_DIR, f'netserver-{port}.log')
  pidfile = Pidfile(port)
  started = f"grep -q 'Starting netserver' {log}"
  return (
      f'mkdir -p {WORK_DIR} && {StopNetserverCommand(port)} >/dev/null; '
      'setsid=$(command -v setsid || true); '
      f'for attempt in $(seq {START_ATTEMPTS}); do '
      f'rm -f {log}; '
      f'$setsid nohup {netserver} -p {port} -D </dev/null >{log} 2>&1 & '
      f'echo $! >{pidfile}; '
      f'for i in $(seq {wait_s * 10}); do '
      f"grep -q -e 'Starting netserver' -e 'Unable' {log} 2>/dev/null && "
      'break; sleep 0.1; done; '
      f"grep -q 'Unable' {log} 2>/dev/null || break; "
      f'[ "$attempt" = {START_ATTEMPTS} ] || sleep 2; done; '
      f'if {started} 2>/dev/null && '
      f'ps -o stat= -p "$(cat {pidfile})" | grep -qv Z; then cat {pidfile}; '
      f'else kill "$(cat {pidfile})" 2>/dev/null; cat {log} >&2; '
      f'{started} 2>/dev/null || echo "netserver did not say it listens'
      f' within {wait_s} s" >&2; '
      'if command -v ss >/dev/null; then '
      f'echo "sockets on port {port}:" >&2; '
      f'ss -Htanp "sport = :{port}" >&2; fi; '
      f'rm -f {pidfile}; exit 1; fi'
  )


def ConcurrentCommand(commands: Sequence[str]) -> str:
  """Runs netperf commands at once; prints each one's output after a mark.

  With -I each process iterates on its own, so they may stop at different
  times; the summed throughput is PKB's netperf convention all the same.
  """
  d = '"$d"'
  runs = [
      remote.ExitStatusTo(f'{c} >{d}/{i}.out 2>{d}/{i}.err', f'{d}/{i}.rc')
      for i, c in enumerate(commands)
  ]
  starts = ' '.join(f'({run}) &' for run in runs)
  n = len(commands)
  return (
      f'd=$(mktemp -d) || exit 1; {starts} wait; '
      f'for i in $(seq 0 {n - 1}); do '
      f'echo "{STREAM_MARK}$i exit $(cat {d}/$i.rc)"; cat {d}/$i.out; '
      f'cat {d}/$i.err >&2; done; rm -rf {d}'
  )


def SplitConcurrent(stdout: str, n: int) -> list[tuple[int, str]]:
  """Splits ConcurrentCommand output into (exit code, stdout) per stream.

  Raises:
    errors.Benchmarks.RunError: a stream's output is missing.
  """
  marks = list(STREAM_MARK_LINE.finditer(stdout))
  if [int(m.group(1)) for m in marks] != list(range(n)):
    raise errors.Benchmarks.RunError(
        f'expected the outputs of {n} concurrent netperf runs, got'
        f' {len(marks)}: {stdout[:500]!r}'
    )
  out = []
  for i, m in enumerate(marks):
    end = marks[i + 1].start() if i + 1 < n else len(stdout)
    rc = int(m.group(2)) if m.group(2) else -1
    out.append((rc, stdout[m.end() : end].lstrip('\n')))
  return out


# --- Running. ---
