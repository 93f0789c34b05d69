# Copyright 2026 PerfKitBenchmarker Authors. All rights reserved.
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
"""Tests for cloud_report_tpcc_benchmark on mocked VMs (CockroachDB).

Three db VMs and a client. The client answers `cockroach workload run tpcc
--active-warehouses=N` with the real output of a 9-node run at N active
warehouses: 3,500 and 3,750 pass the report's rule (p90 < 5 s), 4,000 fails.
The VMs and the client's replies (Vm, Client) serve other runners of the
same benchmark's pieces too.
"""

import os
import re
import unittest
from unittest import mock

from absl import flags
from absl.testing import flagsaver
from perfkitbenchmarker import data
from perfkitbenchmarker import errors
from perfkitbenchmarker import linux_virtual_machine
from perfkitbenchmarker import providers
from perfkitbenchmarker.configs import benchmark_config_spec
from benchmarks import cloud_report_tpcc_benchmark
from benchmarks.cloud_report.tpcc import engines
from benchmarks.cloud_report.tpcc import fixtures
from benchmarks.cloud_report.tpcc import params as tpcc_params
from benchmarks.cloud_report.tpcc import runs
from tests import pkb_common_test_case

_DATA_DIR = os.path.join(
    os.path.dirname(__file__), os.pardir, 'data', 'cloud_report'
)


def _Read(tool, name):
  with open(os.path.join(_DATA_DIR, tool, name), encoding='utf-8') as f:
    return f.read()


STEP_OUTPUT = {
    n: _Read('tpcc', f'cockroach_v22.1.2_9node_8vcpu_{n}wh_tail.txt')
    for n in (3500, 3750, 4000)
}
DIED = _Read('tpcc', 'cockroach_died_connection_reset.txt')
# No sha256 is pinned: the tests give this one for the tarball the VMs hash.
SHA = '5' * 64
ROOT = '/opt/pkb/cloud_report_cockroachdb'
TAR = 'cockroach-v20.2.7.linux-amd64.tgz'
RECORD = (
    '{"version": "v20.2.7", "arch": "amd64", "sha256": "%s",'
    ' "sha256_source": "flag"}' % SHA
)
NO_TABLE = 'ERROR: relation "tpcc.warehouse" does not exist\nSQLSTATE: 42P01\n'


def Vm(name, ip, has_disk=True):
  """A VM that answers the phase's install, start and count commands."""
  vm = mock.create_autospec(
      linux_virtual_machine.BaseLinuxVirtualMachine, instance=True
  )
  vm.name = name
  vm.internal_ip = ip
  vm.install_packages = True
  vm.CLOUD = 'GCP'
  vm.zone = 'us-east1-b'
  vm.machine_type = 'c2-standard-16'
  vm.NumCpusForBenchmark.return_value = 16
  vm.CheckLsCpu.return_value.data = {'Model name': 'Intel Cascade Lake'}
  disk = mock.Mock(mount_point='/scratch', disk_type='pd-ssd', disk_size=2500)
  disk.GetDevicePath.return_value = '/dev/sdb'
  disk.provisioned_iops = disk.provisioned_throughput = None
  vm.scratch_disks = [disk] if has_disk else []
  vm.commands = []
  vm.installed = False

  def Remote(command, **kwargs):
    del kwargs
    vm.commands.append(command)
    if command == 'uname -m':
      return 'x86_64\n', ''
    if command == f'cat {ROOT}/install.json':
      return RECORD, ''
    if command.startswith('sha256sum '):
      return f'{SHA}  {command.split()[-1]}\n', ''
    return '', ''

  def RemoteWithCode(command, **kwargs):
    if command.startswith(f'cat {ROOT}/install.json && '):
      vm.commands.append(command)
      if vm.installed:
        return RECORD, '', 0
      return '', 'cat: No such file or directory\n', 1
    if 'SELECT count(*) FROM tpcc.warehouse' in command:
      vm.commands.append(command)
      return '', NO_TABLE, 1
    return Remote(command, **kwargs) + (0,)

  vm.RemoteCommand.side_effect = Remote
  vm.RemoteCommandWithReturnCode.side_effect = RemoteWithCode
  return vm


class Client:
  """The client's RobustRemoteCommand: the captured output of each level."""

  def __init__(self, outputs):
    self.outputs = outputs  # level -> (output, exit status)
    self.runs = []

  def __call__(self, command, timeout=None, ignore_failure=False):
    del timeout, ignore_failure
    if 'workload run tpcc' not in command:
      return 'cloud_report_tpcc_exit_status=0\n', ''
    active = int(re.search(r'--active-warehouses=(\d+)', command).group(1))
    self.runs.append(active)
    output, status = self.outputs[active]
    return f'{output}cloud_report_tpcc_exit_status={status}\n', ''


