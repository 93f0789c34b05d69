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
"""The text the export writes into PKB's tree, kept as files beside this one.

pkb_header.py.txt            PKB's licence header ({year} for the year),
                             given to every exported file;
package_cleanup_loop.py.txt  PackageCleanup's loop in PKB's
                             linux_virtual_machine.py, as the fix finds it;
package_cleanup_test.py.txt  the fix's test class, added to PKB's
                             tests/linux_virtual_machine_test.py;
benchmark_sets.py.txt        the two benchmark sets added to PKB's
                             benchmark_sets.py (a string.Template);
<name>.diff.txt              a fix of one of PKB's modules and its PKB
                             test file (pkb_fixes), as a git diff against
                             PKB at the pin.
"""

import importlib.resources


def Read(name: str) -> str:
  """The text of the file `name` beside this module."""
  return (
      importlib.resources.files(__name__)
      .joinpath(name)
      .read_text(encoding='utf-8')
  )
