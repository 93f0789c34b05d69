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
"""Tests of the VM-side worker: PKB's TimeToFirstByte scenario, configured.

The worker runs as on a VM: a work directory laid out as the phase pushes
it (worker.WORKER_FILES: ttfb_worker.py and ttfb.py from this checkout's
configs/, which PKB's data search path holds when it is the installed one,
the service interfaces from PKB's scripts package), run with this venv's
python3. The S3 service is a local HTTP server that holds back a
GET's first body byte for a known delay and speaks enough S3 for boto3's
PutObject, GetObject and DeleteObject; PKB's s3.py reaches it through the
environment the worker sets.
"""

import http.server
import importlib.util
import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import time

from absl.testing import absltest
from perfkitbenchmarker import data

from pkb_ext import paths
from pkb_ext.suite.object_storage import parser as ttfb
from pkb_ext.suite.object_storage import worker as os_worker

FIRST_BYTE_S = 0.08


def _LoadWorker():
  path = os.path.join(
      paths.RepoRoot(), 'configs', 'object_storage', 'ttfb_worker.py'
  )
  spec = importlib.util.spec_from_file_location('ttfb_worker', path)
  module = importlib.util.module_from_spec(spec)
  spec.loader.exec_module(module)
  return module


worker = _LoadWorker()


def _Resolve(name):
  """This checkout's configs/<name>, else what PKB's data search path finds."""
  ours = os.path.join(paths.RepoRoot(), 'configs', name)
  return ours if os.path.isfile(ours) else data.ResourcePath(name)


class _S3(http.server.BaseHTTPRequestHandler):
  """PutObject, GetObject (first byte FIRST_BYTE_S after the headers)."""

  protocol_version = 'HTTP/1.1'
  disable_nagle_algorithm = True
  objects = {}
  puts = []  # (path, headers) of every PUT

  def log_message(self, *args):
    del args

  def do_PUT(self):
    body = self.rfile.read(int(self.headers['Content-Length']))
    self.objects[self.path] = body
    self.puts.append((self.path, dict(self.headers)))
    self.send_response(200)
    self.send_header('ETag', '"0"')
    self.send_header('Content-Length', '0')
    self.end_headers()

  def do_GET(self):
    body = self.objects.get(self.path)
    if body is None:
      self.send_response(404)
      self.send_header('Content-Length', '0')
      self.end_headers()
      return
    self.send_response(200)
    self.send_header('Content-Length', str(len(body)))
    self.end_headers()
    self.wfile.flush()
    time.sleep(FIRST_BYTE_S)
    self.wfile.write(body)

  def do_DELETE(self):
    self.objects.pop(self.path, None)
    self.send_response(204)
    self.end_headers()


def _Config(url, **kw):
  config = {
      'provider': 's3',
      'bucket': 'bkt',
      'region': 'us-east-1',
      'prefix': 'p/',
      'endpoint': url,
      'access_key': 'AK',
      'secret_key': 'SK',
      'latency_requests': 2,
      'latency_object_bytes': 1,
      'sizes': [1000],
      'downloads_per_size': 2,
      'concurrency': [2],
      'concurrency_rounds': 1,
      'concurrency_object_bytes': 100,
  }
  config.update(kw)
  return config


class EnvironmentTest(absltest.TestCase):

  def testS3EndpointAndKeys(self):
    d = self.create_tempdir().full_path
    env = worker.Environment(_Config('http://h:1'), d)
    self.assertEqual(env['AWS_ENDPOINT_URL'], 'http://h:1')
    self.assertEqual(
        (env['AWS_ACCESS_KEY_ID'], env['AWS_SECRET_ACCESS_KEY']), ('AK', 'SK')
    )
    with open(env['AWS_CONFIG_FILE']) as f:
      self.assertIn('addressing_style = path', f.read())
    self.assertEqual(env['AWS_REQUEST_CHECKSUM_CALCULATION'], 'when_required')

  def testS3OnAwsUsesTheVmsOwnCredentials(self):
    env = worker.Environment(
        _Config(None, access_key=None, secret_key=None), '/nonexistent'
    )
    self.assertNotIn('AWS_ENDPOINT_URL', env)
    self.assertNotIn('AWS_ACCESS_KEY_ID', env)
    self.assertNotIn('AWS_CONFIG_FILE', env)

  def testGcsEndpoint(self):
    env = worker.Environment(
        {'provider': 'gcs', 'endpoint': 'http://h:2', 'project': 'p'}, ''
    )
    self.assertEqual(
        env,
        {'STORAGE_EMULATOR_HOST': 'http://h:2', 'GOOGLE_CLOUD_PROJECT': 'p'},
    )

  def testAzureNeedsNoEnvironment(self):
    self.assertEqual(worker.Environment({'provider': 'azure'}, ''), {})


