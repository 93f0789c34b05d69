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
"""Tests for pkb_ext's checks before provisioning (pkb_ext.suite.preflight)."""

import os
import unittest
from unittest import mock

from perfkitbenchmarker import data
from perfkitbenchmarker import errors
from perfkitbenchmarker import linux_benchmarks
from perfkitbenchmarker import os_types
from perfkitbenchmarker.providers.aws import aws_disk

from pkb_ext.suite import phases
from pkb_ext.suite import cloud_report_tpcc_benchmark
from pkb_ext import registry
from pkb_ext.suite import preflight
from tests import pkb_common_test_case


def _Group(name='db', **kwargs):
  fields = {'cloud': 'AWS', 'machine_type': 'm5.large', 'disk_type': 'local',
            'num_striped_disks': 1, 'static': False}  # fmt: skip
  fields.update(kwargs)
  return preflight.Group(name=name, **fields)


def _OnlyOne(test, problems):
  """The one problem of a list that must hold exactly one."""
  test.assertLen(problems, 1)
  return problems[0]


class _Config:
  """A benchmark config with vm_groups of static VMs (no cloud's CLI)."""

  class _VmGroup:
    """A vm_group of static VMs."""

    cloud = 'AWS'
    static_vms = ['a static VM']
    os_type = None

  vm_groups = {'client': _VmGroup()}


class LocalDiskTest(pkb_common_test_case.PkbCommonTestCase):
  """A data disk of local storage needs local disks PKB can give."""

  def testAMachineTypeWithoutLocalDisksIsRefused(self):
    self.assertEqual(aws_disk.NUM_LOCAL_VOLUMES.get('m5.large', 0), 0)
    problem = _OnlyOne(self, preflight.LocalDiskProblems([_Group()]))
    self.assertIn(
        'vm_group db: PKB gives AWS m5.large 0 local disk(s)', problem
    )
    self.assertIn('--machine_type=<a type with local SSDs>', problem)

  def testEnoughLocalDisksStaticVmsAndNetworkDisksPass(self):
    have = aws_disk.NUM_LOCAL_VOLUMES['i3.large']
    groups = [
        _Group(machine_type='i3.large', num_striped_disks=have),
        _Group(static=True),
        _Group(disk_type='gp2'),
    ]
    self.assertEqual(preflight.LocalDiskProblems(groups), [])
    striped = _Group(machine_type='i3.large', num_striped_disks=have + 1)
    self.assertLen(preflight.LocalDiskProblems([striped]), 1)

  def testGcpSuggestsLocalSsdsForATypeWithoutFixedOnes(self):
    problem = _OnlyOne(
        self,
        preflight.LocalDiskProblems(
            [_Group(cloud='GCP', machine_type='n2-standard-8')]
        ),
    )
    self.assertIn('or --gce_num_local_ssds=N', problem)
    ssds = _Group(cloud='GCP', machine_type='n2-standard-8',
                  gce_num_local_ssds=1)  # fmt: skip
    self.assertEqual(preflight.LocalDiskProblems([ssds]), [])


