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
"""Plays back the io phase's remote commands from captured fio outputs.

Answers(...) gives (command fragment, stdout) pairs, first match wins, in the
shape of fake_vm_main.py's _ANSWERS and of PKB's MockRemoteCommand
(a dict keeps the order). The outputs are the real ones in tests/data/fio
(see its PROVENANCE.md): fio 3.33 per-job JSON, and io_guard probe outputs.

The phase runs fio through RobustRemoteCommand, whose wait script must print
'Command finished.'; each job's command ends with `cat` of its JSON, so its
answer is that JSON (fake_vm_main's FakeShell returns it from the last wait,
as PKB's wait script returns the command's stdout).
"""

import os

from pkb_ext.suite.disk import commands as storage_commands
from pkb_ext import paths
from pkb_ext.suite.disk import stages as io

DATA_DIR = os.path.join(paths.RepoRoot(), 'tests', 'data', 'fio')
DISK_BYTES = 1 << 30  # the captures ran on a 1 GiB loop device
PROBE_SAFE = 'probe_loop_unmounted.txt'
PROBE_MOUNTED = 'probe_loop_mounted.txt'
PROBE_ROOT = 'probe_root_disk.txt'


def Read(name: str) -> str:
  with open(os.path.join(DATA_DIR, name)) as f:
    return f.read()


def JobFile(job: str) -> str:
  return f'job_{job}.json'


def Answers(
    probe: str = PROBE_SAFE, overrides: dict[str, str] | None = None
) -> list[tuple[str, str]]:
  """Fragment -> stdout pairs for the io phase; first match wins.

  Args:
    probe: the captured probe output the guard sees.
    overrides: job name -> stdout to answer for that job's JSON instead.
  """
  overrides = overrides or {}
  answers = [
      ('end-of-probe', Read(probe)),
      ('blockdev --getsize64', f'{DISK_BYTES}\n'),
      ('wait_for_command.py', 'Command finished.\n'),
  ]
  for job in (io.FILL_JOB,) + io.REPORTED_JOBS:
    out = overrides.get(job) or Read(JobFile(job))
    answers.append((f'cat {storage_commands.OutputFile(job)}', out))
  return answers
