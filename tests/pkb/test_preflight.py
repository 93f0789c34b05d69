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
"""Preflight, the cloud paths' settings and the machine matrices, on real PKB.

Configurations are built from PKB flags exactly as pkb.py builds them
(pkb_ext.plan.pkb_config.BenchmarkConfigs), and each benchmark module's
CheckPrerequisites is called the way pkb.py calls it, before any VM exists.
"""

import os
from unittest import mock

from absl import flags
from absl.testing import flagsaver
from perfkitbenchmarker import errors
from perfkitbenchmarker import linux_virtual_machine
from perfkitbenchmarker.providers.aws import aws_disk

from pkb_ext.suite import topology
from pkb_ext import paths
from pkb_ext.plan import pkb_config
from pkb_ext import pricing
from pkb_ext import registry
from pkb_ext.suite.disk import stages as io
from pkb_ext.suite.object_storage import stages as object_storage
from pkb_ext.suite.object_storage import worker as os_worker
from pkb_ext.suite import preflight
from pkb_ext_dev import pkb_tests

pkb_common_test_case = pkb_tests.Import('pkb_common_test_case')

FLAGS = flags.FLAGS
MACHINES = os.path.join(paths.RepoRoot(), 'configs', 'machines')
REFUSED = errors.Setup.InvalidFlagConfigurationError


def _Check(*argv):
  """Runs CheckPrerequisites of every configuration, as pkb.py does."""
  for module, _, config in pkb_config.BenchmarkConfigs(list(argv)):
    with config.RedirectFlags(FLAGS):
      module.CheckPrerequisites(config)


