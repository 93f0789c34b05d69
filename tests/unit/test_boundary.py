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
"""The product boundary: what goes to PKB imports no pkb_ext; the wheel.

benchmarks/ and linux_packages/ are the upstream unit: they may import only
perfkitbenchmarker, the standard library, third-party packages and
themselves. The wheel built from setup.py installs the product only: no test
helpers (tests/pkb_ext_dev) and no bench harness.
"""

import ast
import os
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile

from absl.testing import absltest
from absl.testing import parameterized

from pkb_ext import paths

_ROOT = paths.RepoRoot()
_UNIT = ('benchmarks', 'linux_packages')
_FORBIDDEN = ('pkb_ext', 'pkb_ext_dev')


def ForbiddenImports(source: str, where: str) -> list[str]:
  """'where:line: name' for every import of pkb_ext or pkb_ext_dev.

  Walks the whole tree, so imports inside functions count too.
  """
  found = []
  for node in ast.walk(ast.parse(source, filename=where)):
    if isinstance(node, ast.Import):
      names = [a.name for a in node.names]
    elif isinstance(node, ast.ImportFrom) and not node.level:
      names = [node.module or '']
    elif (
        isinstance(node, ast.Call)
        and getattr(node.func, 'attr', getattr(node.func, 'id', None))
        in ('import_module', '__import__')
        and node.args
        and isinstance(node.args[0], ast.Constant)
        and isinstance(node.args[0].value, str)
    ):
      names = [node.args[0].value]
    else:
      continue
    for name in names:
      if name.split('.')[0] in _FORBIDDEN:
        found.append(f'{where}:{node.lineno}: {name}')
  return found


def _UnitModules() -> list[str]:
  out = []
  for top in _UNIT:
    for dirpath, dirnames, filenames in os.walk(os.path.join(_ROOT, top)):
      dirnames[:] = [d for d in dirnames if d != '__pycache__']
      out.extend(
          os.path.relpath(os.path.join(dirpath, f), _ROOT)
          for f in filenames
          if f.endswith('.py')
      )
  return sorted(out)


class ImportScanTest(parameterized.TestCase):

  def testTheUnitImportsNoPkbExt(self):
    modules = _UnitModules()
    self.assertGreater(len(modules), 10)  # the walk finds the unit
    found = []
    for rel in modules:
      with open(os.path.join(_ROOT, rel), encoding='utf-8') as f:
        found.extend(ForbiddenImports(f.read(), rel))
    self.assertEqual(found, [], 'code bound for PKB imports pkb_ext')

  @parameterized.parameters(
      'from pkb_ext import local\n',
      'import pkb_ext.paths\n',
      'import os, pkb_ext\n',
      'def F():\n  from pkb_ext.local import cloud  # lazy\n',
      'from pkb_ext_dev import local_vm\n',
      'import importlib\nimportlib.import_module("pkb_ext.paths")\n',
      '__import__("pkb_ext")\n',
  )
  def testTheScanCatches(self, source):
    self.assertLen(ForbiddenImports(source, 'm.py'), 1)

  @parameterized.parameters(
      'from perfkitbenchmarker import vm_util\n',
      'from benchmarks.cloud_report import remote\n',
      'import pkb_extras\n',
      'from . import pkb_ext\n',  # relative: a module of the unit itself
      "NAME = 'pkb_ext'\n",
  )
  def testTheScanAllows(self, source):
    self.assertEqual(ForbiddenImports(source, 'm.py'), [])


class WheelTest(absltest.TestCase):
  """Builds the wheel from a copy of the tracked tree and lists it."""

  @classmethod
  def setUpClass(cls):
    super().setUpClass()
    tracked = subprocess.run(
        ['git', 'ls-files', '-co', '--exclude-standard'],
        cwd=_ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    if tracked.returncode:
      raise absltest.SkipTest('not a git checkout')
    # A fresh directory: setuptools builds in the source's build/, so a copy
    # left by an earlier run (or another checkout's) would add its files.
    os.makedirs(absltest.get_default_test_tmpdir(), exist_ok=True)
    tmp = tempfile.mkdtemp(dir=absltest.get_default_test_tmpdir())
    cls.addClassCleanup(shutil.rmtree, tmp, ignore_errors=True)
    cls.src = os.path.join(tmp, 'wheel-src')
    cls.out = os.path.join(tmp, 'wheel-out')
    for rel in tracked.stdout.split('\n'):
      if not rel or not os.path.isfile(os.path.join(_ROOT, rel)):
        continue
      dest = os.path.join(cls.src, rel)
      os.makedirs(os.path.dirname(dest), exist_ok=True)
      with open(os.path.join(_ROOT, rel), 'rb') as f, open(dest, 'wb') as g:
        g.write(f.read())
    built = subprocess.run(
        [
            sys.executable, '-m', 'pip', 'wheel', '--no-deps',
            '--no-build-isolation', '-q', '-w', cls.out, cls.src,
        ],
        capture_output=True,
        text=True,
        check=False,
    )  # fmt: skip
    assert built.returncode == 0, built.stderr
    (wheel,) = [f for f in os.listdir(cls.out) if f.endswith('.whl')]
    with zipfile.ZipFile(os.path.join(cls.out, wheel)) as z:
      cls.names = z.namelist()

  def testNoTestHelperOrBenchHarness(self):
    bad = [
        n
        for n in self.names
        if n.startswith(('pkb_ext_dev/', 'tests/'))
        or '/testing/' in n
        or re.fullmatch(r'bench(_\w+)?\.py', os.path.basename(n))
        or os.path.basename(n).startswith('test_')
        or n.endswith('_test.py')
        or os.path.basename(n)
        in ('local_vm.py', 'fake_vm_main.py', 'stock_pkb.py', 'faults.py')
    ]
    self.assertEqual(bad, [])

  def testHoldsTheProduct(self):
    for name in (
        'pkb_ext_autoload.pth',
        'pkb_ext/cli.py',
        'pkb_ext/registry.py',
        'pkb_ext/upstream/cli.py',
        'pkb_ext/upstream/edits/package_cleanup_test.py.txt',
        'pkb_ext/suite/cloud_report_2021_benchmark.py',
        'pkb_ext/suite/phases.py',
        'linux_packages/cloud_report_cockroachdb.py',
        'pkb_ext/configs/fio/cloud_report_2021.fio.j2',
    ):
      self.assertIn(name, self.names)
    tops = {n.split('/')[0] for n in self.names}
    self.assertEqual(
        {t for t in tops if not t.endswith('.dist-info')},
        {'pkb_ext', 'benchmarks', 'linux_packages', 'pkb_ext_autoload.pth'},
    )

  def testShipsEveryConfigsFile(self):
    configs = os.path.join(self.src, 'configs')
    for dirpath, _, filenames in os.walk(configs):
      for f in filenames:
        rel = os.path.relpath(os.path.join(dirpath, f), configs)
        self.assertIn(f'pkb_ext/configs/{rel}', self.names)


if __name__ == '__main__':
  absltest.main()
