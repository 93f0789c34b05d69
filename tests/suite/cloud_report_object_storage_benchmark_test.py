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
"""Tests for cloud_report_object_storage_benchmark on a mocked client VM.

The bucket goes through PKB's S3Service with its commands mocked; the client
answers the time-to-first-byte worker's run with real worker outputs.
"""

import json
import os
import unittest
from unittest import mock

from absl.testing import flagsaver
from perfkitbenchmarker import linux_benchmarks
from pkb_ext.suite import cloud_report_object_storage_benchmark
from pkb_ext.suite.object_storage import worker
from pkb_ext_dev import mock_vms
from tests import pkb_common_test_case

_DATA_DIR = os.path.join(os.path.dirname(__file__), os.pardir, 'data', 'ttfb')


def _Read(name):
  with open(os.path.join(_DATA_DIR, name), encoding='utf-8') as f:
    return f.read()


COMPLETE = _Read('s3_boto3_complete.jsonl')
ABORTED = _Read('s3_boto3_sigterm.jsonl')  # SIGTERM: an abort record
BUCKET = 'cloud-report-os-0bj5t0re'
WORK = worker.WORK_DIR


def _Collected(output, rc=0, stderr=''):
  """What the worker's run command prints: exit code, output, stderr."""
  return f'{worker.RC_MARK}{rc}\n{output}\n{worker.STDERR_MARK}\n{stderr}', ''


class CloudReportObjectStorageBenchmarkTest(
    pkb_common_test_case.PkbCommonTestCase
):
  """Prepare, Run and Cleanup of the object storage phase on AWS."""

  def setUp(self):
    super().setUp()
    self.enter_context(flagsaver.flagsaver(run_uri='0bj5t0re'))
    self.cmd = self.MockIssueCommand({})  # PKB's aws s3 commands
    vm, self.remote = mock_vms.LinuxVm(
        self,
        name='client-0',
        region=None,
        instance_profile='pkb-s3',  # S3Service.PrepareVM needs one
    )
    vm.RemoteCommandWithReturnCode.return_value = ('', '', 0)
    vm.RobustRemoteCommand.return_value = _Collected(COMPLETE)
    self.pushed = {}

    def Push(local, remote):
      with open(local, encoding='utf-8') as f:
        self.pushed[remote] = json.load(f)

    vm.PushFile.side_effect = Push
    self.vm = vm
    self.spec = mock.Mock()
    self.spec.vm_groups = {'client': [vm]}

  def testRegisteredWithOneClientVm(self):
    self.assertIn(
        cloud_report_object_storage_benchmark, linux_benchmarks.BENCHMARKS
    )
    groups = cloud_report_object_storage_benchmark.GetConfig({})['vm_groups']
    self.assertEqual(list(groups), ['client'])

  def testPrepareInstallsThePinnedSdkAndPushesTheWorker(self):
    """The pinned SDK, then the worker with PKB's object storage scripts."""
    cloud_report_object_storage_benchmark.Prepare(self.spec)
    self.vm.Install.assert_any_call('pip')
    self.vm.PushDataFile.assert_any_call(
        'object_storage/requirements-s3.txt', f'{WORK}/requirements-s3.txt'
    )
    self.vm.PushDataFile.assert_any_call(
        'object_storage/ttfb_worker.py', f'{WORK}/ttfb_worker.py'
    )
    for name in ('s3.py', 'gcs.py', 'ttfb.py'):
      self.vm.PushDataFile.assert_any_call(
          f'object_storage_api_test_scripts/{name}',
          f'{WORK}/providers/{name}',
      )
    self.assertIn(
        f'-m pip install -q -r {WORK}/requirements-s3.txt',
        self.remote.all_commands,
    )

  def testRunMakesTheBucketMeasuresAndDeletesIt(self):
    """The bucket lives only while the worker runs; samples from it."""
    samples = cloud_report_object_storage_benchmark.Run(self.spec)
    # First, a worker an earlier attempt left is ended; this one is tracked.
    first = self.remote.all_commands.splitlines()[0]
    self.assertIn('for f in /tmp/cloud_report_running.ttfb-worker*.pid', first)
    (run,) = [c.args[0] for c in self.vm.RobustRemoteCommand.call_args_list]
    self.assertIn('/tmp/cloud_report_running.ttfb-worker.pid', run)
    self.assertIn(' sh python3 ttfb_worker.py --config worker.json', run)
    create = self.cmd.GetCommandWithSubstring('create-bucket')
    self.assertIn(f'--bucket={BUCKET}', create)
    self.assertIn('--region=us-east-1', create)
    delete = self.cmd.GetCommandWithSubstring(' rb ')
    self.assertIn(f's3://{BUCKET}', delete)
    self.assertIn('--force', delete)
    self.assertLess(
        self.cmd.all_commands.index('create-bucket'),
        self.cmd.all_commands.index(' rb '),
    )
    config = self.pushed[f'{WORK}/worker.json']
    self.assertEqual(
        (config['provider'], config['bucket'], config['region']),
        ('s3', BUCKET, 'us-east-1'),
    )
    ttfb = [s for s in samples if s.metric == 'object_storage_ttfb']
    self.assertIn('p50', {s.metadata['statistic'] for s in ttfb})
    self.assertNotIn('cloud_report_phase_error', {s.metric for s in samples})
    for s in samples:
      self.assertEqual(s.metadata['phase'], 'object_storage')
      self.assertEqual(s.metadata['cloud'], 'AWS')
      self.assertEqual(s.metadata['region'], 'us-east-1')
      self.assertEqual(s.metadata['bucket_region'], 'us-east-1')

  def testAWorkerThatMeasuredNothingIsAClearError(self):
    self.vm.RobustRemoteCommand.return_value = _Collected(
        '', rc=3, stderr='botocore.exceptions.ClientError: AccessDenied\n'
    )
    with self.assertRaisesRegex(
        worker.ObjectStorageError,
        r'worker exited 3, nothing measured: botocore.exceptions.ClientError:'
        r' AccessDenied',
    ):
      cloud_report_object_storage_benchmark.Run(self.spec)
    self.assertIn(f's3://{BUCKET}', self.cmd.GetCommandWithSubstring(' rb '))

  def testAnAbortedWorkerKeepsWhatItMeasuredAndSaysWhy(self):
    self.vm.RobustRemoteCommand.return_value = _Collected(ABORTED, rc=1)
    samples = cloud_report_object_storage_benchmark.Run(self.spec)
    (error,) = [s for s in samples if s.metric == 'cloud_report_phase_error']
    self.assertStartsWith(error.metadata['error'], 'worker exit 1: ')
    self.assertIn('signal 15', error.metadata['error'])
    self.assertTrue(
        any(s.metadata.get('partial') for s in samples if s is not error)
    )

  def testCleanupRemovesTheWorkersFiles(self):
    cloud_report_object_storage_benchmark.Cleanup(self.spec)
    self.vm.RemoteCommand.assert_called_once_with(
        f'rm -rf {WORK}', ignore_failure=True
    )


if __name__ == '__main__':
  unittest.main()
