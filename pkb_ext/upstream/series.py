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
"""How `pkb-ext upstream` cuts the exported unit into a patch series.

The grouping is computed from the files, never listed by hand:

  anchors      every package module (linux_packages/*.py), then every
               benchmark module (linux_benchmarks/*_benchmark.py): one
               group each in name order, after a first group of shared
               helpers;
  modules      each module joins the anchor that reaches it through the
               fewest imports (its own group for an anchor); a module two
               anchors reach equally near is a shared helper; a module no
               anchor reaches is an error. Then every module moves to the
               earliest group of a module that imports it, so each patch
               imports only what it or the patches before it add;
  data files   join the earliest group of a module that names their path
               (a string literal; `{...}` in it matches one path part), else
               of an exported test that names the path or its directory;
               otherwise an error;
  tests        join the latest group among the modules they import and the
               data files they name; a test that imports no exported module
               is an error;
  test data    (captured outputs) are exported only when an exported test
               names the file (a literal, or an f-string's literal parts),
               in the earliest group of such a test.

A group over PATCH_LINE_LIMIT lines is split along module lines: its
modules in import order, each with its data files and the tests whose last
exported import it is (and the captured outputs whose earliest reader is one
of those tests), packed into parts that each fit.
"""

import ast
import dataclasses
import posixpath
import re

from pkb_ext import errors

# Most lines one patch of the series may have (whole format-patch text).
PATCH_LINE_LIMIT = 1500
# Lines a patch has besides its files: headers, message, diffstat and the
# PKB files it edits. The packing keeps this much room.
_PATCH_OVERHEAD = 150
# Lines git adds per new file (diff --git, new file mode, index, ---, +++,
# @@) and per diffstat entry.
_FILE_OVERHEAD = 7
SHARED = 'shared'


class SeriesError(errors.Error):
  """The unit cannot be cut into a series; the message says why."""


@dataclasses.dataclass
class Part:
  """One patch of the series: a group, or one part of a split group."""

  group: str  # SHARED or the anchor's BENCHMARK_NAME
  anchor: str | None  # dest of the anchor benchmark module, if any
  files: list[str]  # PKB paths the patch adds, in plan order
  index: int = 1  # this part's number within its group
  count: int = 1  # how many parts the group has


def ModuleName(dest: str) -> str:
  """perfkitbenchmarker/a/b.py -> perfkitbenchmarker.a.b (packages too)."""
  name = dest[: -len('.py')].replace('/', '.')
  return name[: -len('.__init__')] if name.endswith('.__init__') else name


def _Parents(name: str) -> list[str]:
  parts = name.split('.')
  return ['.'.join(parts[:i]) for i in range(1, len(parts))]


def Imports(text: str, where: str) -> set[str]:
  """Dotted names a module imports (absolute imports; `from a import b`
  gives both a and a.b, whichever of them is a module)."""
  try:
    tree = ast.parse(text, filename=where)
  except SyntaxError as e:
    raise SeriesError(f'{where}: not Python: {e}') from e
  names = set()
  for node in ast.walk(tree):
    if isinstance(node, ast.Import):
      names.update(a.name for a in node.names)
    elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
      names.add(node.module)
      names.update(f'{node.module}.{a.name}' for a in node.names)
  return names


def Patterns(text: str, where: str) -> list[re.Pattern]:
  """The string literals of Python text as path patterns.

  A literal matches itself; an f-string's or a str.format template's
  replacement fields match any run of characters but '/'.
  """
  tree = ast.parse(text, filename=where)
  out = []
  for node in ast.walk(tree):
    if isinstance(node, ast.JoinedStr):
      pieces = [
          re.escape(v.value) if isinstance(v, ast.Constant) else '[^/]*'
          for v in node.values
      ]
      literal = ''.join(
          v.value for v in node.values if isinstance(v, ast.Constant)
      )
      if '.' in literal and re.search(r'\w{2,}', literal):  # a file name
        out.append(re.compile(''.join(pieces)))
    elif isinstance(node, ast.Constant) and isinstance(node.value, str):
      value = node.value
      if '\n' in value or len(value) > 200:
        continue
      if not re.search(r'\w{2,}', re.sub(r'\{[^{}]*\}', '', value)):
        continue  # no name in it, e.g. '{}/{}'
      pieces = re.split(r'(\{[^{}]*\})', value)
      out.append(
          re.compile(
              ''.join(
                  '[^/]*' if p.startswith('{') else re.escape(p) for p in pieces
              )
          )
      )
  return out


def _Names(patterns: list[re.Pattern], path: str, dirs: bool) -> bool:
  """Whether a pattern matches path (or, with dirs, one of its folders)."""
  candidates = [path]
  if dirs:
    head = posixpath.dirname(path)
    while head:
      candidates.append(head)
      head = posixpath.dirname(head)
  return any(p.fullmatch(c) for p in patterns for c in candidates)