# A run whose levels the captured outputs cover: 3,500 to 4,000 by 250.
FLAGS = {
    'run_uri': 'tpcc1',
    'cloud_report_cockroachdb_sha256': [f'amd64={SHA}'],
    'cloud_report_tpcc_start_warehouses': 3500,
    'cloud_report_tpcc_step_warehouses': 250,
    'cloud_report_tpcc_max_warehouses': 4000,
    'cloud_report_tpcc_duration': '12m',
    'cloud_report_tpcc_ramp': '2m',
}


def Cluster(outputs=None):
  """(spec, playback): 3 db VMs and a client replaying STEP_OUTPUT.

  outputs: level -> (output, exit status) replacing a level's.
  """
  playback = Client(
      {n: (text, 0) for n, text in STEP_OUTPUT.items()} | (outputs or {})
  )
  dbs = [Vm(f'db{i}', f'10.0.0.{i}') for i in (1, 2, 3)]
  client = Vm('client', '10.0.0.9', has_disk=False)
  client.RobustRemoteCommand.side_effect = playback
  spec = mock.Mock(vm_groups={'db': dbs, 'client': [client]})
  spec.vms = dbs + [client]
  return spec, playback


def _Metric(samples, metric):
  return [s for s in samples if s.metric == metric]


class CloudReportTpccBenchmarkTest(pkb_common_test_case.PkbCommonTestCase):
  """Prepare, Run and Cleanup of the tpcc phase on CockroachDB."""

  def setUp(self):
    super().setUp()
    self.enter_context(
        mock.patch.object(data, 'ResourceExists', return_value=True)
    )
    self.enter_context(flagsaver.flagsaver(**FLAGS))

  def _Spec(self, outputs=None):
    spec, self.playback = Cluster(outputs)
    self.dbs, (self.client,) = spec.vm_groups['db'], spec.vm_groups['client']
    return spec

  def testThreeDbVmsAndAClient(self):
    groups = cloud_report_tpcc_benchmark.GetConfig({})['vm_groups']
    self.assertEqual(
        {name: group['vm_count'] for name, group in groups.items()},
        {'db': 3, 'client': 1},
    )

  def testRefusedBeforeProvisioningWithoutASha256(self):
    """No sha256 is pinned: without one (or the opt-in) nothing starts."""
    providers.LoadProvider('GCP')
    fv = flags.FLAGS
    with flagsaver.flagsaver(
        cloud='GCP',
        machine_type='n2-standard-16',
        cloud_report_cockroachdb_sha256=[],
    ):
      fv['cloud'].present = fv['machine_type'].present = 1
      try:
        config = benchmark_config_spec.BenchmarkConfigSpec(
            cloud_report_tpcc_benchmark.BENCHMARK_NAME,
            flag_values=fv,
            **cloud_report_tpcc_benchmark.GetConfig({}),
        )
      finally:
        fv['cloud'].present = fv['machine_type'].present = 0
      with self.assertRaisesRegex(
          errors.Setup.InvalidConfigurationError,
          r'^vm_groups client, db \(GCP n2-standard-16, amd64\): no sha256'
          r' pinned for'
          r' cockroach-v20\.2\.7\.linux-amd64\.tgz'
          r'.*--cloud_report_cockroachdb_sha256=amd64=<sha256>.*'
          r'--cloud_report_cockroachdb_vendor_checksum$',
      ):
        cloud_report_tpcc_benchmark.CheckPrerequisites(config)
      with flagsaver.flagsaver(cloud_report_cockroachdb_vendor_checksum=True):
        cloud_report_tpcc_benchmark.CheckPrerequisites(config)
    cloud_report_tpcc_benchmark.CheckPrerequisites(config)  # given

  def testPrepareInstallsEverywhereStartsTheNodesAndImportsOnce(self):
    """Every VM gets cockroach; the nodes start; one import."""
    cloud_report_tpcc_benchmark.Prepare(self._Spec())
    for vm in self.dbs + [self.client]:
      vm.PushDataFile.assert_called_once_with(TAR, f'{ROOT}/{TAR}')
    for vm in self.dbs:
      starts = [c for c in vm.commands if f'{ROOT}/cockroach start ' in c]
      self.assertLen(starts, 1)
      self.assertIn('--store=path=/scratch/cockroach', starts[0])
    imports = [
        c.args[0] for c in self.client.RobustRemoteCommand.call_args_list
        if 'fixtures import' in c.args[0]
    ]  # fmt: skip
    self.assertLen(imports, 1)
    self.assertIn(
        f'{ROOT}/cockroach workload fixtures import tpcc --warehouses=4000'
        " 'postgresql://root@10.0.0.1:26257?sslmode=disable'",
        imports[0],
    )

  def testRunStepsUpToTheFirstFailingLevel(self):
    """3,500 and 3,750 pass, 4,000 fails: the maximum is 3,750."""
    samples = cloud_report_tpcc_benchmark.Run(self._Spec())
    self.assertEqual(self.playback.runs, [3500, 3750, 4000])
    passed = _Metric(samples, 'tpcc_step_passed')
    self.assertEqual(
        [(s.metadata['active_warehouses'], s.value) for s in passed],
        [(3500, 1.0), (3750, 1.0), (4000, 0.0)],
    )
    self.assertEqual(
        passed[2].metadata['pass_reason'],
        'fail (report): p90 8321.5 ms >= 5000 ms',
    )
    self.assertEqual(
        [s.value for s in _Metric(samples, 'tpcc_tpmc')],
        [44008.2, 46975.0, 43960.1],
    )
    (best,) = _Metric(samples, 'tpcc_max_passing_warehouses')
    self.assertEqual(best.value, 3750)
    (at_max,) = _Metric(samples, 'tpcc_max_passing_tpmc')
    self.assertEqual(at_max.value, 46975.0)
    for s in samples:
      self.assertEqual(s.metadata['engine'], 'cockroach')
      self.assertEqual(s.metadata['cockroach_version'], 'v20.2.7')

  def testAWorkloadThatDiesAtTheLowestLevelKeepsItsSamples(self):
    """No result at the lowest level, after a retry: its samples say so."""
    spec = self._Spec({3500: (DIED, 1)})
    samples = cloud_report_tpcc_benchmark.Run(spec)
    self.assertEqual(self.playback.runs, [3500, 3500])  # run, then a retry
    passed = _Metric(samples, 'tpcc_step_passed')
    self.assertEqual([s.value for s in passed], [0.0, 0.0])
    self.assertIn('connection reset by peer', passed[-1].metadata['step_error'])
    (best,) = _Metric(samples, 'tpcc_max_passing_warehouses')
    self.assertEqual(best.value, 0)
    self.assertEqual(best.metadata['search_end'], 'no_result')
    cloud_report_tpcc_benchmark.Cleanup(spec)

  def testASearchResumesFromItsStore(self):
    """What a store holds is not run again (runs.Search's store)."""

    class Store:
      steps = []

      def Load(self):
        return list(self.steps)

      def Save(self, steps):
        self.steps = list(steps)

    store = Store()
    params = tpcc_params.Params.FromFlags()
    engine = engines.CockroachEngine(params)
    self._Spec()
    cluster = engines.Cluster(tuple(self.dbs), self.client)
    probe = engines.CockroachEngine(runs.ProbeParams(params))
    first = runs.Search(params, engine, probe, cluster, store)
    self.assertEqual(
        (first.max_passing, self.playback.runs), (3750, [3500, 3750, 4000])
    )
    again = runs.Search(params, engine, probe, cluster, store)
    self.assertEqual(self.playback.runs, [3500, 3750, 4000])  # none again
    self.assertEqual((again.max_passing, again.resumed_steps), (3750, 3))

  def testAnOpenFileLimitThatCannotBeRaisedIsARunError(self):
    """The client's shell says so before the workload runs."""
    spec = self._Spec()
    self.client.RobustRemoteCommand.side_effect = lambda c, **kw: (
        (
            'cloud_report_open_files: cockroach workload run tpcc at 3500'
            ' active warehouses needs 8024 open files; the soft limit is'
            ' 1024\ncloud_report_tpcc_exit_status=1\n'
        ),
        '',
    )
    with self.assertRaisesRegex(
        errors.Benchmarks.RunError,
        r'^tpcc: client: cloud_report_open_files: .* needs 8024 open files',
    ):
      cloud_report_tpcc_benchmark.Run(spec)

  def testCleanupStopsEachNodeByPidAndRemovesItsStore(self):
    cloud_report_tpcc_benchmark.Cleanup(self._Spec())
    for vm in self.dbs:
      self.assertIn('cat /scratch/cockroach/cockroach.pid', vm.commands[-2])
      self.assertNotIn('killall', vm.commands[-2])
      self.assertEqual(vm.commands[-1], 'sudo rm -rf /scratch/cockroach')


class FixturesTest(pkb_common_test_case.PkbCommonTestCase):
  """How a fixture is found, and what is a missing one."""

  def testAMissingFixtureIsToldFromOtherFailures(self):
    self.assertTrue(
        fixtures.NotFound(
            _Read('tpcc', 'cockroach_fixtures_load_not_found.txt')
        )
    )
    for text in (
        _Read('tpcc', 'cockroach_died_connection_reset.txt'),
        'Error: unknown flag: --provider-override',
        '',
    ):
      self.assertFalse(fixtures.NotFound(text), text)

  def testTheBucketIsTheUsersWithItsRegion(self):
    for region, bucket in (
        ('us-east-1', 'mine-us-east-1'),
        ('EastUS2', 'mine-eastus2'),
    ):
      self.assertEqual(fixtures.BucketOf('mine-{region}', region), bucket)
    self.assertIsNone(fixtures.BucketProblem('mine-{region}'))
    self.assertIn('not a bucket name', fixtures.BucketProblem('Mine_{region}'))


if __name__ == '__main__':
  unittest.main()
