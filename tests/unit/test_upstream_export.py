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
"""Tests for pkb_ext.upstream's pieces (the whole export: pkb/test_upstream)."""

import contextlib
import io
import os

from absl.testing import absltest

from pkb_ext import errors as pkb_errors
from pkb_ext import paths
from pkb_ext import registry
from pkb_ext.upstream import cli
from pkb_ext.upstream import errors
from pkb_ext.upstream import export
from pkb_ext.upstream import layout
from pkb_ext.upstream import pkb_edits
from pkb_ext.upstream import pkb_source
from pkb_ext.upstream import rewrite
from pkb_ext.upstream import series

with open(
    os.path.join(paths.RepoRoot(), 'pkb_ext', 'upstream', 'export.py'),
    encoding='utf-8',
) as _f:
  _TEXT = _f.read()
_END = 'limitations under the License.\n'
_OUR_HEADER = _TEXT[: _TEXT.index(_END) + len(_END)]


class TextTest(absltest.TestCase):

  def testOurHeaderIsTheRepoHeader(self):
    self.assertTrue(_OUR_HEADER.endswith('limitations under the License.\n'))

  def testRewritesOurPackagesOnly(self):
    text = (
        'from benchmarks.cloud_report import phases\n'
        'from benchmarks import cloud_report_2021_benchmark\n'
        'from linux_packages import cloud_report_cockroachdb\n'
        'import linux_packages.cloud_report_fio as fio\n'
        "@mock.patch('benchmarks.cloud_report.phases.F')\n"
        'from perfkitbenchmarker import configs\n'
        'from perfkitbenchmarker import linux_packages\n'
        'from perfkitbenchmarker.linux_packages import fio\n'
        'x = linux_packages.INSTALL_DIR\n'
        'y = "benchmarksX benchmarks/cloud_report/a.py linux_packages."\n'
        '# the benchmarks of the report\n'
    )
    self.assertEqual(
        rewrite.RewriteImports(text),
        'from perfkitbenchmarker.linux_benchmarks.cloud_report import phases\n'
        'from perfkitbenchmarker.linux_benchmarks import'
        ' cloud_report_2021_benchmark\n'
        'from perfkitbenchmarker.linux_packages import'
        ' cloud_report_cockroachdb\n'
        'import perfkitbenchmarker.linux_packages.cloud_report_fio as fio\n'
        "@mock.patch('perfkitbenchmarker.linux_benchmarks.cloud_report.phases"
        ".F')\n"
        + text.split('\n', 5)[5],
    )

  def testHeaderBecomesPkbs(self):
    out = rewrite.ReplaceHeader(_OUR_HEADER + '"""Doc."""\n', 'a.py')
    self.assertEqual(
        out,
        rewrite.PKB_HEADER.format(year=_OUR_HEADER[12:16]) + '"""Doc."""\n',
    )
    self.assertStartsWith(
        out, '# Copyright 2026 PerfKitBenchmarker Authors. All rights reserved.'
    )

  def testPythonWithoutOurHeaderIsRefused(self):
    with self.assertRaisesRegex(errors.ExportError, 'a.py: does not start'):
      rewrite.ReplaceHeader('"""Doc."""\n', 'a.py')
    self.assertEqual(rewrite.ReplaceHeader('key: 1\n', 'a.yaml'), 'key: 1\n')

  def testForbiddenImports(self):
    self.assertEqual(
        rewrite.ForbiddenImports(
            'import os\nfrom pkb_ext import local\n'
            'def F():\n  import benchmarks\n'
            'from linux_packages.cloud_report_fio import X\n'
            'from perfkitbenchmarker import linux_packages\n',
            'm.py',
        ),
        [
            'm.py:2: imports pkb_ext',
            'm.py:4: imports benchmarks',
            'm.py:5: imports linux_packages.cloud_report_fio',
        ],
    )

  def testBenchmarkName(self):
    self.assertEqual(
        rewrite.BenchmarkName("import x\nBENCHMARK_NAME = 'cloud_report_y'\n"),
        'cloud_report_y',
    )
    self.assertIsNone(rewrite.BenchmarkName('NAME = 1\n'))


