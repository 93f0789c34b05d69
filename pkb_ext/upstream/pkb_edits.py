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
"""The edits to PKB's own files, each on the lines it needs only.

What pkb_ext/registry.py does at run time becomes source changes, written in
PKB's style (PKB's own files are never reformatted):

  benchmarks and packages   found by PKB's own module scan of their packages
                            (pkb_ext.suite's, the suite and its cpu, io and
                            net phases, are pkb_ext's and not exported);
  benchmark sets            left out: both name the suite;
  data loader for configs/  'cloud_report' joins DATA_SUBDIRECTORIES in
                            perfkitbenchmarker/data/__init__.py (the first
                            patch with a data file), so the names the modules
                            use (e.g. fio/cloud_report_2021.fio.j2) resolve
                            to perfkitbenchmarker/data/cloud_report/;
  AWS local volumes         left out: only the suite's machine matrices
                            (pkb_ext's) name those machines;
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
                            on static VMs need it;
  PKB's own modules         the fixes of pkb_fixes (fio, netperf, coremark),
                            each a diff of the module and its PKB test file,
                            the patches after that one.

A patch with a change PKB's users see also adds its line to
CHANGES.next.md (see messages), at the latest entry boundary of its section
where git's three lines of context on either side are all PKB's own lines:
so each patch's CHANGES.next.md hunk applies to PKB at the pin without the
patches before it. The text these edits add is kept in edits/.
"""

import difflib
import re
import textwrap

from pkb_ext import registry
from pkb_ext.upstream import edits
from pkb_ext.upstream import errors
from pkb_ext.upstream import layout
from pkb_ext.upstream import pkb_fixes

