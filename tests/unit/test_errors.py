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
"""Every exception class derives from its side's one error base.

pkb_ext's classes (and the dev package's) derive from pkb_ext.errors.Error;
the exported modules' (benchmarks/, linux_packages/) from
benchmarks.cloud_report.errors.Error or one of PKB's error classes. The TTFB
worker (configs/object_storage/ttfb_worker.py) runs alone on a VM without
either package, so its classes are not checked.
"""

import importlib
import inspect
import pkgutil
import types

from absl.testing import absltest
from perfkitbenchmarker import errors as pkb_errors

from benchmarks.cloud_report import errors as report_errors
from pkb_ext import errors

# Packages walked, and the bases their exception classes may derive from.
PACKAGES = {
    'benchmarks': (report_errors.Error, pkb_errors.Error),
    'linux_packages': (report_errors.Error, pkb_errors.Error),
    'pkb_ext': (errors.Error,),
    'pkb_ext_dev': (errors.Error,),
}


def ModuleNames(package_name: str) -> list[str]:
  """The package and every module under it, by name."""
  package = importlib.import_module(package_name)
  names = [package_name]
  for info in pkgutil.walk_packages(package.__path__, package_name + '.'):
    names.append(info.name)
  return names


def _Classes(owner, module_name: str):
  """Classes defined in `owner` (a module or class), nested ones too."""
  for value in vars(owner).values():
    if inspect.isclass(value) and value.__module__ == module_name:
      if value is not owner:
        yield value
        yield from _Classes(value, module_name)


def ExceptionClasses(module: types.ModuleType) -> list[type]:
  """The exception classes a module defines (at any depth)."""
  found = {
      c
      for c in _Classes(module, module.__name__)
      if issubclass(c, BaseException)
  }
  return sorted(found, key=lambda c: c.__qualname__)


class ErrorBaseTest(absltest.TestCase):

  @classmethod
  def setUpClass(cls):
    super().setUpClass()
    cls.classes = {}  # package -> [(module name, class)]
    for package in PACKAGES:
      found = cls.classes.setdefault(package, [])
      for name in ModuleNames(package):
        module = importlib.import_module(name)
        found.extend((name, c) for c in ExceptionClasses(module))

  def testEveryExceptionClassDerivesFromItsBase(self):
    wrong = []
    for package, bases in PACKAGES.items():
      for module, cls in self.classes[package]:
        if not issubclass(cls, bases):
          names = ' or '.join(f'{b.__module__}.{b.__qualname__}' for b in bases)
          wrong.append(f'{module}.{cls.__qualname__} (not a {names})')
    self.assertEqual(wrong, [], '\n'.join(wrong))

  def testTheWalkFindsTheKnownClasses(self):
    names = {
        f'{m}.{c.__qualname__}'
        for found in self.classes.values()
        for m, c in found
    }
    for known in (
        'pkb_ext.errors.UsageError',
        'pkb_ext.inputs.InputError',
        'pkb_ext.publish.spool.SpoolError',
        'benchmarks.cloud_report.parsers.ParseError',
        'pkb_ext.suite.phases.PhaseError',
        'benchmarks.cloud_report.tpcc.stepping.SearchStateError',
        'pkb_ext_dev.load.HogError',
    ):
      self.assertIn(known, names)

  def testEachExceptionClassHasItsOwnName(self):
    # One name per side: the exported unit's and pkb_ext's (each has an
    # Error of its own).
    for side in (('benchmarks', 'linux_packages'), ('pkb_ext', 'pkb_ext_dev')):
      where = {}
      for package in side:
        for module, cls in self.classes[package]:
          where.setdefault(cls.__qualname__, []).append(module)
      twice = {n: m for n, m in where.items() if len(m) > 1}
      self.assertEqual(twice, {}, side)

  def testAProjectBaseComesBeforeABuiltInKind(self):
    # `except Error` must see the class first as the project's kind, so a
    # second, built-in base (ValueError, OSError) is listed after it.
    late = []
    for package, bases in PACKAGES.items():
      for module, cls in self.classes[package]:
        direct = cls.__bases__
        if len(direct) > 1 and not issubclass(direct[0], bases):
          late.append(f'{module}.{cls.__qualname__}')
    self.assertEqual(late, [])


if __name__ == '__main__':
  absltest.main()
