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
machine families) or --cloud_report_cockroachdb_arch; arm64 machines run
--cloud_report_cockroachdb_arm64_version (auto: v22.2.19 where the amd64
release has no linux-arm64 build) and need either a sha256 (pinned or given)
or the explicit opt-in to the vendor's .sha256sum over HTTPS. Without them
tpcc cannot run there: tpcc.Unrunnable says why, the suite skips it on that
configuration (or refuses, with --cloud_report_skip_unrunnable_phases=false)
and the standalone benchmark refuses. They read real PKB benchmark config
specs; the package's Install runs on mocked VMs; the samples say where the
checksum came from and that such results are not comparable with the
report's.
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

from benchmarks import cloud_report_tpcc_benchmark as exported_benchmark
from pkb_ext.suite.tpcc import stages as tpcc
from pkb_ext.suite import cloud_report_tpcc_benchmark as benchmark
from linux_packages import cloud_report_cockroachdb as cockroachdb
from pkb_ext.suite import cloud_report_2021_benchmark as suite
from pkb_ext.suite import preflight
from pkb_ext_dev import pkb_tests

pkb_common_test_case = pkb_tests.Import('pkb_common_test_case')
FLAGS = flags.FLAGS
ROOT = '/opt/pkb/cloud_report_cockroachdb'
ARM_TAR = 'cockroach-v23.1.14.linux-arm64.tgz'
VENDOR_SHA = 'c' * 64


def _ConfigSpec(cloud, machine_type, module=benchmark):
  """A real PKB config spec of cloud_report_tpcc (or module), as PKB decodes it.

  As on the command line: --cloud and --machine_type are given (present).
  """
  providers.LoadProvider(cloud)
  with flagsaver.flagsaver(cloud=cloud, machine_type=machine_type):
    FLAGS['cloud'].present = FLAGS['machine_type'].present = 1
    try:
      config = module.GetConfig({})
      return benchmark_config_spec.BenchmarkConfigSpec(
          module.BENCHMARK_NAME, flag_values=FLAGS, **config
      )
    finally:
      FLAGS['cloud'].present = FLAGS['machine_type'].present = 0


