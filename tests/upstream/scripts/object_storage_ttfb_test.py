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
"""Tests for the TimeToFirstByte scenario's timing (ttfb.py).

A local HTTP server stands in for the object store: it holds back a GET's
first body byte and a PUT's response for known delays, so the measured times
are checked against delays known by construction. It runs in a process of
its own, as a real store would (the scenario waits for the threads a warm-up
starts). The service object speaks to it through urllib3, as the providers'
SDKs do.
"""

import http.server
import io
import json
import multiprocessing
import time
import unittest

import urllib3
from perfkitbenchmarker.scripts.object_storage_api_test_scripts import ttfb

FIRST_BYTE_S = 0.15  # a GET's first body byte, after its headers
REST_S = 0.1  # the rest of a GET's body, after its first byte
PUT_S = 0.12  # a PUT's response, after its body arrived


class _Store(http.server.BaseHTTPRequestHandler):
  """An object store: PUT, GET (with the delays above) and DELETE."""

  protocol_version = 'HTTP/1.1'
  objects = {}

  def log_message(self, *args):
    del args

  def do_PUT(self):  # pylint: disable=invalid-name
    n = int(self.headers['Content-Length'])
    self.objects[self.path] = self.rfile.read(n)
    time.sleep(PUT_S)
    self.send_response(200)
    self.send_header('Content-Length', '0')
    self.end_headers()

  def do_GET(self):  # pylint: disable=invalid-name
    """Sends the headers, then the first byte, then the rest."""
    if self.path == '/objects':
      self._Send(str(len(self.objects)).encode())
      return
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
    self.wfile.write(body[:1])
    self.wfile.flush()
    time.sleep(REST_S)
    self.wfile.write(body[1:])

  def _Send(self, body):
    self.send_response(200)
    self.send_header('Content-Length', str(len(body)))
    self.end_headers()
    self.wfile.write(body)

  def do_DELETE(self):  # pylint: disable=invalid-name
    self.objects.pop(self.path, None)
    self.send_response(204)
    self.end_headers()


def _Serve(port_queue):
  server = http.server.ThreadingHTTPServer(('127.0.0.1', 0), _Store)
  port_queue.put(server.server_address[1])
  server.serve_forever()


class _Service:
  """The ObjectStorageServiceBase methods ttfb.py calls, over urllib3."""

  url = None
  fail = False  # every PUT but the warm-up ones fails

  def __init__(self):
    self.pool = urllib3.PoolManager(retries=False)

  def WriteObjectFromBuffer(self, bucket, object_name, stream, size):
    start = time.time()
    if self.fail and 'warmup' not in object_name:
      raise IOError('refused')
    stream.seek(0)
    self.pool.request(
        'PUT', f'{self.url}/{bucket}/{object_name}', body=stream.read(size)
    )
    return start, time.time() - start

  def ReadObject(self, bucket, object_name):
    start = time.time()
    response = self.pool.request('GET', f'{self.url}/{bucket}/{object_name}')
    if response.status != 200:
      raise IOError(f'GET {object_name}: {response.status}')
    return start, time.time() - start

  def DeleteObjects(self, bucket, objects_to_delete):
    for name in objects_to_delete:
      self.pool.request('DELETE', f'{self.url}/{bucket}/{name}')


def _Settings(**kw):
  """Settings that skip every workload but those given."""
  settings = {
      'prefix': 'p/',
      'latency_requests': 0,
      'latency_object_bytes': 1,
      'sizes': [],
      'downloads_per_size': 0,
      'concurrency': [],
      'concurrency_rounds': 0,
      'concurrency_object_bytes': 1,
  }
  settings.update(kw)
  return settings


