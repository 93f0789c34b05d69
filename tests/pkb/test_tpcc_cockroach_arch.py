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
"""CockroachDB on arm64 (Graviton, Tau T2A, Azure Dps): known before provisioning.

The architecture comes from the machine type (PKB's own tables of ARM
machine families) or --cloud_report_cockroachdb_arch; an arm64 run needs a
release with a linux-arm64 build (v22.2.0 and later) and either a sha256
(pinned or given) or the explicit opt-in to the vendor's .sha256sum over
HTTPS. tpcc.CheckPrerequisites reads real PKB benchmark config specs; the
package's Install runs on mocked VMs; the samples say where the checksum came
from and that such results are not comparable with the report's.
"""

from unittest import mock

from absl import flags
from absl.testing import flagsaver
from absl.testing import parameterized

from perfkitbenchmarker import data
from perfkitbenchmarker import errors
from perfkitbenchmarker import linux_virtual_machine
from perfkitbenchmarker import providers
from perfkitbenchmarker.configs import benchmark_config_spec

from benchmarks import cloud_report_2021_benchmark as suite
from benchmarks import cloud_report_tpcc_benchmark as benchmark
from benchmarks.cloud_report.tpcc import stages as tpcc
from linux_packages import cloud_report_cockroachdb as cockroachdb
from pkb_ext_dev import pkb_tests

pkb_common_test_case = pkb_tests.Import('pkb_common_test_case')
FLAGS = flags.FLAGS
ROOT = '/opt/pkb/cloud_report_cockroachdb'
ARM_TAR = 'cockroach-v23.1.14.linux-arm64.tgz'
VENDOR_SHA = 'c' * 64


def _ConfigSpec(cloud, machine_type):
  """A real PKB config spec of cloud_report_tpcc, as PKB decodes it.

  As on the command line: --cloud and --machine_type are given (present).
  """
  providers.LoadProvider(cloud)
  with flagsaver.flagsaver(cloud=cloud, machine_type=machine_type):
    FLAGS['cloud'].present = FLAGS['machine_type'].present = 1
    try:
      config = benchmark.GetConfig({})
      return benchmark_config_spec.BenchmarkConfigSpec(
          benchmark.BENCHMARK_NAME, flag_values=FLAGS, **config
      )
    finally:
      FLAGS['cloud'].present = FLAGS['machine_type'].present = 0


class ArchitectureTest(
    pkb_common_test_case.PkbCommonTestCase, parameterized.TestCase
):

  @parameterized.parameters(
      ('AWS', 'c6g.4xlarge', 'arm64'),
      ('AWS', 'm7gd.4xlarge', 'arm64'),
      ('AWS', 'c5a.4xlarge', 'amd64'),
      ('AWS', 'm5dn.4xlarge', 'amd64'),
      ('GCP', 't2a-standard-16', 'arm64'),
      ('GCP', 'n2-standard-16', 'amd64'),
      ('Azure', 'Standard_D16ps_v5', 'arm64'),
      ('Azure', 'Standard_D16as_v4', 'amd64'),
      ('Static', None, None),
      ('AWS', None, None),
  )
  def testArchOfMachineType(self, cloud, machine_type, arch):
    self.assertEqual(cockroachdb.ArchOfMachineType(cloud, machine_type), arch)

  def testGravitonWithTheDefaultReleaseFailsBeforeProvisioning(self):
    problems = tpcc.CheckPrerequisites(_ConfigSpec('AWS', 'c6g.4xlarge'))
    self.assertLen(problems, 2)  # db and client
    self.assertRegex(
        problems[0],
        r'^vm_group client \(AWS c6g.4xlarge, arm64\): CockroachDB publishes'
        r' no linux-arm64 build of v20\.2\.7 .*'
        r'--cloud_report_cockroachdb_version=v22\.2\.0 or later',
    )

  def testTheBenchmarksRefuseBeforeProvisioning(self):
    spec = _ConfigSpec('AWS', 'c6g.4xlarge')
    for module in (benchmark, suite):
      with self.assertRaisesRegex(
          errors.Setup.InvalidFlagConfigurationError,
          r'nothing was provisioned.*tpcc: vm_group client \(AWS c6g.4xlarge,'
          r' arm64\): CockroachDB publishes no linux-arm64 build of v20\.2\.7',
      ):
        module.CheckPrerequisites(spec)

  @flagsaver.flagsaver(cloud_report_cockroachdb_version='v23.1.14')
  def testAnArmReleaseNeedsAChecksumOrTheOptIn(self):
    spec = _ConfigSpec('GCP', 't2a-standard-16')
    problem, _ = tpcc.CheckPrerequisites(spec)
    self.assertIn('no sha256 pinned for cockroach-v23.1.14.linux-arm64.tgz',
                  problem)  # fmt: skip
    self.assertIn('--cloud_report_cockroachdb_sha256=arm64=<sha256>', problem)
    self.assertIn('--cloud_report_cockroachdb_vendor_checksum', problem)
    with flagsaver.flagsaver(cloud_report_cockroachdb_vendor_checksum=True):
      self.assertEqual(tpcc.CheckPrerequisites(spec), [])
    with flagsaver.flagsaver(
        cloud_report_cockroachdb_sha256=['arm64=' + 'a' * 64]
    ):
      self.assertEqual(tpcc.CheckPrerequisites(spec), [])

  def testX86AndPostgresPass(self):
    self.assertEqual(
        tpcc.CheckPrerequisites(_ConfigSpec('AWS', 'c5a.4xlarge')), []
    )
    with flagsaver.flagsaver(cloud_report_tpcc_engine='postgres'):
      self.assertEqual(
          tpcc.CheckPrerequisites(_ConfigSpec('AWS', 'c6g.4xlarge')), []
      )

  def testTheArchFlagIsValidatedWithTheRelease(self):
    with self.assertRaisesRegex(
        flags.IllegalFlagValueError, 'no linux-arm64 build of v20.2.7'
    ):
      with flagsaver.flagsaver(cloud_report_cockroachdb_arch='arm64'):
        pass
    with self.assertRaisesRegex(
        flags.IllegalFlagValueError, 'cloud_report_cockroachdb_vendor_checksum'
    ):
      with flagsaver.flagsaver(
          cloud_report_cockroachdb_arch='arm64',
          cloud_report_cockroachdb_version='v22.2.0',
      ):
        pass
    with flagsaver.flagsaver(
        cloud_report_cockroachdb_arch='arm64',
        cloud_report_cockroachdb_version='v22.2.0',
        cloud_report_cockroachdb_vendor_checksum=True,
    ):
      # The flag wins over the machine type, e.g. on static VMs.
      self.assertEqual(cockroachdb.DeclaredArch('Static', None), 'arm64')


