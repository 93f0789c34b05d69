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
"""Writes the upstream unit as a patch series against PKB's pin.

Write runs the export's steps in order: check --out, find the author (the
git user configured where it runs), read the pin, list the files (layout),
check them against PKB's tree, rewrite each (rewrite), format them, cut them
into patches (series), commit the PackageCleanup fix, the fixes of PKB's own
modules (pkb_fixes) and each patch with its edits of PKB's files (pkb_edits,
messages) in a scratch tree of PKB (git), and copy the series to --out.
Every file is checked before anything is written; an --out directory that
already holds patches is refused, and so is a patch over the line limit.
UntestedModules lists the exported modules no exported test names (named).
"""

import dataclasses
import os
import shutil
import tempfile

from pkb_ext import paths
from pkb_ext.upstream import errors
from pkb_ext.upstream import git
from pkb_ext.upstream import layout
from pkb_ext.upstream import messages
from pkb_ext.upstream import named
from pkb_ext.upstream import pkb_edits
from pkb_ext.upstream import pkb_fixes
from pkb_ext.upstream import pkb_source
from pkb_ext.upstream import rewrite
from pkb_ext.upstream import series


@dataclasses.dataclass(frozen=True)
class Patch:
  path: str  # the written .patch file
  subject: str
  lines: int  # lines of the whole patch text
  added: tuple[str, ...]  # PKB paths it adds
  modified: tuple[str, ...]  # PKB paths it changes


@dataclasses.dataclass(frozen=True)
class Export:
  patches: tuple[Patch, ...]  # in the order they apply
  pkb_commit: str
  added: tuple[str, ...]  # PKB paths the series adds
  modified: tuple[str, ...]  # PKB paths the series changes
  benchmarks: tuple[str, ...]  # BENCHMARK_NAME of each exported benchmark


@dataclasses.dataclass(frozen=True)
class _Unit:
  """The exported files, rewritten and formatted."""

  contents: dict[str, bytes]  # PKB path -> exported content
  texts: dict[str, str]  # the same as text
  sources: dict[str, str]  # PKB path -> its source file, in plan order
  names: dict[str, str]  # benchmark module's PKB path -> BENCHMARK_NAME


def Write(
    out_dir: str,
    source_root: str | None = None,
    archive: str | None = None,
    limit: int = series.PATCH_LINE_LIMIT,
    author: tuple[str, str] | None = None,
) -> Export:
  """Writes the series to out_dir/0001-*.patch, ... and returns it.

  Args:
    out_dir: the directory to write the series to (made if missing; it must
      hold no .patch file).
    source_root: the pkb_ext source checkout (default: this one).
    archive: PKB's source at the pin (default: the cache's).
    limit: most lines one patch may have.
    author: (name, email) of the patches (default: git's user.name and
      user.email where this runs).

  Returns:
    The patches and what the series adds and changes.

  Raises:
    ExportError: the unit cannot be exported; the message says why.
  """
  _CheckOut(out_dir)
  author = author or git.ConfiguredAuthor(os.getcwd())
  source_root = source_root or paths.RepoRoot()
  commit = pkb_source.PinnedCommit(source_root)
  archive = archive or pkb_source.SourceArchive(commit)
  plan = layout.Plan(source_root)
  _CheckPlan(plan, archive)
  unit = _Rewrite(source_root, plan)
  parts = _Cut(unit, limit)
  with tempfile.TemporaryDirectory(prefix='pkb-ext-upstream-') as tmp:
    tree = _PkbTree(os.path.join(tmp, 'pkb'), archive, commit, author)
    _CommitCleanupFix(tree)
    for fix in pkb_fixes.FIXES:
      _CommitFix(tree, fix, source_root)
    first_data = _FirstData(parts)
    for part in parts:
      _CommitPart(tree, part, unit, first_data=part is first_data)
    staging = os.path.join(tmp, 'out')
    # the PackageCleanup fix, the fixes of PKB's modules, the parts
    files = tree.FormatPatch(1 + len(pkb_fixes.FIXES) + len(parts), staging)
    _CheckSizes(files, limit)
    _Copy(staging, [f.name for f in files], out_dir)
  patches = tuple(_Written(out_dir, f) for f in files)
  changed = {p for patch in patches for p in patch.modified}
  return Export(
      patches=patches,
      pkb_commit=commit,
      added=tuple(sorted([f.dest for f in plan] + list(pkb_fixes.ADDED))),
      # PKB's files the series edits, in pkb_edits.MODIFIED's order (the
      # data package's only when the series adds a data file).
      modified=tuple(f for f in pkb_edits.MODIFIED if f in changed),
      benchmarks=tuple(sorted(unit.names.values())),
  )


