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
"""pkb-ext upstream: the upstream unit as a patch series against PKB's pin.

  pkb-ext upstream --out DIR     writes DIR/0001-*.patch, DIR/0002-*.patch, ...

The series (git format-patch output; apply the patches in order with `git
am` or `git apply` at the root of a PKB checkout at the pinned commit)
carries:

  benchmarks/**            -> perfkitbenchmarker/linux_benchmarks/**
  linux_packages/*         -> perfkitbenchmarker/linux_packages/*
  configs/**               -> perfkitbenchmarker/data/cloud_report/**
  tests/upstream/**        -> tests/** (tests in PKB's layout)
  tests/data/<tool>/<file> -> tests/data/cloud_report/<tool>/<file>, the
                              captured outputs an exported test names

with our modules' names (benchmarks.cloud_report..., linux_packages.cloud_report_...,
in imports and in strings such as mock.patch targets) rewritten to
perfkitbenchmarker.linux_benchmarks.* and perfkitbenchmarker.linux_packages.*,
PKB's licence header in place of ours, and
the new Python files formatted by pyink with PKB's settings. upstream_series
computes which patch holds each file (shared helpers, one patch per
benchmark module, the suite last; a group over 2,500 lines split along
module lines); each patch has its own commit message and CHANGES.next.md
line. What pkb_ext/registry.py does at run time becomes source changes, each
written by hand in PKB's style on the lines it needs only (PKB's own files
are never reformatted):

  benchmarks and packages   found by PKB's own module scan of their packages;
  benchmark sets            cloud_report and cloud_report_phases are added to
                            perfkitbenchmarker/benchmark_sets.py (the patch
                            holding the suite);
  data loader for configs/  'cloud_report' joins DATA_SUBDIRECTORIES in
                            perfkitbenchmarker/data/__init__.py (the first
                            patch with a data file), so the names the modules
                            use (e.g. fio/cloud_report_2021.fio.j2) resolve
                            to perfkitbenchmarker/data/cloud_report/;
  AWS local volumes         registry.AWS_LOCAL_VOLUMES (instance-store counts
                            of the report's machines that PKB's table lacks)
                            join NUM_LOCAL_VOLUMES in
                            perfkitbenchmarker/providers/aws/aws_disk.py (the
                            patch holding the suite, whose machine matrices
                            name them);
  data loader for the cache left out: it holds what setup fetched (CoreMark's
                            tarball); on PKB, --data_search_paths or PKB's
                            preprovisioned data serve that;
  publishers                left out on purpose: upstream, samples go through
                            PKB's own publishers (--bigquery_table, ...);
  PackageCleanup            registry's wrapper becomes a fix of PKB's own
                            BaseLinuxMixin.PackageCleanup (it walks a copy of
                            the installed packages), with a test in PKB's
                            tests/linux_virtual_machine_test.py: the
                            series' first patch, since the suite's installs
                            on static VMs need it.

configs/pricing/ and configs/baselines/ stay behind: only pkb_ext's analysis
prices results and compares them with published figures. The export refuses
a module that still imports pkb_ext, pkb_ext_dev, benchmarks or
linux_packages after the rewrite, a file that would replace one PKB already has, a file no rule
places in a patch, a patch over 2,500 lines, and an --out directory that
already holds patches.

It needs a source checkout (tests/upstream and tests/data are not installed)
and PKB's source at the pin, which scripts/setup.sh stores in the cache.
"""

import argparse
import ast
import dataclasses
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import textwrap
import zlib

from benchmarks.cloud_report import phase_table
from pkb_ext import paths
from pkb_ext import registry
from pkb_ext import upstream_series as series

