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
"""The object storage phase for real, on MinIO, fake-gcs-server and Azurite.

LocalVm is the client; the test starts its own emulators (the programs that
scripts/setup.d builds into $CACHE/bin) on 127.0.0.1 on free ports, with
their own data and keys, and stops them by PID. The worker runs with the
SDK venv of the local cloud's hosts ($CACHE/bin/object-storage-sdk, pinned
by configs/object_storage/requirements-*.txt). Skipped when any is missing.
Through stock pkb.py on the local cloud's hosts the phase runs against each
emulator in tests/local/test_local_cloud.py (scripts/local.sh).
"""

import base64
import json
import os
import pathlib
import secrets
import shutil
import signal
import socket
import subprocess
import tempfile
import threading
import time
from unittest import mock

from absl import flags
from absl.testing import absltest
from absl.testing import flagsaver
from absl.testing import parameterized
from azure.core import exceptions as azure_exceptions
from azure.storage import blob as azure_blob
import boto3
from botocore import config as botocore_config
from botocore import exceptions as botocore_exceptions
from google.auth import credentials as google_credentials
from google.cloud import storage as gcs
from perfkitbenchmarker import data
from perfkitbenchmarker import errors
from perfkitbenchmarker import linux_packages
from perfkitbenchmarker.linux_benchmarks import coremark_benchmark

from pkb_ext.suite import phases
from pkb_ext import coremark as offline_coremark
from pkb_ext.local import services
from pkb_ext import object_storage_endpoints as endpoints
from pkb_ext import paths
from pkb_ext.suite import cloud_report_object_storage_benchmark as benchmark
from pkb_ext.suite.object_storage import buckets as os_buckets
from pkb_ext.suite.object_storage import params as os_params
from pkb_ext.suite.object_storage import parser as ttfb
from pkb_ext.suite.object_storage import stages as object_storage
from pkb_ext.suite.object_storage import worker as os_worker
from pkb_ext.suite import runner
from pkb_ext_dev import local_vm
from pkb_ext_dev import ports

FLAGS = flags.FLAGS
BIN = pathlib.Path(paths.CacheDir()) / 'bin'
PYTHON = str(BIN / services.SDK_PYTHON)
CONFIGS = pathlib.Path(paths.RepoRoot()) / 'configs'
OUTPUT = f'{os_worker.WORK_DIR}/ttfb.jsonl'
PROVIDERS = ('s3', 'gcs', 'azure')


