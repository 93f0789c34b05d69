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
"""Tests for pkb_ext.upstream.pkb_fixes (in the series: pkb/test_upstream)."""

import json
import os
import re

from absl.testing import absltest

from pkb_ext import paths
from pkb_ext.upstream import errors
from pkb_ext.upstream import export
from pkb_ext.upstream import git
from pkb_ext.upstream import layout
from pkb_ext.upstream import pkb_edits
from pkb_ext.upstream import pkb_fixes
from pkb_ext.upstream import pkb_source


class FixesTest(absltest.TestCase):

  def testEachFixChangesOneModuleAndItsTestFile(self):
    files = []
    for fix in pkb_fixes.FIXES:
      self.assertCountEqual(
          fix.Files(),
          [fix.module, fix.test_file, *fix.scripts, *fix.callers],
      )
      files.extend(fix.Files())
    self.assertLen(set(files), len(files))  # each can be merged alone
    self.assertContainsSubset(files, pkb_edits.MODIFIED)

  def testEachNamedTestIsOneTheDiffAdds(self):
    for fix in pkb_fixes.FIXES:
      added = re.findall(r'^\+  def (test\w+)\(', fix.Diff(), re.M)
      named = [t.rsplit('.', 1)[1] for t in fix.tests]
      self.assertCountEqual(named, added, fix.name)
      module = fix.test_file[: -len('.py')].replace('/', '.')
      for test in fix.tests:
        self.assertTrue(test.startswith(module + '.'), test)

  def testChangesLinesAreOneLineForPkbUsers(self):
    for fix in pkb_fixes.FIXES:
      entry = pkb_edits.ChangesEntry(fix.changes)
      self.assertEqual(entry.count('\n'), 1, entry)
      self.assertNotRegex(fix.changes, r'(?i)cloud.report|pkb_ext|pkb-ext')
      self.assertIn(
          fix.section, (pkb_fixes.CHANGES_FEATURES, pkb_fixes.CHANGES_FIXES)
      )

  def testAddedCapturesExistAndTheirTestsNameThem(self):
    for fix in pkb_fixes.FIXES:
      for dest, source in fix.added:
        with open(os.path.join(paths.RepoRoot(), source), 'rb') as f:
          text = f.read()
        if dest.endswith('.json'):  # a capture: the diff's tests read it
          json.loads(text)
          self.assertIn(os.path.basename(dest), fix.Diff())
        elif dest.endswith('_test.py'):  # a script's test names the script
          self.assertIn(b'object_storage_api_test_scripts import ttfb', text)
        else:  # a script: the module pushes it to its VMs
          self.assertIn(f"'{os.path.basename(dest)}'", fix.Diff())
    self.assertEqual(
        pkb_fixes.ADDED,
        (
            'tests/data/fio/fio-default-percentiles-result.json',
            'perfkitbenchmarker/scripts/object_storage_api_test_scripts/ttfb.py',
            'tests/scripts/object_storage_ttfb_test.py',
        ),
    )

  def testTtfbFixAddsTheScriptAndItsTestWhereLayoutMapsThem(self):
    self.assertEqual(
        pkb_fixes.OBJECT_STORAGE_TTFB.added,
        (
            layout.ScriptPaths('ttfb.py'),
            layout.ScriptTestPaths('object_storage_ttfb_test.py'),
        ),
    )
    planned = {f.source for f in layout.Plan(paths.RepoRoot())}
    for _, source in pkb_fixes.OBJECT_STORAGE_TTFB.added:
      self.assertNotIn(source, planned)  # the fix's patch only carries them

  def testDiffsApplyToPkbAtThePin(self):
    archive = pkb_source.SourceArchive(pkb_source.PinnedCommit())
    if not os.path.isfile(archive):
      self.skipTest(f'no PKB source archive at {archive}')
    tree = git.Tree(self.create_tempdir().full_path, ('T', 't@localhost'))
    pkb_source.ExtractPkb(archive, tree.path, list(pkb_fixes.MODIFIED))
    tree.Init('pin')
    for fix in pkb_fixes.FIXES:
      tree.Apply(fix.Diff())
    self.assertNotEmpty(pkb_fixes.NETPERF_PIDS.callers)
    for caller in pkb_fixes.NETPERF_PIDS.callers:
      with open(os.path.join(tree.path, caller), encoding='utf-8') as f:
        self.assertNotIn('killall', f.read())

  def testADiffThatNoLongerAppliesIsRefusedInOneLine(self):
    tree = git.Tree(self.create_tempdir().full_path, ('T', 't@localhost'))
    fix = pkb_fixes.FIO_PERCENTILES
    os.makedirs(os.path.join(tree.path, os.path.dirname(fix.module)))
    os.makedirs(os.path.join(tree.path, os.path.dirname(fix.test_file)))
    for rel in fix.Files():
      with open(os.path.join(tree.path, rel), 'w', encoding='utf-8') as f:
        f.write('# PKB changed this file.\n')
    tree.Init('pin')
    with self.assertRaisesRegex(
        errors.ExportError,
        r'^edits/fio_default_percentiles\.diff\.txt does not apply to PKB at'
        r' the pin; update it to PKB\'s lines: git apply - failed',
    ) as raised:
      export._CommitFix(tree, fix, paths.RepoRoot())  # pylint: disable=protected-access
    self.assertNotIn('\n', str(raised.exception))


if __name__ == '__main__':
  absltest.main()
