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
"""Time to first byte of object storage requests (runs on the test VM).

The TimeToFirstByte scenario of object_storage_api_tests.py. It times PUTs
and GETs made through a provider's ObjectStorageServiceBase (s3.py, gcs.py,
azure_service.py) and writes raw timings as one JSON object per line,
flushing each, so a killed run leaves every finished request:

  header    the settings, the provider, its SDK and the Python version;
  request   one timed PUT or GET (ok false with an error on failure);
  round     one concurrency round (N simultaneous requests);
  abort     the run stopped early, and why;
  end       the run finished, with request and error counts.

What is timed (time.perf_counter, started before the service call):
  GET ttfb_ms   until the first byte of the object's body is in the client's
                socket buffer (status line and headers already parsed);
  PUT ttfb_ms   until the final response to the request that carried the
                body (the service answers once it has it all);
  total_ms      until the service call returned (GET: whole body read).
The first byte is observed by wrapping http.client.HTTPResponse.begin, which
the SDKs of the three service interfaces reach through urllib3: after the
headers of a GET's response are read, it peeks (without consuming) until
the first body byte arrives. TCP connects are counted by wrapping connection
creation, so `connects` says whether a request opened a new connection.
Without a response seen there, the call's return is used (src "sdk").

Workloads (a 0 or empty setting skips one):
  latency      latency_requests PUTs then GETs on a new connection and on a
               reused one, interleaved, each mode with a warm service object
               of its own; before a "new" request the sockets its service
               opened are shut down, so its pool opens a new connection;
  throughput   per size, downloads_per_size PUTs, then a GET of each;
  concurrency  per level N, concurrency_rounds rounds of N simultaneous PUTs
               then GETs, one warm service object per thread.
Objects are deleted (untimed) once measured.
"""

import http.client
from importlib import metadata
import io
import json
import os
import platform
import socket
import threading
import time

from absl import flags

try:
  from urllib3.util import connection as urllib3_connection
except ImportError:  # an SDK without urllib3: http.client alone
  urllib3_connection = None

FORMAT = 'object-storage-ttfb'
VERSION = 1
MAX_CONSECUTIVE_ERRORS = 20
# The SDK each provider's service interface uses (pip distribution names).
SDKS = {
    's3': 'boto3',
    'gcs': 'google-cloud-storage',
    'azure': 'azure-storage-blob',
}

_T = 'TimeToFirstByte: '
flags.DEFINE_integer(
    'ttfb_latency_requests',
    100,
    _T + 'requests per operation and connection kind (new, reused).',
    lower_bound=0,
)
flags.DEFINE_integer(
    'ttfb_latency_object_bytes', 1, _T + 'latency object size.', lower_bound=1
)
flags.DEFINE_list(
    'ttfb_object_sizes', ['1048576'], _T + 'throughput object sizes (bytes).'
)
flags.DEFINE_integer(
    'ttfb_downloads_per_size', 10, _T + 'PUTs, then GETs, per object size.'
)
flags.DEFINE_list(
    'ttfb_concurrency', ['1', '10'], _T + 'simultaneous requests per round.'
)
flags.DEFINE_integer(
    'ttfb_concurrency_rounds', 5, _T + 'rounds per concurrency level.'
)
flags.DEFINE_integer(
    'ttfb_concurrency_object_bytes', 1048576, _T + 'concurrent object size.'
)
flags.DEFINE_string('ttfb_object_prefix', 'ttfb/', _T + 'object name prefix.')

FLAGS = flags.FLAGS
_LOCAL = threading.local()
_SOCKETS_LOCK = threading.Lock()
# id(service) -> the sockets opened while that service made a request; None
# -> those opened by threads outside any request (an SDK's own threads).
_SOCKETS = {}
# Seconds to wait for the threads an SDK starts during a warm-up.
WARM_THREAD_WAIT_S = 30


class Probe:
  """What http.client saw in this thread during one measured call."""

  def __init__(self):
    self.Reset(False)

  def Reset(self, peek_body):
    self.peek_body = peek_body
    self.connects = 0
    self.responses = 0
    self.last_headers = None
    self.first_body = None
    self.length = None