class PreflightTest(pkb_common_test_case.PkbCommonTestCase):

  def setUp(self):
    super().setUp()
    self.enter_context(flagsaver.flagsaver())
    # This host's cloud CLIs and credentials: test_preflight_cloud_access.
    self.enter_context(
        mock.patch.object(preflight.cloud_access, 'Problems', return_value=[])
    )

  def testS3WithoutAnInstanceProfileIsRefused(self):
    with self.assertRaisesRegex(REFUSED, r'--aws_ec2_instance_profile'):
      _Check('--cloud=AWS', '--cloud_report_phases=object_storage')
    _Check(
        '--cloud=AWS',
        '--cloud_report_phases=object_storage',
        '--aws_ec2_instance_profile=s3-writer',
    )

  def testStandaloneObjectStorageBenchmarkToo(self):
    with self.assertRaisesRegex(REFUSED, r'--aws_ec2_instance_profile'):
      _Check('--benchmarks=cloud_report_object_storage', '--cloud=AWS')

  def testGcsNeedsAReadWriteScope(self):
    for scopes in (None, 'storage-ro', 'https://www.googleapis.com/auth/'
                   'devstorage.read_only'):  # fmt: skip
      argv = ['--cloud=GCP', '--cloud_report_phases=object_storage']
      if scopes:
        argv.append(f'--gcloud_scopes={scopes}')
      with self.subTest(scopes=scopes):
        with self.assertRaisesRegex(REFUSED, r'--gcloud_scopes=storage-rw'):
          _Check(*argv)
    for scopes in ('storage-rw', 'cloud-platform,compute-ro'):
      _Check(
          '--cloud=GCP',
          '--cloud_report_phases=object_storage',
          f'--gcloud_scopes={scopes}',
      )

  def testAnEndpointNeedsNoCloudCredentials(self):
    _Check(
        '--cloud=AWS',
        '--cloud_report_phases=object_storage',
        '--cloud_report_object_storage_endpoint=http://127.0.0.1:9000',
    )

  def testOtherPhasesNeedNoObjectStorageCredentials(self):
    _Check('--cloud=AWS', '--cloud_report_phases=cpu,net')

  def testNetworkDiskMachineWithLocalDiskIsRefused(self):
    with self.assertRaisesRegex(
        REFUSED,
        r'PKB gives AWS m5\.4xlarge 0 local disk\(s\).*--machine_type=',
    ):
      _Check(
          '--cloud=AWS',
          '--machine_type=m5.4xlarge',
          '--data_disk_type=local',
          '--cloud_report_phases=io',
      )
    # cpu uses no data disk: none is provisioned, so none is refused.
    _Check(
        '--cloud=AWS',
        '--machine_type=m5.4xlarge',
        '--data_disk_type=local',
        '--cloud_report_phases=cpu',
    )

  def testAppendixIiMachinesGetLocalDisks(self):
    for machine in ('m5dn.4xlarge', 'm5ad.4xlarge', 'r5dn.4xlarge',
                    'r5ad.4xlarge', 'm5d.4xlarge', 'i3.4xlarge'):  # fmt: skip
      with self.subTest(machine=machine):
        _Check(
            '--cloud=AWS',
            f'--machine_type={machine}',
            '--data_disk_type=local',
            '--cloud_report_phases=cpu',
        )

  def testGcpLocalSsdNeedsACount(self):
    argv = [
        '--cloud=GCP',
        '--machine_type=n2-standard-16',
        '--data_disk_type=local',
        '--cloud_report_phases=io',
    ]
    with self.assertRaisesRegex(REFUSED, r'--gce_num_local_ssds'):
      _Check(*argv)
    _Check(*argv, '--gce_num_local_ssds=1')

  def testUnwritableSpoolDirectoryIsRefused(self):
    a_file = self.create_tempfile().full_path
    with self.assertRaisesRegex(
        REFUSED, r'--cloud_report_spool_dir=.*not a directory'
    ):
      _Check(
          '--cloud=AWS',
          '--cloud_report_phases=cpu',
          f'--cloud_report_spool_dir={a_file}/spool',
      )
    _Check(
        '--cloud=AWS',
        '--cloud_report_phases=cpu',
        f'--cloud_report_spool_dir={self.create_tempdir().full_path}/new',
    )

  def testAnOsTypeWhosePythonCannotInstallTheWorkersSdksIsRefused(self):
    argv = [
        '--cloud=AWS',
        '--cloud_report_phases=object_storage',
        '--aws_ec2_instance_profile=s3-writer',
    ]
    with self.assertRaisesRegex(
        REFUSED,
        r'vm_group client: --os_type=ubuntu2004 boots Python 3\.8, and the'
        r' object storage worker\'s pinned SDKs'
        r' \(object_storage/requirements-\w+\.txt\) need Python >= 3\.10;'
        r' set --os_type=ubuntu2404 \(Python 3\.12\)',
    ):
      _Check(*argv, '--os_type=ubuntu2004')
    for os_type in ('amazonlinux2', 'debian11', 'rhel9', 'rocky_linux8'):
      with self.subTest(os_type=os_type):
        with self.assertRaisesRegex(REFUSED, f'--os_type={os_type} boots'):
          _Check(*argv, f'--os_type={os_type}')
    for os_type in ('ubuntu2204', 'ubuntu2404', 'debian12', 'debian13'):
      _Check(*argv, f'--os_type={os_type}')

  def testTheOsTypeMattersOnlyToTheWorkersPython3(self):
    _Check('--cloud=AWS', '--cloud_report_phases=cpu', '--os_type=ubuntu2004')
    _Check(
        '--cloud=AWS',
        '--cloud_report_phases=object_storage',
        '--aws_ec2_instance_profile=s3-writer',
        '--os_type=ubuntu2004',
        '--cloud_report_object_storage_python=python3.12',
    )

  def testRequiresPythonLine(self):
    path = self.create_tempfile(
        content='# SDK\n# Requires-Python: >=3.11 (why)\nboto3==1.44.5\n'
    ).full_path
    self.assertEqual(preflight.RequiresPython(path), (3, 11))
    bare = self.create_tempfile(content='boto3==1.44.5\n').full_path
    with self.assertRaisesRegex(ValueError, 'no "# Requires-Python'):
      preflight.RequiresPython(bare)

  def testUnreadablePinsAreAProblemNamingTheFile(self):
    """A pins file that is missing or states no Python floor is refused
    before provisioning, naming what was being checked and the file."""
    argv = [
        '--cloud=AWS',
        '--cloud_report_phases=object_storage',
        '--aws_ec2_instance_profile=s3-writer',
        '--os_type=ubuntu2404',
    ]
    bare = self.create_tempfile(content='boto3==1.44.5\n').full_path
    found = preflight.data.ResourcePath

    def _Missing(name, *args, **kwargs):
      if name.endswith('requirements-s3.txt'):
        raise preflight.data.ResourceNotFound(f'{name}: no such data file')
      return found(name, *args, **kwargs)

    def _NoFloor(name, *args, **kwargs):
      if name.endswith('requirements-s3.txt'):
        return bare
      return found(name, *args, **kwargs)

    cases = (
        (_Missing, r'requirements-s3\.txt: no such data file'),
        (_NoFloor, 'no "# Requires-Python: >=X.Y" line'),
    )
    for resource_path, says in cases:
      with self.subTest(says=says):
        with mock.patch.object(preflight.data, 'ResourcePath', resource_path):
          with self.assertRaisesRegex(
              REFUSED, "the object storage worker's pinned SDKs: .*" + says
          ):
            _Check(*argv)

  def testAPhaseAConfigurationCannotRunIsSkippedThereOnly(self):
    argv = [
        f'--benchmark_config_file={os.path.join(MACHINES, "aws.yaml")}',
        '--flag_matrix=gp2',
        '--aws_ec2_instance_profile=s3-writer',
        '--cloud_report_cockroachdb_vendor_checksum=false',
    ]
    skipped, refused = {}, set()
    for strict in (False, True):
      flag = f'--cloud_report_skip_unrunnable_phases={str(not strict).lower()}'
      for module, config_flags, config in pkb_config.BenchmarkConfigs(
          argv + [flag]
      ):
        machine = config_flags['machine_type']
        with config.RedirectFlags(FLAGS):
          try:
            module.CheckPrerequisites(config)
          except REFUSED as e:
            self.assertTrue(strict, e)
            self.assertIn('tpcc: vm_groups client, db', str(e))
            refused.add(machine)
          if not strict:
            skipped[machine] = module.SkippedPhases(config)
    arm = {'m6g.4xlarge', 'c6g.4xlarge'}
    self.assertEqual(refused, arm)
    self.assertEqual({m for m, s in skipped.items() if s}, arm)
    for machine in arm:
      self.assertEqual(list(skipped[machine]), ['tpcc'])
      self.assertIn('no sha256 pinned', skipped[machine]['tpcc'])

  def testTheSuiteGivesTheReportsCockroachSha256(self):
    """amd64 needs no checksum flag in the suite; cloud_report_tpcc does."""
    aws = ['--cloud=AWS', '--machine_type=c5a.4xlarge']
    suite = [*aws, '--aws_ec2_instance_profile=s3-writer']
    alone = ['--benchmarks=cloud_report_tpcc', *aws]
    refused = (
        r'(?m)^  tpcc: vm_groups client, db \(AWS c5a\.4xlarge, amd64\): no'
        r' sha256 pinned for cockroach-v20\.2\.7\.linux-amd64\.tgz\. .*'
        r'--cloud_report_cockroachdb_sha256=amd64=<sha256>.*'
        r'--cloud_report_cockroachdb_vendor_checksum$'
    )
    cases = (
        (suite, None),
        (alone, refused),
        ([*alone, '--cloud_report_cockroachdb_sha256=amd64=' + 'a' * 64], None),
        ([*alone, '--cloud_report_cockroachdb_vendor_checksum'], None),
        # The suite's sha256 is its release's: another needs its own.
        (
            [*suite, '--cloud_report_cockroachdb_version=v23.1.14'],
            r'no sha256 pinned for cockroach-v23\.1\.14\.linux-amd64',
        ),
    )
    for argv, says in cases:
      with self.subTest(argv=argv), flagsaver.flagsaver():
        if says is None:
          _Check(*argv)
          continue
        with self.assertRaisesRegex(REFUSED, says):
          _Check(*argv)

  def testEveryProblemIsListedAtOnce(self):
    a_file = self.create_tempfile().full_path
    with self.assertRaises(REFUSED) as raised:
      _Check(
          '--cloud=AWS',
          '--machine_type=c5.4xlarge',
          '--data_disk_type=local',
          f'--cloud_report_spool_dir={a_file}',
      )
    message = str(raised.exception)
    for flag in ('--machine_type', '--cloud_report_spool_dir',
                 '--aws_ec2_instance_profile'):  # fmt: skip
      self.assertIn(flag, message)
    self.assertIn('nothing was provisioned', message)

  def testIoAndTpccAreNotRepeatedTogether(self):
    with flagsaver.flagsaver(run_stage_iterations=3):
      (problem,) = preflight.RepeatProblems(['cpu', 'io', 'net', 'tpcc'])
      self.assertIn('--run_stage_iterations=3 repeats io after tpcc', problem)
      self.assertEqual(preflight.RepeatProblems(['cpu', 'io', 'net']), [])
      self.assertEqual(preflight.RepeatProblems(['tpcc']), [])
    with flagsaver.flagsaver(run_stage_iterations=1):
      self.assertEqual(preflight.RepeatProblems(['io', 'tpcc']), [])