PIN_SCRIPT = os.path.join('scripts', 'setup.d', '30-pkb.sh')
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
DATA_SUBDIRECTORY = 'cloud_report'
# Source directory -> destination in PKB's tree. __init__.py of the two
# package roots stay behind: PKB has its own.
BENCHMARKS_DEST = 'perfkitbenchmarker/linux_benchmarks'
PACKAGES_DEST = 'perfkitbenchmarker/linux_packages'
DATA_DEST = f'perfkitbenchmarker/data/{DATA_SUBDIRECTORY}'
TESTS_SOURCE = os.path.join('tests', 'upstream')
TEST_DATA_DEST = f'tests/data/{DATA_SUBDIRECTORY}'
# Captured tool outputs the exported tests may read (tests/data/<tool>/, one
# directory per phase's tool); a file is exported only when an exported test
# names it.
TEST_DATA_DIRS = tuple(sorted(phase_table.TOOLS))
# configs/ entries that only pkb_ext uses (the analysis' price tables and
# published baselines, the postgres engine's go-tpc build module) or that
# only make configs/ a package of ours.
CONFIGS_LEFT_OUT = ('baselines', 'go_tpc', 'pricing', '__init__.py')
# Files of ours that are not exported: capture scripts need this repo's venv
# and tooling; the conftest only keeps pytest away from the exported tests.
_SKIPPED_NAMES = ('conftest.py',)
_SKIPPED_SUFFIXES = ('.pyc', '.sh')
BENCHMARK_SETS_FILE = 'perfkitbenchmarker/benchmark_sets.py'
DATA_INIT_FILE = 'perfkitbenchmarker/data/__init__.py'
AWS_DISK_FILE = 'perfkitbenchmarker/providers/aws/aws_disk.py'
LINUX_VM_FILE = 'perfkitbenchmarker/linux_virtual_machine.py'
LINUX_VM_TEST_FILE = 'tests/linux_virtual_machine_test.py'
CHANGES_FILE = 'CHANGES.next.md'
CHANGES_SECTION = '### New features:'
CHANGES_FIXES_SECTION = '### Bug fixes and maintenance updates:'
# PackageCleanup's loop over the set that Uninstall discards from, and the
# same loop over a copy.
_CLEANUP_LOOP = (
    '    for package_name in self._installed_packages:\n'
    '      self.Uninstall(package_name)\n'
)
_CLEANUP_FIXED = _CLEANUP_LOOP.replace(
    'in self._installed_packages', 'in list(self._installed_packages)'
)
_CLEANUP_SUBJECT = 'Let PackageCleanup uninstall every package of a VM.'
_CLEANUP_SUMMARY = (
    'BaseLinuxMixin.PackageCleanup walked vm._installed_packages while each'
    ' Debian-based Uninstall discarded the package from it, so on a static'
    ' VM with installs the loop ended after the first package with'
    " 'RuntimeError: Set changed size during iteration': no other package"
    ' was uninstalled, RestorePackages never ran and the install directory'
    ' stayed. The loop now walks a copy.'
)
_CLEANUP_CHANGES = (
    'Fix PackageCleanup on Debian-based static VMs, which stopped after the'
    ' first uninstalled package.'
)
# The test the fix adds to LINUX_VM_TEST_FILE, before its main block.
_CLEANUP_TEST = '''\
class PackageCleanupTest(pkb_common_test_case.PkbCommonTestCase):
  """PackageCleanup while Uninstall changes the set of installed packages."""

  def testUninstallsEveryPackageWhenUninstallForgetsIt(self):
    """Each uninstall discards the package, as BaseDebianMixin's does."""
    # pylint: disable=protected-access
    vm = CreateTestLinuxVm()
    uninstalled = []

    def Uninstall(package_name):
      uninstalled.append(package_name)
      vm._installed_packages.discard(package_name)

    vm._installed_packages.update(['fio', 'netperf', 'pip'])
    self.enter_context(mock.patch.object(vm, 'Uninstall', Uninstall))
    restore = self.enter_context(mock.patch.object(vm, 'RestorePackages'))
    command = self.enter_context(mock.patch.object(vm, 'RemoteCommand'))

    vm.PackageCleanup()

    self.assertCountEqual(uninstalled, ['fio', 'netperf', 'pip'])
    self.assertEmpty(vm._installed_packages)
    restore.assert_called_once_with()
    command.assert_called_once_with('sudo rm -rf /opt/pkb')


'''
REPORT = 'Cockroach Labs 2021 Cloud Report'
# PKB's licence header (its hooks/lib/boilerplate.py.txt, with the year).
PKB_HEADER = """\
# Copyright {year} PerfKitBenchmarker Authors. All rights reserved.
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
"""
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
# What each step of registry.Register() becomes in PKB's tree.
REGISTRY_STEPS = {
    '_RegisterBenchmarks': 'modules in linux_benchmarks/ (PKB scans it)',
    '_RegisterPackages': 'modules in linux_packages/ (PKB scans it)',
    '_RegisterBenchmarkSets': f'entries in {BENCHMARK_SETS_FILE}',
    '_RegisterDataLoaders': (
        f'configs/ under {DATA_DEST}, a DATA_SUBDIRECTORIES entry; the'
        ' setup cache is left out (--data_search_paths serves it)'
    ),
    '_RegisterLocalDisks': f'entries in {AWS_DISK_FILE}',
    '_RegisterPublishers': (
        "left out: upstream, PKB's own publishers (--bigquery_table, ...)"
    ),
    '_RegisterExtensions': (
        "left out: pkb_ext's own checks, bucket back-ends, TPC-C engine and"
        ' its package (the spool directory, emulator endpoints, the postgres'
        ' engine and go-tpc) plug into registration points the exported code'
        ' offers; upstream none are registered'
    ),
    '_RegisterFlagHelp': (
        'left out: upstream every module that defines cloud_report flags has'
        ' cloud_report in its name, which --helpmatch=cloud_report matches'
    ),
}
_AUTHOR = ('Cloud Report export', 'cloud-report-export@localhost')