def _Probe():
  if not hasattr(_LOCAL, 'probe'):
    _LOCAL.probe = Probe()
  return _LOCAL.probe


def _HasBody(response):
  if response.status not in (200, 206) or response._method == 'HEAD':  # pylint: disable=protected-access
    return False
  return response.chunked or response.length is None or response.length > 0


def InstallHooks():
  """Wraps http.client and connection creation to time first bytes."""
  begin = http.client.HTTPResponse.begin
  if getattr(begin, 'ttfb_hook', False):
    return

  def Begin(self):
    begin(self)
    now = time.perf_counter()
    probe = _Probe()
    probe.responses += 1
    probe.last_headers = now
    probe.length = self.length
    if probe.peek_body and probe.first_body is None and _HasBody(self):
      self.fp.peek(1)
      probe.first_body = time.perf_counter()

  Begin.ttfb_hook = True
  http.client.HTTPResponse.begin = Begin

  def Counting(create):
    def Create(*args, **kwargs):
      sock = create(*args, **kwargs)
      _Probe().connects += 1
      owner = getattr(_LOCAL, 'owner', None)
      with _SOCKETS_LOCK:
        _SOCKETS.setdefault(owner, []).append(sock)
      return sock

    return Create

  socket.create_connection = Counting(socket.create_connection)
  if urllib3_connection is not None:
    urllib3_connection.create_connection = Counting(
        urllib3_connection.create_connection
    )


def DropConnections(service):
  """Shuts down the sockets the service opened.

  Its connection pool sees them closed and opens a new connection for the
  service's next request.

  Args:
    service: an object whose requests were made through Call; None for the
      sockets opened outside any request.
  """
  with _SOCKETS_LOCK:
    sockets = _SOCKETS.pop(None if service is None else id(service), [])
  for sock in sockets:
    try:
      sock.shutdown(socket.SHUT_RDWR)
    except OSError:
      pass  # already closed


def Call(service, method, *args):
  """service.method(*args), its new sockets recorded as the service's."""
  _LOCAL.owner = id(service)
  try:
    return getattr(service, method)(*args)
  finally:
    _LOCAL.owner = None


def Ms(seconds):
  return round(seconds * 1000.0, 4)


def Timings(op, t0, end, probe):
  """(ttfb_ms, src) of a call that started at t0 and returned at end."""
  first = probe.first_body if op == 'get' else probe.last_headers
  return (Ms(end - t0), 'sdk') if first is None else (Ms(first - t0), 'http')


class Aborted(Exception):
  """Too many consecutive failures."""


