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
"""cloud_report_object_storage through PKB, with mocked VMs (PKB's style).

Buckets go through PKB's real object storage services (S3Service,
GoogleCloudStorageService, AzureBlobStorageService) with vm_util.IssueCommand
mocked, so the test sees the aws/gcloud/az commands PKB would run. The client
VM is a mocked PKB Linux VM that answers the worker's output with a real
MinIO capture (tests/data/ttfb).
"""

import json
import pathlib
from unittest import mock

from absl.testing import flagsaver
import perfkitbenchmarker
from perfkitbenchmarker import errors
from perfkitbenchmarker import linux_benchmarks
from perfkitbenchmarker.providers.azure import azure_blob_storage
import tests as _tests_namespace

# pytest's importlib mode registers our tests/ as the namespace package
# `tests`, hiding PKB's; add PKB's to its path (as the other pkb tests do).
_PKB_TESTS = str(
    pathlib.Path(perfkitbenchmarker.__file__).resolve().parent.parent / 'tests'
)
if _PKB_TESTS not in list(_tests_namespace.__path__):
  _tests_namespace.__path__.append(_PKB_TESTS)
from tests import pkb_common_test_case  # pylint: disable=g-import-not-at-top

from pkb_ext.suite import cloud_report_object_storage_benchmark as benchmark
from pkb_ext.suite.object_storage import worker
from pkb_ext.suite import phase_modules
from pkb_ext_dev import mock_vms

DATA = pathlib.Path(__file__).resolve().parent.parent / 'data' / 'ttfb'
OUTPUT = (DATA / 's3_boto3_complete.jsonl').read_text()
BUCKET = 'cloud-report-os-0bj5t0re'
WORK = worker.WORK_DIR


def _Vm(test, cloud, zone, worker_error=None):
  vm, _ = mock_vms.LinuxVm(
      test, name='client-0', cloud=cloud, zone=zone, region=None,
      instance_profile='pkb-s3',
  )  # fmt: skip
  vm.RemoteCommandWithReturnCode.return_value = ('', '', 0)
  vm.pushed = {}

  def Push(local, remote):
    with open(local) as f:
      vm.pushed[remote] = json.load(f)

  vm.PushFile.side_effect = Push
  # RunAndCollectCommand's output: the exit code, the worker's output and
  # its stderr tail.
  vm.RobustRemoteCommand.return_value = (
      f'{worker.RC_MARK}0\n{OUTPUT}\n{worker.STDERR_MARK}\n',
      '',
  )
  if worker_error:
    vm.RobustRemoteCommand.side_effect = worker_error
  return vm


def _Spec(vm):
  spec = mock.Mock()
  spec.vm_groups = {'client': [vm]}
  return spec