class TimeToFirstByteTest(unittest.TestCase):
  """Runs the scenario against the store."""

  @classmethod
  def setUpClass(cls):
    super().setUpClass()
    context = multiprocessing.get_context('fork')
    port_queue = context.Queue()
    cls.server = context.Process(target=_Serve, args=(port_queue,))
    cls.server.start()
    _Service.url = f'http://127.0.0.1:{port_queue.get(timeout=30)}'

  @classmethod
  def tearDownClass(cls):
    cls.server.terminate()
    cls.server.join()
    super().tearDownClass()

  def setUp(self):
    super().setUp()
    _Service.fail = False

  def _StoredObjects(self):
    return int(urllib3.request('GET', _Service.url + '/objects').data)

  def _Run(self, **settings):
    """The scenario's exit code and records."""
    out = io.StringIO()
    rc = ttfb.Run(_Service, 's3', 'b', out, _Settings(**settings))
    records = [json.loads(line) for line in out.getvalue().splitlines()]
    return rc, records

  def _Requests(self, records, **match):
    """The request records with the given fields."""
    return [
        r
        for r in records
        if r['kind'] == 'request'
        and all(r.get(k) == v for k, v in match.items())
    ]

  def testGetTtfbIsTheFirstBodyByteAndPutTtfbTheResponse(self):
    """Each time is at least its known delay, and below the total."""
    stored = self._StoredObjects()
    rc, records = self._Run(prefix='g/', sizes=[1000], downloads_per_size=2)
    self.assertEqual(rc, 0)
    self.assertEqual(records[0]['format'], ttfb.FORMAT)
    gets = self._Requests(records, op='get')
    puts = self._Requests(records, op='put')
    self.assertEqual(len(gets), 2)
    self.assertEqual(len(puts), 2)
    for get in gets:
      self.assertTrue(get['ok'], get)
      self.assertEqual(get['src'], 'http')
      self.assertEqual(get['bytes'], 1000)
      self.assertGreaterEqual(get['ttfb_ms'], FIRST_BYTE_S * 1000)
      self.assertLess(get['ttfb_ms'], FIRST_BYTE_S * 1000 + 90)
      self.assertGreaterEqual(get['total_ms'], (FIRST_BYTE_S + REST_S) * 1000)
    for put in puts:
      self.assertTrue(put['ok'], put)
      self.assertGreaterEqual(put['ttfb_ms'], PUT_S * 1000)
      self.assertLessEqual(put['ttfb_ms'], put['total_ms'])
    self.assertEqual(
        records[-1],
        dict(records[-1], kind='end', requests=4, errors=0, rounds=0),
    )
    self.assertEqual(self._StoredObjects(), stored, 'objects are deleted')

  def testNewConnectionModeOpensOneAndReusedModeNone(self):
    rc, records = self._Run(latency_requests=3)
    self.assertEqual(rc, 0)
    for op in ('put', 'get'):
      new = self._Requests(records, op=op, want='new')
      reused = self._Requests(records, op=op, want='reused')
      self.assertEqual(len(new), 3)
      self.assertEqual(len(reused), 3)
      self.assertEqual(
          [(r['connects'], r['conn']) for r in new], [(1, 'new')] * 3
      )
      self.assertEqual(
          [(r['connects'], r['conn']) for r in reused], [(0, 'reused')] * 3
      )

  def testConcurrencyRounds(self):
    """A round record per operation, level and round; requests overlap."""
    rc, records = self._Run(
        concurrency=[1, 3], concurrency_rounds=2, concurrency_object_bytes=10
    )
    self.assertEqual(rc, 0)
    rounds = [r for r in records if r['kind'] == 'round']
    self.assertEqual(
        [(r['op'], r['concurrency'], r['round'], r['bytes']) for r in rounds],
        [
            ('put', 1, 0, 10),
            ('get', 1, 0, 10),
            ('put', 1, 1, 10),
            ('get', 1, 1, 10),
            ('put', 3, 0, 30),
            ('get', 3, 0, 30),
            ('put', 3, 1, 30),
            ('get', 3, 1, 30),
        ],
    )
    self.assertEqual(len(self._Requests(records, workload='concurrency')), 16)
    # Three simultaneous GETs overlap: the round takes about one GET.
    get3 = [r for r in rounds if r['op'] == 'get' and r['concurrency'] == 3]
    for r in get3:
      self.assertLess(r['wall_ms'], 2 * (FIRST_BYTE_S + REST_S) * 1000)

  def testConsecutiveFailuresAbort(self):
    _Service.fail = True
    rc, records = self._Run(sizes=[10], downloads_per_size=30)
    self.assertEqual(rc, 3)
    self.assertEqual(records[-1]['kind'], 'abort')
    self.assertIn('consecutive failed requests', records[-1]['error'])

  def testFailedRequestIsRecorded(self):
    out = io.StringIO()
    runner = ttfb.Runner(_Service, 'b', out, _Settings())
    record = runner.Request(_Service(), 'get', 'missing', b'x', 'reused')
    self.assertFalse(record['ok'])
    self.assertIn('404', record['error'])
    self.assertEqual(runner.errors, 1)

  def testTimingsWithoutAnHttpResponseUseTheCallsReturn(self):
    probe = ttfb.Probe()
    self.assertEqual(ttfb.Timings('get', 1.0, 1.25, probe), (250.0, 'sdk'))
    probe.first_body = 1.1
    probe.last_headers = 1.05
    self.assertEqual(ttfb.Timings('get', 1.0, 1.25, probe)[1], 'http')
    self.assertAlmostEqual(ttfb.Timings('get', 1.0, 1.25, probe)[0], 100.0)
    self.assertAlmostEqual(ttfb.Timings('put', 1.0, 1.25, probe)[0], 50.0)


if __name__ == '__main__':
  unittest.main()
