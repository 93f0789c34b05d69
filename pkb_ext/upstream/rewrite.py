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
"""What each exported file becomes: PKB's module names, header and format.

Our modules' names (benchmarks.cloud_report..., linux_packages.cloud_report_...,
in imports and in strings such as mock.patch targets) become
perfkitbenchmarker.linux_benchmarks.* and perfkitbenchmarker.linux_packages.*,
PKB's licence header replaces ours, and the new Python files are formatted
by pyink with PKB's settings. A module that still imports pkb_ext,
pkb_ext_dev, benchmarks or linux_packages after the rewrite is refused.
"""

import ast
import os
import re
import subprocess
import sys
import tempfile

from pkb_ext.upstream import edits
from pkb_ext.upstream import errors
from pkb_ext.upstream import layout

# Our top-level packages -> PKB's.
IMPORT_RENAMES = {
    'benchmarks': 'perfkitbenchmarker.linux_benchmarks',
    'linux_packages': 'perfkitbenchmarker.linux_packages',
}
# One of ours as the start of a dotted name (not after a dot, a word
# character, '/' or '-'), naming one of our modules (they all start with
# cloud_report) or followed by `import`: `from benchmarks.cloud_report
# import x`, `from linux_packages import cloud_report_fio`,
# 'benchmarks.cloud_report.phases.F' in a mock.patch target. PKB's own
# linux_packages (perfkitbenchmarker.linux_packages, or the module imported
# from perfkitbenchmarker) is left alone.
_OUR_NAME = re.compile(
    r'(?<![\w./-])(benchmarks|linux_packages)(?=\.cloud_report|\s+import\s)'
)
# Top-level names no exported module may import.
FORBIDDEN_IMPORTS = ('pkb_ext', 'pkb_ext_dev', 'benchmarks', 'linux_packages')
# PKB's licence header (its hooks/lib/boilerplate.py.txt, with the year).
PKB_HEADER = edits.Read('pkb_header.py.txt')
# The header a file of ours carries: the upstream unit's files carry PKB's
# own already (they are written for PKB); the exporter normalizes either.
_OUR_HEADER = re.compile(
    r'\A# Copyright (?P<year>\d{4})'
    r' (?:The pkb_ext Authors\.|PerfKitBenchmarker Authors\. All rights'
    r' reserved\.)\n'
    r'#\n'
    r'# Licensed under the Apache License, Version 2\.0 \(the "License"\);\n'
    r'(?:#.*\n)*?'
    r'# limitations under the License\.\n'
)
# PKB's formatter settings (its CONTRIBUTING.md).
PYINK_ARGS = (
    '--pyink-indentation=2',
    '--pyink-use-majority-quotes',
    '--unstable',
    '--line-length=80',
)
# Files whose text names our modules (code, provenance notes); the rest is
# data, copied byte for byte.
_REWRITTEN_SUFFIXES = ('.py', '.md')


def RewriteImports(text: str) -> str:
  """text with our modules' names as PKB's (see _OUR_NAME)."""
  return _OUR_NAME.sub(lambda m: IMPORT_RENAMES[m.group(1)], text)


def ReplaceHeader(text: str, where: str) -> str:
  """Gives a file PKB's licence header (a .py file must have a header)."""
  match = _OUR_HEADER.match(text)
  if not match:
    if where.endswith('.py'):
      raise errors.ExportError(
          f'{where}: does not start with an Apache licence header'
      )
    return text
  return PKB_HEADER.format(year=match.group('year')) + text[match.end() :]


def ForbiddenImports(text: str, where: str) -> list[str]:
  """Returns 'file:line: import X' for each import of FORBIDDEN_IMPORTS."""
  try:
    tree = ast.parse(text, filename=where)
  except SyntaxError as e:
    raise errors.ExportError(f'{where}: not Python: {e}') from e
  found = []
  for node in ast.walk(tree):
    if isinstance(node, ast.Import):
      names = [a.name for a in node.names]
    elif isinstance(node, ast.ImportFrom) and node.level == 0:
      names = [node.module or '']
    else:
      continue
    for name in names:
      if name.split('.')[0] in FORBIDDEN_IMPORTS:
        found.append((node.lineno, f'{where}:{node.lineno}: imports {name}'))
  return [text for _, text in sorted(found)]  # in line order


def BenchmarkName(text: str) -> str | None:
  """The module-level BENCHMARK_NAME string of a benchmark module."""
  for node in ast.parse(text).body:
    if (
        isinstance(node, ast.Assign)
        and [getattr(t, 'id', None) for t in node.targets] == ['BENCHMARK_NAME']
        and isinstance(node.value, ast.Constant)
        and isinstance(node.value.value, str)
    ):
      return node.value.value
  return None


def Transform(source_root: str, item: layout.ExportFile) -> bytes:
  """The exported content of one file (names and header rewritten)."""
  path = os.path.join(source_root, item.source)
  with open(path, 'rb') as f:
    raw = f.read()
  if not item.source.endswith(_REWRITTEN_SUFFIXES):
    return raw  # data (captured outputs, templates): copied as it is
  text = RewriteImports(raw.decode('utf-8'))
  text = ReplaceHeader(text, item.source)
  if item.source.endswith('.py'):
    found = ForbiddenImports(text, item.source)
    if found:
      raise errors.ExportError(
          'code bound for PKB imports what PKB does not have:\n  '
          + '\n  '.join(found)
      )
  return text.encode('utf-8')


def Pyink(files: list[str], check: bool = False) -> subprocess.CompletedProcess:
  """Runs pyink with PKB's settings (this interpreter's pyink)."""
  return subprocess.run(
      [sys.executable, '-m', 'pyink', *PYINK_ARGS, '--quiet']
      + (['--check', '--diff'] if check else [])
      + list(files),
      capture_output=True,
      text=True,
      check=False,
  )


def Format(contents: dict[str, bytes]) -> None:
  """pyink (PKB's settings) over the new Python files, in place.

  The Python files among the data files (the object storage worker) are
  left as they are written.
  """
  python = [
      d
      for d in contents
      if d.endswith('.py') and not d.startswith(layout.DATA_DEST + '/')
  ]
  with tempfile.TemporaryDirectory(prefix='pkb-ext-pyink-') as tmp:
    files = []
    for i, dest in enumerate(python):
      path = os.path.join(tmp, f'{i}_{os.path.basename(dest)}')
      with open(path, 'wb') as f:
        f.write(contents[dest])
      files.append(path)
    formatted = Pyink(files)
    if formatted.returncode:
      raise errors.ExportError(f'pyink failed: {formatted.stderr.strip()}')
    for dest, path in zip(python, files):
      with open(path, 'rb') as f:
        contents[dest] = f.read()