class Emulator:
  """One emulator on loopback, with its own data and keys; stopped by PID."""

  def __init__(self, provider):
    self.provider = provider
    self.service = services.BY_PROVIDER[provider]
    self.dir = tempfile.mkdtemp(prefix=f'pkb-ext-os-{provider}-')
    port = ports.FreePort()
    url = f'http://127.0.0.1:{port}'
    env = dict(os.environ)
    self.keys = {}
    if provider == 's3':
      self.keys = {
          'AWS_ACCESS_KEY_ID': 'ostest' + secrets.token_hex(4),
          'AWS_SECRET_ACCESS_KEY': secrets.token_hex(16),
      }
      env.update(
          MINIO_ROOT_USER=self.keys['AWS_ACCESS_KEY_ID'],
          MINIO_ROOT_PASSWORD=self.keys['AWS_SECRET_ACCESS_KEY'],
          MINIO_BROWSER='off',
      )
      argv = [
          str(BIN / 'minio'), 'server', '--quiet',
          '--address', f'127.0.0.1:{port}',
          '--console-address', f'127.0.0.1:{ports.FreePort()}',
          os.path.join(self.dir, 'data'),
      ]  # fmt: skip
      self.endpoint = url
    elif provider == 'gcs':
      argv = [
          str(BIN / 'fake-gcs-server'), '-scheme', 'http',
          '-host', '127.0.0.1', '-port', str(port), '-backend', 'memory',
          '-external-url', url, '-public-host', f'127.0.0.1:{port}',
          '-log-level', 'warn',
      ]  # fmt: skip
      self.keys = {'GOOGLE_CLOUD_PROJECT': 'pkb-ext-test'}
      self.endpoint = url
    else:
      self.keys = {
          'AZURE_STORAGE_ACCOUNT': 'ostest',
          'AZURE_STORAGE_KEY': (
              base64.b64encode(secrets.token_bytes(32)).decode()
          ),
      }
      env['AZURITE_ACCOUNTS'] = 'ostest:' + self.keys['AZURE_STORAGE_KEY']
      # Not 127.0.0.1, which the Azure SDK treats specially (batch paths),
      # as it does not treat the local cloud's client host.
      url = f'http://127.0.0.2:{port}'
      argv = [
          'node', str(BIN / services.AZURITE_MAIN),
          '--blobHost', '127.0.0.2', '--blobPort', str(port),
          '--location', self.dir, '--silent',
          '--disableTelemetry', '--skipApiVersionCheck',
      ]  # fmt: skip
      self.endpoint = f'{url}/ostest'
    self._log = open(os.path.join(self.dir, 'emulator.log'), 'w')
    self.proc = subprocess.Popen(
        argv, env=env, stdout=self._log, stderr=subprocess.STDOUT
    )
    deadline = time.monotonic() + 90
    while not services.Healthy(self.service, self.endpoint):
      if self.proc.poll() is not None or time.monotonic() > deadline:
        self.Stop()
        raise RuntimeError(f'{provider} emulator did not start: {argv}')
      time.sleep(0.2)

  def Credentials(self):
    return endpoints.ParseCredentials(
        ''.join(f'{k}={v}\n' for k, v in self.keys.items())
    )

  def Endpoint(self):
    return endpoints.Endpoint(self.endpoint, self.provider, self.Credentials())

  def Backend(self):
    """The phase's back-end for this emulator."""
    return endpoints.ENDPOINT_BUCKETS[self.provider](self.Endpoint(), '')

  def Client(self):
    """This emulator's SDK client, made as the phase makes its own."""
    return self.Backend().client

  def BucketExists(self, name):
    client = self.Client()
    if self.provider == 's3':
      try:
        client.head_bucket(Bucket=name)
        return True
      except botocore_exceptions.ClientError as e:
        if e.response['Error']['Code'] in ('404', 'NoSuchBucket'):
          return False
        raise
    if self.provider == 'gcs':
      return client.bucket(name).exists()
    return client.get_container_client(name).exists()

  def Objects(self, name):
    client = self.Client()
    if self.provider == 's3':
      return client.list_objects_v2(Bucket=name).get('KeyCount', 0)
    if self.provider == 'gcs':
      return len(list(client.list_blobs(name)))
    return len(list(client.get_container_client(name).list_blobs()))

  def DeleteBucket(self, name):
    self.Backend().Delete(name)

  def Stop(self):
    if self.proc.poll() is None:
      os.kill(self.proc.pid, signal.SIGTERM)
      try:
        self.proc.wait(timeout=20)
      except subprocess.TimeoutExpired:
        os.kill(self.proc.pid, signal.SIGKILL)
        self.proc.wait()
    self._log.close()
    shutil.rmtree(self.dir, ignore_errors=True)


class KillingVm(local_vm.LocalVm):
  """Kills the worker mid-run, once it has written objects to the bucket."""

  def __init__(self, minio, after_lines, then_raise=False, **kwargs):
    super().__init__(**kwargs)
    self._minio = minio
    self._after = after_lines
    self._raise = then_raise
    self.objects_when_killed = None

  def RobustRemoteCommand(self, command, ignore_failure=False, timeout=None):
    if 'ttfb_worker.py' not in command:
      return super().RobustRemoteCommand(command, ignore_failure, timeout)
    self.commands.append(command)
    # The command prints the worker's exit code and output once it ends.
    shell = subprocess.Popen(
        ['bash', '-c', command],
        cwd=self.work_dir,
        stdout=subprocess.PIPE,
        text=True,
    )
    out = os.path.join(self.work_dir, OUTPUT)
    deadline = time.monotonic() + 120
    while not (os.path.exists(out) and _LineCount(out) >= self._after):
      if shell.poll() is not None or time.monotonic() > deadline:
        raise AssertionError('the worker ended before it could be killed')
      time.sleep(0.02)
    bucket = json.loads(open(out).readline())['bucket']
    self.objects_when_killed = self._minio.Objects(bucket)
    children = pathlib.Path(f'/proc/{shell.pid}/task/{shell.pid}/children')
    for pid in children.read_text().split():
      os.kill(int(pid), signal.SIGKILL)  # the worker, which this test started
    stdout, _ = shell.communicate(timeout=30)
    if self._raise:
      raise errors.VirtualMachine.RemoteCommandError('ssh connection lost')
    return stdout, ''


