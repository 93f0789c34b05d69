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
"""Tests of the VM-side worker: timing hooks, and the GCS and Azure paths.

GCS and Azure cannot run here, so their SDK client objects are mocks
(create_autospec of the installed SDKs' classes, so a call the SDK does not
have fails). The mocked upload and download calls move real bytes over a real
loopback HTTP connection (http.client, like the SDKs' urllib3), so the
worker's first-byte and connection hooks are exercised as on a real run.
"""

import http.client
import http.server
import importlib.util
import io
import json
import os
import shutil
import subprocess
import sys
import threading
import time
from unittest import mock

from absl.testing import absltest
from azure.storage import blob as azure_blob
import google.auth
from google.auth import credentials as google_credentials
from google.cloud import storage

from benchmarks.cloud_report.object_storage import parser as ttfb
from pkb_ext import paths

# This checkout's worker (pkb_ext.configs may be another checkout's, that of
# an editable install).
_WORKER = os.path.join(
    paths.RepoRoot(), 'configs', 'object_storage', 'ttfb_worker.py'
)
_PROVIDERS = 'ttfb_providers.py'


def _LoadWorker():
  spec = importlib.util.spec_from_file_location('ttfb_worker', _WORKER)
  module = importlib.util.module_from_spec(spec)
  spec.loader.exec_module(module)
  return module


worker = _LoadWorker()
# The real SDK classes, for autospec while their module attributes are mocked.
_GCS_CLIENT = storage.Client
_AZURE_SERVICE = azure_blob.BlobServiceClient


class _Handler(http.server.BaseHTTPRequestHandler):
  """Stores PUT bodies; GETs send headers, wait body_delay, then the body."""

  protocol_version = 'HTTP/1.1'
  disable_nagle_algorithm = True  # headers and body go out at once

  def log_message(self, *args):
    pass

  def do_PUT(self):  # pylint: disable=invalid-name
    body = self.rfile.read(int(self.headers['Content-Length']))
    self.server.objects[self.path] = body
    time.sleep(self.server.put_delay)
    reply = json.dumps({'name': self.path, 'size': len(body)}).encode()
    self.send_response(200)
    self.send_header('Content-Length', str(len(reply)))
    self.end_headers()
    self.wfile.flush()
    time.sleep(self.server.reply_body_delay)
    self.wfile.write(reply)

  def do_GET(self):  # pylint: disable=invalid-name
    body = self.server.objects.get(self.path)
    if body is None:
      self.send_error(404)
      return
    self.send_response(200)
    self.send_header('Content-Length', str(len(body)))
    self.end_headers()
    self.wfile.flush()
    time.sleep(self.server.body_delay)
    self.wfile.write(body)


class _Server(http.server.ThreadingHTTPServer):
  daemon_threads = True

  def __init__(self):
    super().__init__(('127.0.0.1', 0), _Handler)
    self.objects = {}
    self.body_delay = 0.0
    self.put_delay = 0.0
    self.reply_body_delay = 0.0


class _Connection:
  """One pooled keep-alive HTTP connection, like an SDK's transport."""

  def __init__(self, server):
    self._address = server.server_address
    self._conn = None
    self.closes = 0

  def Request(self, method, path, body=None):
    if self._conn is None:
      self._conn = http.client.HTTPConnection(*self._address)
    self._conn.request(method, path, body=body)
    response = self._conn.getresponse()
    data = response.read()
    if response.status != 200:
      raise RuntimeError(f'{method} {path}: HTTP {response.status}')
    return data

  def close(self):
    self.closes += 1
    if self._conn is not None:
      self._conn.close()
      self._conn = None


def _Write(file_obj, data, chunk=64 << 10):
  for i in range(0, len(data), chunk):
    file_obj.write(data[i : i + chunk])


