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
"""Object storage time-to-first-byte and throughput worker (runs on a VM).

Usage: python3 ttfb_worker.py --config worker.json --out ttfb.jsonl

Pushed to the client VM by cloud_report.object_storage with
ttfb_providers.py (the provider adapters, loaded from this file's directory)
and run with the VM's python3 (3.8+) and one provider SDK: boto3 (S3 and
S3-compatible endpoints), google-cloud-storage (GCS) or azure-storage-blob.
It writes one JSON object per line and flushes each, so a killed run leaves
every finished request on disk:

  header    the configuration, SDK and Python versions;
  request   one timed PUT or GET (ok false with an error on failure);
  round     one concurrency round (N simultaneous requests);
  abort     the run stopped early, and why;
  end       the run finished, with request and error counts.

It reports raw timings only; the host (cloud_report.object_storage.parser) computes
percentiles and throughput.

What is timed (time.perf_counter, started before the SDK call):
  GET ttfb_ms   until the first byte of the object's body is in the client's
                socket buffer (status line and headers already parsed);
  PUT ttfb_ms   until the first byte of the final response to the request
                that carried the body: the service can only answer after the
                whole body was sent, so this is upload + service
                acknowledgement. Interim 100-continue responses do not count;
                for a multi-request upload (GCS resumable, > 8 MiB) it is the
                response to the last request;
  total_ms      until the SDK call returned with the whole body read (GET)
                or the response handled (PUT).
The first byte is observed SDK-independently by hooking http.client, which
boto3, google-cloud-storage and azure-storage-blob all use through urllib3:
HTTPResponse.begin() is wrapped to record when the final response's status
and headers were read and, for a GET, to peek (without consuming) until the
first body byte arrives. TCP connects are counted per request by wrapping
connection creation, so `connects` says whether a request opened a new
connection (TLS handshake included) or reused a pooled one. When the hook saw
no HTTP response (an SDK not built on http.client), the first byte handed to
the sink (GET) or the call's return (PUT) is used and src says "sdk".

Workloads:
  latency      latency_requests PUTs then GETs of latency_object_bytes objects
               on a new connection (a fresh client per request, created before
               the clock starts) and on a reused one (one warm client),
               interleaved; every object is read once;
  throughput   per size, downloads_per_size PUTs of distinct objects, then a
               GET of each, on one warm client;
  concurrency  per level N, concurrency_rounds rounds of N simultaneous PUTs
               then N simultaneous GETs of concurrency_object_bytes objects,
               one warm client per thread.
Objects are deleted (untimed) once measured; the host deletes the bucket.
Client-side checksums are off (see ttfb_providers.py).
"""

import argparse
import http.client
import importlib.util
import json
import os
import platform
import signal
import socket
import sys
import threading
import time

FORMAT = 'cloud-report-ttfb'
VERSION = 1
_MAX_CONSECUTIVE_ERRORS = 20

_LOCAL = threading.local()


def _LoadProviders():
  """ttfb_providers.py, from this file's directory.

  A worker pushed without it exits 1 with one line naming the missing file
  (no traceback, no output file).
  """
  here = os.path.dirname(os.path.abspath(__file__))
  path = os.path.join(here, 'ttfb_providers.py')
  if not os.path.isfile(path):
    sys.exit(f'ttfb_worker: {path} is missing (it is pushed with the worker)')
  spec = importlib.util.spec_from_file_location('ttfb_providers', path)
  module = importlib.util.module_from_spec(spec)
  spec.loader.exec_module(module)
  return module


providers = _LoadProviders()
ADAPTERS = providers.ADAPTERS


class Probe:
  """What http.client saw in this thread during one measured call."""

  def __init__(self):
    self.Reset(False)

  def Reset(self, peek_body):
    self.peek_body = peek_body
    self.connects = 0
    self.responses = 0
    self.first_headers = None
    self.last_headers = None
    self.first_body = None


def _Probe():
  probe = getattr(_LOCAL, 'probe', None)
  if probe is None:
    probe = _LOCAL.probe = Probe()
  return probe


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
    if probe.first_headers is None:
      probe.first_headers = now
    probe.last_headers = now
    if probe.peek_body and probe.first_body is None and _HasBody(self):
      self.fp.peek(1)
      probe.first_body = time.perf_counter()

  Begin.ttfb_hook = True
  http.client.HTTPResponse.begin = Begin

  def Counting(create):
    def Create(*args, **kwargs):
      _Probe().connects += 1
      return create(*args, **kwargs)

    return Create

  socket.create_connection = Counting(socket.create_connection)
  try:
    from urllib3.util import connection  # pylint: disable=g-import-not-at-top
  except ImportError:
    return
  connection.create_connection = Counting(connection.create_connection)