class BenchmarkTest(pkb_common_test_case.PkbCommonTestCase):

  def setUp(self):
    super().setUp()
    self.enter_context(flagsaver.flagsaver(run_uri='0bj5t0re'))

  def testRegisteredWithPkb(self):
    names = {b.BENCHMARK_NAME: b for b in linux_benchmarks.BENCHMARKS}
    self.assertIs(names['cloud_report_object_storage'], benchmark)
    self.assertIn('object_storage', phase_modules.LoadAll())

  def testConfigIsAValidPkbSpec(self):
    spec = pkb_common_test_case.CreateBenchmarkSpecFromYaml(
        benchmark.BENCHMARK_CONFIG, benchmark.BENCHMARK_NAME
    )
    self.assertEqual(list(spec.config.vm_groups), ['client'])

  def _RunAll(self, vm):
    spec = _Spec(vm)
    benchmark.Prepare(spec)
    try:
      return benchmark.Run(spec)
    finally:
      benchmark.Cleanup(spec)

  def testS3BucketThroughPkbsS3Service(self):
    cmd = self.MockIssueCommand({})
    vm = _Vm(self, 'AWS', 'us-east-1a')
    samples = self._RunAll(vm)
    create = cmd.GetCommandWithSubstring('create-bucket')
    self.assertIn(f'--bucket={BUCKET}', create)
    self.assertIn('--region=us-east-1', create)
    self.assertNotIn('LocationConstraint', create)  # us-east-1's legacy rule
    delete = cmd.GetCommandWithSubstring(' rb ')
    self.assertIn(f's3://{BUCKET}', delete)
    self.assertIn('--force', delete)  # objects too
    self.assertEqual(
        cmd.all_commands.index('create-bucket')
        < cmd.all_commands.index(' rb '),
        True,
    )
    cfg = vm.pushed[f'{WORK}/worker.json']
    self.assertEqual((cfg['provider'], cfg['region']), ('s3', 'us-east-1'))
    self.assertIsNone(cfg['endpoint'])
    ttfb = [
        s
        for s in samples
        if s.metric == 'object_storage_ttfb'
        and s.metadata['statistic'] == 'p50'
    ]
    self.assertNotEmpty(ttfb)
    for s in samples:
      self.assertEqual(s.metadata['phase'], 'object_storage')
      self.assertEqual(s.metadata['cloud'], 'AWS')
      self.assertEqual(s.metadata['region'], 'us-east-1')
      self.assertEqual(s.metadata['machine_type'], 'c5a.4xlarge')

  def testS3BucketOutsideUsEast1HasALocation(self):
    cmd = self.MockIssueCommand({})
    self._RunAll(_Vm(self, 'AWS', 'eu-west-1b'))
    self.assertIn(
        '--create-bucket-configuration=LocationConstraint=eu-west-1',
        cmd.GetCommandWithSubstring('create-bucket'),
    )

  def testGcsBucketThroughPkbsGcsService(self):
    cmd = self.MockIssueCommand({})
    vm = _Vm(self, 'GCP', 'us-east1-b')
    self._RunAll(vm)
    create = cmd.GetCommandWithSubstring('buckets create')
    self.assertIn('--location us-east1', create)
    self.assertIn(f'gs://{BUCKET}', create)
    self.assertIn(f'gs://{BUCKET}/*', cmd.GetCommandWithSubstring('storage rm'))
    self.assertIn(
        f'gs://{BUCKET}', cmd.GetCommandWithSubstring('buckets delete')
    )
    self.assertEqual(vm.pushed[f'{WORK}/worker.json']['provider'], 'gcs')

  def testAzureContainerThroughPkbsBlobService(self):
    cmd = self.MockIssueCommand({})
    account = mock.Mock(
        connection_args=['--account-name', 'pkbabs'], key='a2V5'
    )
    account.name = 'pkbabs'
    group = mock.Mock()

    def Prepare(service, region):
      self.assertEqual(region, 'eastus')
      service.storage_account, service.resource_group = account, group

    self.enter_context(
        mock.patch.object(
            azure_blob_storage.AzureBlobStorageService, 'PrepareService',
            autospec=True, side_effect=Prepare,
        )
    )  # fmt: skip
    vm = _Vm(self, 'Azure', 'eastus-1')
    self._RunAll(vm)
    self.assertIn(
        f'--name {BUCKET}', cmd.GetCommandWithSubstring('container create')
    )
    self.assertIn(BUCKET, cmd.GetCommandWithSubstring('container delete'))
    account.Delete.assert_called_once_with()  # CleanupService
    group.Delete.assert_called_once_with()
    cfg = vm.pushed[f'{WORK}/worker.json']
    self.assertEqual(
        (cfg['azure_account'], cfg['azure_key']), ('pkbabs', 'a2V5')
    )

  def testFailureMidRunStillDeletesTheBucket(self):
    cmd = self.MockIssueCommand({})
    vm = _Vm(
        self, 'AWS', 'us-east-1a',
        worker_error=errors.VirtualMachine.RemoteCommandError('ssh dropped'),
    )  # fmt: skip
    with self.assertRaises(errors.VirtualMachine.RemoteCommandError):
      self._RunAll(vm)
    self.assertIn(f's3://{BUCKET}', cmd.GetCommandWithSubstring(' rb '))
    self.assertEqual(cmd.all_commands.count(' rb '), 1)
    vm.RemoteCommand.assert_any_call(f'rm -rf {WORK}', ignore_failure=True)


if __name__ == '__main__':
  pkb_common_test_case.absltest.main()
