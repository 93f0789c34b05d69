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

Pushed to the client VM by cloud_report.object_storage and run with the
VM's python3 (3.8+) and one provider SDK: boto3 (S3 and S3-compatible
endpoints), google-cloud-storage (GCS) or azure-storage-blob.
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
Client-side checksums are off (SDK defaults differ between SDKs and versions),
so every SDK moves the same bytes.
"""

import argparse
import http.client
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
_READ_CHUNK = 1 << 20
_MAX_CONSECUTIVE_ERRORS = 20

_LOCAL = threading.local()


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


class Sink:
  """A write-only stream that counts bytes and times the first one."""

  def __init__(self):
    self.n = 0
    self.first = None

  def write(self, data):
    if data and self.first is None:
      self.first = time.perf_counter()
    self.n += len(data)
    return len(data)

  def writable(self):
    return True

  def seekable(self):
    return False

  def flush(self):
    pass


def _Close(client):
  close = getattr(client, 'close', None)
  if close:
    try:
      close()
    except Exception:  # pylint: disable=broad-except
      pass


class S3Adapter:
  """boto3; an S3-compatible endpoint gets path-style addressing."""

  def __init__(self, cfg):
    import boto3  # pylint: disable=g-import-not-at-top
    from botocore import config as botocore_config  # pylint: disable=g-import-not-at-top

    self.sdk = ('boto3', boto3.__version__)
    self.bucket = cfg['bucket']
    self._endpoint = cfg.get('endpoint')
    self._session = boto3.session.Session(
        aws_access_key_id=cfg.get('access_key'),
        aws_secret_access_key=cfg.get('secret_key'),
        region_name=cfg.get('region') or 'us-east-1',
    )
    kwargs = {'signature_version': 's3v4'}
    if self._endpoint:
      kwargs['s3'] = {'addressing_style': 'path'}
    for name in (
        'request_checksum_calculation',
        'response_checksum_validation',
    ):
      try:  # botocore >= 1.36 only; older ones never add checksums.
        botocore_config.Config(**{name: 'when_required'})
        kwargs[name] = 'when_required'
      except TypeError:
        pass
    self._config = botocore_config.Config(**kwargs)

  def NewClient(self):
    return self._session.client(
        's3', endpoint_url=self._endpoint, config=self._config
    )

  def DropConnections(self, client):
    client._endpoint.http_session.close()  # pylint: disable=protected-access

  def Put(self, client, key, data):
    client.put_object(Bucket=self.bucket, Key=key, Body=data)

  def Get(self, client, key, sink):
    body = client.get_object(Bucket=self.bucket, Key=key)['Body']
    try:
      for chunk in iter(lambda: body.read(_READ_CHUNK), b''):
        sink.write(chunk)
    finally:
      body.close()

  def Delete(self, client, keys):
    for i in range(0, len(keys), 1000):
      client.delete_objects(
          Bucket=self.bucket,
          Delete={
              'Objects': [{'Key': k} for k in keys[i : i + 1000]],
              'Quiet': True,
          },
      )


class GcsAdapter:
  """google-cloud-storage, with one set of credentials for all clients.

  With an endpoint (a GCS-compatible service) the clients are
  anonymous and google.auth.default() is never called, so no credential
  lookup or metadata server probe happens; without one they use the VM's
  default credentials (its service account).
  """

  def __init__(self, cfg):
    from google.cloud import storage  # pylint: disable=g-import-not-at-top

    self._storage = storage
    self.sdk = ('google-cloud-storage', getattr(storage, '__version__', '?'))
    self.bucket = cfg['bucket']
    if cfg.get('endpoint'):
      from google.auth import credentials  # pylint: disable=g-import-not-at-top

      self._credentials = credentials.AnonymousCredentials()
      # None (not omitted) keeps the client from looking for a project.
      self._project = cfg.get('project') or None
      self._options = {'api_endpoint': cfg['endpoint']}
    else:
      import google.auth  # pylint: disable=g-import-not-at-top

      self._credentials, project = google.auth.default()
      self._project = cfg.get('project') or project
      self._options = None

  def NewClient(self):
    return self._storage.Client(
        project=self._project,
        credentials=self._credentials,
        client_options=self._options,
    )

  def DropConnections(self, client):
    client._http.close()  # pylint: disable=protected-access

  def Put(self, client, key, data):
    client.bucket(self.bucket).blob(key).upload_from_string(
        data, content_type='application/octet-stream', checksum=None
    )

  def Get(self, client, key, sink):
    client.bucket(self.bucket).blob(key).download_to_file(sink, checksum=None)

  def Delete(self, client, keys):
    bucket = client.bucket(self.bucket)
    for key in keys:
      bucket.blob(key).delete()


class AzureAdapter:
  """azure-storage-blob with the storage account's shared key."""

  def __init__(self, cfg):
    from azure.storage import blob  # pylint: disable=g-import-not-at-top

    self._blob = blob
    self.sdk = ('azure-storage-blob', getattr(blob, '__version__', '?'))
    self.bucket = cfg['bucket']
    account = cfg['azure_account']
    # An endpoint is the account's URL (http://host:port/account).
    self._url = (
        cfg.get('endpoint') or f'https://{account}.blob.core.windows.net'
    )
    self._credential = {
        'account_name': account,
        'account_key': cfg['azure_key'],
    }

  def NewClient(self):
    return self._blob.BlobServiceClient(
        account_url=self._url, credential=self._credential
    )

  def DropConnections(self, client):
    """Closes the pooled connections; the client stays open.

    client.close() would close the transport itself, and azure-core (1.41+)
    then refuses every later request ("HTTP transport has already been
    closed"). Closing the requests session's adapters empties their pools
    instead: the next request opens a new connection.
    """
    transport = client._pipeline._transport  # pylint: disable=protected-access
    while hasattr(transport, '_transport'):  # child clients' wrappers
      transport = transport._transport  # pylint: disable=protected-access
    session = getattr(transport, 'session', None)
    if session is None:
      if not hasattr(transport, 'session'):
        raise TypeError(f'{type(transport).__name__} has no session')
      return  # not opened yet: nothing pooled
    for adapter in session.adapters.values():
      adapter.close()

  def Put(self, client, key, data):
    client.get_blob_client(self.bucket, key).upload_blob(data, overwrite=True)

  def Get(self, client, key, sink):
    blob_client = client.get_blob_client(self.bucket, key)
    blob_client.download_blob(max_concurrency=1).readinto(sink)

  def Delete(self, client, keys):
    """Deletes in batches of 256, or blob by blob where batches fail.

    The SDK puts the account in a batch's sub-request paths only for a
    localhost or 127.0.0.1 account URL, so a Blob-compatible service reached
    at any other address refuses every batch; single deletes work everywhere.
    """
    container = client.get_container_client(self.bucket)
    for i in range(0, len(keys), 256):
      chunk = keys[i : i + 256]
      try:
        container.delete_blobs(*chunk)
      except Exception:  # pylint: disable=broad-except
        for key in chunk:
          container.delete_blob(key)


ADAPTERS = {'s3': S3Adapter, 'gcs': GcsAdapter, 'azure': AzureAdapter}


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
    sink = Sink()
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
    self.adapter.Get(client, key, Sink())
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
      _Close(client)
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
        self.adapter.Get(client, warm_key, Sink())
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
      _Close(client)

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
    _Close(client)

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
        _Close(client)

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