class Runner:
  """Runs the workloads through service objects; one JSON line per event."""

  def __init__(self, new_service, bucket, out, settings):
    self.new_service = new_service
    self.bucket = bucket
    self.settings = settings
    self._out = out
    self._lock = threading.Lock()
    self.requests = 0
    self.errors = 0
    self.rounds = 0
    self._consecutive = 0
    self._warm = 0

  def Emit(self, record):
    with self._lock:
      self._out.write(json.dumps(record, sort_keys=True) + '\n')
      self._out.flush()

  def Key(self, *parts):
    return self.settings['prefix'] + '/'.join(str(p) for p in parts)

  def Put(self, service, key, data):
    stream = io.BytesIO(data)
    Call(service, 'WriteObjectFromBuffer', self.bucket, key, stream, len(data))

  def Get(self, service, key):
    Call(service, 'ReadObject', self.bucket, key)

  def Measure(self, service, op, key, payload):
    """Times one PUT or GET of payload's size; returns its record."""
    size = len(payload)
    probe = _Probe()
    probe.Reset(peek_body=op == 'get')
    error = None
    t0 = time.perf_counter()
    try:
      if op == 'put':
        self.Put(service, key, payload)
      else:
        self.Get(service, key)
    except Exception as e:  # pylint: disable=broad-except
      error = f'{type(e).__name__}: {e}'[:500]
    end = time.perf_counter()
    probe.peek_body = False
    record = {
        'kind': 'request',
        'op': op,
        'size': size,
        'connects': probe.connects,
        'responses': probe.responses,
        'total_ms': Ms(end - t0),
    }
    if error is None and op == 'get' and probe.length not in (None, size):
      error = f'short read: {probe.length} of {size} bytes'
    if error is not None:
      record.update(ok=False, error=error)
      return record
    ttfb_ms, src = Timings(op, t0, end, probe)
    record.update(ok=True, ttfb_ms=min(ttfb_ms, record['total_ms']))
    record.update(src=src, bytes=size)
    return record

  def Request(self, service, op, key, payload, want, **extra):
    """Measures and emits one request; aborts after too many failures."""
    record = self.Measure(service, op, key, payload)
    observed = 'new' if record['connects'] else 'reused'
    conn = observed if record['responses'] else want
    record.update(want=want, conn=conn, **extra)
    self.Emit(record)
    with self._lock:
      self.requests += 1
      if record['ok']:
        self._consecutive = 0
      else:
        self.errors += 1
        self._consecutive += 1
        if self._consecutive >= MAX_CONSECUTIVE_ERRORS:
          raise Aborted(
              f'{self._consecutive} consecutive failed requests, last: '
              + record['error']
          )
    return record

  def WarmService(self, data):
    """A new service object with a pooled connection, and its warm-up key.

    Threads the SDK starts during the warm-up (google-cloud-storage fetches
    a bucket's metadata in one) are waited for and the sockets they opened
    shut down, so that every connection the service pools is one it opened
    in a request (which DropConnections knows).
    """
    service = self.new_service()
    self._warm += 1
    key = self.Key('warmup', self._warm)
    before = set(threading.enumerate())
    self.Put(service, key, data)
    self.Get(service, key)
    for thread in set(threading.enumerate()) - before:
      thread.join(WARM_THREAD_WAIT_S)
    DropConnections(None)
    self.Get(service, key)
    return service, key

  def Latency(self):
    """New and reused connections, interleaved; PUTs, then GETs."""
    n = self.settings['latency_requests']
    data = b'x' * self.settings['latency_object_bytes']
    warm = {m: self.WarmService(data) for m in ('new', 'reused')}
    keys = {
        m: [self.Key('latency', m, f'{i:06d}') for i in range(n)] for m in warm
    }
    for op in ('put', 'get'):
      for service, warm_key in warm.values():
        # Re-warm: a pooled connection may have idled out.
        self.Get(service, warm_key)
      for i in range(n):
        for mode in ('new', 'reused') if i % 2 == 0 else ('reused', 'new'):
          service = warm[mode][0]
          if mode == 'new':
            DropConnections(service)
          self.Request(
              service, op, keys[mode][i], data, mode, workload='latency'
          )
    service = warm['reused'][0]
    old = keys['new'] + keys['reused'] + [k for _, k in warm.values()]
    service.DeleteObjects(self.bucket, old)

  def Throughput(self):
    """PUTs, then GETs, of each size on one warm service object."""
    service, warm_key = self.WarmService(b'x')
    for size in self.settings['sizes']:
      payload = os.urandom(size)
      keys = [
          self.Key('throughput', size, f'{i:04d}')
          for i in range(self.settings['downloads_per_size'])
      ]
      for op in ('put', 'get'):
        for key in keys:
          self.Request(
              service, op, key, payload, 'reused', workload='throughput'
          )
      service.DeleteObjects(self.bucket, keys)
    service.DeleteObjects(self.bucket, [warm_key])

  def Concurrency(self):
    size = self.settings['concurrency_object_bytes']
    payload = os.urandom(size)
    for level in self.settings['concurrency']:
      warm = [self.WarmService(b'x') for _ in range(level)]
      for r in range(self.settings['concurrency_rounds']):
        keys = [self.Key('concurrency', level, r, t) for t in range(level)]
        for op in ('put', 'get'):
          self.Round(op, level, r, payload, keys, warm)
        warm[0][0].DeleteObjects(self.bucket, keys)
      warm[0][0].DeleteObjects(self.bucket, [k for _, k in warm])

  def Round(self, op, level, r, payload, keys, warm):
    """Runs `level` simultaneous requests and emits their round record."""
    barrier = threading.Barrier(level)
    spans, failures = [None] * level, []

    def One(t):
      barrier.wait()
      start = time.perf_counter()
      try:
        record = self.Request(
            warm[t][0],
            op,
            keys[t],
            payload,
            'reused',
            workload='concurrency',
            concurrency=level,
            round=r,
        )
        if not record['ok']:
          failures.append(record['error'])
      except Exception as e:  # pylint: disable=broad-except
        failures.append(f'{type(e).__name__}: {e}')
      finally:
        spans[t] = (start, time.perf_counter())

    threads = [threading.Thread(target=One, args=(t,)) for t in range(level)]
    for t in threads:
      t.start()
    for t in threads:
      t.join()
    ok = level - len(failures)
    self.Emit({
        'kind': 'round',
        'op': op,
        'concurrency': level,
        'round': r,
        'size': len(payload),
        'requests': level,
        'errors': len(failures),
        'bytes': ok * len(payload),
        'wall_ms': Ms(max(s[1] for s in spans) - min(s[0] for s in spans)),
    })
    self.rounds += 1
    if 1 < level == len(failures):
      raise Aborted(
          f'every request of a concurrency round failed: {failures[0]}'
      )


