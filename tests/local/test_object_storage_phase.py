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
"""The object storage phase for real: LocalVm as the client, MinIO on loopback.

The test starts its own MinIO (the binary scripts/setup.d/50-go-tools.sh
builds into $CACHE/bin/minio) on 127.0.0.1 on a free port, with its own data
directory and credentials, and stops it by PID. The worker runs with Debian's
/usr/bin/python3 and python3-boto3, as on the local cloud's hosts. Skipped
when either is missing.
"""

import json
import os
import pathlib
import secrets
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import urllib.request

from absl import flags
from absl.testing import absltest
from absl.testing import flagsaver
from absl.testing import parameterized
import boto3
from botocore import config as botocore_config
from botocore import exceptions as botocore_exceptions
from perfkitbenchmarker import errors

from pkb_ext import paths
from pkb_cloud_report.benchmarks.cloud_report import phases
from pkb_cloud_report.benchmarks import cloud_report_object_storage_benchmark as benchmark
from pkb_cloud_report.benchmarks.cloud_report.parsers import ttfb
from pkb_cloud_report.benchmarks.cloud_report import object_storage
from pkb_ext_dev import local_vm

FLAGS = flags.FLAGS
MINIO = pathlib.Path(paths.CacheDir()) / 'bin' / 'minio'
PYTHON = '/usr/bin/python3'
OUTPUT = f'{object_storage.WORK_DIR}/ttfb.jsonl'


def _HasBoto3(python):
  return (
      os.path.exists(python)
      and subprocess.run(
          [python, '-c', 'import boto3'], capture_output=True, check=False
      ).returncode
      == 0
  )


def _FreePort():
  with socket.socket() as s:
    s.bind(('127.0.0.1', 0))
    return s.getsockname()[1]


class Minio:
  """A private MinIO on loopback, stopped by PID."""

  def __init__(self):
    self.dir = tempfile.mkdtemp(prefix='pkb-ext-os-minio-')
    self.port = _FreePort()
    self.endpoint = f'http://127.0.0.1:{self.port}'
    self.access_key = 'ostest' + secrets.token_hex(4)
    self.secret_key = secrets.token_hex(16)
    env = dict(
        os.environ,
        MINIO_ROOT_USER=self.access_key,
        MINIO_ROOT_PASSWORD=self.secret_key,
        MINIO_BROWSER='off',
    )
    self._log = open(os.path.join(self.dir, 'minio.log'), 'w')
    self.proc = subprocess.Popen(
        [
            str(MINIO), 'server', '--quiet',
            '--address', f'127.0.0.1:{self.port}',
            '--console-address', f'127.0.0.1:{_FreePort()}',
            os.path.join(self.dir, 'data'),
        ],
        env=env, stdout=self._log, stderr=subprocess.STDOUT,
    )  # fmt: skip
    deadline = time.monotonic() + 60
    while True:
      try:
        with urllib.request.urlopen(
            f'{self.endpoint}/minio/health/live', timeout=2
        ):
          break
      except OSError:
        if self.proc.poll() is not None or time.monotonic() > deadline:
          self.Stop()
          raise RuntimeError(f'MinIO did not start; see {self.dir}/minio.log')
        time.sleep(0.2)
    self.client = boto3.client(
        's3',
        endpoint_url=self.endpoint,
        aws_access_key_id=self.access_key,
        aws_secret_access_key=self.secret_key,
        region_name='us-east-1',
        config=botocore_config.Config(s3={'addressing_style': 'path'}),
    )

  def BucketExists(self, name):
    try:
      self.client.head_bucket(Bucket=name)
      return True
    except botocore_exceptions.ClientError as e:
      if e.response['Error']['Code'] in ('404', 'NoSuchBucket'):
        return False
      raise

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
    shell = subprocess.Popen(['bash', '-c', command], cwd=self.work_dir)
    out = os.path.join(self.work_dir, OUTPUT)
    deadline = time.monotonic() + 120
    while not (os.path.exists(out) and _LineCount(out) >= self._after):
      if shell.poll() is not None or time.monotonic() > deadline:
        raise AssertionError('the worker ended before it could be killed')
      time.sleep(0.02)
    bucket = json.loads(open(out).readline())['bucket']
    self.objects_when_killed = self._minio.client.list_objects_v2(
        Bucket=bucket
    ).get('KeyCount', 0)
    children = pathlib.Path(f'/proc/{shell.pid}/task/{shell.pid}/children')
    for pid in children.read_text().split():
      os.kill(int(pid), signal.SIGKILL)  # the worker, which this test started
    shell.wait(timeout=30)
    if self._raise:
      raise errors.VirtualMachine.RemoteCommandError('ssh connection lost')
    return '', ''


def _LineCount(path):
  with open(path) as f:
    return sum(1 for _ in f)


_MINIO = None


def setUpModule():
  global _MINIO
  if not MINIO.exists():
    raise absltest.SkipTest(
        f'no MinIO at {MINIO} (scripts/setup.d/50-go-tools.sh)'
    )
  if not _HasBoto3(PYTHON):
    raise absltest.SkipTest(f'{PYTHON} cannot import boto3 (python3-boto3)')
  _MINIO = Minio()