class RunOnAVmTest(absltest.TestCase):

  @classmethod
  def setUpClass(cls):
    super().setUpClass()
    cls.server = http.server.ThreadingHTTPServer(('127.0.0.1', 0), _S3)
    threading.Thread(target=cls.server.serve_forever, daemon=True).start()
    cls.url = 'http://127.0.0.1:%d' % cls.server.server_address[1]

  @classmethod
  def tearDownClass(cls):
    cls.server.shutdown()
    cls.server.server_close()
    super().tearDownClass()

  def setUp(self):
    super().setUp()
    self.work = self.create_tempdir().full_path
    for name, dest in os_worker.WORKER_FILES:
      os.makedirs(os.path.dirname(os.path.join(self.work, dest)), exist_ok=True)
      shutil.copy(_Resolve(name), os.path.join(self.work, dest))
    _S3.puts.clear()

  def _Start(self, config):
    with open(os.path.join(self.work, 'worker.json'), 'w') as f:
      json.dump(config, f)
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(('AWS_', 'PYTHON'))
    }
    return subprocess.Popen(
        [
            sys.executable,
            'ttfb_worker.py',
            '--config',
            'worker.json',
            '--out',
            'ttfb.jsonl',
        ],
        cwd=self.work,
        env=env,
        stderr=subprocess.PIPE,
        text=True,
    )

  def _Output(self):
    with open(os.path.join(self.work, 'ttfb.jsonl')) as f:
      return f.read()

  def testOnlyTheWorkerAndTtfbAreOurs(self):
    ours = {
        name
        for name, _ in os_worker.WORKER_FILES
        if os.path.isfile(os.path.join(paths.RepoRoot(), 'configs', name))
    }
    self.assertEqual(
        ours,
        {
            'object_storage/ttfb_worker.py',
            'object_storage_api_test_scripts/ttfb.py',
        },
    )
    for name, _ in os_worker.WORKER_FILES:
      if name not in ours:  # PKB's own service interfaces
        self.assertIn(
            '/perfkitbenchmarker/scripts/', data.ResourcePath(name), name
        )

  def testRunsEveryWorkloadThroughPkbsS3Interface(self):
    proc = self._Start(_Config(self.url))
    _, stderr = proc.communicate(timeout=120)
    self.assertEqual(proc.returncode, 0, stderr)
    result = ttfb.Parse(self._Output())
    self.assertFalse(result.partial)
    self.assertEqual(result.header.sdk, 'boto3')
    gets = [r for r in result.requests if r.op == 'get']
    self.assertLen(gets, 2 * 2 + 2 + 2)
    for r in gets:
      self.assertTrue(r.ok, r)
      self.assertGreaterEqual(r.ttfb_ms, FIRST_BYTE_S * 1000)
    latency = [r for r in result.requests if r.workload == 'latency']
    for r in latency:
      self.assertEqual((r.conn, r.connects), (r.want, int(r.want == 'new')))
    # Path-style requests to the endpoint, no checksum trailer.
    self.assertTrue(all(p.startswith('/bkt/p/') for p, _ in _S3.puts))
    for _, headers in _S3.puts:
      self.assertNotIn('x-amz-trailer', {k.lower() for k in headers})

  def testSigtermWritesAnAbortRecordAfterTheFinishedRequests(self):
    proc = self._Start(_Config(self.url, latency_requests=200))
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
      if os.path.exists(os.path.join(self.work, 'ttfb.jsonl')):
        if self._Output().count('\n') >= 6:
          break
      time.sleep(0.05)
    proc.send_signal(signal.SIGTERM)
    proc.communicate(timeout=60)
    self.assertEqual(proc.returncode, 3)
    last = json.loads(self._Output().splitlines()[-1])
    self.assertEqual(last, {'kind': 'abort', 'error': 'SystemExit: signal 15'})
    self.assertTrue(ttfb.Parse(self._Output()).partial)

  def testWithoutItsProvidersItFailsInOneLine(self):
    shutil.rmtree(os.path.join(self.work, os_worker.PROVIDERS_DIR))
    proc = self._Start(_Config(self.url))
    _, stderr = proc.communicate(timeout=60)
    self.assertEqual(proc.returncode, 1)
    self.assertEqual(len(stderr.strip().splitlines()), 1, stderr)
    self.assertStartsWith(stderr, 'ttfb_worker: cannot import PKB')


if __name__ == '__main__':
  absltest.main()