@dataclasses.dataclass(frozen=True)
class Layout:
  """Where the kinds of exported files live in PKB's tree."""

  benchmarks: str  # e.g. perfkitbenchmarker/linux_benchmarks
  packages: str
  data: str  # the data subdirectory configs/ lands in
  tests: str  # tests/ (exported tests)
  test_data: str  # tests/data/<subdir> (captured outputs)


def _Kind(dest: str, layout: Layout) -> str:
  if dest.startswith(layout.data + '/'):
    return 'data'
  if dest.startswith(layout.test_data + '/'):
    return 'test_data'
  if dest.startswith(layout.tests + '/'):
    return 'test'
  if dest.endswith('.py') and dest.startswith(
      (layout.benchmarks + '/', layout.packages + '/')
  ):
    return 'module'
  raise SeriesError(f'{dest}: no rule places it in a patch')


def _IsAnchor(dest: str, layout: Layout) -> bool:
  rel = dest[len(layout.benchmarks) + 1 :]
  return _IsPackage(dest, layout) or (
      dest.startswith(layout.benchmarks + '/')
      and ('/' not in rel and rel.endswith('_benchmark.py'))
  )


def _IsPackage(dest: str, layout: Layout) -> bool:
  """A top-level module of linux_packages: a package PKB installs."""
  rel = dest[len(layout.packages) + 1 :]
  return dest.startswith(layout.packages + '/') and '/' not in rel


def AnchorName(dest: str, benchmark_names: dict[str, str]) -> str:
  """A group's name: its benchmark's BENCHMARK_NAME, or its package's."""
  return benchmark_names.get(dest) or posixpath.basename(dest)[: -len('.py')]


class _Graph:
  """The exported modules and their imports of one another."""

  def __init__(self, texts: dict[str, str], modules: list[str]):
    self.by_name = {ModuleName(d): d for d in modules}
    self.deps = {}
    for dest in modules:
      name = ModuleName(dest)
      wanted = Imports(texts[dest], dest) | set(_Parents(name))
      for imported in list(wanted):
        wanted.update(_Parents(imported))
      self.deps[dest] = sorted(
          self.by_name[n]
          for n in wanted
          if n in self.by_name and self.by_name[n] != dest
      )

  def Distances(self, start: str) -> dict[str, int]:
    seen, frontier, depth = {start: 0}, [start], 0
    while frontier:
      depth += 1
      nxt = []
      for dest in frontier:
        for dep in self.deps[dest]:
          if dep not in seen:
            seen[dep] = depth
            nxt.append(dep)
      frontier = nxt
    return seen

  def Closure(self, dest: str) -> set[str]:
    return set(self.Distances(dest)) - {dest}

  def Order(self) -> list[str]:
    """Every module after the modules it imports (ties by path)."""
    out, seen = [], set()

    def Visit(dest):
      if dest in seen:
        return
      seen.add(dest)
      for dep in self.deps[dest]:
        Visit(dep)
      out.append(dest)

    for dest in sorted(self.deps):
      Visit(dest)
    return out


def Group(
    texts: dict[str, str],
    benchmark_names: dict[str, str],
    layout: Layout,
) -> tuple[list[str], dict[str, str]]:
  """Assigns every exported file to a group.

  Args:
    texts: PKB path -> exported text of every file to export (binary data
      as its latin-1 text).
    benchmark_names: anchor PKB path -> its BENCHMARK_NAME.
    layout: where the kinds of files live.

  Returns:
    (the groups in series order, PKB path -> its group).

  Raises:
    SeriesError: a file that no rule places.
  """
  kinds = {dest: _Kind(dest, layout) for dest in texts}
  modules = [d for d in texts if kinds[d] == 'module']
  graph = _Graph(texts, modules)
  anchors = sorted(
      (d for d in modules if _IsAnchor(d, layout)),
      key=lambda d: (
          not _IsPackage(d, layout),
          AnchorName(d, benchmark_names),
      ),
  )
  names = {d: AnchorName(d, benchmark_names) for d in anchors}
  groups = [SHARED] + [names[d] for d in anchors]
  rank = {g: i for i, g in enumerate(groups)}
  distances = {a: graph.Distances(a) for a in anchors}

  home = {}
  for dest in modules:
    reach = {a: dist[dest] for a, dist in distances.items() if dest in dist}
    if not reach:
      raise SeriesError(
          f'{dest}: imported by no benchmark module, so no patch of the'
          ' series would hold it'
      )
    nearest = min(reach.values())
    owners = [a for a, n in reach.items() if n == nearest]
    home[dest] = names[owners[0]] if len(owners) == 1 else SHARED
  for group in groups:  # a module's imports move to its group or before
    for dest in [d for d in modules if home[d] == group]:
      for dep in graph.Closure(dest):
        if rank[home[dep]] > rank[group]:
          home[dep] = group

  module_patterns = {d: Patterns(texts[d], d) for d in modules}
  tests = [d for d in texts if kinds[d] == 'test']
  test_patterns = {d: Patterns(texts[d], d) for d in tests}
  test_rank = {}
  for dest in tests:
    imported = set()
    for name in Imports(texts[dest], dest):
      imported.update(
          graph.by_name[n]
          for n in [name] + _Parents(name)
          if n in graph.by_name
      )
    if not imported:
      raise SeriesError(f'{dest}: imports no exported module')
    test_rank[dest] = max(rank[home[d]] for d in imported)

  def DataPath(dest):
    return dest[len(layout.data) + 1 :]

  for dest in [d for d in texts if kinds[d] == 'data']:
    path = DataPath(dest)
    by_module = [
        rank[home[m]]
        for m in modules
        if _Names(module_patterns[m], path, dirs=False)
    ]
    by_test = [
        test_rank[t] for t in tests if _Names(test_patterns[t], path, dirs=True)
    ]
    if not by_module and not by_test:
      raise SeriesError(
          f'{dest}: named by no exported module or test, so no patch of'
          ' the series would hold it'
      )
    home[dest] = groups[min(by_module or by_test)]
  for dest in tests:
    named = [
        rank[home[d]]
        for d in texts
        if kinds[d] == 'data'
        and _Names(test_patterns[dest], DataPath(d), dirs=False)
    ]
    home[dest] = groups[max([test_rank[dest]] + named)]
  for dest in [d for d in texts if kinds[d] == 'test_data']:
    readers = [
        rank[home[t]]
        for t in tests
        if _Names(test_patterns[t], posixpath.basename(dest), dirs=False)
    ]
    if not readers:
      raise SeriesError(f'{dest}: read by no exported test')
    home[dest] = groups[min(readers)]
  return groups, home