class ExportError(Exception):
  """The upstream unit cannot be exported as it is; the message says why."""


@dataclasses.dataclass(frozen=True)
class ExportFile:
  source: str  # path relative to the source root
  dest: str  # path relative to PKB's root


def PinnedCommit(source_root: str | None = None) -> str:
  """Returns the PKB commit setup pins (PKB_COMMIT= in 30-pkb.sh)."""
  path = os.path.join(source_root or paths.RepoRoot(), PIN_SCRIPT)
  try:
    with open(path, encoding='utf-8') as f:
      text = f.read()
  except OSError as e:
    raise ExportError(f'cannot read the PKB pin from {path}: {e}') from e
  match = re.search(r'^PKB_COMMIT=([0-9a-f]{40})$', text, re.MULTILINE)
  if not match:
    raise ExportError(f'{path} has no PKB_COMMIT=<40 hex digits> line')
  return match.group(1)


def SourceArchive(commit: str) -> str:
  """Returns the cache's tar of PKB's source at commit (made by setup)."""
  return os.path.join(paths.CacheDir(), f'pkb-{commit}-src.tar')


def ExtractPkb(archive: str, dest: str, members: list[str] | None = None):
  """Extracts PKB's source (all of it, or the named files) into dest."""
  if not os.path.isfile(archive):
    raise ExportError(
        f'no PKB source archive at {archive}: run scripts/setup.sh, which'
        ' stores PKB at the pinned commit there'
    )
  try:
    with tarfile.open(archive) as tar:
      if members is None:
        tar.extractall(dest, filter='data')
        return
      for name in members:
        try:
          tar.extract(name, dest, filter='data')
        except KeyError as e:
          raise ExportError(f'{archive} has no {name}') from e
  except (tarfile.TarError, EOFError, OSError, zlib.error) as e:
    raise _BadArchive(archive, e) from e


def _BadArchive(archive: str, error: BaseException) -> ExportError:
  detail = (str(error).strip().splitlines() or [''])[0].rstrip(':')[:200]
  return ExportError(
      f'{archive}: not a readable tar of PKB source'
      f' ({type(error).__name__}: {detail}); run scripts/setup.sh'
      ' to store PKB at the pinned commit again, or give another'
      ' --pkb-archive'
  )


def ArchiveNames(archive: str) -> set[str]:
  """The member names of a tar of PKB's source.

  Raises:
    ExportError: the archive cannot be read as a tar.
  """
  try:
    with tarfile.open(archive) as tar:
      return {m.name.rstrip('/') for m in tar.getmembers()}
  except (tarfile.TarError, EOFError, OSError, zlib.error) as e:
    raise _BadArchive(archive, e) from e


def _Walk(root: str, top: str) -> list[str]:
  """Files under root/top (relative to root), without caches and dotfiles."""
  out = []
  for dirpath, dirnames, filenames in os.walk(os.path.join(root, top)):
    dirnames[:] = sorted(
        d for d in dirnames if d != '__pycache__' and not d.startswith('.')
    )
    for name in sorted(filenames):
      if name.startswith('.') or name in _SKIPPED_NAMES:
        continue
      if name.endswith(_SKIPPED_SUFFIXES):
        continue
      out.append(os.path.relpath(os.path.join(dirpath, name), root))
  return out


