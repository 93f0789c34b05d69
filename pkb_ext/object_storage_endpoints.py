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
"""Object storage endpoints: the phase's bucket on a service given by URL.

The object storage phase uses PKB's object storage service of the client
VM's cloud. This module gives it (its stages ask ENDPOINTS first) buckets on
any S3, GCS or Azure Blob endpoint reached by URL, such as the local cloud's
emulators (MinIO, fake-gcs-server, Azurite):

  --cloud_report_object_storage_endpoint          the URL (Azure: the
                                                  account URL);
  --cloud_report_object_storage_provider          its API: s3 (default),
                                                  gcs or azure;
  --cloud_report_object_storage_credentials_file  its credentials.

The bucket (Azure: container) is made and deleted through the provider's SDK
from the PKB host (PKB's services shell out to the clouds' CLIs, which take
no endpoint), and the worker on the VM speaks the provider's API to the
endpoint. An interpreter on the VM that already imports the SDK is used as
is.

Credentials never travel as flag values (PKB logs every flag value). They
come from the credentials file, which only its owner may read, or else from
this process's environment, under the SDKs' usual names: AWS_ACCESS_KEY_ID
and AWS_SECRET_ACCESS_KEY (s3), AZURE_STORAGE_ACCOUNT and AZURE_STORAGE_KEY
(azure), GOOGLE_CLOUD_PROJECT (gcs; an endpoint gets anonymous access). They
reach the worker in its config file, which is private to the VM user and
removed after the run. An unreachable endpoint or wrong keys fail at bucket
creation, naming the provider and the endpoint.
"""

import dataclasses
import logging
import os
import stat
from urllib import parse as urlparse

from absl import flags

from pkb_ext.suite.object_storage import buckets
from pkb_ext.suite.object_storage import params as params_lib
from pkb_ext.suite.object_storage import worker

# Credential names in the credentials file and the environment.
CREDENTIAL_NAMES = {
    'AWS_ACCESS_KEY_ID': 'access_key',
    'AWS_SECRET_ACCESS_KEY': 'secret_key',
    'AZURE_STORAGE_ACCOUNT': 'azure_account',
    'AZURE_STORAGE_KEY': 'azure_key',
    'GOOGLE_CLOUD_PROJECT': 'project',
}
# The project a GCS endpoint's client names when none is given.
DEFAULT_GCS_PROJECT = 'pkb-ext'

_ENDPOINT = flags.DEFINE_string(
    'cloud_report_object_storage_endpoint',
    None,
    'URL of an object storage endpoint that speaks '
    '--cloud_report_object_storage_provider (e.g. MinIO, fake-gcs-server or '
    'Azurite; for azure, the account URL). When set, the '
    'bucket is made with that SDK from the PKB host, instead of in the '
    "client cloud's object storage.",
)
_PROVIDER = flags.DEFINE_enum(
    'cloud_report_object_storage_provider',
    None,
    list(worker.PROVIDERS),
    'Object storage API of --cloud_report_object_storage_endpoint (default '
    "s3). Without an endpoint, the client cloud's own (AWS s3, GCP gcs, "
    'Azure azure), which this flag may only restate.',
)
_CREDENTIALS_FILE = flags.DEFINE_string(
    'cloud_report_object_storage_credentials_file',
    None,
    "File of NAME=VALUE lines with the endpoint's credentials "
    '(AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AZURE_STORAGE_ACCOUNT, '
    'AZURE_STORAGE_KEY, GOOGLE_CLOUD_PROJECT); only its owner may read it. '
    "Default: those names in PKB's environment.",
)


@dataclasses.dataclass(frozen=True)
class Credentials:
  """Endpoint credentials; repr() shows which are set, never their values."""

  access_key: str | None = dataclasses.field(default=None, repr=False)
  secret_key: str | None = dataclasses.field(default=None, repr=False)
  azure_account: str | None = None
  azure_key: str | None = dataclasses.field(default=None, repr=False)
  project: str | None = None

  def WorkerExtra(self, provider: str) -> dict:
    """The worker config's credential keys for a provider (set ones only)."""
    names = {
        's3': ('access_key', 'secret_key'),
        'gcs': ('project',),
        'azure': ('azure_account', 'azure_key'),
    }[provider]
    return {n: getattr(self, n) for n in names if getattr(self, n)}

  def Secrets(self) -> list[str]:
    return [v for v in (self.secret_key, self.azure_key) if v]


