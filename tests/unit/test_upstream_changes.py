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
"""The series' CHANGES.next.md lines: few, for PKB's users, independent."""

import re
import subprocess

from absl.testing import absltest

from pkb_ext import registry
from pkb_ext.upstream import errors
from pkb_ext.upstream import layout
from pkb_ext.upstream import messages
from pkb_ext.upstream import pkb_edits
from pkb_ext.upstream import pkb_fixes
from pkb_ext.upstream import series

_BENCHMARKS = 'perfkitbenchmarker/linux_benchmarks'
_FIXES = '### Bug fixes:'
_PIN = (
    f'### New features:\n\n-   n1\n-   n2\n\n{_FIXES}\n\n'
    + ''.join(f'-   f{i}\n' for i in range(1, 9))
    + '-   f9 wraps\n    onto a second line.\n'
)


def _Doc(what: str) -> str:
  return f'"""{what}."""\n'


class MessageTest(absltest.TestCase):

  def testOnlyEachBenchmarksLastPatchHasAChangesLine(self):
    name = 'cloud_report_tpcc'
    phase = f'{_BENCHMARKS}/{name}_benchmark.py'
    helper = f'{_BENCHMARKS}/cloud_report/h.py'
    texts = {phase: _Doc('X alone'), helper: ''}
    parts = [
        series.Part(series.SHARED, None, [helper]),
        series.Part(series.SHARED, None, [helper], 1, 2),
        series.Part(name, phase, [helper], 1, 2),
    ]
    for part in parts:
      message, changes = messages.Message(part, texts)
      self.assertIsNone(changes, message)
    for part in (
        series.Part(name, phase, [phase], 2, 2),
        series.Part(name, phase, [phase]),
    ):
      _, changes = messages.Message(part, texts)
      self.assertEqual(changes, messages.BENCHMARK_CHANGES[name])

  def testPartsNameWhatTheyAdd(self):
    """A package's patch and a split benchmark's leading parts say what."""
    name = 'cloud_report_tpcc'
    phase = f'{_BENCHMARKS}/{name}_benchmark.py'
    package = f'{layout.PACKAGES_DEST}/cloud_report_cockroachdb.py'
    mods = [f'{_BENCHMARKS}/cloud_report/{m}.py' for m in 'abcdefg']
    texts = {phase: _Doc('X alone'), package: _Doc('Installs Y')} | {
        m: _Doc(f'Module {m[-4]}') for m in mods
    }
    message, changes = messages.Message(
        series.Part('cloud_report_cockroachdb', package, [package]), texts
    )
    self.assertEqual(
        (message.splitlines()[0], changes),
        ('Add the cloud_report_cockroachdb package.', None),
    )
    self.assertIn('Installs Y.', message)
    message, _ = messages.Message(
        series.Part(name, phase, mods[:2], 1, 2), texts
    )
    self.assertEqual(
        message.splitlines()[0], f'Add a and b for {name} (1 of 2).'
    )
    self.assertIn('`cloud_report.b`: Module b.', message)
    message, _ = messages.Message(series.Part(name, phase, mods, 1, 2), texts)
    self.assertEqual(
        message.splitlines()[0],
        f'Add a, b, c, d, e, f and g for {name} (1 of 2).',
    )
    many = [f'{_BENCHMARKS}/cloud_report/module_{i}.py' for i in range(9)]
    texts |= {m: _Doc('M') for m in many}
    message, _ = messages.Message(series.Part(name, phase, many, 1, 2), texts)
    self.assertRegex(
        message.splitlines()[0], r'^Add module_0, .* and \d more for '
    )
    self.assertNotIn('helpers', message)

  def testABenchmarkWithoutAChangesLineIsRefused(self):
    phase = f'{_BENCHMARKS}/cloud_report_x_benchmark.py'
    with self.assertRaisesRegex(series.SeriesError, 'cloud_report_x: no CHA'):
      messages.Message(
          series.Part('cloud_report_x', phase, [phase]), {phase: _Doc('X')}
      )

  def testEveryExportedBenchmarkHasAChangesLine(self):
    exported = {m.BENCHMARK_NAME for m in registry.ExportedBenchmarkModules()}
    self.assertEqual(set(messages.BENCHMARK_CHANGES), exported)

  def testAtMostSixOneLineEntriesWrittenForPkbsUsers(self):
    entries = [
        messages.CLEANUP_CHANGES,
        *messages.BENCHMARK_CHANGES.values(),
        *(f.changes for f in pkb_fixes.FIXES),
    ]
    lines = ''.join(pkb_edits.ChangesEntry(e) for e in entries).splitlines()
    self.assertLessEqual(len(lines), 6, lines)
    self.assertLen(lines, len(entries))  # one line each
    for line in lines:
      self.assertLessEqual(len(line), 80, line)
      # no internal module, no helper list, nothing only this project has
      self.assertNotRegex(
          line, r'(?i)`|\bcloud_report\.\w|helpers|pkb_ext|pkb-ext|local'
      )


class PlacementTest(absltest.TestCase):

  def _Place(self, text, name):
    return pkb_edits.ChangesSource(
        text, pkb_edits.ChangesEntry(name), _FIXES, pin=_PIN
    )

  def testEachEntryKeepsThreeLinesOfPkbContextOnEachSide(self):
    text = _PIN
    for name in ('A', 'B', 'C'):
      text = self._Place(text, name)
    self.assertEqual(
        text,
        _PIN.replace('-   f4\n', '-   f4\n-   C\n').replace(
            '-   f7\n', '-   f7\n-   B\n'
        )
        + '-   A\n',
    )
    # Another section's entry goes at its end, its context being PKB's.
    self.assertEqual(
        pkb_edits.ChangesSource(text, '-   N\n', '### New features:', pin=_PIN),
        text.replace('-   n2\n', '-   n2\n-   N\n'),
    )

  def testEachPatchAppliesWithoutTheOthers(self):
    tree = self.create_tempdir().full_path
    git = ['git', '-C', tree]
    subprocess.run(git + ['init', '-q'], check=True)
    path = f'{tree}/CHANGES.next.md'
    text = _PIN
    diffs = []
    for name in ('A', 'B', 'C'):
      new = self._Place(text, name)
      with open(path, 'w', encoding='utf-8') as f:
        f.write(text)
      subprocess.run(git + ['add', '-A'], check=True)
      with open(path, 'w', encoding='utf-8') as f:
        f.write(new)
      diffs.append(
          subprocess.run(
              git + ['diff'], capture_output=True, text=True, check=True
          ).stdout
      )
      text = new
    with open(path, 'w', encoding='utf-8') as f:
      f.write(_PIN)
    for diff in diffs:
      result = subprocess.run(
          git + ['apply', '--check', '-'],
          input=diff,
          capture_output=True,
          text=True,
          check=False,
      )
      self.assertEqual(result.returncode, 0, result.stderr + diff)

  def testAFullSectionIsRefusedInOneLine(self):
    text = _PIN
    with self.assertRaisesRegex(
        errors.ExportError, r'^CHANGES\.next\.md: no place in "### Bug fixes:"'
    ):
      for name in 'ABCDEFGH':
        text = self._Place(text, name)

  def testWithoutAPinTheEntryEndsItsSection(self):
    text = self._Place(_PIN, 'A')
    self.assertEqual(
        pkb_edits.ChangesSource(text, '-   B\n', _FIXES),
        text + '-   B\n',
    )
    self.assertTrue(re.search(r'^-   A\n', text, re.M))


if __name__ == '__main__':
  absltest.main()