def _Config(provider, **overrides):
  cfg = {
      'provider': provider,
      'bucket': 'cloud-report-os-test',
      'region': 'us-east1',
      'prefix': 'cr/',
      'endpoint': None,
      'latency_requests': 2,
      'latency_object_bytes': 1,
      'sizes': [1024, 256 << 10],
      'downloads_per_size': 2,
      'concurrency': [2],
      'concurrency_rounds': 1,
      'concurrency_object_bytes': 64 << 10,
  }
  cfg.update(overrides)
  return cfg


def _Run(cfg, adapter_factory=None):
  out = io.StringIO()
  rc = worker.Run(cfg, out, adapter_factory)
  return rc, out.getvalue()


class _ServerTestCase(absltest.TestCase):

  def setUp(self):
    super().setUp()
    self.server = _Server()
    thread = threading.Thread(target=self.server.serve_forever, daemon=True)
    thread.start()
    self.addCleanup(self.server.server_close)
    self.addCleanup(self.server.shutdown)


class GcsPathTest(_ServerTestCase):
  """GCS: storage.Client is a mock whose blobs move bytes over HTTP."""

  def setUp(self):
    super().setUp()
    self.credentials = mock.Mock(name='credentials')
    self.enter_context(
        mock.patch.object(
            google.auth, 'default', return_value=(self.credentials, 'proj')
        )
    )
    self.clients = []
    self.blobs = []
    self.client_class = self.enter_context(
        mock.patch.object(storage, 'Client', side_effect=self._NewClient)
    )

  def _NewClient(self, **kwargs):
    client = mock.create_autospec(_GCS_CLIENT, instance=True)
    client._http = _Connection(self.server)
    buckets = {}
    client.bucket.side_effect = lambda name: buckets.setdefault(
        name, self._Bucket(client, name)
    )
    self.clients.append(client)
    return client

  def _Bucket(self, client, name):
    bucket = mock.create_autospec(storage.Bucket, instance=True)
    bucket.blob.side_effect = lambda key: self._Blob(client, name, key)
    return bucket

  def _Blob(self, client, bucket, key):
    blob = mock.create_autospec(storage.Blob, instance=True)
    path = f'/{bucket}/{key}'
    blob.upload_from_string.side_effect = (
        lambda data, **kw: client._http.Request('PUT', path, data)
    )
    blob.download_to_file.side_effect = lambda f, **kw: _Write(
        f, client._http.Request('GET', path)
    )
    blob.delete.side_effect = lambda: self.server.objects.pop(path)
    self.blobs.append(blob)
    return blob

  def testRunsEveryWorkloadThroughTheSdk(self):
    rc, text = _Run(_Config('gcs'))
    self.assertEqual(rc, 0, text[-500:])
    result = ttfb.Parse(text)
    self.assertFalse(result.partial)
    self.assertEqual(result.header.sdk, 'google-cloud-storage')
    self.assertEqual(result.header.sdk_version, storage.__version__)
    self.assertTrue(all(r.ok and r.src == 'http' for r in result.requests))
    # 2 latency requests x 2 ops x 2 connections, 2 sizes x 2 x 2 ops, and
    # one round of 2 simultaneous PUTs and GETs.
    self.assertLen(result.requests, 8 + 8 + 4)
    for kwargs in self.client_class.call_args_list:
      self.assertEqual(kwargs.kwargs['project'], 'proj')
      self.assertIs(kwargs.kwargs['credentials'], self.credentials)
    # Every object the worker wrote was deleted through the SDK.
    self.assertEqual(self.server.objects, {})

  def testAnEndpointIsAnonymousAndNeverLooksForCredentials(self):
    google.auth.default.side_effect = AssertionError('credentials looked up')
    rc, text = _Run(
        _Config(
            'gcs',
            latency_requests=1,
            sizes=[],
            concurrency=[],
            endpoint='http://127.0.0.1:4443',
        )
    )
    self.assertEqual(rc, 0, text[-500:])
    google.auth.default.assert_not_called()
    for call in self.client_class.call_args_list:
      self.assertIsInstance(
          call.kwargs['credentials'], google_credentials.AnonymousCredentials
      )
      self.assertIsNone(call.kwargs['project'])
      self.assertEqual(
          call.kwargs['client_options'],
          {'api_endpoint': 'http://127.0.0.1:4443'},
      )

  def testNoClientSideChecksum(self):
    _Run(_Config('gcs', latency_requests=1, sizes=[], concurrency=[]))
    calls = [
        c
        for b in self.blobs
        for c in (
            b.upload_from_string.call_args_list
            + b.download_to_file.call_args_list
        )
    ]
    self.assertNotEmpty(calls)
    for call in calls:
      self.assertIsNone(call.kwargs['checksum'])

  def testNewConnectionClosesThePoolOfAWarmClient(self):
    rc, text = _Run(_Config('gcs', sizes=[], concurrency=[]))
    self.assertEqual(rc, 0)
    latency = ttfb.Parse(text).requests
    new = [r for r in latency if r.want == 'new']
    reused = [r for r in latency if r.want == 'reused']
    self.assertTrue(all(r.connects == 1 and r.conn == 'new' for r in new))
    self.assertTrue(all(r.connects == 0 and r.conn == 'reused' for r in reused))
    # Two warm clients (new, reused); the new one's pool closed per request.
    self.assertLen(self.clients, 2)
    self.assertGreaterEqual(self.clients[0]._http.closes, 4)

  def testGetTtfbIsTheFirstBodyByteNotTheHeaders(self):
    self.server.body_delay = 0.15
    rc, text = _Run(
        _Config('gcs', latency_requests=1, sizes=[], concurrency=[])
    )
    self.assertEqual(rc, 0)
    for r in ttfb.Parse(text).requests:
      if r.op == 'get':
        self.assertGreaterEqual(r.ttfb_ms, 150)

  def testPutTtfbIsTheFirstResponseByteAfterTheBody(self):
    self.server.put_delay = 0.12
    self.server.reply_body_delay = 0.1
    rc, text = _Run(
        _Config('gcs', latency_requests=1, sizes=[], concurrency=[])
    )
    self.assertEqual(rc, 0)
    puts = [r for r in ttfb.Parse(text).requests if r.op == 'put']
    self.assertLen(puts, 2)
    for r in puts:
      self.assertGreaterEqual(r.ttfb_ms, 120)
      # The response body (GCS's JSON) came 100 ms after the first byte.
      self.assertGreaterEqual(r.total_ms - r.ttfb_ms, 90)