def ParseCredentials(text: str, source: str = 'credentials') -> Credentials:
  """Parses NAME=VALUE lines (# comments, blank lines); pure.

  Raises:
    ValueError: a line that is not NAME=VALUE, an unknown or repeated name,
      or half of a key pair. The message names the line, never a value.
  """
  values = {}
  for n, line in enumerate(text.splitlines(), 1):
    line = line.strip()
    if not line or line.startswith('#'):
      continue
    name, sep, value = line.partition('=')
    name = name.strip().removeprefix('export ').strip()
    if not sep or not name:
      raise ValueError(f'{source} line {n}: not NAME=VALUE')
    if name not in CREDENTIAL_NAMES:
      raise ValueError(
          f'{source} line {n}: unknown name {name!r}; use '
          + ', '.join(CREDENTIAL_NAMES)
      )
    if CREDENTIAL_NAMES[name] in values:
      raise ValueError(f'{source} line {n}: {name} given twice')
    values[CREDENTIAL_NAMES[name]] = value.strip().strip('"\'')
  return _CheckPairs(Credentials(**values), source)


def _CheckPairs(creds: Credentials, source: str) -> Credentials:
  for a, b, names in (
      ('access_key', 'secret_key', 'AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY'),
      ('azure_account', 'azure_key', 'AZURE_STORAGE_ACCOUNT/AZURE_STORAGE_KEY'),
  ):
    if bool(getattr(creds, a)) != bool(getattr(creds, b)):
      raise ValueError(f'{source}: {names} go together')
  return creds


def ReadCredentialsFile(path: str) -> Credentials:
  """Reads a credentials file that only its owner may read."""
  try:
    info = os.stat(path)
    if not stat.S_ISREG(info.st_mode):
      raise ValueError(f'{path} is not a regular file')
    if info.st_mode & 0o077:
      raise ValueError(
          f'{path} is readable by others (mode {info.st_mode & 0o777:o}): '
          f'chmod 600 {path}'
      )
    with open(path) as f:
      text = f.read()
  except OSError as e:
    raise ValueError(f'cannot read {path}: {e.strerror}') from e
  return ParseCredentials(text, path)


def CredentialsFromEnvironment(environ=None) -> Credentials:
  environ = os.environ if environ is None else environ
  values = {
      field: environ[name]
      for name, field in CREDENTIAL_NAMES.items()
      if environ.get(name)
  }
  return _CheckPairs(Credentials(**values), 'the environment')


def _CheckEndpoint(url):
  if url and urlparse.urlparse(url).scheme not in ('http', 'https'):
    raise ValueError(f'{url!r} is not an http(s) URL')


flags.register_validator(
    _ENDPOINT.name, params_lib.Validator(_ENDPOINT.name, _CheckEndpoint)
)
flags.register_validator(
    _CREDENTIALS_FILE.name,
    params_lib.Validator(
        _CREDENTIALS_FILE.name, lambda p: p and ReadCredentialsFile(p)
    ),
)


@dataclasses.dataclass(frozen=True)
class Endpoint:
  """The endpoint flags, read once."""

  url: str
  provider: str = 's3'
  credentials: Credentials = Credentials()

  @classmethod
  def FromFlags(cls) -> 'Endpoint | None':
    if not _ENDPOINT.value:
      return None
    return cls(
        url=_ENDPOINT.value,
        provider=_PROVIDER.value or 's3',
        credentials=(
            ReadCredentialsFile(_CREDENTIALS_FILE.value)
            if _CREDENTIALS_FILE.value
            else CredentialsFromEnvironment()
        ),
    )


class _EndpointBackend:
  """What every endpoint back-end shares (see buckets' docstring)."""

  reuse_installed_sdk = True

  def __init__(self, endpoint: Endpoint):
    self.endpoint = endpoint
    self.provider = endpoint.provider
    self.where = f'{endpoint.provider} at {endpoint.url}'

  def PrepareVm(self, vm) -> None:
    del vm  # the worker gets the endpoint's credentials in its config

  def WorkerExtra(self) -> dict:
    return {
        'endpoint': self.endpoint.url,
        **self.endpoint.credentials.WorkerExtra(self.provider),
    }


