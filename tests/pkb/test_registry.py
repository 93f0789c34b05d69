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
"""Tests for pkb_ext.registry against the real, pinned PKB."""

import os
import types
from unittest import mock

from absl.testing import absltest
from absl.testing import flagsaver
from perfkitbenchmarker import benchmark_sets
from perfkitbenchmarker import data
from perfkitbenchmarker import linux_benchmarks
from perfkitbenchmarker import linux_packages
from perfkitbenchmarker import linux_virtual_machine
from perfkitbenchmarker import publisher

from pkb_ext import paths
from pkb_ext import registry


class RegistryTest(absltest.TestCase):

  def setUp(self):
    super().setUp()
    registry.Register()

  def testSuiteBenchmarkIsOurs(self):
    module = linux_benchmarks.VALID_BENCHMARKS['cloud_report_2021']
    self.assertEqual(
        module.__name__,
        'pkb_ext.suite.cloud_report_2021_benchmark',
    )
    self.assertIn(module, linux_benchmarks.BENCHMARKS)

  def testEveryOurModuleIsRegistered(self):
    for module in registry.BenchmarkModules():
      self.assertIs(
          linux_benchmarks.VALID_BENCHMARKS[module.BENCHMARK_NAME], module
      )
    for name, module in registry.PackageModules().items():
      self.assertIs(linux_packages.PACKAGES[name], module)
    # pkb_ext's own package (not exported) is PKB's to install too.
    extension = registry.ExtensionPackageModules()
    self.assertEqual(list(extension), ['cloud_report_go_tpc'])
    self.assertIs(
        linux_packages.PACKAGES['cloud_report_go_tpc'],
        extension['cloud_report_go_tpc'],
    )
    self.assertNotIn('cloud_report_go_tpc', registry.PackageModules())

  def testBenchmarkSets(self):
    self.assertEqual(
        benchmark_sets.BENCHMARK_SETS['cloud_report'][
            benchmark_sets.BENCHMARK_LIST
        ],
        ['cloud_report_2021'],
    )
    phase_set = benchmark_sets.BENCHMARK_SETS['cloud_report_phases'][
        benchmark_sets.BENCHMARK_LIST
    ]
    self.assertNotIn('cloud_report_2021', phase_set)

  def testSecondCallChangesNothing(self):
    before = (
        dict(linux_benchmarks.VALID_BENCHMARKS),
        list(linux_benchmarks.BENCHMARKS),
        dict(linux_packages.PACKAGES),
        list(data.DEFAULT_RESOURCE_LOADERS),
        list(publisher.EXTERNAL_PUBLISHERS),
    )
    with mock.patch.object(registry, '_registered', False):
      registry.Register()
    after = (
        dict(linux_benchmarks.VALID_BENCHMARKS),
        list(linux_benchmarks.BENCHMARKS),
        dict(linux_packages.PACKAGES),
        list(data.DEFAULT_RESOURCE_LOADERS),
        list(publisher.EXTERNAL_PUBLISHERS),
    )
    self.assertEqual(before, after)

  def testClashIsRefused(self):
    impostor = types.ModuleType('someone_elses_benchmark')
    with mock.patch.dict(
        linux_benchmarks.VALID_BENCHMARKS, {'cloud_report_2021': impostor}
    ):
      with mock.patch.object(registry, '_registered', False):
        with self.assertRaisesRegex(
            registry.RegistryError, "'cloud_report_2021'.*someone_elses"
        ):
          registry.Register()

  def testPackageClashIsRefused(self):
    registry_dict = {'fio': types.ModuleType('perfkitbenchmarker.x.fio')}
    with self.assertRaisesRegex(registry.RegistryError, "package 'fio'"):
      registry._AddUnique(
          registry_dict, 'fio', types.ModuleType('pkb_ext.fio'), 'package'
      )

  def testConfigsAndCacheAreDataSearchPaths(self):
    import pkb_ext.configs  # pylint: disable=g-import-not-at-top

    configs_dir = os.path.dirname(pkb_ext.configs.__file__)
    loader_paths = [
        getattr(loader, 'path', None)
        for loader in data.DEFAULT_RESOURCE_LOADERS
    ]
    self.assertEqual(loader_paths.count(configs_dir), 1)
    if os.path.isdir(paths.CacheDataDir()):
      self.assertEqual(loader_paths.count(paths.CacheDataDir()), 1)

  @flagsaver.flagsaver
  def testResolveBenchmarks(self):
    self.assertEqual(
        registry.ResolveBenchmarks(['--benchmarks=cloud_report']),
        [(
            'cloud_report_2021',
            'pkb_ext.suite.cloud_report_2021_benchmark',
        )],
    )


class _DebianVm(linux_virtual_machine.Debian12Mixin):
  """PKB's Debian 12 OS mixin with its remote commands recorded."""

  def __init__(self, installed):  # pylint: disable=super-init-not-called
    self._installed_packages = set(installed)
    self.commands = []

  def RemoteCommand(self, command, **kwargs):
    del kwargs
    self.commands.append(command)
    return '', ''

  def GetConnectionIp(self):
    return '192.0.2.1'


class PackageCleanupTest(absltest.TestCase):
  """PKB's cleanup of a static Debian VM with two packages PKB installed."""

  def setUp(self):
    super().setUp()
    registry.Register()
    self.uninstalled = []
    packages = {
        name: types.SimpleNamespace(
            AptUninstall=lambda vm, name=name: self.uninstalled.append(name)
        )
        for name in ('pkbext_test_a', 'pkbext_test_b')
    }
    patcher = mock.patch.dict(linux_packages.PACKAGES, packages)
    patcher.start()
    self.addCleanup(patcher.stop)

  def testEveryPackageIsUninstalledThenSelectionsRestored(self):
    vm = _DebianVm(['pkbext_test_a', 'pkbext_test_b'])
    vm.PackageCleanup()
    self.assertCountEqual(self.uninstalled, ['pkbext_test_a', 'pkbext_test_b'])
    self.assertEqual(set(vm._installed_packages), set())
    self.assertEqual(
        vm.commands,
        [
            'sudo dpkg --clear-selections',
            'sudo dpkg --set-selections < /opt/pkb/dpkg_selections',
            (
                "sudo DEBIAN_FRONTEND='noninteractive' apt-get --purge -y"
                ' dselect-upgrade'
            ),
            'sudo rm -rf /opt/pkb',
        ],
    )

  def testPkbsOwnLoopStopsAtTheFirstPackage(self):
    # What the wrapper is for: were this fixed in PKB, it could go.
    original = linux_virtual_machine.BaseLinuxMixin.PackageCleanup
    vm = _DebianVm(['pkbext_test_a', 'pkbext_test_b'])
    with self.assertRaisesRegex(RuntimeError, 'changed size during iteration'):
      original.pkb_ext_wrapped(vm)
    self.assertLen(self.uninstalled, 1)
    self.assertEqual(vm.commands, [])

  def testRegisterWrapsOnce(self):
    wrapped = linux_virtual_machine.BaseLinuxMixin.PackageCleanup
    with mock.patch.object(registry, '_registered', False):
      registry.Register()
    self.assertIs(linux_virtual_machine.BaseLinuxMixin.PackageCleanup, wrapped)


if __name__ == '__main__':
  absltest.main()
