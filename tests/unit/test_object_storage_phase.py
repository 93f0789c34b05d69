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
"""Tests of the object storage phase: flags, worker config, bucket lifetime."""

import json
import os
import pathlib
from unittest import mock

from absl import flags
from absl.testing import absltest
from absl.testing import flagsaver
from absl.testing import parameterized
from perfkitbenchmarker import errors

from pkb_ext.suite import phases
from pkb_ext.suite import topology as topology_lib
from pkb_ext.suite.object_storage import buckets
from pkb_ext.suite.object_storage import params as params_lib
from pkb_ext.suite.object_storage import stages
from pkb_ext.suite.object_storage import worker

FLAGS = flags.FLAGS
DATA = pathlib.Path(__file__).resolve().parent.parent / 'data' / 'ttfb'
COMPLETE = (DATA / 's3_boto3_complete.jsonl').read_text()
SIGKILLED = (DATA / 's3_boto3_sigkill.jsonl').read_text()


class FlagsTest(parameterized.TestCase):

  @parameterized.parameters(
      ('16KiB', 16384),
      ('32MiB', 32 << 20),
      ('1GiB', 1 << 30),
      ('4096', 4096),
      (' 8 kib ', 8192),
      ('1B', 1),
  )
  def testParseSize(self, text, size):
    self.assertEqual(params_lib.ParseSize(text), size)

  @parameterized.parameters('16KB', '1.5MiB', 'MiB', '0', '-1KiB', '')
  def testParseSizeRejects(self, text):
    with self.assertRaisesRegex(ValueError, 'object size'):
      params_lib.ParseSize(text)

  def testDefaultsAreTheStudys(self):
    with flagsaver.flagsaver():
      FLAGS.mark_as_parsed()
      params = params_lib.Params.FromFlags()
    self.assertEqual(params, params_lib.Params())
    self.assertEqual(params.latency_requests, 1000)
    self.assertEqual(params.downloads_per_size, 100)
    self.assertEqual(params.sizes[0], 16 << 10)
    self.assertEqual(params.sizes[-1], 32 << 20)
    self.assertLen(params.sizes, 12)
    self.assertEqual(params.concurrency, (1, 5, 10, 20))
    self.assertEqual(params.concurrency_object_bytes, 32 << 20)

  @parameterized.parameters(
      ('cloud_report_object_storage_sizes', ['16KB'], 'bad object size'),
      ('cloud_report_object_storage_concurrency', ['0'], 'integers >= 1'),
      ('cloud_report_object_storage_concurrency_object_size', 'big', 'size'),
      ('cloud_report_object_storage_prefix', '/abs/', 'relative'),
      ('cloud_report_object_storage_prefix', 'a/../b', 'relative'),
  )
  def testValidatorsNameTheFlag(self, name, value, message):
    with flagsaver.flagsaver():
      with self.assertRaisesRegex(
          flags.IllegalFlagValueError, f'--{name}: .*{message}'
      ):
        setattr(FLAGS, name, value)

  def testEmptyListsSkipWorkloads(self):
    with flagsaver.flagsaver(
        cloud_report_object_storage_sizes=[],
        cloud_report_object_storage_concurrency=[],
    ):
      params = params_lib.Params.FromFlags()
    self.assertEqual((params.sizes, params.concurrency), ((), ()))


