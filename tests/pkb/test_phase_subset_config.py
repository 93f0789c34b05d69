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
"""A subset of phases provisions only what it uses, in PKB's own config.

Configurations are built from PKB flags as pkb.py builds them
(pkb_ext.plan.pkb_config.BenchmarkConfigs: the suite's GetConfig under the
configuration's flags, then PKB's BenchmarkConfigSpec), and PKB's
BenchmarkSpec constructs the VMs it would provision from them.
"""

import os

from absl import flags
from absl.testing import flagsaver
from perfkitbenchmarker import benchmark_spec

from pkb_ext import paths
from pkb_ext.plan import pkb_config
from pkb_ext_dev import pkb_tests

pkb_common_test_case = pkb_tests.Import('pkb_common_test_case')

FLAGS = flags.FLAGS
AWS = ['--cloud=AWS', '--zone=us-east-1a', '--machine_type=c5a.4xlarge']
MATRIX = [
    '--benchmark_config_file='
    + os.path.join(paths.RepoRoot(), 'configs', 'machines', 'aws.yaml'),
    '--flag_matrix=gp2',
]


def _Configs(*argv):
  return [c for _, _, c in pkb_config.BenchmarkConfigs(list(argv))]


def _Shape(config):
  """{group: (vm_count, data disk GB or None)} of a BenchmarkConfigSpec."""
  return {
      name: (g.vm_count, g.disk_spec.disk_size if g.disk_spec else None)
      for name, g in config.vm_groups.items()
  }


def _Constructed(*argv):
  """{group: [data disk GB or None per VM]} of the VMs PKB constructs."""
  ((module, _, config),) = pkb_config.BenchmarkConfigs(list(argv))
  spec = benchmark_spec.BenchmarkSpec(module, config, 'uid0')
  with config.RedirectFlags(FLAGS):
    spec.ConstructVirtualMachines()

  def DiskGb(vm):
    # AWS VMs keep their disk spec in their disk creation strategy.
    strategy = vm.create_disk_strategy
    if not strategy.disk_count:
      return None
    return strategy.disk_spec.disk_size

  return {
      name: [DiskGb(vm) for vm in vms] for name, vms in spec.vm_groups.items()
  }


class PhaseSubsetConfigTest(pkb_common_test_case.PkbCommonTestCase):

  def setUp(self):
    super().setUp()
    self.enter_context(flagsaver.flagsaver())

  def testCpuAndNetGetOneDbVmWithoutADiskAndTheClient(self):
    (config,) = _Configs(*AWS, '--cloud_report_phases=cpu,net')
    self.assertEqual(_Shape(config), {'db': (1, None), 'client': (1, None)})

  def testTheFullSuiteKeepsTheReportsTopology(self):
    (config,) = _Configs(*AWS)
    self.assertEqual(_Shape(config), {'db': (3, 2500), 'client': (1, None)})
    self.assertEqual(config.vm_groups['db'].disk_spec.disk_type, 'gp2')

  def testNoPhaseKeepsTheReportsTopology(self):
    (config,) = _Configs(*AWS, '--cloud_report_phases=none')
    self.assertEqual(_Shape(config), {'db': (3, 2500), 'client': (1, None)})

  def testOverlapAddsASecondAndThirdDbVmBesideIo(self):
    (on,) = _Configs(*AWS, '--cloud_report_phases=cpu,io,net')
    (off,) = _Configs(
        *AWS, '--cloud_report_phases=cpu,io,net', '--cloud_report_overlap=false'
    )
    # net on the second db VM, cpu on the third, while io fills the first.
    self.assertEqual(_Shape(on), {'db': (3, 2500), 'client': (1, None)})
    self.assertEqual(_Shape(off), {'db': (1, 2500), 'client': (1, None)})

  def testObjectStorageAloneHasOnlyTheClient(self):
    (config,) = _Configs(*AWS, '--cloud_report_phases=object_storage')
    self.assertEqual(_Shape(config), {'client': (1, None)})

  def testEveryConfigurationOfAMatrixIsTrimmed(self):
    configs = _Configs(*MATRIX, '--cloud_report_phases=cpu,net')
    self.assertLen(configs, 12)
    for config in configs:
      self.assertEqual(_Shape(config), {'db': (1, None), 'client': (1, None)})

  def testAConfigFilesPhasesTrimItsConfiguration(self):
    path = self.create_tempfile(
        'subset.yaml',
        content='cloud_report_2021:\n  flags:\n    cloud_report_phases: cpu\n',
    ).full_path
    (config,) = _Configs(*AWS, f'--benchmark_config_file={path}')
    self.assertEqual(_Shape(config), {'db': (1, None)})

  def testAConfigFilesVmCountIsKeptButNotAnUnusedDisk(self):
    path = self.create_tempfile(
        'groups.yaml',
        content=(
            'cloud_report_2021:\n  vm_groups:\n    db:\n      vm_count: 3\n'
        ),
    ).full_path
    (config,) = _Configs(
        *AWS, f'--benchmark_config_file={path}', '--cloud_report_phases=cpu'
    )
    self.assertEqual(_Shape(config), {'db': (3, None)})

  def testPkbConstructsOnlyTheVmsAndDisksOfCpuAndNet(self):
    self.assertEqual(
        _Constructed(*AWS, '--cloud_report_phases=cpu,net'),
        {'db': [None], 'client': [None]},
    )

  def testPkbConstructsTheFullSuitesVmsAndDisks(self):
    self.assertEqual(
        _Constructed(*AWS), {'db': [2500, 2500, 2500], 'client': [None]}
    )