class ObjectStoragePrepareTest(pkb_common_test_case.PkbCommonTestCase):
  """Prepare goes through the service's PrepareVM, as PKB's benchmark does."""

  def _Client(self, profile):
    vm = mock.create_autospec(
        linux_virtual_machine.BaseLinuxVirtualMachine, instance=True
    )
    vm.name = 'client'
    vm.CLOUD = 'AWS'
    vm.zone = 'us-east-1a'
    vm.region = 'us-east-1'
    vm.instance_profile = profile
    vm.RemoteCommandWithReturnCode.return_value = ('', '', 0)
    vm.RemoteCommand.return_value = ('', '')
    return vm

  def _Topology(self, vm):
    return mock.Mock(client_vm=vm, RequireClient=lambda phase: vm)

  def testNoInstanceProfileFailsPrepare(self):
    vm = self._Client(None)
    with self.assertRaisesRegex(ValueError, '--aws_ec2_instance_profile'):
      object_storage.Install(self._Topology(vm))
    vm.PushDataFile.assert_not_called()

  def testInstanceProfileInstallsTheServicesTools(self):
    vm = self._Client('s3-writer')
    object_storage.Install(self._Topology(vm))
    installed = [c.args[0] for c in vm.Install.call_args_list]
    self.assertIn('awscli', installed)
    self.assertIn('boto3', installed)
    # Then the worker, and the pinned SDK over PKB's latest boto3.
    self.assertEqual(
        [c.args[0] for c in vm.PushDataFile.call_args_list],
        ['object_storage/requirements-s3.txt']
        + [data for data, _ in os_worker.WORKER_FILES],
    )