def _LineCount(path):
  with open(path) as f:
    return sum(1 for _ in f)


class BucketRemovingVm(local_vm.LocalVm):
  """Deletes the bucket just before the worker starts: a missing bucket."""

  def __init__(self, emulator, **kwargs):
    super().__init__(**kwargs)
    self._emulator = emulator

  def RobustRemoteCommand(self, command, ignore_failure=False, timeout=None):
    if 'ttfb_worker.py' in command:
      self._emulator.DeleteBucket(os_buckets.BucketName(FLAGS.run_uri))
    return super().RobustRemoteCommand(command, ignore_failure, timeout)


def _LineCount(path):
  with open(path) as f:
    return sum(1 for _ in f)


EMULATORS = {}
_CREDENTIALS = None


def setUpModule():
  global _CREDENTIALS
  missing = [
      str(p)
      for p in (
          BIN / 'minio',
          BIN / 'fake-gcs-server',
          BIN / services.AZURITE_MAIN,
          pathlib.Path(PYTHON),
      )
      if not p.exists()
  ]
  if missing or not shutil.which('node'):
    raise absltest.SkipTest(
        f'missing {missing or "node"}: run scripts/setup.sh (setup.d/50, 55)'
    )
  try:
    for provider in PROVIDERS:
      EMULATORS[provider] = Emulator(provider)
  except Exception:
    tearDownModule()
    raise
  fd, _CREDENTIALS = tempfile.mkstemp(prefix='pkb-ext-os-keys-')
  with os.fdopen(fd, 'w') as f:
    for emulator in EMULATORS.values():
      f.writelines(f'{k}={v}\n' for k, v in emulator.keys.items())


def tearDownModule():
  for emulator in EMULATORS.values():
    emulator.Stop()
  if _CREDENTIALS:
    os.remove(_CREDENTIALS)


class _PhaseTestCase(parameterized.TestCase):

  def setUp(self):
    super().setUp()
    FLAGS.mark_as_parsed()
    self.run_uri = secrets.token_hex(4)
    self.enter_context(
        flagsaver.flagsaver(
            run_uri=self.run_uri,
            cloud_report_object_storage_credentials_file=_CREDENTIALS,
            cloud_report_object_storage_python=PYTHON,
            cloud_report_object_storage_latency_requests=10,
            cloud_report_object_storage_sizes=['16KiB', '32MiB'],
            cloud_report_object_storage_downloads_per_size=2,
            cloud_report_object_storage_concurrency=['1', '3'],
            cloud_report_object_storage_concurrency_rounds=1,
            cloud_report_object_storage_concurrency_object_size='1MiB',
        )
    )
    self.bucket = os_buckets.BucketName(self.run_uri)

  def On(self, provider, **more):
    """Points the phase at one emulator (flags restored after the test)."""
    emulator = EMULATORS[provider]
    values = {
        'cloud_report_object_storage_endpoint': emulator.endpoint,
        'cloud_report_object_storage_provider': provider,
    }
    self.enter_context(flagsaver.flagsaver(**(values | more)))
    return emulator

  def Vm(self, cls=local_vm.LocalVm, **kwargs):
    vm = cls(name='client', **kwargs)
    self.addCleanup(shutil.rmtree, vm.work_dir, True)
    return vm

  def Topology(self, vm, run_metadata=None):
    return phases.Topology(
        db_vms=(vm,),
        client_vm=vm,
        run_metadata=run_metadata,
        identity=phases.RunIdentity(
            self.run_uri, '', self.create_tempdir().full_path
        ),
    )