class PureHelpersTest(absltest.TestCase):

  def testWorkerConfigCarriesEveryKnob(self):
    params = params_lib.Params(latency_requests=7, sizes=(1, 2))
    cfg = worker.WorkerConfig(
        params,
        's3',
        'b',
        'us-east-1',
        {
            'endpoint': 'http://10.0.0.1:9000',
            'access_key': 'a',
            'secret_key': 's',
        },
    )
    self.assertEqual(cfg['latency_requests'], 7)
    self.assertEqual(cfg['sizes'], [1, 2])
    self.assertEqual(cfg['endpoint'], 'http://10.0.0.1:9000')
    self.assertEqual((cfg['access_key'], cfg['secret_key']), ('a', 's'))
    json.dumps(cfg)

  def testWorkerCommandRecordsTheExitCode(self):
    cmd = worker.WorkerCommand(params_lib.Params(python='/usr/bin/python3'))
    self.assertIn('/usr/bin/python3 ttfb_worker.py --config worker.json', cmd)
    self.assertIn('echo $? > worker.rc', cmd)
    self.assertTrue(cmd.startswith(f'cd {worker.WORK_DIR} && '))

  def testBucketNameIsValidEverywhere(self):
    name = buckets.BucketName('A1b2_C3d4')
    self.assertEqual(name, 'cloud-report-os-a1b2c3d4')
    self.assertRegex(buckets.BucketName('x' * 80), r'^[a-z0-9-]{3,63}$')

  def testProviderOfTheCloudsOwnService(self):
    self.assertEqual(buckets.CloudProvider('GCP'), 'gcs')
    self.assertEqual(buckets.CloudProvider('Azure'), 'azure')
    with self.assertRaisesRegex(
        ValueError, "no object storage for cloud 'Static'"
    ):
      buckets.CloudProvider('Static')

  def testOneLine(self):
    error = ValueError('Connection refused\nRequestId: x\nTime: y')
    self.assertEqual(worker.OneLine(error), 'ValueError: Connection refused')
    self.assertLen(worker.OneLine('x' * 1000), 300)

  def testRegionOf(self):
    self.assertEqual(
        topology_lib.RegionOf(mock.Mock(spec=['zone'], zone='us-east-1a')),
        'us-east-1',
    )
    self.assertEqual(
        topology_lib.RegionOf(mock.Mock(zone='eastus-1', region='eastus')),
        'eastus',
    )


def _Collected(worker_rc, output, stderr=''):
  """What RunAndCollectCommand prints: exit code, output, stderr tail."""
  return (
      f'{worker.RC_MARK}{worker_rc.strip()}\n{output}\n'
      f'{worker.STDERR_MARK}\n{stderr}'
  )


def _Vm(worker_rc='0\n', output=COMPLETE, worker_error=None):
  vm = mock.Mock(name='client')
  vm.name = 'client'
  vm.CLOUD = 'AWS'
  vm.zone = 'us-east-1a'
  vm.region = None
  pushed = {}

  def Push(local, remote):
    with open(local) as f:
      pushed[remote] = json.load(f)

  vm.PushFile.side_effect = Push
  vm.RemoteCommand.return_value = ('', '')
  vm.RobustRemoteCommand.return_value = (_Collected(worker_rc, output), '')
  if worker_error:
    vm.RobustRemoteCommand.side_effect = worker_error
  vm.RemoteCommandWithReturnCode.return_value = ('', '', 0)
  vm.pushed = pushed
  return vm