class LocalVolumesTest(pkb_common_test_case.PkbCommonTestCase):

  def testRegisteredOnceAndPkbEntriesKept(self):
    registry.Register()
    for machine in ('m5dn.4xlarge', 'm5ad.4xlarge', 'r5dn.4xlarge',
                    'r5ad.4xlarge'):  # fmt: skip
      self.assertEqual(aws_disk.NUM_LOCAL_VOLUMES[machine], 2)
      self.assertTrue(aws_disk.LocalDriveIsNvme(machine))
    with mock.patch.dict(aws_disk.NUM_LOCAL_VOLUMES, {'m5dn.4xlarge': 4}):
      registry._RegisterLocalDisks()
      self.assertEqual(aws_disk.NUM_LOCAL_VOLUMES['m5dn.4xlarge'], 4)
    before = dict(aws_disk.NUM_LOCAL_VOLUMES)
    registry._RegisterLocalDisks()
    self.assertEqual(aws_disk.NUM_LOCAL_VOLUMES, before)


class MatricesTest(pkb_common_test_case.PkbCommonTestCase):
  """configs/machines/*.yaml, expanded by PKB."""

  def setUp(self):
    super().setUp()
    self.enter_context(flagsaver.flagsaver())

  def _Configs(self, name, matrix):
    return pkb_config.BenchmarkConfigs([
        f'--benchmark_config_file={os.path.join(MACHINES, name)}',
        f'--flag_matrix={matrix}',
    ])

  def testLocalMatrixUsesTheLocalSsdFioSettings(self):
    configs = self._Configs('aws.yaml', 'local')
    self.assertLen(configs, 12)
    for _, config_flags, config in configs:
      with config.RedirectFlags(FLAGS):
        params = io.Params.FromFlags()
      context = io.JobFileContext(params, 300 << 30)
      with self.subTest(machine=config_flags['machine_type']):
        self.assertTrue(params.local_ssd)
        self.assertEqual(context['iodepth_bw'], 64 * 16)
        self.assertEqual(context['iodepth_iops'], 512 * 16)
        self.assertEqual(context['iodepth_latency'], 16 * 16)
        self.assertEqual(params.local_ssd_latency_target_ms, 10)
        self.assertEqual(params.local_ssd_latency_percentile, 99.0)
        self.assertGreaterEqual(
            preflight.LocalDisks('AWS', config_flags['machine_type']), 1
        )

  def testNetworkDiskMatricesKeepTheNetworkDiskSettings(self):
    for _, _, config in self._Configs('aws.yaml', 'gp2'):
      with config.RedirectFlags(FLAGS):
        self.assertFalse(io.Params.FromFlags().local_ssd)

  def testCloudSettings(self):
    for name, matrix in (('aws.yaml', 'gp2'), ('aws.yaml', 'io2'),
                         ('aws.yaml', 'local'), ('gcp.yaml', 'pd_ssd'),
                         ('azure.yaml', 'premium'),
                         ('azure.yaml', 'ultra')):  # fmt: skip
      for _, config_flags, config in self._Configs(name, matrix):
        with self.subTest(name=name, machine=config_flags['machine_type']):
          self.assertEqual(config_flags['os_type'], 'ubuntu2404')
          with config.RedirectFlags(FLAGS):
            if name == 'azure.yaml':
              self.assertTrue(FLAGS.azure_accelerated_networking)
            if name == 'gcp.yaml':
              self.assertEqual(FLAGS.gce_nic_types, ['GVNIC'])

  def testTheMatricesOsTypesInstallTheWorkersSdks(self):
    for name, matrix in (('aws.yaml', 'gp2'), ('gcp.yaml', 'pd_ssd'),
                         ('azure.yaml', 'premium')):  # fmt: skip
      for _, config_flags, config in self._Configs(name, matrix):
        with self.subTest(name=name, machine=config_flags['machine_type']):
          groups = preflight.GroupsOf(config)
          self.assertEqual(
              {g.os_type for g in groups}, {config_flags['os_type']}
          )
          self.assertEqual(
              preflight.OsTypeProblems(groups, ['object_storage']), []
          )

  def testReadmeCloudExampleUsesTheMatricesOsType(self):
    with open(os.path.join(paths.RepoRoot(), 'README.md')) as f:
      readme = f.read()
    section = readme.split('## On a cloud', 1)[1].split('\n## ', 1)[0]
    example = section.split('```sh', 1)[1].split('```', 1)[0]
    self.assertIn('--os_type=ubuntu2404', example)
    for flag in ('--aws_ec2_instance_profile', '--gcloud_scopes',
                 '--azure_accelerated_networking'):  # fmt: skip
      self.assertIn(flag, section)