class Aborted(Exception):
  """Too many consecutive failures."""


class Worker:
  """Runs the workloads and writes one JSON line per event."""

  def __init__(self, cfg, adapter, out):
    self.cfg = cfg
    self.adapter = adapter
    self._out = out
    self._lock = threading.Lock()
    self.requests = 0
    self.errors = 0
    self.rounds = 0
    self._consecutive = 0
    self._warm = 0

  def Emit(self, record):
    line = json.dumps(record, sort_keys=True) + '\n'
    with self._lock:
      self._out.write(line)
      self._out.flush()

  def Key(self, *parts):
    return self.cfg['prefix'] + '/'.join(str(p) for p in parts)

  def Measure(self, client, op, key, size, payload=None):
    """Times one PUT (payload given) or GET; returns the request record."""
    probe = _Probe()
    probe.Reset(peek_body=op == 'get')
    sink = providers.Sink()
    error = None
    t0 = time.perf_counter()
    try:
      if op == 'put':
        self.adapter.Put(client, key, payload)
      else:
        self.adapter.Get(client, key, sink)
    except Exception as e:  # pylint: disable=broad-except
      error = f'{type(e).__name__}: {e}'[:500]
    end = time.perf_counter()
    probe.peek_body = False  # only measured GETs peek
    record = {
        'kind': 'request',
        'op': op,
        'size': size,
        'connects': probe.connects,
        'responses': probe.responses,
        'total_ms': _Ms(end - t0),
    }
    if error is None and op == 'get' and sink.n != size:
      error = f'short read: got {sink.n} of {size} bytes'
    if error is not None:
      record.update(ok=False, error=error)
      return record
    if op == 'get':
      first, src = (
          (probe.first_body, 'http')
          if probe.first_body
          else (sink.first or end, 'sdk')
      )
      record['bytes'] = sink.n
    else:
      first, src = (
          (probe.last_headers, 'http') if probe.last_headers else (end, 'sdk')
      )
      record['bytes'] = len(payload)
    record.update(ok=True, ttfb_ms=_Ms(first - t0), src=src)
    return record

  def Request(self, client, op, key, size, want, payload=None, **extra):
    record = self.Measure(client, op, key, size, payload)
    seen = record['responses'] > 0
    observed = 'new' if record['connects'] else 'reused'
    record.update(want=want, conn=observed if seen else want, **extra)
    self.Emit(record)
    with self._lock:
      self.requests += 1
      if record['ok']:
        self._consecutive = 0
      else:
        self.errors += 1
        self._consecutive += 1
        if self._consecutive >= _MAX_CONSECUTIVE_ERRORS:
          raise Aborted(
              f'{self._consecutive} consecutive failed requests, last: '
              + record['error']
          )
    return record

  def WarmClient(self, data):
    """Returns a client with a pooled connection, and the warm-up key."""
    client = self.adapter.NewClient()
    self._warm += 1
    key = self.Key('warmup', self._warm)
    self.adapter.Put(client, key, data)
    self.adapter.Get(client, key, providers.Sink())
    return client, key

  def FreshConnection(self, client):
    """Returns (client, how): client's next request opens a new connection.

    The client stays warm (its SDK set-up done), only its connection pool is
    closed, so the new/reused difference is the connection set-up alone. An
    SDK without a way to close the pool gets a new client instead.
    """
    try:
      self.adapter.DropConnections(client)
      return client, 'closed_pool'
    except Exception:  # pylint: disable=broad-except
      providers.Close(client)
      return self.adapter.NewClient(), 'new_client'

  def Latency(self):
    n = self.cfg['latency_requests']
    data = b'x' * self.cfg['latency_object_bytes']
    clients = {'new': self.WarmClient(data), 'reused': self.WarmClient(data)}
    keys = {
        m: [self.Key('latency', m, f'{i:06d}') for i in range(n)]
        for m in clients
    }
    for op in ('put', 'get'):
      for mode, (client, warm_key) in clients.items():
        # Re-warm: the pooled connection may have idled out.
        self.adapter.Get(client, warm_key, providers.Sink())
      for i in range(n):
        for mode in ('new', 'reused') if i % 2 == 0 else ('reused', 'new'):
          client, extra = clients[mode][0], {}
          if mode == 'new':
            client, extra['how'] = self.FreshConnection(client)
            clients['new'] = (client, clients['new'][1])
          self.Request(
              client,
              op,
              keys[mode][i],
              len(data),
              mode,
              data,
              workload='latency',
              **extra,
          )
    client = clients['reused'][0]
    self.adapter.Delete(
        client, keys['new'] + keys['reused'] + [k for _, k in clients.values()]
    )
    for client, _ in clients.values():
      providers.Close(client)

  def Throughput(self):
    client, warm_key = self.WarmClient(b'x')
    for size in self.cfg['sizes']:
      payload = os.urandom(size)
      keys = [
          self.Key('throughput', size, f'{i:04d}')
          for i in range(self.cfg['downloads_per_size'])
      ]
      for op in ('put', 'get'):
        for key in keys:
          self.Request(
              client, op, key, size, 'reused', payload, workload='throughput'
          )
      self.adapter.Delete(client, keys)
    self.adapter.Delete(client, [warm_key])
    providers.Close(client)

  def Concurrency(self):
    size = self.cfg['concurrency_object_bytes']
    payload = os.urandom(size)
    for level in self.cfg['concurrency']:
      warm = [self.WarmClient(b'x') for _ in range(level)]
      for r in range(self.cfg['concurrency_rounds']):
        keys = [self.Key('concurrency', level, r, t) for t in range(level)]
        for op in ('put', 'get'):
          self.Round(op, level, r, size, payload, keys, warm)
        self.adapter.Delete(warm[0][0], keys)
      self.adapter.Delete(warm[0][0], [k for _, k in warm])
      for client, _ in warm:
        providers.Close(client)

  def Round(self, op, level, r, size, payload, keys, warm):
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
            size,
            'reused',
            payload,
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
        'size': size,
        'requests': level,
        'errors': len(failures),
        'bytes': ok * size,
        'wall_ms': _Ms(max(s[1] for s in spans) - min(s[0] for s in spans)),
    })
    self.rounds += 1
    if len(failures) == level and level > 1:
      raise Aborted(
          f'every request of a concurrency round failed: {failures[0]}'
      )