def TestDataNamed(test_texts: dict[str, str], names: list[str]) -> set[str]:
  """The file names (basenames) among names that a test's literal names."""
  patterns = [p for d, t in test_texts.items() for p in Patterns(t, d)]
  return {n for n in names if _Names(patterns, n, dirs=False)}


def _Weight(text: str) -> int:
  return text.count('\n') + (not text.endswith('\n')) + _FILE_OVERHEAD


def Split(
    texts: dict[str, str],
    groups: list[str],
    home: dict[str, str],
    anchors: dict[str, str],
    layout: Layout,
    limit: int = PATCH_LINE_LIMIT,
) -> list[Part]:
  """Cuts each group into parts that fit limit, along module lines.

  Args:
    texts: PKB path -> exported text.
    groups: the groups in series order.
    home: PKB path -> its group.
    anchors: group -> the anchor's PKB path.
    layout: where the kinds of files live.
    limit: most lines a patch may have.

  Returns:
    The series' parts in order.

  Raises:
    SeriesError: one module with its data and tests is over limit.
  """
  kinds = {dest: _Kind(dest, layout) for dest in texts}
  modules = [d for d in texts if kinds[d] == 'module']
  order = _Graph(texts, modules).Order()
  position = {d: i for i, d in enumerate(order)}
  by_name = {ModuleName(d): d for d in modules}
  budget = limit - _PATCH_OVERHEAD
  parts = []
  for group in groups:
    members = [d for d in texts if home[d] == group]
    if not members:
      continue
    if sum(_Weight(texts[d]) for d in members) <= budget:
      parts.append(Part(group, anchors.get(group), members))
      continue
    own = sorted((d for d in members if kinds[d] == 'module'), key=position.get)
    units = {d: [d] for d in own}

    def Attach(dest, candidates):
      last = max(candidates, key=position.get, default=own[-1])
      units[last].append(dest)

    for dest in members:
      if kinds[dest] == 'data':
        path = dest[len(layout.data) + 1 :]
        Attach(
            dest,
            [m for m in own if _Names(Patterns(texts[m], m), path, False)],
        )
    readers = {}  # test data -> the units of the tests that name it
    for dest in members:
      if kinds[dest] == 'test':
        imported = {
            by_name[n] for n in Imports(texts[dest], dest) if n in by_name
        }
        Attach(dest, [m for m in own if m in imported])
        patterns = Patterns(texts[dest], dest)
        unit = next(m for m, u in units.items() if dest in u)
        for data in members:
          if kinds[data] == 'test_data' and _Names(
              patterns, posixpath.basename(data), dirs=False
          ):
            readers.setdefault(data, []).append(unit)
    for data, modules in readers.items():  # with its earliest reader
      units[min(modules, key=position.get)].append(data)
    for dest in members:
      if not any(dest in u for u in units.values()):
        units[own[-1]].append(dest)
    chunks, current, size = [], [], 0
    for module in own:
      weight = sum(_Weight(texts[d]) for d in units[module])
      if weight > budget:
        raise SeriesError(
            f'{module}: with its data files and tests it is {weight} lines,'
            f' over the {limit}-line limit of one patch'
        )
      if current and size + weight > budget:
        chunks.append(current)
        current, size = [], 0
      current.extend(units[module])
      size += weight
    chunks.append(current)
    for i, chunk in enumerate(chunks, 1):
      files = [d for d in members if d in chunk]
      parts.append(Part(group, anchors.get(group), files, i, len(chunks)))
  return parts