class OsTypeTest(pkb_common_test_case.PkbCommonTestCase):
  """The client's python3 must install the pinned pip requirements."""

  def setUp(self):
    super().setUp()
    self.dir = self.create_tempdir().full_path
    self.enter_context(
        mock.patch.object(
            data, 'ResourcePath', lambda name: os.path.join(self.dir, name)
        )
    )
    self.enter_context(
        mock.patch.object(
            preflight,
            '_ClientRequirements',
            return_value=[('the worker SDKs', ['pins.txt'])],
        )
    )

  def _Pins(self, text):
    with open(os.path.join(self.dir, 'pins.txt'), 'w') as f:
      f.write(text)

  def testAnOsTypeWhosePythonIsTooOldIsRefused(self):
    self._Pins('# Requires-Python: >=3.10\nboto3==1.35.0\n')
    client = _Group('client', os_type=os_types.UBUNTU2004)
    problem = _OnlyOne(
        self, preflight.OsTypeProblems([client], ['object_storage'])
    )
    self.assertIn(f'--os_type={os_types.UBUNTU2004} boots Python 3.8', problem)
    self.assertIn('need Python >= 3.10', problem)
    self.assertIn(f'set --os_type={os_types.DEFAULT}', problem)
    newer = _Group('client', os_type=os_types.UBUNTU2404)
    self.assertEqual(preflight.OsTypeProblems([newer], ['object_storage']), [])

  def testPinsWithoutTheirPythonFloorAreAProblem(self):
    self._Pins('boto3==1.35.0\n')
    client = _Group('client', os_type=os_types.UBUNTU2204)
    problem = _OnlyOne(
        self, preflight.OsTypeProblems([client], ['object_storage'])
    )
    self.assertIn('pins.txt: no "# Requires-Python: >=X.Y" line', problem)

  def testTheDefaultOsTypeHasAKnownPython(self):
    self.assertIn(os_types.DEFAULT, preflight.OS_PYTHON)


class CheckTest(pkb_common_test_case.PkbCommonTestCase):
  """Check raises once, listing every problem, before provisioning."""

  def testEveryProblemIsRaisedAtOnceTheAccessCheckFirst(self):
    self.enter_context(
        mock.patch.object(
            preflight.publisher, 'SpoolCheck', return_value=['--a is wrong']
        )
    )
    self.enter_context(
        mock.patch.object(
            preflight.cloud_access, 'Problems', return_value=['no aws CLI']
        )
    )
    self.assertEqual(preflight.Problems(_Config(), []), ['--a is wrong'])
    with self.assertRaisesRegex(
        errors.Setup.InvalidFlagConfigurationError,
        r'nothing was provisioned\):\n  no aws CLI\n  --a is wrong$',
    ):
      preflight.Check(_Config(), [])

  def testNoProblemRaisesNothing(self):
    preflight.Check(_Config(), [])


class StandaloneCheckTest(pkb_common_test_case.PkbCommonTestCase):
  """A standalone benchmark's CheckPrerequisites is the whole preflight."""

  def testTheRegistryLaysPreflightOverEachStandaloneBenchmark(self):
    module = cloud_report_tpcc_benchmark
    own = module.CheckPrerequisites.pkb_ext_wrapped
    self.assertEqual(own.__self__.phase, 'tpcc')  # the exported one's
    self.assertIs(
        linux_benchmarks.VALID_BENCHMARKS[module.BENCHMARK_NAME], module
    )
    stages = phases.Load('tpcc')
    self.enter_context(
        mock.patch.object(
            stages, 'CheckPrerequisites', return_value=['--b is wrong']
        )
    )
    self.enter_context(
        mock.patch.object(
            preflight.publisher, 'SpoolCheck', return_value=['--a is wrong']
        )
    )
    with self.assertRaisesRegex(
        errors.Setup.InvalidFlagConfigurationError,
        r'provisioned\):\n  --a is wrong\n  tpcc: --b is wrong$',
    ):
      module.CheckPrerequisites(_Config())
    # The exported one checks only the phase.
    with self.assertRaisesRegex(
        errors.Setup.InvalidFlagConfigurationError,
        r'provisioned\):\n  tpcc: --b is wrong$',
    ):
      own(_Config())

  def testEveryStandaloneBenchmarkButTheSuiteIsLaidOverOnce(self):
    for module in registry.BenchmarkModules():
      with self.subTest(benchmark=module.BENCHMARK_NAME):
        check = module.CheckPrerequisites
        if module.BENCHMARK_NAME == registry.SUITE_BENCHMARK:
          self.assertFalse(hasattr(check, 'pkb_ext_wrapped'))
          continue
        self.assertEqual(check.__module__, preflight.__name__)
        self.assertFalse(hasattr(check.pkb_ext_wrapped, 'pkb_ext_wrapped'))


if __name__ == '__main__':
  unittest.main()