class PhaseOnEmulatorsTest(_PhaseTestCase):

  def testSameSamplesFromEveryProviderAndTheBucketIsGone(self):
    shapes = {}
    for provider in PROVIDERS:
      emulator = self.On(provider)
      vm = self.Vm()
      topology = self.Topology(vm)
      object_storage.Install(topology)
      try:
        samples = object_storage.Run(topology)
        raw = ttfb.Parse(open(os.path.join(vm.work_dir, OUTPUT)).read())
      finally:
        object_storage.Cleanup(topology)
      self.assertFalse(emulator.BucketExists(self.bucket), provider)
      self.assertEqual(raw.header.endpoint, emulator.endpoint)
      self.assertNotIn('cloud_report_phase_error', {s.metric for s in samples})
      self.assertEqual({s.metadata['provider'] for s in samples}, {provider})
      shapes[provider] = sorted(
          (s.metric, s.unit, tuple(sorted(set(s.metadata) - {'sdk_version'})))
          for s in samples
      )
      stats = _Stats(samples)
      for op in ('get', 'put'):
        for conn in ('new', 'reused'):
          ttfb_stats = stats(
              'object_storage_ttfb', workload='latency', op=op, connection=conn
          )
          for p in ('p50', 'p90', 'p99', 'p99.9'):
            self.assertGreater(ttfb_stats[p], 0, (provider, op, conn, p))
        for size in (16 << 10, 32 << 20):
          self.assertGreater(
              stats('object_storage_throughput', op=op, object_size_bytes=size)[
                  'p50'
              ],
              0,
              (provider, op, size),
          )
      # New-connection requests opened one (the pool was closed, the client
      # kept); reused ones none.
      latency = [r for r in raw.requests if r.workload == 'latency']
      self.assertLen(latency, 40, provider)
      for r in latency:
        self.assertEqual(r.connects, int(r.want == 'new'), (provider, r))
        self.assertEqual(r.conn, r.want, (provider, r))
      # The first byte of a 32 MiB object comes before its last.
      big = [r for r in raw.requests if r.op == 'get' and r.size == 32 << 20]
      self.assertLen(big, 2)
      for r in big:
        self.assertEqual(r.src, 'http')
        self.assertLess(r.ttfb_ms, r.total_ms)
    self.assertEqual(shapes['gcs'], shapes['s3'])
    self.assertEqual(shapes['azure'], shapes['s3'])

  @parameterized.named_parameters(
      ('worker_killed', False), ('ssh_lost_after_kill', True)
  )
  def testFailureMidRunDeletesEveryObjectAndTheBucket(self, then_raise):
    minio = self.On('s3')
    vm = self.Vm(KillingVm, minio=minio, after_lines=15, then_raise=then_raise)
    topology = self.Topology(vm)
    object_storage.Install(topology)
    try:
      if then_raise:
        with self.assertRaises(errors.VirtualMachine.RemoteCommandError):
          object_storage.Run(topology)
      else:
        samples = object_storage.Run(topology)
        error = [s for s in samples if s.metric == 'cloud_report_phase_error']
        self.assertLen(error, 1)
        self.assertIn('worker exit 137', error[0].metadata['error'])
        self.assertTrue(
            all(
                s.metadata['partial']
                for s in samples
                if s.metric.startswith('object_storage')
            )
        )
    finally:
      object_storage.Cleanup(topology)
    self.assertGreater(vm.objects_when_killed, 0)  # it was mid-run
    self.assertFalse(minio.BucketExists(self.bucket))

  def testStandaloneBenchmarkStampsTheClientsMetadata(self):
    self.On('azure')
    vm = self.Vm()
    spec = type('Spec', (), {'vm_groups': {'client': [vm]}})()
    with flagsaver.flagsaver(
        cloud_report_object_storage_sizes=['64KiB'],
        cloud_report_object_storage_concurrency=[],
        cloud_report_object_storage_latency_requests=2,
    ):
      benchmark.Prepare(spec)
      try:
        samples = benchmark.Run(spec)
      finally:
        benchmark.Cleanup(spec)
    self.assertNotEmpty(samples)
    for s in samples:
      self.assertEqual(s.metadata['phase'], 'object_storage')
      self.assertEqual(s.metadata['cloud'], 'Local')
      self.assertEqual(s.metadata['provider'], 'azure')
    self.assertFalse(EMULATORS['azure'].BucketExists(self.bucket))