def SettingsFromFlags():
  """The workloads' settings, from the ttfb_* flags."""
  return {
      'prefix': FLAGS.ttfb_object_prefix,
      'latency_requests': FLAGS.ttfb_latency_requests,
      'latency_object_bytes': FLAGS.ttfb_latency_object_bytes,
      'sizes': list(map(int, FLAGS.ttfb_object_sizes)),
      'downloads_per_size': FLAGS.ttfb_downloads_per_size,
      'concurrency': [int(c) for c in FLAGS.ttfb_concurrency],
      'concurrency_rounds': FLAGS.ttfb_concurrency_rounds,
      'concurrency_object_bytes': FLAGS.ttfb_concurrency_object_bytes,
  }


def Header(provider, bucket, settings, **fields):
  """The header record."""
  try:
    sdk_version = metadata.version(SDKS[provider])
  except metadata.PackageNotFoundError:
    sdk_version = '?'
  header = dict(settings, kind='header', format=FORMAT, version=VERSION)
  header.update(provider=provider, bucket=bucket, region=None, endpoint=None)
  header.update(sdk=SDKS[provider], sdk_version=sdk_version)
  return dict(header, python=platform.python_version(), **fields)


def Run(new_service, provider, bucket, out, settings, **header):
  """Runs every workload, writing JSON lines to out; returns an exit code.

  Args:
    new_service: makes a new service object (an ObjectStorageServiceBase).
    provider: 's3', 'gcs' or 'azure', for the header.
    bucket: the bucket to write to; the caller makes and deletes it.
    out: a writable text stream.
    settings: the workloads' settings (SettingsFromFlags).
    **header: more header fields: the bucket's region, the endpoint.

  Returns:
    0 when every workload ran, 3 when the run stopped early.
  """
  InstallHooks()
  started = time.perf_counter()
  runner = Runner(new_service, bucket, out, settings)
  try:
    runner.Emit(Header(provider, bucket, settings, **header))
    if settings['latency_requests']:
      runner.Latency()
    if settings['sizes'] and settings['downloads_per_size']:
      runner.Throughput()
    if settings['concurrency'] and settings['concurrency_rounds']:
      runner.Concurrency()
  except (Exception, KeyboardInterrupt, SystemExit) as e:  # pylint: disable=broad-except
    runner.Emit({'kind': 'abort', 'error': f'{type(e).__name__}: {e}'[:1000]})
    return 3
  runner.Emit({
      'kind': 'end',
      'requests': runner.requests,
      'errors': runner.errors,
      'rounds': runner.rounds,
      'elapsed_s': round(time.perf_counter() - started, 3),
  })
  return 0