def Plan(source_root: str) -> list[ExportFile]:
  """Lists what the patch adds: every exported file and its PKB path."""
  plan = []

  def Add(top, dest, left_out=()):
    for rel in _Walk(source_root, top):
      inner = os.path.relpath(rel, top)
      if inner.split(os.sep)[0] in left_out:
        continue
      plan.append(ExportFile(rel, f'{dest}/{inner.replace(os.sep, "/")}'))

  for top in ('benchmarks', 'linux_packages', 'configs', TESTS_SOURCE):
    if not os.path.isdir(os.path.join(source_root, top)):
      raise ExportError(
          f'{source_root} has no {top}/: pkb-ext upstream needs a source'
          ' checkout of pkb_ext'
      )
  Add('benchmarks', BENCHMARKS_DEST, ('__init__.py',))
  Add('linux_packages', PACKAGES_DEST, ('__init__.py',))
  Add('configs', DATA_DEST, CONFIGS_LEFT_OUT)
  Add(TESTS_SOURCE, 'tests')
  tests = {}
  for item in plan:
    if item.source.startswith(TESTS_SOURCE + os.sep):
      with open(os.path.join(source_root, item.source), encoding='utf-8') as f:
        tests[item.source] = f.read()
  for name in TEST_DATA_DIRS:
    top = os.path.join('tests', 'data', name)
    files = _Walk(source_root, top)
    try:
      named = series.TestDataNamed(
          tests, [os.path.basename(rel) for rel in files]
      )
    except SyntaxError as e:
      raise ExportError(f'{e.filename}:{e.lineno}: not Python: {e.msg}') from e
    for rel in files:
      if os.path.basename(rel) in named:
        inner = os.path.relpath(rel, top).replace(os.sep, '/')
        plan.append(ExportFile(rel, f'{TEST_DATA_DEST}/{name}/{inner}'))
  return plan


def RewriteImports(text: str) -> str:
  """text with our modules' names as PKB's (see _OUR_NAME)."""
  return _OUR_NAME.sub(lambda m: IMPORT_RENAMES[m.group(1)], text)


def ReplaceHeader(text: str, where: str) -> str:
  """Gives a file PKB's licence header (a .py file must have a header)."""
  match = _OUR_HEADER.match(text)
  if not match:
    if where.endswith('.py'):
      raise ExportError(
          f'{where}: does not start with an Apache licence header'
      )
    return text
  return PKB_HEADER.format(year=match.group('year')) + text[match.end() :]


def ForbiddenImports(text: str, where: str) -> list[str]:
  """Returns 'file:line: import X' for each import of FORBIDDEN_IMPORTS."""
  try:
    tree = ast.parse(text, filename=where)
  except SyntaxError as e:
    raise ExportError(f'{where}: not Python: {e}') from e
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


def _Transform(source_root: str, item: ExportFile) -> bytes:
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
      raise ExportError(
          'code bound for PKB imports what PKB does not have:\n  '
          + '\n  '.join(found)
      )
  return text.encode('utf-8')


def BenchmarkSetsSource(text: str, phase_benchmarks: list[str]) -> str:
  """Adds the cloud_report sets to benchmark_sets.py's BENCHMARK_SETS."""
  lines = text.splitlines(keepends=True)
  try:
    start = lines.index('BENCHMARK_SETS = {\n')
    end = lines.index('}\n', start)
  except ValueError as e:
    raise ExportError(
        f'{BENCHMARK_SETS_FILE}: no "BENCHMARK_SETS = {{" ... "}}" block'
    ) from e
  listed = ''.join(f"            '{n}',\n" for n in phase_benchmarks)
  entries = (
      f"    '{registry.BENCHMARK_SET}': {{\n"
      '        MESSAGE: (\n'
      "            'The Cockroach Labs 2021 Cloud Report suite, all phases on"
      " one'\n"
      "            ' topology.'\n"
      '        ),\n'
      f"        BENCHMARK_LIST: ['{registry.SUITE_BENCHMARK}'],\n"
      '    },\n'
      f"    '{registry.PHASES_BENCHMARK_SET}': {{\n"
      '        MESSAGE: (\n'
      "            'Each phase of the Cockroach Labs 2021 Cloud Report as its"
      " own'\n"
      "            ' benchmark.'\n"
      '        ),\n'
      '        BENCHMARK_LIST: [\n'
      f'{listed}'
      '        ],\n'
      '    },\n'
  )
  return ''.join(lines[:end]) + entries + ''.join(lines[end:])