class AzurePathTest(_ServerTestCase):
  """Azure: BlobServiceClient is a mock whose blobs move bytes over HTTP."""

  def setUp(self):
    super().setUp()
    self.clients = []
    self.downloads = []
    self.deleted = []
    self.service_class = self.enter_context(
        mock.patch.object(
            azure_blob, 'BlobServiceClient', side_effect=self._NewClient
        )
    )

  def _NewClient(self, account_url, credential):
    del account_url, credential
    client = mock.create_autospec(_AZURE_SERVICE, instance=True)
    conn = _Connection(self.server)
    client.close.side_effect = conn.close
    client.get_blob_client.side_effect = lambda c, k: self._Blob(conn, c, k)
    container = mock.create_autospec(azure_blob.ContainerClient, instance=True)
    container.delete_blobs.side_effect = lambda *keys: self.deleted.append(keys)
    client.get_container_client.return_value = container
    self.clients.append(client)
    return client

  def _Blob(self, conn, container, key):
    blob = mock.create_autospec(azure_blob.BlobClient, instance=True)
    path = f'/{container}/{key}'
    blob.upload_blob.side_effect = lambda data, **kw: conn.Request(
        'PUT', path, data
    )

    def Download(**kwargs):
      del kwargs
      downloader = mock.create_autospec(
          azure_blob.StorageStreamDownloader, instance=True
      )
      downloader.readinto.side_effect = lambda f: _Write(
          f, conn.Request('GET', path)
      )
      return downloader

    blob.download_blob.side_effect = Download
    self.downloads.append(blob.download_blob)
    return blob

  def testRunsEveryWorkloadThroughTheSdk(self):
    cfg = _Config('azure', azure_account='pkbabs', azure_key='a2V5')
    rc, text = _Run(cfg)
    self.assertEqual(rc, 0, text[-500:])
    result = ttfb.Parse(text)
    self.assertEqual(result.header.sdk, 'azure-storage-blob')
    self.assertTrue(all(r.ok and r.src == 'http' for r in result.requests))
    for call in self.service_class.call_args_list:
      self.assertEqual(
          call.kwargs['account_url'], 'https://pkbabs.blob.core.windows.net'
      )
      self.assertEqual(
          call.kwargs['credential'],
          {'account_name': 'pkbabs', 'account_key': 'a2V5'},
      )
    # Single-connection downloads, so a first byte is one request's.
    for download in self.downloads:
      for call in download.call_args_list:
        self.assertEqual(call.kwargs, {'max_concurrency': 1})
    deleted = {k for keys in self.deleted for k in keys}
    self.assertEqual(deleted, {p.split('/', 2)[2] for p in self.server.objects})

  def testNewVersusReusedConnections(self):
    cfg = _Config(
        'azure', azure_account='a', azure_key='k', sizes=[], concurrency=[]
    )
    rc, text = _Run(cfg)
    self.assertEqual(rc, 0)
    for r in ttfb.Parse(text).requests:
      self.assertEqual(r.connects, 1 if r.want == 'new' else 0, r)
      self.assertEqual(r.conn, r.want)

  def testEndpointOverridesTheAccountUrl(self):
    cfg = _Config(
        'azure',
        azure_account='a',
        azure_key='k',
        latency_requests=1,
        sizes=[],
        concurrency=[],
        endpoint='http://127.0.0.1:10000/a',
    )
    _Run(cfg)
    self.assertEqual(
        self.service_class.call_args.kwargs['account_url'],
        'http://127.0.0.1:10000/a',
    )