def _ArmVm(vendor_out):
  vm = mock.create_autospec(
      linux_virtual_machine.BaseLinuxVirtualMachine, instance=True
  )
  vm.name = 'db1'
  vm.commands = []

  def Remote(command, **kwargs):
    del kwargs
    vm.commands.append(command)
    if command == 'uname -m':
      return 'aarch64\n', ''
    if command.startswith('curl ') and command.endswith('.sha256sum'):
      return vendor_out, ''
    if command.startswith('sha256sum '):
      return f'{VENDOR_SHA}  {command.split()[-1]}\n', ''
    return '', ''

  vm.RemoteCommand.side_effect = Remote
  # Nothing installed before: no install record.
  vm.RemoteCommandWithReturnCode.return_value = ('', 'No such file', 1)
  return vm


class VendorChecksumTest(pkb_common_test_case.PkbCommonTestCase):

  def setUp(self):
    super().setUp()
    self.enter_context(
        mock.patch.object(data, 'ResourceExists', return_value=True)
    )
    self.enter_context(
        flagsaver.flagsaver(
            cloud_report_cockroachdb_version='v23.1.14',
            cloud_report_cockroachdb_vendor_checksum=True,
        )
    )

  def testFetchedOverHttpsOnTheVmAndRecorded(self):
    vm = _ArmVm(f'{VENDOR_SHA}  {ARM_TAR}\n')
    cockroachdb.Install(vm)
    (fetch,) = [c for c in vm.commands if c.startswith('curl ')]
    self.assertEqual(
        fetch,
        "curl -fsSL --proto '=https' --tlsv1.2"
        f' https://binaries.cockroachdb.com/{ARM_TAR}.sha256sum',
    )
    (untar,) = [c for c in vm.commands if c.startswith('tar ')]
    self.assertIn('"sha256_source": "vendor_sha256sum"', untar)
    self.assertIn('"arch": "arm64"', untar)

  def testAMismatchIsRefused(self):
    vm = _ArmVm(f'{"d" * 64}  {ARM_TAR}\n')
    with self.assertRaisesRegex(
        errors.Setup.BadPreprovisionedDataError,
        f'sha256 {VENDOR_SHA}, expected d{{64}} \\(vendor_sha256sum\\)',
    ):
      cockroachdb.Install(vm)
    self.assertFalse(any(c.startswith('tar ') for c in vm.commands))

  def testAPinOrFlagWinsOverTheVendorFile(self):
    with flagsaver.flagsaver(
        cloud_report_cockroachdb_sha256=['arm64=' + VENDOR_SHA]
    ):
      vm = _ArmVm('')
      cockroachdb.Install(vm)
    self.assertFalse(any(c.startswith('curl ') for c in vm.commands))

  def testSampleMetadata(self):
    arm = cockroachdb.SampleMetadata({
        'version': 'v23.1.14',
        'arch': 'arm64',
        'sha256_source': 'vendor_sha256sum',
    })
    self.assertEqual(arm['cockroach_sha256_source'], 'vendor_sha256sum')
    self.assertIs(arm['comparable_with_report'], False)
    self.assertEqual(
        arm['not_comparable_reason'],
        'CockroachDB v23.1.14 on arm64; the report ran v20.2 on amd64',
    )
    amd = cockroachdb.SampleMetadata({
        'version': 'v20.2.7',
        'arch': 'amd64',
        'sha256_source': 'pinned',
    })
    self.assertIs(amd['comparable_with_report'], True)
    self.assertNotIn('not_comparable_reason', amd)


if __name__ == '__main__':
  pkb_common_test_case.absltest.main()