def UntestedModules(source_root: str | None = None) -> list[str]:
  """The exported modules (PKB paths) that no exported test names.

  Raises:
    ExportError: the unit cannot be exported; the message says why.
  """
  source_root = source_root or paths.RepoRoot()
  texts = {
      item.dest: rewrite.Transform(source_root, item).decode('utf-8', 'replace')
      for item in layout.Plan(source_root)
  }
  return named.Unnamed(texts, layout.SeriesLayout())


def _Written(out_dir: str, f: git.PatchFile) -> Patch:
  return Patch(
      path=os.path.join(out_dir, f.name),
      subject=f.subject,
      lines=f.lines,
      added=f.added,
      modified=f.modified,
  )


def _CheckOut(out_dir: str) -> None:
  """Refuses an --out that is a file or already holds patches."""
  if os.path.exists(out_dir) and not os.path.isdir(out_dir):
    raise errors.ExportError(f'--out {out_dir}: exists and is not a directory')
  if os.path.isdir(out_dir):
    try:
      old = sorted(n for n in os.listdir(out_dir) if n.endswith('.patch'))
    except OSError as e:
      raise errors.ExportError(f'--out {out_dir}: {e.strerror or e}') from e
    if old:
      raise errors.ExportError(
          f'--out {out_dir}: already holds {old[0]}; give an empty or new'
          ' directory (a series is never written over another)'
      )


def _CheckPlan(plan: list[layout.ExportFile], archive: str) -> None:
  """Refuses a file PKB already has, and two files with one PKB path."""
  dests = [f.dest for f in plan] + list(pkb_fixes.ADDED)
  if os.path.isfile(archive):
    pkb_names = pkb_source.ArchiveNames(archive)
    clashes = [d for d in dests if d in pkb_names]
    if clashes:
      raise errors.ExportError(
          'the patch would replace files PKB already has: ' + ', '.join(clashes)
      )
  if len(set(dests)) != len(dests):
    raise errors.ExportError('two exported files map to one PKB path')


def _Rewrite(source_root: str, plan: list[layout.ExportFile]) -> _Unit:
  """Every file rewritten (and checked), then the Python files formatted."""
  contents, names = {}, {}
  for item in plan:
    contents[item.dest] = rewrite.Transform(source_root, item)
    if layout.IsBenchmarkModule(item.dest):
      name = rewrite.BenchmarkName(contents[item.dest].decode('utf-8'))
      if name is None:
        raise errors.ExportError(f'{item.source}: no BENCHMARK_NAME = "..."')
      names[item.dest] = name
  rewrite.Format(contents)
  return _Unit(
      contents=contents,
      texts={d: c.decode('utf-8', 'replace') for d, c in contents.items()},
      sources={f.dest: os.path.join(source_root, f.source) for f in plan},
      names=names,
  )


def _Cut(unit: _Unit, limit: int) -> list[series.Part]:
  """The series' parts (see series), in order."""
  cut_by = layout.SeriesLayout()
  try:
    groups, home = series.Group(
        {d: unit.texts[d] for d in unit.sources},
        {d: n for d, n in unit.names.items() if layout.IsTopLevelBenchmark(d)},
        cut_by,
    )
    anchors = {n: d for d, n in unit.names.items()} | {
        series.AnchorName(d, {}): d
        for d in unit.sources
        if layout.IsTopLevelPackage(d)
    }
    return series.Split(unit.texts, groups, home, anchors, cut_by, limit)
  except series.SeriesError as e:
    raise errors.ExportError(str(e)) from e


