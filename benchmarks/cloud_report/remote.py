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
"""Shell pieces the phases share for commands run on a VM.

ExitStatusTo is the one way a phase keeps a remote command's exit status
when the command's output goes elsewhere: a background netperf stream, the
object-storage worker, a logged TPC-C run. The status lands in a file that
the phase reads afterwards.

Bounded is the one way a phase bounds a long remote command on the VM
itself. PKB's timeout of a (Robust)RemoteCommand ends the ssh session or its
wait, not the remote process, which would go on holding the VMs' disks and
CPUs; GNU timeout on the VM ends the command's whole process group, then
KILLs it KILL_AFTER_S later. Its exit status is then one of TIMED_OUT.
"""

# GNU timeout's exit status when it ended the command (124: after its
# signal; 137: after the KILL that follows -k).
TIMED_OUT = (124, 137)
KILL_AFTER_S = 30
# What a caller adds to a Bounded command's bound for PKB's own timeout, so
# that the VM's bound ends the command first.
SSH_MARGIN_S = KILL_AFTER_S + 120


def Bounded(command: str, seconds: int) -> str:
  """Returns `command` (a simple command) ended on the VM after seconds."""
  if seconds < 1:
    raise ValueError(f'a bound of {seconds} s')
  return f'timeout -k {KILL_AFTER_S} {int(seconds)} {command}'


def ExitStatusTo(command: str, status_path: str) -> str:
  """Returns shell that runs `command`, then writes its exit status.

  Args:
    command: a shell command (its own redirections included).
    status_path: the file that gets the exit status, as shell text.

  Returns:
    `command; echo $? > status_path`.
  """
  return f'{command}; echo $? > {status_path}'


def OneLine(error: BaseException | str, limit: int = 300) -> str:
  """The first non-empty line of an error, shortened (pure)."""
  text = str(error)
  lines = [l.strip() for l in text.splitlines() if l.strip()]
  first = lines[0] if lines else ''
  if isinstance(error, BaseException):
    first = (
        f'{type(error).__name__}: {first}' if first else type(error).__name__
    )
  return first if len(first) <= limit else first[: limit - 3] + '...'


def LastInteger(output: str) -> int | None:
  """The whole number a command printed last (None: it printed none)."""
  lines = [l.strip() for l in output.splitlines() if l.strip()]
  if lines and lines[-1].isdigit():
    return int(lines[-1])
  return None