class RunTest(absltest.TestCase):
  """Run with a mocked VM and a mocked bucket store."""

  def setUp(self):
    super().setUp()
    # The phase names its bucket from the run identity it is given, never
    # from the flag.
    self.enter_context(flagsaver.flagsaver(run_uri='not-this-one'))
    self.run_dir = self.create_tempdir().full_path
    self.store = mock.Mock(name='store')
    self.store.provider = 's3'
    self.store.where = 's3 (AWS service, region us-east-1)'
    self.store.reuse_installed_sdk = False
    self.store.WorkerExtra.return_value = {}
    self.real_backend = stages.Backend
    self.backend = self.enter_context(
        mock.patch.object(
            stages, 'Backend', autospec=True, return_value=self.store
        )
    )
    self.sleep = self.enter_context(mock.patch.object(stages.time, 'sleep'))

  def _PkbService(self):
    """PKB's object storage service of any cloud, mocked."""
    service = mock.Mock(name='service', storage_account=None)
    self.enter_context(
        mock.patch(
            'perfkitbenchmarker.object_storage_service.GetObjectStorageClass',
            return_value=lambda: service,
        )
    )
    return service

  def _Topology(self, vm):
    return phases.Topology(
        db_vms=(vm,),
        client_vm=vm,
        run_metadata=None,
        identity=phases.RunIdentity('abc123', 'config', self.run_dir),
    )

  def testBucketIsMadeUsedAndDeleted(self):
    vm = _Vm()
    samples = stages.Run(self._Topology(vm))
    self.assertEqual(
        [c[0] for c in self.store.method_calls],
        ['Make', 'WorkerExtra', 'Delete'],
    )
    self.store.Delete.assert_called_once_with('cloud-report-os-abc123')
    cfg = vm.pushed[f'{worker.WORK_DIR}/worker.json']
    self.assertEqual(cfg['bucket'], 'cloud-report-os-abc123')
    self.assertEqual(cfg['region'], 'us-east-1')
    self.assertNotIn('cloud_report_phase_error', {s.metric for s in samples})
    self.assertTrue(
        all(s.metadata['bucket_region'] == 'us-east-1' for s in samples)
    )
    # The raw output is kept in the run's directory.
    with open(os.path.join(self.run_dir, 'object_storage_ttfb.jsonl')) as f:
      self.assertEqual(f.read(), COMPLETE)

  def testNoRunIdentityIsRefusedBeforeAnything(self):
    vm = _Vm()
    bare = phases.Topology(db_vms=(vm,), client_vm=vm, run_metadata=None)
    with self.assertRaisesRegex(ValueError, 'object_storage needs the run'):
      stages.Run(bare)
    self.assertEqual(self.store.method_calls, [])
    vm.RemoteCommand.assert_not_called()

  def testRunIsOneRobustCommand(self):
    vm = _Vm()
    stages.Run(self._Topology(vm))
    (call,) = vm.RobustRemoteCommand.call_args_list
    command = call.args[0]
    self.assertEqual(
        command,
        worker.RunAndCollectCommand(params_lib.Params.FromFlags()),
    )
    # The config is made private before the worker and removed after it.
    self.assertLess(
        command.index('chmod 600 cloud_report_object_storage/worker.json'),
        command.index('ttfb_worker.py'),
    )
    self.assertLess(
        command.index('ttfb_worker.py'),
        command.index('rm -f cloud_report_object_storage/worker.json'),
    )
    # Nothing is read back separately; the one other command ends a worker
    # an earlier attempt left, before the bucket is made.
    (call,) = vm.RemoteCommand.call_args_list
    self.assertIn('/tmp/cloud_report_running.ttfb-worker*.pid', call.args[0])

  def testParseCollected(self):
    for output in ('{"a":1}\n{"b":2}\n', '{"a":1}\n{"torn', '', '\n'):
      self.assertEqual(
          worker.ParseCollected(_Collected('137', output, 'oops\n')),
          (output, 137, 'oops'),
      )
    self.assertEqual(
        worker.ParseCollected(_Collected('', '{}')), ('{}', -1, '')
    )
    self.assertEqual(worker.ParseCollected(''), ('', -1, ''))

  def testWorkerFailureMidRunStillDeletesTheBucket(self):
    vm = _Vm(worker_error=errors.VirtualMachine.RemoteCommandError('ssh: lost'))
    with self.assertRaisesRegex(
        errors.VirtualMachine.RemoteCommandError, 'lost'
    ):
      stages.Run(self._Topology(vm))
    self.store.Delete.assert_called_once_with('cloud-report-os-abc123')
    # The config, which may hold credentials, is removed from the VM too.
    vm.RemoteCommand.assert_any_call(
        f'rm -f {worker.WORK_DIR}/worker.json', ignore_failure=True
    )

  def testADeletionThatFailsOnceIsRetried(self):
    self.store.Delete.side_effect = [RuntimeError('503'), None]
    samples = stages.Run(self._Topology(_Vm()))
    self.assertEqual(self.store.Delete.call_count, 2)
    self.sleep.assert_called_once_with(stages.DELETE_WAIT_S)
    self.assertNotIn('cloud_report_phase_error', {s.metric for s in samples})

  def testABucketLeftBehindFailsThePhaseKeepingItsSamples(self):
    self.store.Delete.side_effect = RuntimeError('503 Slow Down')
    with self.assertRaisesRegex(
        phases.PhaseFailure,
        r'^object storage s3 \(AWS service, region us-east-1\): bucket'
        r' cloud-report-os-abc123 left behind: RuntimeError: 503 Slow Down$',
    ) as cm:
      stages.Run(self._Topology(_Vm()))
    self.assertEqual(self.store.Delete.call_count, stages.DELETE_ATTEMPTS)
    self.assertIn(
        'object_storage_ttfb', {s.metric for s in cm.exception.samples}
    )

  def testCleanupRemovesTheWorkersFiles(self):
    vm = _Vm()
    stages.Cleanup(self._Topology(vm))
    vm.RemoteCommand.assert_called_once_with(
        f'rm -rf {worker.WORK_DIR}', ignore_failure=True
    )
    self.store.Delete.assert_not_called()

  def testKilledWorkerGivesPartialSamplesAndAnError(self):
    vm = _Vm(worker_rc='137\n', output=SIGKILLED)
    samples = stages.Run(self._Topology(vm))
    errors_ = [s for s in samples if s.metric == 'cloud_report_phase_error']
    self.assertLen(errors_, 1)
    self.assertIn('worker exit 137', errors_[0].metadata['error'])
    self.assertIn('no end record', errors_[0].metadata['error'])
    ttfb = [s for s in samples if s.metric == 'object_storage_ttfb']
    self.assertNotEmpty(ttfb)
    self.assertTrue(all(s.metadata['partial'] for s in ttfb))
    self.store.Delete.assert_called_once()

  def testUnusableOutputFailsThePhaseAfterDeleting(self):
    vm = _Vm(worker_rc='2\n', output='')
    with self.assertRaisesRegex(
        worker.ObjectStorageError,
        r'^object storage s3 \(AWS service, region us-east-1\): worker exited'
        r' 2, nothing measured: ',
    ):
      stages.Run(self._Topology(vm))
    self.store.Delete.assert_called_once()

  def testPrepareInstallsTheSdkOnlyWhenMissing(self):
    vm = _Vm()
    vm.RemoteCommandWithReturnCode.side_effect = [
        ('', 'No module named boto3', 1),
        ('', '', 0),
    ]
    self.store.reuse_installed_sdk = True
    stages.Install(self._Topology(vm))
    vm.Install.assert_called_once_with('pip')
    vm.RemoteCommand.assert_any_call(
        f'sudo python3 -m pip install -q -r {worker.WORK_DIR}/'
        'requirements-s3.txt'
    )
    self.assertEqual(
        vm.PushDataFile.call_args_list,
        [
            mock.call(
                'object_storage/requirements-s3.txt',
                f'{worker.WORK_DIR}/requirements-s3.txt',
            ),
            mock.call(
                'object_storage/ttfb_worker.py',
                f'{worker.WORK_DIR}/ttfb_worker.py',
            ),
        ]
        + [
            mock.call(
                f'object_storage_api_test_scripts/{name}',
                f'{worker.WORK_DIR}/providers/{name}',
            )
            for name in (
                '__init__.py',
                'object_storage_interface.py',
                'azure_flags.py',
                's3_flags.py',
                's3.py',
                'gcs.py',
                'ttfb.py',
            )
        ],
    )

  def testPrepareFailsClearlyWhenTheSdkStaysMissing(self):
    self.backend.side_effect = self.real_backend  # PKB's service, mocked
    vm = _Vm()
    vm.CLOUD = 'GCP'
    vm.RemoteCommandWithReturnCode.return_value = (
        '',
        'No module named google',
        1,
    )
    service = self._PkbService()
    with self.assertRaisesRegex(
        RuntimeError, 'cannot import google.cloud.storage'
    ):
      stages.Install(self._Topology(vm))
    service.PrepareVM.assert_called_once_with(vm)
    vm.PushDataFile.assert_any_call(
        'object_storage/requirements-gcs.txt',
        f'{worker.WORK_DIR}/requirements-gcs.txt',
    )

  def testACloudVmAlwaysGetsThePinnedSdk(self):
    self.backend.side_effect = self.real_backend  # PKB's service, mocked
    vm = _Vm()
    vm.CLOUD = 'AWS'
    vm.RemoteCommandWithReturnCode.return_value = ('', '', 0)  # boto3 there
    service = self._PkbService()
    stages.Install(self._Topology(vm))
    service.PrepareVM.assert_called_once_with(vm)
    vm.RemoteCommand.assert_any_call(
        f'sudo python3 -m pip install -q -r {worker.WORK_DIR}/'
        'requirements-s3.txt'
    )
    pins = pathlib.Path(stages.__file__).parents[3] / (
        'configs/object_storage/requirements-s3.txt'
    )
    self.assertIn('boto3==', pins.read_text())


class PkbBackendTest(absltest.TestCase):

  def testAzureWorkerGetsTheStorageAccountKey(self):
    service = mock.Mock()
    service.storage_account.name = 'pkbabcabsstorage'
    service.storage_account.key = 'a2V5'
    with mock.patch(
        'perfkitbenchmarker.object_storage_service.GetObjectStorageClass',
        return_value=lambda: service,
    ):
      backend = buckets.PkbBackend('Azure', 'eastus')
    backend.Make('b')
    service.PrepareService.assert_called_once_with('eastus')
    service.MakeBucket.assert_called_once_with('b')
    self.assertEqual(
        backend.WorkerExtra(),
        {'azure_account': 'pkbabcabsstorage', 'azure_key': 'a2V5'},
    )
    backend.PrepareVm(mock.Mock())
    service.PrepareVM.assert_not_called()  # the worker uses the key
    backend.Delete('b')
    service.DeleteBucket.assert_called_once_with('b')
    service.CleanupService.assert_called_once_with()


if __name__ == '__main__':
  absltest.main()
