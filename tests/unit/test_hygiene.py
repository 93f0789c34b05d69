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
"""Repository hygiene: no upstream code, headers, no generated files."""

import ast
import inspect
import os
import re
import subprocess
import sys

from absl import flags
from absl.testing import absltest

from pkb_ext import paths
from pkb_ext import registry

_ROOT = paths.RepoRoot()
_UPSTREAM = re.compile(
    r'(^|/)perfkitbenchmarker/'
    r'|(^|/)core_(main|list_join|matrix|state|util)\.c$'
    r'|(^|/)coremark\.h$'
    r'|(^|/)netperf\.c$|(^|/)netserver\.c$'
    r'|(^|/)minio/|(^|/)go-tpc/|(^|/)pingcap/'
)
_GENERATED = re.compile(
    r'(^|/)(\.venv|out|build|__pycache__|\.pytest_cache)/|\.pyc$|\.egg-info/'
)


def _Tracked():
  out = subprocess.run(
      ['git', 'ls-files'],
      cwd=_ROOT,
      capture_output=True,
      text=True,
      check=False,
  )
  if out.returncode:
    return None
  return out.stdout.split()


# Top-level places of the code bound for PKB (pkb_ext/upstream exports it).
_UPSTREAM_UNIT = (
    'benchmarks/',
    'linux_packages/',
    'tests/upstream/',
    'configs/object_storage/ttfb_worker.py',
    'configs/object_storage_api_test_scripts/',
)

# Top-level places of the product's modules (the size rule's reach).
_PRODUCT = ('pkb_ext/', 'benchmarks/', 'linux_packages/', 'configs/')


class HygieneTest(absltest.TestCase):

  def setUp(self):
    super().setUp()
    self.files = _Tracked()
    if self.files is None:
      self.skipTest('not a git checkout')

  def testNoUpstreamSource(self):
    self.assertEqual([f for f in self.files if _UPSTREAM.search(f)], [])

  def testNoGeneratedFilesOrBinaries(self):
    self.assertEqual([f for f in self.files if _GENERATED.search(f)], [])
    big = [
        f
        for f in self.files
        if os.path.isfile(os.path.join(_ROOT, f))
        and os.path.getsize(os.path.join(_ROOT, f)) > 2 * 1024 * 1024
    ]
    self.assertEqual(big, [])
    elf = []
    for f in self.files:
      path = os.path.join(_ROOT, f)
      if os.path.isfile(path):
        with open(path, 'rb') as fh:
          if fh.read(4) == b'\x7fELF':
            elf.append(f)
    self.assertEqual(elf, [])

  def testNoProductModuleOver500Lines(self):
    # Every module of the product: pkb_ext, the upstream unit and the data
    # files that are code (the object storage worker).
    long = []
    for f in self.files:
      if f.endswith('.py') and f.startswith(_PRODUCT):
        with open(os.path.join(_ROOT, f)) as fh:
          n = sum(1 for _ in fh)
        if n > 500:
          long.append(f'{f}: {n}')
    self.assertEqual(long, [])

  def testOnePlaceWritesPkbsRecordOfInstalledPackages(self):
    # pkb_ext's offline installs (CoreMark, netperf) mark PKB's package
    # installed through placement.MarkInstalled only.
    writers = []
    for f in self.files:
      if f.endswith('.py') and f.startswith('pkb_ext/'):
        with open(os.path.join(_ROOT, f)) as fh:
          if '_installed_packages.add(' in fh.read():
            writers.append(f)
    self.assertEqual(writers, ['pkb_ext/suite/placement.py'])

  def testReadmeNamesEveryDoc(self):
    with open(os.path.join(_ROOT, 'README.md')) as f:
      readme = f.read()
    unnamed = [
        f
        for f in self.files
        if f.startswith('docs/') and f.endswith('.md') and f not in readme
    ]
    self.assertEqual(unnamed, [])

  def testPythonFilesCarryOurLicenseHeader(self):
    # The upstream unit is written for PKB: its files carry PKB's header.
    missing = []
    for f in self.files:
      if f.endswith('.py') and not f.startswith('tests/data/'):
        with open(os.path.join(_ROOT, f)) as fh:
          head = fh.read(400)
        authors = (
            'PerfKitBenchmarker Authors. All rights reserved.'
            if f.startswith(_UPSTREAM_UNIT) and f != 'configs/__init__.py'
            else 'The pkb_ext Authors'
        )
        copyright_line = next(
            (l for l in head.splitlines() if l.startswith('# Copyright')), ''
        )
        if authors not in copyright_line or 'Apache License' not in head:
          missing.append(f)
    self.assertEqual(missing, [])


def _DefinesAFlag(func: ast.expr) -> bool:
  """flags.DEFINE_*(...), or a settings field: settings.Integer(...)."""
  return isinstance(func, ast.Attribute) and (
      func.attr.startswith('DEFINE')
      or (isinstance(func.value, ast.Name) and func.value.id == 'settings')
  )


def _DefinedLiterally(module_name: str) -> set[str]:
  """Flag names written as the first argument of a flag's definition."""
  tree = ast.parse(inspect.getsource(sys.modules[module_name]))
  return {
      call.args[0].value
      for call in ast.walk(tree)
      if isinstance(call, ast.Call)
      and _DefinesAFlag(call.func)
      and call.args
      and isinstance(call.args[0], ast.Constant)
  }


class FlagDefinitionTest(absltest.TestCase):

  def testEveryCloudReportFlagIsDefinedByItsName(self):
    # Grepping a flag's name finds its definition: no flag is defined in a
    # loop or under a computed name.
    registry.BenchmarkModules()
    registry.PackageModules()
    names = [n for n in flags.FLAGS if n.startswith('cloud_report_')]
    self.assertGreater(len(names), 50)
    hidden = []
    for name in names:
      module = flags.FLAGS.find_module_defining_flag(name)
      if name not in _DefinedLiterally(module):
        hidden.append(f'{name} ({module})')
    self.assertEqual(hidden, [])


if __name__ == '__main__':
  absltest.main()