def _PkbTree(
    path: str, archive: str, commit: str, author: tuple[str, str]
) -> git.Tree:
  """A scratch git tree of the PKB files the series edits, at the pin."""
  tree = git.Tree(path, author)
  os.makedirs(path)
  pkb_source.ExtractPkb(archive, path, list(pkb_edits.MODIFIED))
  tree.Init(f'PKB at {commit}')
  return tree


def _FirstData(parts: list[series.Part]) -> series.Part | None:
  """The first part that adds a data file (it adds the data directory)."""
  return next(
      (
          p
          for p in parts
          if any(d.startswith(layout.DATA_DEST + '/') for d in p.files)
      ),
      None,
  )


def _ChangesEdit(tree: git.Tree, text: str, section: str) -> git.Edit:
  """CHANGES.next.md gains text in section, its context PKB's lines only."""
  entry = pkb_edits.ChangesEntry(text)
  pin = tree.Original(pkb_edits.CHANGES_FILE)
  return (
      pkb_edits.CHANGES_FILE,
      lambda t: pkb_edits.ChangesSource(t, entry, section, pin=pin),
  )


def _CommitCleanupFix(tree: git.Tree) -> None:
  """The series' first patch: PKB's PackageCleanup walks a copy."""
  tree.Commit(
      [
          (pkb_edits.LINUX_VM_FILE, pkb_edits.PackageCleanupSource),
          (pkb_edits.LINUX_VM_TEST_FILE, pkb_edits.PackageCleanupTestSource),
          _ChangesEdit(
              tree, messages.CLEANUP_CHANGES, pkb_edits.CHANGES_FIXES_SECTION
          ),
      ],
      messages.CleanupMessage(),
  )


def _CommitFix(tree: git.Tree, fix: pkb_fixes.Fix, source_root: str) -> None:
  """One fix of PKB's own modules: its diff, captured outputs, CHANGES line."""
  try:
    tree.Apply(fix.Diff())
  except errors.ExportError as e:
    raise errors.ExportError(
        f'edits/{fix.name}.diff.txt does not apply to PKB at the pin; update'
        f" it to PKB's lines: {str(e).splitlines()[0]}"
    ) from e
  for dest, source in fix.added:
    path = os.path.join(source_root, source)
    with open(path, 'rb') as f:
      tree.Write(dest, f.read(), mode_of=path)
  tree.Commit(
      [_ChangesEdit(tree, fix.changes, fix.section)], messages.FixMessage(fix)
  )


def _CommitPart(
    tree: git.Tree, part: series.Part, unit: _Unit, first_data: bool
) -> None:
  """One patch: its files, its CHANGES line if any, its edits of PKB's."""
  for dest in part.files:
    tree.Write(dest, unit.contents[dest], mode_of=unit.sources[dest])
  message, changes = messages.Message(part, unit.texts)
  edits = []
  if changes:
    edits.append(_ChangesEdit(tree, changes, pkb_edits.CHANGES_SECTION))
  if first_data:
    edits.append((pkb_edits.DATA_INIT_FILE, pkb_edits.DataInitSource))
  tree.Commit(edits, message)


def _CheckSizes(files: list[git.PatchFile], limit: int) -> None:
  """Refuses a patch over limit lines."""
  for f in files:
    if f.lines > limit:
      raise errors.ExportError(
          f'{f.name}: {f.lines} lines, over the {limit}-line limit'
      )


def _Copy(staging: str, names: list[str], out_dir: str) -> None:
  """Copies the series to out_dir, or none of it."""
  written = []
  try:
    os.makedirs(out_dir, exist_ok=True)
    _CheckOut(out_dir)
    for name in names:
      path = os.path.join(out_dir, name)
      shutil.copyfile(os.path.join(staging, name), path)
      written.append(path)
  except OSError as e:
    for path in written:
      os.remove(path)
    raise errors.ExportError(
        f'cannot write to {out_dir}: {e.strerror or e}'
    ) from e
