# Copyright 2026 PerfKitBenchmarker Authors. All rights reserved.
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
"""Shell pieces for commands run on a VM, bounded and tracked.

ExitStatusTo keeps a remote command's exit status when the command's output
goes elsewhere (a logged TPC-C run): the status lands in a file read
afterwards.

Bounded bounds a long remote command on the VM
itself. PKB's timeout of a (Robust)RemoteCommand ends the ssh session or its
wait, not the remote process, which would go on holding the VMs' disks and
CPUs; GNU timeout on the VM ends the command's whole process group, then
KILLs it KILL_AFTER_S later. Its exit status is then one of TIMED_OUT.

A Bounded command given a tag has, while it runs, a PID file on the VM
(PidPath) naming its process group and its start time (START_TIME), so that
a runner that resumes a crashed run can find and end what the crash left
running before it starts again.
"""

import re
import shlex

# GNU timeout's exit status when it ended the command (124: after its
# signal; 137: after the KILL that follows -k).
TIMED_OUT = (124, 137)
KILL_AFTER_S = 30
# What a caller adds to a Bounded command's bound for PKB's own timeout, so
# that the VM's bound ends the command first.
SSH_MARGIN_S = KILL_AFTER_S + 120


# Where tracked commands keep their PID files: /tmp, shared by a command run
# with sudo and one run without.
RUNNING_DIR = '/tmp'
RUNNING_PREFIX = 'cloud_report_running.'
_TAG = re.compile(r'[A-Za-z0-9][A-Za-z0-9_.-]*\Z')


def CheckTag(tag: str) -> str:
  if not _TAG.match(tag):
    raise ValueError(f'tag {tag!r}: letters, digits, ".", "_" and "-" only')
  return tag


def PidPath(tag: str, directory: str = RUNNING_DIR) -> str:
  """The PID file of the tracked command `tag` on the VM."""
  return f'{directory}/{RUNNING_PREFIX}{CheckTag(tag)}.pid'


# sh: st PID prints the process's start time (clock ticks after boot, field
# 22 of /proc/PID/stat; the fields after the command name's ")" are counted,
# as a name may hold spaces), nothing if it is gone or a zombie. Only sh and
# cat: a minimal image has no ps.
START_TIME = (
    'st() { s=$(cat /proc/$1/stat 2>/dev/null) || return 0;'
    ' s=${s##*) }; set -- $s; [ "$1" = Z ] || echo ${20}; };'
)


def TrackScript(pid_path: str, launch: str) -> str:
  """sh that starts "$@" (with launch before it) in the background, keeps
  its PID and start time in pid_path while it runs, and exits its status."""
  pid = shlex.quote(pid_path)
  return (
      f'{START_TIME} {launch}"$@" & p=$!; echo "$p $(st $p)" > {pid};'
      f' wait $p; s=$?; rm -f {pid}; exit $s'
  )


def Bounded(
    command: str, seconds: int, tag: str | None = None,
    directory: str = RUNNING_DIR,
) -> str:  # fmt: skip
  """Returns `command` (a simple command) ended on the VM after seconds.

  Args:
    command: a simple command.
    seconds: its bound.
    tag: when given, the command is also tracked (as Tracked does): GNU
      timeout, the leader of the command's process group, is what the PID
      file names.
    directory: where the PID file goes.
  """
  if seconds < 1:
    raise ValueError(f'a bound of {seconds} s')
  bounded = f'timeout -k {KILL_AFTER_S} {int(seconds)} {command}'
  if tag is None:
    return bounded
  script = TrackScript(PidPath(tag, directory), '')
  return f'sh -c {shlex.quote(script)} sh {bounded}'


def ExitStatusTo(command: str, status_path: str) -> str:
  """Returns shell that runs `command`, then writes its exit status.

  Args:
    command: a shell command (its own redirections included).
    status_path: the file that gets the exit status, as shell text.

  Returns:
    `command; echo $? > status_path`.
  """
  return f'{command}; echo $? > {status_path}'


def LastInteger(output: str) -> int | None:
  """The whole number a command printed last (None: it printed none)."""
  lines = [l.strip() for l in output.splitlines() if l.strip()]
  if lines and lines[-1].isdigit():
    return int(lines[-1])
  return None
