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
"""Plays back the cpu phase's remote commands from captured CoreMark outputs.

Answers() gives (command fragment, stdout, previous command's fragment)
triples, first match wins, in the shape of fake_vm_main.py's answers, for a
16-vCPU VM: the log PKB's RunCoremark reads after each build, the real
single-core and 16-thread pthread outputs in tests/data/coremark.
"""

import os

from perfkitbenchmarker.linux_benchmarks import coremark_benchmark

from pkb_ext import paths

DATA_DIR = os.path.join(paths.RepoRoot(), 'tests', 'data', 'coremark')
THREADS = 16
LOG = f'cat {coremark_benchmark.COREMARK_DIR}/run1.log'


def Read(name: str) -> str:
  with open(os.path.join(DATA_DIR, name)) as f:
    return f.read()


def Answers() -> list[tuple[str, str, str]]:
  return [
      (LOG, Read('single_core.txt'), '-DMULTITHREAD=1 '),
      (LOG, Read('all_core_pthread_16_short.txt'), f'-DMULTITHREAD={THREADS} '),
  ]