def _Ms(seconds):
  return round(seconds * 1000.0, 4)


def Header(cfg, adapter):
  keep = (
      'provider',
      'bucket',
      'prefix',
      'endpoint',
      'region',
      'latency_requests',
      'latency_object_bytes',
      'sizes',
      'downloads_per_size',
      'concurrency',
      'concurrency_rounds',
      'concurrency_object_bytes',
  )
  header = {k: cfg.get(k) for k in keep}
  header.update(
      kind='header',
      format=FORMAT,
      version=VERSION,
      sdk=adapter.sdk[0],
      sdk_version=adapter.sdk[1],
      python=platform.python_version(),
  )
  return header


def Run(cfg, out, adapter_factory=None):
  """Runs every workload; returns the process exit code."""
  InstallHooks()
  started = time.perf_counter()
  worker = None
  try:
    adapter = (adapter_factory or ADAPTERS[cfg['provider']])(cfg)
    worker = Worker(cfg, adapter, out)
    worker.Emit(Header(cfg, adapter))
    if cfg['latency_requests']:
      worker.Latency()
    if cfg['sizes'] and cfg['downloads_per_size']:
      worker.Throughput()
    if cfg['concurrency'] and cfg['concurrency_rounds']:
      worker.Concurrency()
  except (Exception, KeyboardInterrupt, SystemExit) as e:  # pylint: disable=broad-except
    record = {'kind': 'abort', 'error': f'{type(e).__name__}: {e}'[:1000]}
    if worker is None:
      out.write(json.dumps(record) + '\n')
      out.flush()
    else:
      worker.Emit(record)
    print(f'ttfb_worker: aborted: {record["error"]}', file=sys.stderr)
    return 3
  worker.Emit({
      'kind': 'end',
      'requests': worker.requests,
      'errors': worker.errors,
      'rounds': worker.rounds,
      'elapsed_s': round(time.perf_counter() - started, 3),
  })
  return 0


def _Terminate(signum, frame):
  del frame
  raise SystemExit(f'signal {signum}')


def main(argv=None):
  parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  parser.add_argument('--config', required=True, help='worker JSON config')
  parser.add_argument('--out', required=True, help='JSON lines output file')
  args = parser.parse_args(argv)
  with open(args.config) as f:
    cfg = json.load(f)
  signal.signal(signal.SIGTERM, _Terminate)
  with open(args.out, 'w') as out:
    return Run(cfg, out)


if __name__ == '__main__':
  sys.exit(main())