def DataInitSource(text: str) -> str:
  """Adds DATA_SUBDIRECTORY to data/__init__.py's DATA_SUBDIRECTORIES.

  One line is inserted before the first entry that sorts after it (at the
  end if none does); PKB's own lines stay as they are.
  """
  match = re.search(
      r'^DATA_SUBDIRECTORIES = \[\n((?:    .*\n)*?)\]\n', text, re.M
  )
  if not match:
    raise ExportError(f'{DATA_INIT_FILE}: no DATA_SUBDIRECTORIES list')
  entries = match.group(1).splitlines(keepends=True)
  names = [re.findall(r"'([^']+)'", line) for line in entries]
  if any(DATA_SUBDIRECTORY in n for n in names):
    return text
  at = next(
      (i for i, n in enumerate(names) if n and n[0] > DATA_SUBDIRECTORY),
      len(entries),
  )
  entries.insert(at, f"    '{DATA_SUBDIRECTORY}',\n")
  return text[: match.start(1)] + ''.join(entries) + text[match.end(1) :]


def AwsDiskSource(text: str) -> str:
  """Adds registry.AWS_LOCAL_VOLUMES that PKB lacks to NUM_LOCAL_VOLUMES."""
  match = re.search(r'^NUM_LOCAL_VOLUMES = \{\n(.*?)^\}\n', text, re.M | re.S)
  if not match:
    raise ExportError(f'{AWS_DISK_FILE}: no NUM_LOCAL_VOLUMES dict')
  known = set(re.findall(r"^    '([^']+)':", match.group(1), re.M))
  missing = {
      m: n for m, n in registry.AWS_LOCAL_VOLUMES.items() if m not in known
  }
  if not missing:
    return text
  entries = "    # The 2021 Cloud Report's Appendix II machines.\n" + ''.join(
      f"    '{m}': {n},\n" for m, n in sorted(missing.items())
  )
  return text[: match.end(1)] + entries + text[match.end(1) :]


def PackageCleanupSource(text: str) -> str:
  """PKB's linux_virtual_machine.py with PackageCleanup's loop on a copy."""
  if text.count(_CLEANUP_LOOP) != 1:
    raise ExportError(
        f"{LINUX_VM_FILE}: PackageCleanup's loop over"
        ' self._installed_packages is not there once'
    )
  return text.replace(_CLEANUP_LOOP, _CLEANUP_FIXED)


def PackageCleanupTestSource(text: str) -> str:
  """PKB's linux_virtual_machine_test.py with the fix's test class."""
  main = "\nif __name__ == '__main__':\n"
  at = text.rfind(main)
  if at < 0 or 'def CreateTestLinuxVm()' not in text:
    raise ExportError(
        f'{LINUX_VM_TEST_FILE}: no CreateTestLinuxVm() or main block'
    )
  return text[: at + 1] + _CLEANUP_TEST + text[at + 1 :]


def ChangesEntry(text: str) -> str:
  """text as a CHANGES.next.md item: '-   ' and 80-column lines."""
  return (
      textwrap.fill(
          text, width=80, initial_indent='-   ', subsequent_indent='    '
      )
      + '\n'
  )


def ChangesSource(text: str, entry: str, section: str = CHANGES_SECTION) -> str:
  """Adds entry (a ChangesEntry) as the last item of section."""
  start = text.find(f'\n{section}\n')
  if start < 0:
    raise ExportError(f'{CHANGES_FILE}: no "{section}" section')
  nxt = text.find('\n### ', start + 1)
  end = len(text) if nxt < 0 else nxt
  body = text[:end].rstrip('\n') + '\n'
  return body + entry + text[end:]


def _Git(tree: str, *args: str, env: dict | None = None) -> str:
  result = subprocess.run(
      ['git', '-C', tree, *args],
      capture_output=True,
      text=True,
      env=env,
      check=False,
  )
  if result.returncode:
    raise ExportError(
        f'git {" ".join(args)} failed ({result.returncode}): {result.stderr}'
    )
  return result.stdout


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


def _Summary(text: str) -> str:
  """The first line of a module's docstring, without its final period."""
  tree = ast.parse(text)
  doc = ast.get_docstring(tree) or ''
  return doc.strip().split('\n')[0].rstrip('.')