class ArchitectureTest(
    pkb_common_test_case.PkbCommonTestCase, parameterized.TestCase
):

  def setUp(self):
    super().setUp()
    # This host's cloud CLIs and credentials: test_preflight_cloud_access.
    self.enter_context(
        mock.patch.object(preflight.cloud_access, 'Problems', return_value=[])
    )

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

  def testGravitonRunsTheArm64ReleaseWhereTheX86OneHasNoBuild(self):
    spec = _ConfigSpec('AWS', 'c6g.4xlarge')
    self.assertEqual(cockroachdb.VersionFor('amd64'), 'v20.2.7')
    self.assertEqual(cockroachdb.VersionFor('arm64'), 'v22.2.19')
    # Nothing every machine lacks; what only arm64 lacks: one message.
    self.assertEqual(tpcc.CheckPrerequisites(spec), [])
    (reason,) = tpcc.Unrunnable(spec)
    self.assertRegex(
        reason,
        r'^vm_groups client, db \(AWS c6g.4xlarge, arm64\): no sha256 pinned'
        r' for cockroach-v22\.2\.19\.linux-arm64\.tgz.*'
        r'--cloud_report_cockroachdb_vendor_checksum$',
    )
    self.assertEqual(tpcc.Notes(spec), [])
    with flagsaver.flagsaver(cloud_report_cockroachdb_vendor_checksum=True):
      self.assertEqual(tpcc.Unrunnable(spec), [])
      self.assertEqual(
          tpcc.Notes(spec),
          [
              'vm_groups client, db (arm64) run CockroachDB v22.2.19 (amd64:'
              " v20.2.7), its sha256 from the vendor's .sha256sum over HTTPS;"
              ' samples comparable_with_report=false'
          ],
      )

  def testAnArm64ReleaseWithoutABuildCannotRun(self):
    spec = _ConfigSpec('AWS', 'c6g.4xlarge')
    with flagsaver.flagsaver(cloud_report_cockroachdb_arm64_version='v21.2.0'):
      (reason,) = tpcc.Unrunnable(spec)
    self.assertIn('no linux-arm64 build of v21.2.0', reason)
    self.assertIn('--cloud_report_cockroachdb_arm64_version=v22.2.0', reason)
    # A release given for every machine with an arm64 build: arm64 runs it.
    with flagsaver.flagsaver(cloud_report_cockroachdb_version='v23.1.14'):
      self.assertEqual(cockroachdb.VersionFor('arm64'), 'v23.1.14')

  def testTheSuiteSkipsTheStandaloneBenchmarkRefuses(self):
    spec = _ConfigSpec('AWS', 'c6g.4xlarge', suite)
    (reason,) = tpcc.Unrunnable(spec)
    self.assertEqual(suite.SkippedPhases(spec), {'tpcc': reason})
    self.assertEqual(preflight.PhaseProblems(['tpcc'], spec, skip=True), [])
    self.assertEqual(
        preflight.PhaseProblems(['tpcc'], spec), [f'tpcc: {reason}']
    )
    with flagsaver.flagsaver(cloud_report_skip_unrunnable_phases=False):
      self.assertEqual(suite.SkippedPhases(spec), {})
    refusal = (
        r'(?s)nothing was provisioned.*tpcc: vm_groups client, db \(AWS'
        r' c6g.4xlarge, arm64\): no sha256 pinned for'
        r' cockroach-v22\.2\.19\.linux-arm64\.tgz'
    )
    with self.assertRaisesRegex(
        errors.Setup.InvalidFlagConfigurationError, refusal
    ):
      benchmark.CheckPrerequisites(_ConfigSpec('AWS', 'c6g.4xlarge'))
    with flagsaver.flagsaver(cloud_report_skip_unrunnable_phases=False):
      with self.assertRaisesRegex(
          errors.Setup.InvalidFlagConfigurationError, refusal
      ):
        suite.CheckPrerequisites(spec)

  @flagsaver.flagsaver(cloud_report_cockroachdb_version='v23.1.14')
  def testAnArmReleaseNeedsAChecksumOrTheOptIn(self):
    spec = _ConfigSpec('GCP', 't2a-standard-16')
    (problem,) = tpcc.Unrunnable(spec)
    self.assertIn('no sha256 pinned for cockroach-v23.1.14.linux-arm64.tgz',
                  problem)  # fmt: skip
    self.assertIn('--cloud_report_cockroachdb_sha256=arm64=<sha256>', problem)
    self.assertIn('--cloud_report_cockroachdb_vendor_checksum', problem)
    # The exported benchmark has no phase to skip: it refuses the same group.
    with self.assertRaisesRegex(
        errors.Setup.InvalidConfigurationError,
        r'^vm_groups? .*t2a-standard-16, arm64\): no sha256 pinned for'
        r' cockroach-v23\.1\.14\.linux-arm64\.tgz',
    ):
      exported_benchmark.CheckPrerequisites(spec)
    with flagsaver.flagsaver(cloud_report_cockroachdb_vendor_checksum=True):
      self.assertEqual(tpcc.Unrunnable(spec), [])
      exported_benchmark.CheckPrerequisites(spec)  # nothing to refuse
    with flagsaver.flagsaver(
        cloud_report_cockroachdb_sha256=['arm64=' + 'a' * 64]
    ):
      self.assertEqual(tpcc.Unrunnable(spec), [])
    # An amd64 machine without its release's sha256: every machine lacks it.
    (problem,) = tpcc.CheckPrerequisites(_ConfigSpec('GCP', 'n2-standard-16'))
    self.assertIn('cockroach-v23.1.14.linux-amd64.tgz', problem)

  def testX86WithItsSha256AndPostgresPass(self):
    (problem,) = tpcc.CheckPrerequisites(_ConfigSpec('AWS', 'c5a.4xlarge'))
    self.assertIn('no sha256 pinned for cockroach-v20.2.7.linux-amd64', problem)
    # The suite's config gives the report's release's sha256.
    spec = _ConfigSpec('AWS', 'c5a.4xlarge', suite)
    with spec.RedirectFlags(FLAGS):
      self.assertEqual(tpcc.CheckPrerequisites(spec), [])
    with flagsaver.flagsaver(
        cloud_report_cockroachdb_sha256=['amd64=' + 'a' * 64]
    ):
      self.assertEqual(
          tpcc.CheckPrerequisites(_ConfigSpec('AWS', 'c5a.4xlarge')), []
      )
    with flagsaver.flagsaver(cloud_report_tpcc_engine='postgres'):
      spec = _ConfigSpec('AWS', 'c6g.4xlarge')
      self.assertEqual(tpcc.CheckPrerequisites(spec), [])
      self.assertEqual(tpcc.Unrunnable(spec), [])

  def testTheArchFlagIsValidatedWithTheRelease(self):
    # The sha256 may come from a config's flags: preflight checks it.
    for arch, check in (('amd64', tpcc.CheckPrerequisites),
                        ('arm64', tpcc.Unrunnable)):  # fmt: skip
      with flagsaver.flagsaver(cloud_report_cockroachdb_arch=arch):
        (problem,) = check(_ConfigSpec('AWS', 'c5a.4xlarge'))
        self.assertIn(f'{arch}): no sha256 pinned for cockroach-', problem)
        self.assertIn(f'--cloud_report_cockroachdb_sha256={arch}=', problem)
    with self.assertRaisesRegex(
        flags.IllegalFlagValueError, 'no linux-arm64 build of v21.2.0'
    ):
      with flagsaver.flagsaver(
          cloud_report_cockroachdb_arch='arm64',
          cloud_report_cockroachdb_arm64_version='v21.2.0',
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
