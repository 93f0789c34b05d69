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
"""The series' words: each patch's commit message and CHANGES.next.md line.

The first patch fixes PKB's PackageCleanup, the next ones fix PKB's own
modules (pkb_fixes, which holds their words); then shared helpers, one patch
per package, one per benchmark (a split benchmark's leading parts name
their modules, each with its docstring's first line). A benchmark's or a
package's message is its module's docstring's first line.

CHANGES.next.md gains one line per change a PKB user sees: each fix's, and
each new benchmark's (in its last patch). Helpers add none.
"""

import ast
import textwrap

from pkb_ext.upstream import layout
from pkb_ext.upstream import pkb_fixes
from pkb_ext.upstream import series

REPORT = 'Cockroach Labs 2021 Cloud Report'
CLEANUP_SUBJECT = 'Let PackageCleanup uninstall every package of a VM.'
_CLEANUP_SUMMARY = (
    'BaseLinuxMixin.PackageCleanup walked vm._installed_packages while each'
    ' Debian-based Uninstall discarded the package from it, so on a static'
    ' VM with installs the loop ended after the first package with'
    " 'RuntimeError: Set changed size during iteration': no other package"
    ' was uninstalled, RestorePackages never ran and the install directory'
    ' stayed. The loop now walks a copy.'
)
CLEANUP_CHANGES = (
    'Fix PackageCleanup on Debian-based static VMs stopping after one package.'
)
# Each exported benchmark's CHANGES.next.md line, for PKB's users (one line
# of CHANGES.next.md each: at most 76 characters).
BENCHMARK_CHANGES = {
    'cloud_report_tpcc': (
        'Add cloud_report_tpcc: CockroachDB TPC-C stepped up to its latency'
        ' limit.'
    ),
}


def CleanupMessage() -> str:
  """The commit message of the PackageCleanup fix."""
  return f'{CLEANUP_SUBJECT}\n\n{textwrap.fill(_CLEANUP_SUMMARY, width=72)}\n'


def FixMessage(fix: pkb_fixes.Fix) -> str:
  """The commit message of one fix of PKB's own modules."""
  return f'{fix.subject}\n\n{textwrap.fill(fix.summary, width=72)}\n'


def _Summary(text: str) -> str:
  """The first line of a module's docstring, without its final period."""
  tree = ast.parse(text)
  doc = ast.get_docstring(tree) or ''
  return doc.strip().split('\n')[0].rstrip('.')


def _Short(dest: str) -> str:
  """A module's name as a reader of the series knows it."""
  for top in (layout.BENCHMARKS_DEST, layout.PACKAGES_DEST):
    if dest.startswith(top + '/'):
      return series.ModuleName(dest)[len(top) + 1 :]
  return dest


def _Listed(modules: list[str], limit: int = 44) -> str:
  """Modules' last names for a subject: 'a, b and c', or 'a, b and 3 more'."""
  names = [m.rsplit('.', 1)[-1] for m in modules]
  if len(names) == 1:
    return names[0]
  for shown in range(len(names) - 1, 0, -1):
    rest = names[shown:]
    tail = rest[0] if len(rest) == 1 else f'{len(rest)} more'
    text = f'{", ".join(names[:shown])} and {tail}'
    if len(text) <= limit or shown == 1:
      return text
  return names[0]


def Message(part: series.Part, texts: dict[str, str]) -> tuple[str, str | None]:
  """(commit message, CHANGES.next.md text or None) of one part."""
  modules = [
      _Short(d)
      for d in part.files
      if d.endswith('.py')
      and d.startswith((layout.BENCHMARKS_DEST, layout.PACKAGES_DEST))
  ]
  listed = ', '.join(f'`{m}`' for m in modules) or 'data files and tests'
  if part.group == series.SHARED:
    suffix = f' ({part.index} of {part.count})' if part.count > 1 else ''
    subject = f'Add shared helpers of the {REPORT} benchmarks{suffix}.'
    summary = f'Helpers the {REPORT} benchmarks share{suffix}: {listed}.'
    changes = None
  elif part.anchor not in part.files:  # a leading part of a split group
    what = _Summary(texts[part.anchor])
    subject = (
        f'Add {_Listed(modules)} for {part.group}'
        f' ({part.index} of {part.count}).'
    )
    summary = (
        f'Part {part.index} of {part.count} of the {part.group} benchmark'
        f' ({what}), each module with its tests:\n\n'
        + '\n\n'.join(
            f'`{_Short(d)}`: {_Summary(texts[d])}.'
            for d in part.files
            if d.endswith('.py')
            and d.startswith((layout.BENCHMARKS_DEST, layout.PACKAGES_DEST))
        )
    )
    changes = None
  elif part.anchor.startswith(layout.PACKAGES_DEST + '/'):
    subject = f'Add the {part.group} package.'
    summary = f'{_Summary(texts[part.anchor])}.'
    changes = None
  else:
    what = _Summary(texts[part.anchor])
    subject = f'Add the {part.group} benchmark.'
    changes = BENCHMARK_CHANGES.get(part.group)
    if changes is None:
      raise series.SeriesError(
          f'{part.group}: no CHANGES.next.md line; add one to'
          ' messages.BENCHMARK_CHANGES'
      )
    summary = f'{what}.'
    if part.count > 1:
      summary += (
          f'\n\nThe last of its {part.count} patches; this one adds {listed}.'
      )
  body = '\n\n'.join(
      textwrap.fill(p, width=72, break_on_hyphens=False)
      for p in summary.split('\n\n')
  )
  return f'{subject}\n\n{body}\n', changes