def _Short(dest: str) -> str:
  """A module's name as a reader of the series knows it."""
  for top in (BENCHMARKS_DEST, PACKAGES_DEST):
    if dest.startswith(top + '/'):
      return series.ModuleName(dest)[len(top) + 1 :]
  return dest


def _Message(part: series.Part, texts: dict[str, str]) -> tuple[str, str]:
  """(commit message, CHANGES.next.md text) of one part."""
  modules = [
      _Short(d)
      for d in part.files
      if d.endswith('.py') and d.startswith((BENCHMARKS_DEST, PACKAGES_DEST))
  ]
  listed = ', '.join(f'`{m}`' for m in modules) or 'data files and tests'
  if part.group == series.SHARED:
    suffix = f' ({part.index} of {part.count})' if part.count > 1 else ''
    subject = f'Add shared helpers of the {REPORT} benchmarks{suffix}.'
    summary = f'Helpers the {REPORT} benchmarks share{suffix}: {listed}.'
    changes = summary
  elif part.anchor not in part.files:  # a leading part of a split group
    what = _Summary(texts[part.anchor])
    subject = (
        f"Add the {part.group} benchmark's helpers"
        f' ({part.index} of {part.count}).'
    )
    summary = (
        f'Part {part.index} of {part.count} of the {part.group} benchmark'
        f' ({what}): {listed}.'
    )
    changes = summary
  else:
    what = _Summary(texts[part.anchor])
    if part.group == registry.SUITE_BENCHMARK:
      subject = (
          f'Add the {part.group} benchmark and the'
          f' {registry.BENCHMARK_SET} benchmark sets.'
      )
      changes = (
          f'Add the `{part.group}` benchmark ({what}) and the'
          f' `{registry.BENCHMARK_SET}` and'
          f' `{registry.PHASES_BENCHMARK_SET}` benchmark sets.'
      )
    else:
      subject = f'Add the {part.group} benchmark.'
      changes = f'Add the `{part.group}` benchmark: {what}.'
    summary = f'{what}.'
    if part.count > 1:
      summary += (
          f'\n\nThe last of its {part.count} patches; this one adds {listed}.'
      )
  body = textwrap.fill(summary, width=72, break_on_hyphens=False)
  if '\n\n' in summary:
    body = '\n\n'.join(
        textwrap.fill(p, width=72, break_on_hyphens=False)
        for p in summary.split('\n\n')
    )
  return f'{subject}\n\n{body}\n', changes


def _Format(source_root: str, contents: dict[str, bytes]) -> None:
  """pyink (PKB's settings) over the new Python files, in place."""
  python = [
      d
      for d in contents
      if d.endswith('.py') and not d.startswith(DATA_DEST + '/')
  ]
  del source_root
  with tempfile.TemporaryDirectory(prefix='pkb-ext-pyink-') as tmp:
    files = []
    for i, dest in enumerate(python):
      path = os.path.join(tmp, f'{i}_{os.path.basename(dest)}')
      with open(path, 'wb') as f:
        f.write(contents[dest])
      files.append(path)
    formatted = Pyink(files)
    if formatted.returncode:
      raise ExportError(f'pyink failed: {formatted.stderr.strip()}')
    for dest, path in zip(python, files):
      with open(path, 'rb') as f:
        contents[dest] = f.read()


def _Check(out_dir: str) -> None:
  if os.path.exists(out_dir) and not os.path.isdir(out_dir):
    raise ExportError(f'--out {out_dir}: exists and is not a directory')
  if os.path.isdir(out_dir):
    try:
      old = sorted(n for n in os.listdir(out_dir) if n.endswith('.patch'))
    except OSError as e:
      raise ExportError(f'--out {out_dir}: {e.strerror or e}') from e
    if old:
      raise ExportError(
          f'--out {out_dir}: already holds {old[0]}; give an empty or new'
          ' directory (a series is never written over another)'
      )


def _Commit(tree: str, edits, message: str, env: dict) -> None:
  """Applies edits ((file, function of its text) pairs) and commits all."""
  for rel, change in edits:
    path = os.path.join(tree, rel)
    with open(path, encoding='utf-8') as f:
      text = f.read()
    with open(path, 'w', encoding='utf-8') as f:
      f.write(change(text))
  _Git(tree, 'add', '-A', env=env)
  _Git(tree, 'commit', '-q', '-m', message, env=env)