class ProvisionedIopsTest(pkb_common_test_case.PkbCommonTestCase):
  """An AWS io2 disk keeps its IOPS in `iops`; samples and $/tpm need them."""

  def _Vm(self, disk):
    vm = mock.Mock()
    vm.CLOUD = 'AWS'
    vm.zone = 'us-east-1a'
    vm.machine_type = 'c5.4xlarge'
    vm.NumCpusForBenchmark.return_value = 16
    vm.CheckLsCpu.return_value.data = {'Model name': 'Intel Xeon'}
    vm.scratch_disks = [disk]
    return vm

  def _AwsDisk(self, disk_type, iops=None, throughput=None):
    spec = aws_disk.AwsDiskSpec(
        'test_component',
        disk_type=disk_type,
        disk_size=2500,
        provisioned_iops=iops,
        provisioned_throughput=throughput,
    )
    return aws_disk.AwsDisk(spec, 'us-east-1a', 'c5.4xlarge')

  def testAwsIo2IopsReachTheSamplesAndThePrice(self):
    metadata = topology.RunMetadataFromVm(
        self._Vm(self._AwsDisk('io2', iops=5400))
    )
    self.assertEqual(metadata.provisioned_iops, 5400)
    catalog = pricing.Load()
    cost = catalog.MonthlyCost(
        metadata.cloud,
        metadata.machine_type,
        metadata.disk_type,
        metadata.disk_size_gb,
        metadata.provisioned_iops,
        metadata.provisioned_mbps,
    )
    self.assertAlmostEqual(cost.disk_iops_usd, 5400 * 0.065)
    # The report's c5.4xlarge io2 month: VM + 2,500 GB + 5,400 IOPS.
    self.assertAlmostEqual(
        cost.total_usd, 0.68 * 720 + 2500 * 0.125 + 5400 * 0.065
    )

  def testGp3ThroughputAndGp2WithNone(self):
    gp3 = topology.RunMetadataFromVm(
        self._Vm(self._AwsDisk('gp3', iops=4000, throughput=250))
    )
    self.assertEqual((gp3.provisioned_iops, gp3.provisioned_mbps), (4000, 250))
    gp2 = topology.RunMetadataFromVm(self._Vm(self._AwsDisk('gp2')))
    self.assertEqual((gp2.provisioned_iops, gp2.provisioned_mbps), (None, None))


if __name__ == '__main__':
  pkb_common_test_case.absltest.main()
