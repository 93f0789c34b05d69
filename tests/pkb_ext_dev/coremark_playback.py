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

Answers() gives (command fragment, stdout) pairs, first match wins, in the
shape of fake_vm_main.py's answers, for a 16-vCPU VM: the package's
three checks (tarball sha256, tar commit header, extracted tree) and the real
single-core and 16-thread pthread outputs in tests/data/coremark.
"""

import os

from pkb_ext import paths
from linux_packages import cloud_report_coremark as pkg

DATA_DIR = os.path.join(paths.RepoRoot(), 'tests', 'data', 'coremark')
THREADS = 16


def Read(name: str) -> str:
  with open(os.path.join(DATA_DIR, name)) as f:
    return f.read()


def Answers() -> list[tuple[str, str]]:
  return [
      ('xargs -0 sha256sum', f'{pkg.TREE_SHA256}  -\n'),
      # One command prints the tarball's sha256 and its pax commit.
      (
          'sha256sum /opt',
          (
              f'{pkg.TARBALL_SHA256} '
              f' coremark-v1.01.tar.gz\ncomment={pkg.COMMIT}\n'
          ),
      ),
      ('coremark-single 0x0', Read('single_core.txt')),
      (
          f'coremark-all-pthread-{THREADS} 0x0',
          Read('all_core_pthread_16_short.txt'),
      ),
  ]
