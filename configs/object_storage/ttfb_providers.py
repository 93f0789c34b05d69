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
"""The TTFB worker's provider adapters, one per SDK (runs on a VM).

Loaded by ttfb_worker.py from its own directory (the host pushes both
files). Each adapter is made from the worker's config and has:

  sdk                      (package name, version) for the output's header;
  bucket                   the bucket or container measured;
  NewClient()              a new SDK client (no request made);
  DropConnections(client)  closes the client's pooled connections, so its
                           next request opens a new one; raises if the SDK
                           has no way to do that;
  Put(client, key, data)   uploads one object;
  Get(client, key, sink)   downloads one object into sink (a Sink);
  Delete(client, keys)     deletes objects (untimed).

Client-side checksums are off (SDK defaults differ between SDKs and
versions), so every SDK moves the same bytes. Each SDK is imported only by
its adapter: the VM has only the measured provider's.
"""

import time

_READ_CHUNK = 1 << 20


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


def Close(client):
  """Closes an SDK client if it can be closed; a failure is ignored."""
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