class SourceChangesTest(absltest.TestCase):

  def testDataSubdirectoriesGainOneLineOnly(self):
    """PKB's entries stay as they are, even out of order or commented."""
    text = (
        "A = 1\nDATA_SUBDIRECTORIES = [\n    'edw',\n    'ycsb',\n"
        "    'abc',  # pytype: disable=x\n]\nB = 2\n"
    )
    out = pkb_edits.DataInitSource(text)
    self.assertEqual(
        out,
        "A = 1\nDATA_SUBDIRECTORIES = [\n    'cloud_report',\n    'edw',\n"
        "    'ycsb',\n    'abc',  # pytype: disable=x\n]\nB = 2\n",
    )
    self.assertEqual(pkb_edits.DataInitSource(out), out)
    last = "A = 1\nDATA_SUBDIRECTORIES = [\n    'abc',\n]\n"
    self.assertEqual(
        pkb_edits.DataInitSource(last),
        "A = 1\nDATA_SUBDIRECTORIES = [\n    'abc',\n    'cloud_report',\n]\n",
    )

  def testChangesEntryEndsItsSection(self):
    text = (
        '### Breaking changes:\n\n-   a\n\n### New features:\n\n-   b\n'
        '-   c\n\n### Enhancements:\n\n-   d\n'
    )
    entry = pkb_edits.ChangesEntry('Add the `x` benchmark: ' + 'word ' * 30)
    out = pkb_edits.ChangesSource(text, entry)
    self.assertEqual(
        out,
        '### Breaking changes:\n\n-   a\n\n### New features:\n\n-   b\n-   c\n'
        + entry
        + '\n### Enhancements:\n\n-   d\n',
    )
    lines = entry.splitlines()
    self.assertStartsWith(lines[0], '-   Add the `x` benchmark: word')
    self.assertGreater(len(lines), 1)
    for line in lines:
      self.assertLessEqual(len(line), 80)
    for line in lines[1:]:
      self.assertStartsWith(line, '    word')

  def testChangesEntryInAnotherSection(self):
    text = '### New features:\n\n-   b\n\n### Bug fixes:\n\n-   c\n'
    out = pkb_edits.ChangesSource(text, '-   d\n', '### Bug fixes:')
    self.assertEqual(out, text + '-   d\n')
    with self.assertRaisesRegex(errors.ExportError, 'no "### Other:"'):
      pkb_edits.ChangesSource(text, '-   d\n', '### Other:')

  def testPackageCleanupWalksACopyOnItsOneLine(self):
    text = (
        '  def PackageCleanup(self):\n'
        '    for package_name in self._installed_packages:\n'
        '      self.Uninstall(package_name)\n'
        '    self.RestorePackages()\n'
    )
    out = pkb_edits.PackageCleanupSource(text)
    self.assertEqual(
        out,
        text.replace(
            'in self._installed_packages', 'in list(self._installed_packages)'
        ),
    )
    with self.assertRaisesRegex(errors.ExportError, 'not there once'):
      pkb_edits.PackageCleanupSource(out)  # already fixed: PKB changed
    with self.assertRaisesRegex(errors.ExportError, 'not there once'):
      pkb_edits.PackageCleanupSource(text + text)

  def testPackageCleanupTestGoesBeforeTheMainBlock(self):
    text = (
        'def CreateTestLinuxVm():\n  pass\n\n\n'
        "if __name__ == '__main__':\n  unittest.main()\n"
    )
    out = pkb_edits.PackageCleanupTestSource(text)
    head, main = out.split("if __name__ == '__main__':\n")
    self.assertEqual(main, '  unittest.main()\n')
    self.assertStartsWith(head, 'def CreateTestLinuxVm():\n  pass\n\n\n')
    self.assertIn('class PackageCleanupTest(', head)
    self.assertEndsWith(head, "('sudo rm -rf /opt/pkb')\n\n\n")
    compile(out, 'linux_virtual_machine_test.py', 'exec')
    with self.assertRaisesRegex(errors.ExportError, 'main block'):
      pkb_edits.PackageCleanupTestSource('def CreateTestLinuxVm():\n  pass\n')


def _Write(root, rel, text=''):
  path = os.path.join(root, rel)
  os.makedirs(os.path.dirname(path), exist_ok=True)
  with open(path, 'w', encoding='utf-8') as f:
    f.write(text)