def Write(
    out_dir: str,
    source_root: str | None = None,
    archive: str | None = None,
    limit: int = series.PATCH_LINE_LIMIT,
) -> Export:
  """Writes the series to out_dir/0001-*.patch, ... and returns it.

  Args:
    out_dir: the directory to write the series to (made if missing; it must
      hold no .patch file).
    source_root: the pkb_ext source checkout (default: this one).
    archive: PKB's source at the pin (default: the cache's).
    limit: most lines one patch may have.

  Returns:
    The patches and what the series adds and changes.

  Raises:
    ExportError: the unit cannot be exported; the message says why.
  """
  _Check(out_dir)
  source_root = source_root or paths.RepoRoot()
  commit = PinnedCommit(source_root)
  archive = archive or SourceArchive(commit)
  plan = Plan(source_root)
  pkb_names = ArchiveNames(archive) if os.path.isfile(archive) else set()
  clashes = [f.dest for f in plan if f.dest in pkb_names]
  if clashes:
    raise ExportError(
        'the patch would replace files PKB already has: ' + ', '.join(clashes)
    )
  dests = [f.dest for f in plan]
  if len(set(dests)) != len(dests):
    raise ExportError('two exported files map to one PKB path')
  contents, names = {}, {}
  for item in plan:  # every file is checked before anything is written
    contents[item.dest] = _Transform(source_root, item)
    if item.dest.startswith(BENCHMARKS_DEST) and item.dest.endswith(
        '_benchmark.py'
    ):
      name = BenchmarkName(contents[item.dest].decode('utf-8'))
      if name is None:
        raise ExportError(f'{item.source}: no BENCHMARK_NAME = "..."')
      names[item.dest] = name
  if registry.SUITE_BENCHMARK not in names.values():
    raise ExportError(f'no benchmark module named {registry.SUITE_BENCHMARK}')
  _Format(source_root, contents)
  texts = {d: c.decode('utf-8', 'replace') for d, c in contents.items()}
  layout = series.Layout(
      benchmarks=BENCHMARKS_DEST,
      packages=PACKAGES_DEST,
      data=DATA_DEST,
      tests='tests',
      test_data=TEST_DATA_DEST,
      suite=registry.SUITE_BENCHMARK,
  )
  try:
    groups, home = series.Group(
        {d: texts[d] for d in dests},
        {
            d: n
            for d, n in names.items()
            if '/' not in d[len(BENCHMARKS_DEST) + 1 :]
        },
        layout,
    )
    anchors = {n: d for d, n in names.items()}
    parts = series.Split(texts, groups, home, anchors, layout, limit)
  except series.SeriesError as e:
    raise ExportError(str(e)) from e
  phase_benchmarks = sorted(
      n for n in names.values() if n != registry.SUITE_BENCHMARK
  )
  modified = [
      LINUX_VM_FILE,
      LINUX_VM_TEST_FILE,
      BENCHMARK_SETS_FILE,
      DATA_INIT_FILE,
      AWS_DISK_FILE,
      CHANGES_FILE,
  ]
  sources = {f.dest: f.source for f in plan}
  written = []
  with tempfile.TemporaryDirectory(prefix='pkb-ext-upstream-') as tmp:
    tree = os.path.join(tmp, 'pkb')
    os.makedirs(tree)
    ExtractPkb(archive, tree, modified)
    env = dict(
        os.environ,
        GIT_AUTHOR_NAME=_AUTHOR[0],
        GIT_AUTHOR_EMAIL=_AUTHOR[1],
        GIT_COMMITTER_NAME=_AUTHOR[0],
        GIT_COMMITTER_EMAIL=_AUTHOR[1],
        GIT_CONFIG_GLOBAL=os.devnull,
        GIT_CONFIG_NOSYSTEM='1',
    )
    _Git(tree, 'init', '-q', env=env)
    _Git(tree, 'add', '-A', env=env)
    _Git(tree, 'commit', '-q', '-m', f'PKB at {commit}', env=env)
    _Commit(
        tree,
        [
            (LINUX_VM_FILE, PackageCleanupSource),
            (LINUX_VM_TEST_FILE, PackageCleanupTestSource),
            (
                CHANGES_FILE,
                lambda t: ChangesSource(
                    t, ChangesEntry(_CLEANUP_CHANGES), CHANGES_FIXES_SECTION
                ),
            ),
        ],
        f'{_CLEANUP_SUBJECT}\n\n{textwrap.fill(_CLEANUP_SUMMARY, width=72)}\n',
        env,
    )
    data_added = False
    for part in parts:
      for dest in part.files:
        path = os.path.join(tree, dest)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, 'wb') as f:
          f.write(contents[dest])
        shutil.copymode(os.path.join(source_root, sources[dest]), path)
      message, changes = _Message(part, texts)
      edits = [
          (CHANGES_FILE, lambda t, c=changes: ChangesSource(t, ChangesEntry(c)))
      ]
      if not data_added and any(
          d.startswith(DATA_DEST + '/') for d in part.files
      ):
        data_added = True
        edits.append((DATA_INIT_FILE, DataInitSource))
      if (
          names.get(part.anchor) == registry.SUITE_BENCHMARK
          and part.anchor in part.files
      ):
        edits.append((
            BENCHMARK_SETS_FILE,
            lambda t: BenchmarkSetsSource(t, phase_benchmarks),
        ))
        edits.append((AWS_DISK_FILE, AwsDiskSource))
      _Commit(tree, edits, message, env)
    staging = os.path.join(tmp, 'out')
    _Git(
        tree,
        'format-patch',
        '-q',
        '--binary',
        '--full-index',
        '-o',
        staging,
        'HEAD~' + str(len(parts) + 1),  # the fix, then the parts
        env=env,
    )
    files = sorted(os.listdir(staging))
    if len(files) != len(parts) + 1:
      raise ExportError(
          f'git format-patch wrote {len(files)} patches, not {len(parts) + 1}'
      )
    patches = []
    for name in files:
      with open(os.path.join(staging, name), encoding='utf-8') as f:
        text = f.read()
      lines = text.count('\n')
      if lines > limit:
        raise ExportError(f'{name}: {lines} lines, over the {limit}-line limit')
      subject = ' '.join(
          re.search(r'^Subject: \[PATCH[^]]*\] (.*(?:\n .*)*)', text, re.M)
          .group(1)
          .split()
      )
      added = re.findall(
          r'^diff --git a/(\S+) b/\S+\nnew file mode', text, re.M
      )
      changed = [
          p
          for p in re.findall(r'^diff --git a/(\S+) b/', text, re.M)
          if p not in added
      ]
      patches.append((name, subject, lines, tuple(added), tuple(changed)))
    try:
      os.makedirs(out_dir, exist_ok=True)
      _Check(out_dir)
      for name, *_ in patches:
        path = os.path.join(out_dir, name)
        shutil.copyfile(os.path.join(staging, name), path)
        written.append(path)
    except OSError as e:
      for path in written:
        os.remove(path)
      raise ExportError(f'cannot write to {out_dir}: {e.strerror or e}') from e
  return Export(
      patches=tuple(
          Patch(os.path.join(out_dir, n), s, l, a, c)
          for n, s, l, a, c in patches
      ),
      pkb_commit=commit,
      added=tuple(sorted(dests)),
      modified=tuple(modified),
      benchmarks=tuple(sorted(names.values())),
  )


def Main(argv: list[str]) -> int:
  parser = argparse.ArgumentParser(
      prog='pkb-ext upstream',
      description=(
          'Write the upstream unit as a patch series against the pinned PKB'
          ' commit.'
      ),
  )
  parser.add_argument(
      '--out',
      required=True,
      help='directory for 0001-*.patch, ... (must hold no .patch file)',
  )
  parser.add_argument(
      '--pkb-archive',
      help="tar of PKB source at the pin (default: the setup cache's)",
  )
  args = parser.parse_args(argv)
  try:
    export = Write(args.out, archive=args.pkb_archive)
  except ExportError as e:
    print(f'pkb-ext upstream: {e}', file=sys.stderr)
    return 1
  for patch in export.patches:
    print(f'{patch.path}: {patch.lines} lines: {patch.subject}')
  print(
      f'{len(export.patches)} patches against PKB {export.pkb_commit}; they'
      f' add {len(export.added)} files and change'
      f' {", ".join(export.modified)}; benchmarks:'
      f' {", ".join(export.benchmarks)}'
  )
  print(
      'Apply them in order at the root of a PKB checkout at that commit:'
      f' git am {os.path.join(args.out, "*.patch")}'
  )
  return 0