DATA_INIT_FILE = 'perfkitbenchmarker/data/__init__.py'
LINUX_VM_FILE = 'perfkitbenchmarker/linux_virtual_machine.py'
LINUX_VM_TEST_FILE = 'tests/linux_virtual_machine_test.py'
CHANGES_FILE = 'CHANGES.next.md'
CHANGES_SECTION = pkb_fixes.CHANGES_FEATURES
CHANGES_FIXES_SECTION = pkb_fixes.CHANGES_FIXES
# Every PKB file the series changes.
MODIFIED = (
    LINUX_VM_FILE,
    LINUX_VM_TEST_FILE,
    *pkb_fixes.MODIFIED,
    DATA_INIT_FILE,
    CHANGES_FILE,
)
# PackageCleanup's loop over the set that Uninstall discards from, and the
# same loop over a copy.
_CLEANUP_LOOP = edits.Read('package_cleanup_loop.py.txt')
_CLEANUP_FIXED = _CLEANUP_LOOP.replace(
    'in self._installed_packages', 'in list(self._installed_packages)'
)
# What each step of registry.Register() becomes in PKB's tree.
REGISTRY_STEPS = {
    '_RegisterBenchmarks': (
        'modules in linux_benchmarks/ (PKB scans it); pkb_ext.suite (the suite'
        ' and its cpu, io and net phases) is left out'
    ),
    '_RegisterPackages': 'modules in linux_packages/ (PKB scans it)',
    '_RegisterBenchmarkSets': 'left out: both sets name the suite',
    '_RegisterDataLoaders': (
        f'configs/ under {layout.DATA_DEST}, a DATA_SUBDIRECTORIES entry; the'
        ' setup cache is left out (--data_search_paths serves it)'
    ),
    '_RegisterLocalDisks': (
        "left out: only the suite's machine matrices name those machines"
    ),
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


def DataInitSource(text: str) -> str:
  """Adds DATA_SUBDIRECTORY to data/__init__.py's DATA_SUBDIRECTORIES.

  One line is inserted before the first entry that sorts after it (at the
  end if none does); PKB's own lines stay as they are.
  """
  name = layout.DATA_SUBDIRECTORY
  match = re.search(
      r'^DATA_SUBDIRECTORIES = \[\n((?:    .*\n)*?)\]\n', text, re.M
  )
  if not match:
    raise errors.ExportError(f'{DATA_INIT_FILE}: no DATA_SUBDIRECTORIES list')
  entries = match.group(1).splitlines(keepends=True)
  names = [re.findall(r"'([^']+)'", line) for line in entries]
  if any(name in n for n in names):
    return text
  at = next(
      (i for i, n in enumerate(names) if n and n[0] > name),
      len(entries),
  )
  entries.insert(at, f"    '{name}',\n")
  return text[: match.start(1)] + ''.join(entries) + text[match.end(1) :]


def PackageCleanupSource(text: str) -> str:
  """PKB's linux_virtual_machine.py with PackageCleanup's loop on a copy."""
  if text.count(_CLEANUP_LOOP) != 1:
    raise errors.ExportError(
        f"{LINUX_VM_FILE}: PackageCleanup's loop over"
        ' self._installed_packages is not there once'
    )
  return text.replace(_CLEANUP_LOOP, _CLEANUP_FIXED)


def PackageCleanupTestSource(text: str) -> str:
  """PKB's linux_virtual_machine_test.py with the fix's test class."""
  main = "\nif __name__ == '__main__':\n"
  at = text.rfind(main)
  if at < 0 or 'def CreateTestLinuxVm()' not in text:
    raise errors.ExportError(
        f'{LINUX_VM_TEST_FILE}: no CreateTestLinuxVm() or main block'
    )
  test = edits.Read('package_cleanup_test.py.txt')
  return text[: at + 1] + test + text[at + 1 :]


def ChangesEntry(text: str) -> str:
  """text as a CHANGES.next.md item: '-   ' and 80-column lines."""
  return (
      textwrap.fill(
          text, width=80, initial_indent='-   ', subsequent_indent='    '
      )
      + '\n'
  )


# Lines of context git diff writes on each side of a change.
_CONTEXT = 3


def _Added(pin: str, text: str) -> set[int]:
  """Indexes of text's lines that pin does not have (the series' lines)."""
  ours = text.splitlines(keepends=True)
  matcher = difflib.SequenceMatcher(
      None, pin.splitlines(keepends=True), ours, autojunk=False
  )
  return {
      j
      for tag, _, _, j1, j2 in matcher.get_opcodes()
      if tag != 'equal'
      for j in range(j1, j2)
  }


def ChangesSource(
    text: str,
    entry: str,
    section: str = CHANGES_SECTION,
    pin: str | None = None,
) -> str:
  """Adds entry (a ChangesEntry) to section of CHANGES.next.md's text.

  Without pin, entry becomes the section's last item. With pin (the file at
  PKB's pin), it goes at the latest boundary between the section's items
  (its end included) whose _CONTEXT lines on each side are all pin's lines,
  so that the change's context holds no line of an earlier patch.
  """
  lines = text.splitlines(keepends=True)
  try:
    start = lines.index(f'{section}\n')
  except ValueError:
    raise errors.ExportError(
        f'{CHANGES_FILE}: no "{section}" section'
    ) from None
  end = next(
      (i for i in range(start + 1, len(lines)) if lines[i].startswith('### ')),
      len(lines),
  )
  last = max(i for i in range(start, end) if lines[i].strip())
  boundaries = [last + 1] + [
      i for i in range(last, start, -1) if lines[i].startswith('-   ')
  ]
  if pin is None:
    at = boundaries[0]
  else:
    added = _Added(pin, text)
    at = next(
        (
            b
            for b in boundaries
            if not added & set(range(b - _CONTEXT, b + _CONTEXT))
        ),
        None,
    )
    if at is None:
      raise errors.ExportError(
          f'{CHANGES_FILE}: no place in "{section}" whose context is PKB\'s'
          ' own lines only'
      )
  if at == last + 1 and not lines[last].endswith('\n'):
    lines[last] += '\n'
  return ''.join(lines[:at]) + entry + ''.join(lines[at:])