class PlanTest(absltest.TestCase):

  def testWhatGoesWhere(self):
    root = self.create_tempdir().full_path
    for rel in (
        'benchmarks/__init__.py',
        'benchmarks/x_benchmark.py',
        'benchmarks/cloud_report/__init__.py',
        'benchmarks/cloud_report/__pycache__/a.cpython-312.pyc',
        'linux_packages/__init__.py',
        'linux_packages/p.py',
        'configs/__init__.py',
        'configs/pricing/aws.yaml',
        'configs/baselines/report2021.yaml',
        'configs/fio/job.fio.j2',
        'configs/tpcc_data/w.py',
        'tests/upstream/conftest.py',
        'tests/upstream/linux_benchmarks/x_test.py',
        'tests/data/fio/out.json',
        'tests/data/fio/unread.json',
        'tests/data/fio/PROVENANCE.md',
        'tests/data/fio/capture.sh',
        'tests/data/analysis/rows.ndjson',
    ):
      _Write(root, rel)
    _Write(
        root,
        'tests/upstream/linux_benchmarks/x_test.py',
        "_Read('fio', 'out.json')\n",
    )
    plan = {f.source: f.dest for f in layout.Plan(root)}
    self.assertEqual(
        plan,
        {
            'benchmarks/x_benchmark.py': (
                'perfkitbenchmarker/linux_benchmarks/x_benchmark.py'
            ),
            'benchmarks/cloud_report/__init__.py': (
                'perfkitbenchmarker/linux_benchmarks/cloud_report/__init__.py'
            ),
            'linux_packages/p.py': 'perfkitbenchmarker/linux_packages/p.py',
            'configs/tpcc_data/w.py': (
                'perfkitbenchmarker/data/cloud_report/tpcc_data/w.py'
            ),
            'tests/upstream/linux_benchmarks/x_test.py': (
                'tests/linux_benchmarks/x_test.py'
            ),
            'tests/data/fio/out.json': 'tests/data/cloud_report/fio/out.json',
        },
    )

  def testTopLevelBenchmarksAreTheBenchmarkModulesOfLinuxBenchmarks(self):
    benchmarks = 'perfkitbenchmarker/linux_benchmarks'
    self.assertTrue(layout.IsTopLevelBenchmark(f'{benchmarks}/x_benchmark.py'))
    for dest in (
        f'{benchmarks}/x/stages.py',
        f'{benchmarks}/__init__.py',
        'tests/linux_benchmarks/x_benchmark_test.py',
        'tests/data/fio/out.json',
        'CHANGES.next.md',
    ):
      with self.subTest(dest=dest):
        self.assertFalse(layout.IsTopLevelBenchmark(dest))

  def testRefusesAModuleThatImportsPkbExt(self):
    root = self.create_tempdir().full_path
    _Write(
        root,
        'scripts/setup.d/30-pkb.sh',
        'PKB_COMMIT=946ea317692cac6c78e4aec1cd041b538f1a0285\n',
    )
    for top in ('linux_packages', 'configs', 'tests/upstream'):
      os.makedirs(os.path.join(root, top))
    _Write(
        root,
        'benchmarks/y_benchmark.py',
        _OUR_HEADER + 'from pkb_ext import x\n',
    )
    archive = os.path.join(root, 'no-such.tar')
    with self.assertRaisesRegex(
        errors.ExportError, r'y_benchmark.py:14: imports pkb_ext'
    ):
      export.Write(os.path.join(root, 'out'), root, archive)


class OutTest(absltest.TestCase):

  def testAnOutDirectoryHoldingPatchesIsRefusedUntouched(self):
    out = self.create_tempdir()
    old = out.create_file('0001-old.patch', content='old')
    with self.assertRaisesRegex(
        errors.ExportError, r'--out .*: already holds 0001-old.patch'
    ):
      export.Write(out.full_path)
    self.assertEqual(os.listdir(out.full_path), ['0001-old.patch'])
    self.assertEqual(old.read_text(), 'old')

  def testTheCommandSaysWhyInOneLine(self):
    out = self.create_tempdir()
    out.create_file('0001-old.patch', content='old')
    stderr = io.StringIO()
    with contextlib.redirect_stderr(stderr):
      self.assertEqual(cli.Main(['--out', out.full_path]), 1)
      self.assertEqual(cli.Main([]), 2)
    first, second = stderr.getvalue().splitlines()
    self.assertStartsWith(first, f'pkb-ext upstream: --out {out.full_path}:')
    self.assertIn('already holds 0001-old.patch', first)
    self.assertStartsWith(second, 'pkb-ext upstream: ')
    self.assertIn('--out', second)


class ErrorsTest(absltest.TestCase):

  def testTheExportsErrorsArePkbExts(self):
    self.assertTrue(issubclass(errors.ExportError, pkb_errors.Error))
    self.assertTrue(issubclass(series.SeriesError, pkb_errors.Error))


class RegistryStepsTest(absltest.TestCase):

  def testEveryRegistryStepIsExportedOrLeftOutOnPurpose(self):
    steps = {n for n in dir(registry) if n.startswith('_Register')}
    self.assertEqual(steps, set(pkb_edits.REGISTRY_STEPS))


class PinTest(absltest.TestCase):

  def testPinIsSetups(self):
    commit = pkb_source.PinnedCommit()
    self.assertRegex(commit, r'^[0-9a-f]{40}$')
    with open(
        os.path.join(paths.RepoRoot(), pkb_source.PIN_SCRIPT), encoding='utf-8'
    ) as f:
      self.assertIn(f'PKB_COMMIT={commit}\n', f.read())


if __name__ == '__main__':
  absltest.main()