class _MemoryAdapter:
  """An SDK without HTTP: no hook sees it, so timings come from the sink."""

  sdk = ('memory', '0')

  def __init__(self, cfg, fail=None):
    self.objects = {}
    self._fail = fail or (lambda op, key: None)
    self.bucket = cfg['bucket']

  def NewClient(self):
    return object()

  def DropConnections(self, client):
    raise AttributeError('no pool')

  def Put(self, client, key, data):
    self._fail('put', key)
    self.objects[key] = data

  def Get(self, client, key, sink):
    self._fail('get', key)
    sink.write(
        self.objects[key][:-1] if key.endswith('short') else self.objects[key]
    )

  def Delete(self, client, keys):
    for k in keys:
      self.objects.pop(k, None)


class FallbackAndErrorsTest(absltest.TestCase):

  def testWithoutHttpTheSdkTimesAreUsed(self):
    rc, text = _Run(_Config('s3'), _MemoryAdapter)
    self.assertEqual(rc, 0)
    result = ttfb.Parse(text)
    self.assertTrue(all(r.src == 'sdk' for r in result.requests))
    # No HTTP seen: the wanted connection kind is reported as such.
    self.assertTrue(all(r.conn == r.want for r in result.requests))
    news = [json.loads(l) for l in text.splitlines() if '"want": "new"' in l]
    self.assertTrue(all(n['how'] == 'new_client' for n in news))

  def testFailedRequestsAreRecordedAndTheRunGoesOn(self):
    def Fail(op, key):
      if op == 'get' and key.endswith('000001'):
        raise RuntimeError('503 SlowDown')

    rc, text = _Run(_Config('s3'), lambda cfg: _MemoryAdapter(cfg, Fail))
    self.assertEqual(rc, 0)
    result = ttfb.Parse(text)
    failed = [r for r in result.requests if not r.ok]
    self.assertLen(failed, 2)  # the new and the reused connection's object
    self.assertEqual(failed[0].error, 'RuntimeError: 503 SlowDown')
    self.assertFalse(result.partial)

  def testConsecutiveFailuresAbort(self):
    def Fail(op, key):
      if op == 'put' and '/latency/' in key:
        raise ConnectionError('refused')

    rc, text = _Run(
        _Config('s3', latency_requests=50),
        lambda cfg: _MemoryAdapter(cfg, Fail),
    )
    self.assertEqual(rc, 3)
    self.assertIn('"kind": "abort"', text.splitlines()[-1])
    with self.assertRaisesRegex(ttfb.ParseError, 'no successful request'):
      ttfb.Parse(text)

  def testSdkSetUpFailureIsAnAbortRecord(self):
    def Broken(cfg):
      raise ImportError('No module named boto3')

    rc, text = _Run(_Config('s3'), Broken)
    self.assertEqual(rc, 3)
    self.assertEqual(
        json.loads(text),
        {'kind': 'abort', 'error': 'ImportError: No module named boto3'},
    )

  def testShortReadIsAnError(self):
    adapter = _MemoryAdapter(_Config('s3'))
    w = worker.Worker(_Config('s3'), adapter, io.StringIO())
    adapter.objects['x/short'] = b'abcd'
    record = w.Measure(object(), 'get', 'x/short', 4)
    self.assertFalse(record['ok'])
    self.assertEqual(record['error'], 'short read: got 3 of 4 bytes')


