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
"""This machine's processes, as tests look for what a run left behind."""

import os
from typing import Iterator


def Cmdlines() -> Iterator[tuple[int, str]]:
  """(pid, command line with spaces between arguments) of every process.

  A process that ends while it is read is skipped.
  """
  for pid in filter(str.isdigit, os.listdir('/proc')):
    try:
      with open(f'/proc/{pid}/cmdline', 'rb') as f:
        cmd = f.read().replace(b'\0', b' ').decode(errors='replace')
    except OSError:
      continue
    yield int(pid), cmd
