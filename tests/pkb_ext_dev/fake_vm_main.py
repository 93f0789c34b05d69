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
"""Runs stock PKB's real Main on static VMs whose commands are faked.

Usage: python -m pkb_ext_dev.fake_vm_main COMMAND_LOG [PKB FLAGS...]
(pkb_ext_dev.stock_pkb.RunMain() runs it for tests.)

If the environment variable PKB_EXT_FAKE_ANSWERS names a JSON file of
[fragment, stdout] pairs (e.g. from pkb_ext_dev.fio_playback.Answers()),
they are tried before the built-in answers. A third element, when given, is
a fragment the VM's previous command must contain (e.g. CoreMark's log,
read with the same command after each build, answered per build).

Every remote command PKB or pkb_ext sends is answered by FakeShell and
appended, one JSON line each, to COMMAND_LOG, so a test can check what ran.
Nothing leaves this process: there is no ssh, no copy and no cloud call.
"""

import json
import os
import sys
from unittest import mock

from perfkitbenchmarker import linux_virtual_machine
from perfkitbenchmarker import pkb
from perfkitbenchmarker import static_virtual_machine

_LSCPU = """\
Architecture:        x86_64
CPU(s):              16
On-line CPU(s) list: 0-15
Thread(s) per core:  2
Core(s) per socket:  8
Socket(s):           1
NUMA node(s):        1
Vendor ID:           AuthenticAMD
Model name:          AMD EPYC 7R32
"""

# Command fragment -> stdout. The first fragment found in a command wins.
_ANSWERS = (
    ('grep processor | wc -l', '16\n'),
    ('lscpu', _LSCPU),
    ('nproc', '16\n'),
    ('uname -m', 'x86_64\n'),
    ('cat /proc/meminfo', 'MemTotal:       32768000 kB\n'),
    ('/proc/cpuinfo', 'processor\t: 0\nmodel name\t: AMD EPYC 7R32\n'),
    ('hostname', 'fake-host\n'),
    ('echo $HOME', '/home/perfkit\n'),
    ('cat /etc/os-release', 'ID=ubuntu\nVERSION_ID="24.04"\n'),
)


def _StdoutFile(command):
  """The --stdout file of PKB's execute_command.py/wait_for_command.py."""
  words = command.split()
  return words[words.index('--stdout') + 1] if '--stdout' in words else None


class FakeShell:
  """Answers remote commands from _ANSWERS and logs each one.

  PKB's RobustRemoteCommand runs a command through execute_command.py (the
  command is in its arguments) and returns what the last
  wait_for_command.py --delete prints: the command's stdout. So the start
  is answered with nothing and its answer is kept for that last wait; the
  waits before it get 'Command finished.'.
  """

  def __init__(self, log_path, answers=_ANSWERS):
    self._log_path = log_path
    self._answers = tuple(answers)
    self._robust = {}  # --stdout file -> the started command's answer
    self._previous = {}  # VM name -> its previous command

  def _Answer(self, command, previous=''):
    for fragment, stdout, *after in self._answers:
      if fragment in command and all(a in previous for a in after):
        return stdout
    return ''

  def __call__(self, vm, command, *args, **kwargs):
    del args, kwargs
    with open(self._log_path, 'a') as f:
      f.write(json.dumps({'vm': vm.name, 'command': command}) + '\n')
    previous = self._previous.get(vm.name, '')
    self._previous[vm.name] = command
    if 'execute_command.py' in command:
      self._robust[_StdoutFile(command)] = self._Answer(command)
      return '', '', 0
    if 'wait_for_command.py' in command:
      if '--delete' in command.split():
        return self._robust.pop(_StdoutFile(command), ''), '', 0
      return 'Command finished.\n', '', 0
    return self._Answer(command, previous), '', 0


def main(argv):
  answers = _ANSWERS
  extra = os.environ.get('PKB_EXT_FAKE_ANSWERS')
  if extra:
    with open(extra) as f:
      answers = tuple(tuple(a) for a in json.load(f)) + answers
  shell = FakeShell(argv[1], answers)

  def Remote(vm, command, *args, **kwargs):
    return shell(vm, command, *args, **kwargs)

  patches = [
      mock.patch.object(
          linux_virtual_machine.BaseLinuxMixin,
          'RemoteHostCommandWithReturnCode',
          Remote,
      ),
      mock.patch.object(
          linux_virtual_machine.BaseLinuxMixin,
          'RemoteCopy',
          lambda vm, *a, **k: shell(vm, 'RemoteCopy %s' % (a,)),
      ),
      mock.patch.object(
          static_virtual_machine.StaticVirtualMachine,
          'WaitForBootCompletion',
          lambda vm: None,
      ),
  ]
  for p in patches:
    p.start()
  pkb_argv = [argv[0]] + argv[2:]
  pkb.ParseArgs(pkb_argv)
  return pkb.Main(pkb_argv)


if __name__ == '__main__':
  sys.exit(main(sys.argv))