class MainTest(absltest.TestCase):

  def testConfigFileToJsonLines(self):
    cfg = self.create_tempfile(
        content=json.dumps(
            _Config('s3', latency_requests=2, sizes=[8], secret_key='s3cr3t')
        )
    )
    out = self.create_tempfile()
    with mock.patch.dict(worker.ADAPTERS, s3=_MemoryAdapter):
      rc = worker.main(['--config', cfg.full_path, '--out', out.full_path])
    self.assertEqual(rc, 0)
    result = ttfb.Parse(out.read_text())
    self.assertEqual(result.header.sdk, 'memory')
    self.assertNotIn('s3cr3t', out.read_text())

  def testAWorkerPushedWithoutItsProvidersFailsInOneLine(self):
    """A push that lost ttfb_providers.py: exit 1, one line, nothing written."""
    pushed = self.create_tempdir()
    shutil.copy(_WORKER, pushed)
    cfg = self.create_tempfile(content=json.dumps(_Config('none')))
    out = os.path.join(self.create_tempdir().full_path, 'out.jsonl')
    done = subprocess.run(
        [
            sys.executable,
            os.path.join(pushed.full_path, 'ttfb_worker.py'),
            '--config',
            cfg.full_path,
            '--out',
            out,
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    self.assertEqual(done.returncode, 1, done.stderr)
    self.assertEqual(
        done.stderr.splitlines(),
        [
            'ttfb_worker:'
            f' {os.path.join(pushed.full_path, _PROVIDERS)} is missing (it is'
            ' pushed with the worker)'
        ],
    )
    self.assertFalse(os.path.exists(out))

  def testRunsWithItsProvidersFromItsOwnDirectory(self):
    """As on the VM: the two pushed files side by side, run by path."""
    self.assertEqual(
        os.path.realpath(worker.providers.__file__),
        os.path.realpath(os.path.join(os.path.dirname(_WORKER), _PROVIDERS)),
    )
    pushed = self.create_tempdir()
    for name in ('ttfb_worker.py', _PROVIDERS):
      shutil.copy(os.path.join(os.path.dirname(_WORKER), name), pushed)
    cfg = self.create_tempfile(content=json.dumps(_Config('none')))
    out = os.path.join(self.create_tempdir().full_path, 'out.jsonl')
    done = subprocess.run(
        [
            sys.executable,
            os.path.join(pushed.full_path, 'ttfb_worker.py'),
            '--config',
            cfg.full_path,
            '--out',
            out,
        ],
        cwd=self.create_tempdir().full_path,
        capture_output=True,
        text=True,
        check=False,
    )
    self.assertEqual(done.returncode, 3, done.stderr)
    with open(out) as f:
      self.assertEqual(
          json.loads(f.read()), {'kind': 'abort', 'error': "KeyError: 'none'"}
      )


if __name__ == '__main__':
  absltest.main()