def tearDownModule():
  if _MINIO is not None:
    _MINIO.Stop()


class PhaseOnMinioTest(parameterized.TestCase):

  def setUp(self):
    super().setUp()
    FLAGS.mark_as_parsed()
    self.run_uri = secrets.token_hex(4)
    self.enter_context(
        flagsaver.flagsaver(
            run_uri=self.run_uri,
            cloud_report_object_storage_endpoint=_MINIO.endpoint,
            cloud_report_object_storage_access_key=_MINIO.access_key,
            cloud_report_object_storage_secret_key=_MINIO.secret_key,
            cloud_report_object_storage_python=PYTHON,
            cloud_report_object_storage_latency_requests=40,
            cloud_report_object_storage_sizes=['16KiB', '1MiB', '8MiB'],
            cloud_report_object_storage_downloads_per_size=3,
            cloud_report_object_storage_concurrency=['1', '4'],
            cloud_report_object_storage_concurrency_rounds=1,
            cloud_report_object_storage_concurrency_object_size='1MiB',
        )
    )
    self.bucket = object_storage.BucketName(self.run_uri)

  def _Topology(self, vm):
    return phases.Topology(db_vms=(vm,), client_vm=vm, run_metadata=None)

  def testTtfbAndThroughputSamplesAndTheBucketIsGone(self):
    vm = local_vm.LocalVm(name='client')
    self.addCleanup(shutil.rmtree, vm.work_dir, True)
    topology = self._Topology(vm)
    object_storage.Prepare(topology)
    try:
      samples = object_storage.Run(topology)
      raw = ttfb.Parse(open(os.path.join(vm.work_dir, OUTPUT)).read())
      self.assertFalse(_MINIO.BucketExists(self.bucket))
    finally:
      object_storage.Cleanup(topology)
    self.assertFalse(os.path.exists(os.path.join(vm.work_dir, OUTPUT)))
    self.assertEqual(
        (raw.header.sdk, raw.header.endpoint), ('boto3', _MINIO.endpoint)
    )

    def Stats(metric, **meta):
      return {
          s.metadata['statistic']: s.value
          for s in samples
          if s.metric == metric
          and all(s.metadata.get(k) == v for k, v in meta.items())
      }

    for op in ('get', 'put'):
      for conn in ('new', 'reused'):
        stats = Stats(
            'object_storage_ttfb', workload='latency', op=op, connection=conn
        )
        for p in ('p50', 'p90', 'p99', 'p99.9'):
          self.assertGreater(stats[p], 0, (op, conn, p))
    for size in (16 << 10, 1 << 20, 8 << 20):
      for op in ('get', 'put'):
        self.assertGreater(
            Stats('object_storage_throughput', op=op, object_size_bytes=size)[
                'p50'
            ],
            0,
        )
    for level in (1, 4):
      self.assertGreater(
          Stats(
              'object_storage_aggregate_throughput', op='get', concurrency=level
          )['mean'],
          0,
      )
    self.assertNotIn('cloud_report_phase_error', {s.metric for s in samples})
    # The first byte of an 8 MiB object comes before its last.
    big = [r for r in raw.requests if r.op == 'get' and r.size == 8 << 20]
    self.assertLen(big, 3)
    for r in big:
      self.assertEqual(r.src, 'http')
      self.assertLess(r.ttfb_ms, r.total_ms)
    # New-connection requests opened one; reused ones none.
    latency = [r for r in raw.requests if r.workload == 'latency']
    self.assertTrue(all(r.connects == (r.want == 'new') for r in latency))

  @parameterized.named_parameters(
      ('worker_killed', False), ('ssh_lost_after_kill', True)
  )
  def testFailureMidRunDeletesEveryObjectAndTheBucket(self, then_raise):
    vm = KillingVm(_MINIO, after_lines=60, then_raise=then_raise, name='client')
    self.addCleanup(shutil.rmtree, vm.work_dir, True)
    topology = self._Topology(vm)
    object_storage.Prepare(topology)
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
    self.assertFalse(_MINIO.BucketExists(self.bucket))
    names = [b['Name'] for b in _MINIO.client.list_buckets()['Buckets']]
    self.assertNotIn(self.bucket, names)

  def testStandaloneBenchmarkStampsTheClientsMetadata(self):
    vm = local_vm.LocalVm(name='client')
    self.addCleanup(shutil.rmtree, vm.work_dir, True)
    spec = type('Spec', (), {'vm_groups': {'client': [vm]}})()
    with flagsaver.flagsaver(
        cloud_report_object_storage_sizes=['64KiB'],
        cloud_report_object_storage_concurrency=[],
        cloud_report_object_storage_latency_requests=5,
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
      self.assertEqual(s.metadata['machine_type'], 'local')
    self.assertFalse(_MINIO.BucketExists(self.bucket))


if __name__ == '__main__':
  absltest.main()