def _Stats(samples):
  def Stats(metric, **meta):
    return {
        s.metadata['statistic']: s.value
        for s in samples
        if s.metric == metric
        and all(s.metadata.get(k) == v for k, v in meta.items())
    }

  return Stats


class WorkerRegressionTest(parameterized.TestCase):
  """The worker alone on the real emulators (the bugs mocks hid)."""

  def _Run(self, provider, env=None, **cfg):
    emulator = EMULATORS[provider]
    bucket = 'cloud-report-os-' + secrets.token_hex(4)
    backend = emulator.Backend()
    backend.Make(bucket)
    self.addCleanup(backend.Delete, bucket)
    work = self.create_tempdir().full_path
    for name, dest in os_worker.WORKER_FILES:  # laid out as the phase does
      ours = CONFIGS / name
      os.makedirs(os.path.dirname(os.path.join(work, dest)), exist_ok=True)
      shutil.copy(
          ours if ours.is_file() else data.ResourcePath(name),
          os.path.join(work, dest),
      )
    config = os_worker.WorkerConfig(
        os_params.Params(
            latency_requests=25,
            sizes=(),
            concurrency=(),
            **cfg,
        ),
        provider,
        bucket,
        'local-1',
        backend.WorkerExtra(),
    )
    with open(os.path.join(work, 'worker.json'), 'w') as f:
      json.dump(config, f)
    proc = subprocess.run(
        [PYTHON, 'ttfb_worker.py', '--config', 'worker.json', '--out', 'out.jsonl'],
        cwd=work, env=env, capture_output=True, text=True, timeout=300,
        check=False,
    )  # fmt: skip
    with open(os.path.join(work, 'out.jsonl')) as f:
      records = [json.loads(line) for line in f]
    return proc, records

  @parameterized.parameters(*PROVIDERS)
  def testNewConnectionsAreNewAndTheClientStaysOpen(self, provider):
    # azure-core >= 1.41 refuses every request on a client once closed;
    # google-cloud-storage pools a connection of a thread of its own.
    proc, records = self._Run(provider)
    self.assertEqual(proc.returncode, 0, proc.stderr[-2000:])
    new = [r for r in records if r.get('want') == 'new']
    self.assertLen(new, 50)
    for r in new:
      self.assertTrue(r['ok'], r.get('error'))
      self.assertEqual((r['conn'], r['connects']), ('new', 1))
    self.assertEqual(records[-1]['kind'], 'end')
    self.assertEqual(records[-1]['errors'], 0)

  def testGcsOnAnEndpointLooksForNoCredentials(self):
    # A stand-in metadata server on loopback counts who asks it for
    # credentials; the host has no other Google credentials.
    server = socket.socket()
    server.bind(('127.0.0.1', 0))
    server.listen(16)
    server.settimeout(0.2)
    self.addCleanup(server.close)
    asked, stop = [], threading.Event()

    def Accept():
      while not stop.is_set():
        try:
          conn, _ = server.accept()
        except OSError:
          continue
        asked.append(1)
        conn.close()

    thread = threading.Thread(target=Accept, daemon=True)
    thread.start()
    self.addCleanup(thread.join)
    self.addCleanup(stop.set)
    metadata = f'127.0.0.1:{server.getsockname()[1]}'
    home = self.create_tempdir().full_path
    env = {
        'PATH': os.environ.get('PATH', '/usr/bin:/bin'),
        'HOME': home,
        'GCE_METADATA_HOST': metadata,
        'GCE_METADATA_IP': metadata,
        'CLOUDSDK_CONFIG': home,
    }
    proc, records = self._Run('gcs', env=env)
    self.assertEqual(proc.returncode, 0, proc.stderr[-2000:])
    self.assertEqual(records[-1]['kind'], 'end')
    self.assertEqual(records[-1]['errors'], 0)
    self.assertEqual(asked, [])