class S3EndpointBuckets(_EndpointBackend):
  """A bucket on an S3-compatible endpoint, through boto3 on this host."""

  def __init__(self, endpoint: Endpoint, region: str):
    super().__init__(endpoint)
    # pylint: disable=g-import-not-at-top,import-outside-toplevel
    import boto3
    from botocore import config

    creds = endpoint.credentials
    self.client = boto3.client(
        's3',
        endpoint_url=endpoint.url,
        aws_access_key_id=creds.access_key,
        aws_secret_access_key=creds.secret_key,
        region_name=region or 'us-east-1',
        config=config.Config(
            s3={'addressing_style': 'path'},
            retries={'max_attempts': 3},
            connect_timeout=10,
        ),
    )

  def Make(self, bucket: str) -> None:
    self.client.create_bucket(Bucket=bucket)

  def Delete(self, bucket: str) -> None:
    """Deletes every object, then the bucket; a missing bucket is fine."""
    try:
      pages = self.client.get_paginator('list_objects_v2').paginate(
          Bucket=bucket
      )
      for page in pages:
        keys = [{'Key': o['Key']} for o in page.get('Contents', ())]
        if keys:
          self.client.delete_objects(
              Bucket=bucket, Delete={'Objects': keys, 'Quiet': True}
          )
      self.client.delete_bucket(Bucket=bucket)
    except self.client.exceptions.NoSuchBucket:
      logging.info('object_storage: bucket %s is already gone', bucket)


class GcsEndpointBuckets(_EndpointBackend):
  """A bucket on a GCS endpoint (fake-gcs-server), anonymous, from here."""

  def __init__(self, endpoint: Endpoint, region: str):
    super().__init__(endpoint)
    # pylint: disable=g-import-not-at-top,import-outside-toplevel
    from google.auth import credentials
    from google.cloud import storage

    self._region = region
    self.client = storage.Client(
        project=endpoint.credentials.project or DEFAULT_GCS_PROJECT,
        credentials=credentials.AnonymousCredentials(),
        client_options={'api_endpoint': endpoint.url},
    )

  def Make(self, bucket: str) -> None:
    self.client.create_bucket(bucket, retry=None, timeout=30)

  def Delete(self, bucket: str) -> None:
    """Deletes every object, then the bucket; a missing bucket is fine."""
    # pylint: disable=g-import-not-at-top,import-outside-toplevel
    from google.api_core import exceptions

    try:
      handle = self.client.bucket(bucket)
      for blob in self.client.list_blobs(bucket, timeout=30):
        handle.blob(blob.name).delete(timeout=30)
      handle.delete(timeout=30)
    except exceptions.NotFound:
      logging.info('object_storage: bucket %s is already gone', bucket)


class AzureEndpointBuckets(_EndpointBackend):
  """A container on an Azure Blob endpoint (Azurite), with the shared key."""

  def __init__(self, endpoint: Endpoint, region: str):
    super().__init__(endpoint)
    del region
    # pylint: disable=g-import-not-at-top,import-outside-toplevel
    from azure.storage import blob

    creds = endpoint.credentials
    if not creds.azure_account:
      raise worker.ObjectStorageError(
          f'object storage azure at {endpoint.url}: no account: set '
          'AZURE_STORAGE_ACCOUNT and AZURE_STORAGE_KEY in '
          f'--{_CREDENTIALS_FILE.name} or the environment'
      )
    self.client = blob.BlobServiceClient(
        account_url=endpoint.url,
        credential={
            'account_name': creds.azure_account,
            'account_key': creds.azure_key,
        },
        # Storage's default backoff starts at 15 s; an unreachable endpoint
        # should fail in seconds.
        retry_total=2,
        initial_backoff=1,
        increment_base=2,
        connection_timeout=10,
    )

  def Make(self, bucket: str) -> None:
    self.client.create_container(bucket)

  def Delete(self, bucket: str) -> None:
    """Deletes the container and its blobs; a missing one is fine."""
    # pylint: disable=g-import-not-at-top,import-outside-toplevel
    from azure.core import exceptions

    try:
      self.client.delete_container(bucket)
    except exceptions.ResourceNotFoundError:
      logging.info('object_storage: container %s is already gone', bucket)


ENDPOINT_BUCKETS = {
    's3': S3EndpointBuckets,
    'gcs': GcsEndpointBuckets,
    'azure': AzureEndpointBuckets,
}


class EndpointSource:
  """The endpoint flags' back-end, which the phase's stages ask first."""

  def Serves(self) -> bool:
    return bool(_ENDPOINT.value)

  def ForVm(self, vm, region: str):
    """The endpoint's back-end; None (PKB's service) without an endpoint.

    Raises:
      ValueError: --cloud_report_object_storage_provider names another API
        than the client cloud's own, with no endpoint.
    """
    endpoint = Endpoint.FromFlags()
    if endpoint is not None:
      return ENDPOINT_BUCKETS[endpoint.provider](endpoint, region)
    own = buckets.PROVIDER_OF_CLOUD.get(vm.CLOUD)
    if _PROVIDER.value and _PROVIDER.value != own:
      raise ValueError(
          f'--{_PROVIDER.name}={_PROVIDER.value} needs --{_ENDPOINT.name}:'
          f" on {vm.CLOUD} the phase uses {own} through PKB's service"
      )
    return None


ENDPOINTS = EndpointSource()
