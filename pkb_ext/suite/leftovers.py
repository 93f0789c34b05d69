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
"""Commands an earlier attempt of a run left running, found and ended.

A PKB process killed mid-phase leaves the commands PKB runs detached
(RobustRemoteCommand) running up to their end or bound, and a command that
does not write to its lost ssh session before it ends (a CoreMark run prints
only then) runs to its end or its bound. A resumed run would measure beside
them (two workloads on one cluster, two fio jobs on one disk, two
object-storage workers writing one output file). A Tracked command (or one
the exported remote.Bounded runs with a tag) has, while it runs, a PID file
on the VM naming its process group; EndLeftovers, run by a phase before it
starts its own commands, ends what such a command of an earlier attempt
left running.
"""

import logging
import re
import shlex

from perfkitbenchmarker import errors

from benchmarks.cloud_report import remote

# Seconds an ended leftover gets to exit on TERM before its group is KILLed.
LEFTOVER_GRACE_S = 20
_ENDED = re.compile(
    r'^cloud_report_leftover (ended|alive) (\S+) pid (\d+)$', re.M
)


def Tracked(command: str, tag: str, directory: str = remote.RUNNING_DIR) -> str:
  """Returns `command` (a simple command) tracked under tag on the VM.

  While it runs, a PID file (remote.PidPath) holds its PID and start time; it is
  the leader of a session and process group of its own (setsid), so that
  EndLeftoversCommand can end it with its children. The result is an `sh -c`
  command, the command's words its arguments as they are, whose exit status
  is the command's; the command's stdin is /dev/null.
  """
  script = remote.TrackScript(remote.PidPath(tag, directory), 'setsid ')
  return f'sh -c {shlex.quote(script)} sh {command}'


# EndLeftoversCommand's loop, one PID file "$f" at a time: its PID and the
# start time the process had then; a process with another start time (a
# recycled PID) is not touched.
# sig SIGNAL: signals the group $p, with sudo -n if need be. up N: waits up
# to N s while $p still runs with the start time $want; true if it does.
_END_HELPERS = (
    'sig() { kill -$1 -- "-$p" 2>/dev/null ||'
    ' sudo -n kill -$1 -- "-$p" 2>/dev/null; };'
    ' up() { i=0; while [ "$(st "$p")" = "$want" ]; do'
    ' [ $i -lt $1 ] || return 0; sleep 1; i=$((i+1)); done; return 1; };'
)
_END_ONE = (
    'set -- $(cat "$f" 2>/dev/null); p=${1:-0}; want=${2:-};',
    'case "$p" in ""|*[!0-9]*) p=0;; esac;',
    't=${f#@STRIP@}; t=${t%.pid};',
    'if [ "$p" -gt 1 ] && [ -n "$want" ] && [ "$(st "$p")" = "$want" ]; then',
    # KILL whatever is left of the group, the leader gone or not.
    ' sig TERM; up @GRACE@; sig KILL;',
    ' if up 5; then',
    '  echo "cloud_report_leftover alive $t pid $p"; continue;',
    ' fi;',
    ' echo "cloud_report_leftover ended $t pid $p";',
    'fi;',
    'rm -f "$f" 2>/dev/null || sudo -n rm -f "$f";',
)


def EndLeftoversCommand(
    prefix: str,
    grace_s: int = LEFTOVER_GRACE_S,
    directory: str = remote.RUNNING_DIR,
) -> str:
  """Returns shell that ends the tracked commands whose tag starts with prefix.

  For each such PID file whose process still runs (the same PID with the
  same start time), the command's process group gets TERM, then KILL after
  grace_s if it has not ended (with sudo -n where the command ran as root).
  Each ended command prints one line that Leftovers reads, and so does
  one that could not be ended (its PID file is kept); PID files of ended or
  dead commands are removed. Exits 0.
  """
  remote.CheckTag(prefix)
  start = shlex.quote(f'{directory}/{remote.RUNNING_PREFIX}{prefix}')
  strip = shlex.quote(f'{directory}/{remote.RUNNING_PREFIX}')
  body = ' '.join(_END_ONE)
  body = body.replace('@GRACE@', str(int(grace_s))).replace('@STRIP@', strip)
  return (
      f'{remote.START_TIME} {_END_HELPERS} for f in {start}*.pid; do'
      ' [ -e "$f" ] || continue;'
      f' {body} done; true'
  )


def Leftovers(output: str, state: str = 'ended') -> list[tuple[str, int]]:
  """The (tag, pid) of each command EndLeftoversCommand reported (pure).

  Args:
    output: EndLeftoversCommand's output.
    state: 'ended', or 'alive' for those it could not end.
  """
  return [(t, int(p)) for s, t, p in _ENDED.findall(output) if s == state]


def EndLeftovers(vms, prefix: str, what: str) -> list[tuple[str, str, int]]:
  """Ends, on each VM, what tracked commands of an earlier attempt left.

  Args:
    vms: the VMs (PKB's BaseVirtualMachine) the phase's commands run on.
    prefix: the tags' prefix (a phase's own).
    what: the phase's name, for the log.

  Returns:
    (vm name, tag, pid) of each command ended; each is logged as a warning.

  Raises:
    errors.Benchmarks.RunError: a leftover could not be ended (neither kill
      nor sudo -n kill could signal it); the phase measures nothing beside
      it.
  """
  ended = []
  for vm in vms:
    out, _ = vm.RemoteCommand(
        EndLeftoversCommand(prefix),
        timeout=LEFTOVER_GRACE_S + remote.SSH_MARGIN_S,
    )
    alive = Leftovers(out, 'alive')
    if alive:
      tag, pid = alive[0]
      raise errors.Benchmarks.RunError(
          f'{what}: {tag} (pid {pid}) on {vm.name}, left running by an earlier'
          ' attempt of this run, could not be ended (kill and sudo -n kill'
          f' failed); it would run beside this attempt: end it on {vm.name}'
          ' and run again'
      )
    for tag, pid in Leftovers(out):
      logging.warning(
          '%s: ended %s (pid %d) on %s, left running by an earlier attempt'
          ' of this run; it would have run beside this attempt\'s commands',
          what, tag, pid, vm.name,
      )  # fmt: skip
      ended.append((vm.name, tag, pid))
  return ended
