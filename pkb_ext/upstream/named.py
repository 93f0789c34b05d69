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
"""Which exported modules no exported test names.

An exported test names a module when it imports it (`import a.b`, or
`from a import b` for a and a.b) or writes its dotted name, such as a
`mock.patch` target 'a.b.Function' (the longest exported module that starts
the dotted name is the one named). A module that no test names is exported
untested, as far as a reader of the series can tell.
"""

import re

from pkb_ext.upstream import series

_DOTTED = re.compile(r'\b[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+')


def Unnamed(texts: dict[str, str], layout: series.Layout) -> list[str]:
  """The exported modules (PKB paths, sorted) that no exported test names.

  Args:
    texts: PKB path -> exported text of every exported file.
    layout: where the kinds of files live.

  Returns:
    The PKB paths of the modules under layout.benchmarks and layout.packages
    that no test under layout.tests imports or names.
  """
  modules = {
      series.ModuleName(d): d
      for d in texts
      if d.endswith('.py')
      and d.startswith((layout.benchmarks + '/', layout.packages + '/'))
  }
  named = set()
  for dest, text in texts.items():
    if not (
        dest.startswith(layout.tests + '/')
        and not dest.startswith(layout.test_data + '/')
        and dest.endswith('.py')
    ):
      continue
    named.update(n for n in series.Imports(text, dest) if n in modules)
    for dotted in _DOTTED.findall(text):
      parts = dotted.split('.')
      for end in range(len(parts), 0, -1):
        if '.'.join(parts[:end]) in modules:
          named.add('.'.join(parts[:end]))
          break
  return sorted(d for n, d in modules.items() if n not in named)