class BadInputTest(_PhaseTestCase):
  """Each fails the phase with one line naming the provider and endpoint."""

  def _Fails(self, provider, vm=None, message='', **more):
    endpoint = more.get('cloud_report_object_storage_endpoint')
    emulator = self.On(provider, **more)
    endpoint = endpoint or emulator.endpoint
    vm = vm or self.Vm()
    topology = self.Topology(vm)
    object_storage.Install(topology)
    try:
      with self.assertRaises(os_worker.ObjectStorageError) as cm:
        object_storage.Run(topology)
    finally:
      object_storage.Cleanup(topology)
    text = str(cm.exception)
    self.assertNotIn('\n', text)
    self.assertIn(f'object storage {provider} at {endpoint}: ', text)
    self.assertRegex(text, message)
    return text

  @parameterized.parameters(*PROVIDERS)
  def testUnreachableEndpoint(self, provider):
    dead = f'http://127.0.0.1:{ports.FreePort()}'
    if provider == 'azure':
      dead += '/ostest'
    self._Fails(
        provider,
        message='cannot create bucket',
        cloud_report_object_storage_endpoint=dead,
    )

  @parameterized.parameters('s3', 'azure')
  def testWrongKeys(self, provider):
    emulator = EMULATORS[provider]
    wrong = self.create_tempfile(
        content=''.join(
            f'{k}={v}\n'
            for k, v in emulator.keys.items()
            if not k.endswith(('SECRET_ACCESS_KEY', 'STORAGE_KEY'))
        )
        + (
            'AWS_SECRET_ACCESS_KEY=' + secrets.token_hex(16)
            if provider == 's3'
            else 'AZURE_STORAGE_KEY='
            + base64.b64encode(secrets.token_bytes(32)).decode()
        )
        + '\n'
    ).full_path
    os.chmod(wrong, 0o600)
    text = self._Fails(
        provider,
        message=r'cannot create bucket .*(SignatureDoesNotMatch|'
        r'AccessDenied|InvalidAccessKeyId|authenticat|Authorization)',
        cloud_report_object_storage_credentials_file=wrong,
    )
    for secret in emulator.Credentials().Secrets():
      self.assertNotIn(secret, text)

  @parameterized.parameters(*PROVIDERS)
  def testMissingBucket(self, provider):
    emulator = EMULATORS[provider]
    self._Fails(
        provider,
        vm=self.Vm(BucketRemovingVm, emulator=emulator),
        message=r'worker exited 3, nothing measured: .*'
        r'(NoSuchBucket|[Nn]ot [Ff]ound|ContainerNotFound|does not exist)',
    )

  def testOtherPhasesSamplesAreKept(self):
    if not data.ResourceExists(offline_coremark.TARBALL):
      self.skipTest(f'{offline_coremark.TARBALL} not in the data search path')
    dead = f'http://127.0.0.1:{ports.FreePort()}/ostest'
    self.On('azure', cloud_report_object_storage_endpoint=dead)
    vm = self.Vm()
    self.enter_context(
        mock.patch.object(linux_packages, 'INSTALL_DIR', vm.work_dir)
    )
    self.enter_context(
        mock.patch.object(
            coremark_benchmark,
            'COREMARK_DIR',
            os.path.join(vm.work_dir, 'coremark-1.01'),
        )
    )
    offline_coremark.InstallFromData(vm)  # PKB's tree, offline
    topology = self.Topology(vm, _RunMetadata(vm))
    kept = {}
    with flagsaver.flagsaver(
        cloud_report_coremark_runs=1,
        cloud_report_coremark_iterations=2000,
        coremark_parallelism_method='PTHREAD',
    ):
      with self.assertRaises(phases.PhaseError) as cm:
        runner.RunAll(
            topology,
            ['object_storage', 'cpu'],
            on_samples=kept.__setitem__,
            prepare=True,
        )
      runner.CleanupAll(
          phases.Topology(db_vms=(vm,), client_vm=vm, run_metadata=None),
          ['object_storage', 'cpu'],
      )
    self.assertIn(
        f'object_storage: ObjectStorageError: object storage azure at {dead}:',
        str(cm.exception),
    )
    self.assertEqual(list(kept), ['cpu'])
    self.assertTrue(any(s.metric == 'coremark_score' for s in kept['cpu']))


def _RunMetadata(vm):
  from pkb_ext.suite import topology as topology_lib  # pylint: disable=g-import-not-at-top

  return topology_lib.RunMetadataFromVm(vm)


if __name__ == '__main__':
  absltest.main()
