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
"""Object storage phase: time to first byte and throughput (seed study 002).

From the client VM to a bucket in the VM's region, the worker
(configs/object_storage/ttfb_worker.py, run with the VM's python3 and the
provider's SDK) times PUTs and GETs: TTFB over 1,000 small-object requests on
new and on reused connections, single-stream throughput over 100 transfers
per size from 16 KiB to 32 MiB, and aggregate throughput at 1/5/10/20
simultaneous 32 MiB transfers. cloud_report.parsers.ttfb turns its raw timings
into percentiles and throughput samples.

Buckets: on AWS, GCP and Azure the bucket is made and deleted through PKB's
object storage service layer (S3Service, GoogleCloudStorageService,
AzureBlobStorageService) in the client VM's region. With
--cloud_report_object_storage_endpoint (an S3, GCS or Azure Blob service
or emulator, such as MinIO, fake-gcs-server or Azurite) the worker speaks
--cloud_report_object_storage_provider (s3, gcs or azure; s3 by default)
to that endpoint, and the bucket (Azure: container) is made and deleted
through the same provider's SDK from the PKB host: PKB's services shell out
to the clouds' CLIs, which PKB's host may not have and which take no
endpoint.

Credentials never travel as flag values (PKB logs every flag value). For an
endpoint they come from --cloud_report_object_storage_credentials_file, a
file only its owner may read, or else from this process's environment, under
the SDKs' usual names: AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (s3),
AZURE_STORAGE_ACCOUNT and AZURE_STORAGE_KEY (azure), GOOGLE_CLOUD_PROJECT
(gcs; an endpoint gets anonymous access). They reach the worker in its
config file, which is private to the VM user and removed after the run.

Errors that stop the phase are one line naming the provider and where it
was reached (the endpoint, or the cloud's service and region): an
unreachable endpoint or wrong keys fail at bucket creation, a bucket that
vanished fails the worker.

Credentials: the worker on the client VM uses the VM's own. On AWS that is
the instance profile (--aws_ec2_instance_profile), on GCP the VM's service
account with a scope that writes objects (--gcloud_scopes=storage-rw); on
Azure the worker gets the storage account's key. CheckPrerequisites refuses a
run without them before anything is provisioned, and Prepare runs the
service's PrepareVM on AWS and GCP as PKB's object_storage_service benchmark
does (on AWS it refuses a VM without an instance profile).

The bucket lives inside Run: made, used, then emptied and deleted in a
`finally`, so a failure mid-run (worker killed, SSH lost, parse error) still
removes every object and the bucket; a bucket whose deletion failed is
retried by Cleanup. If the worker stops early, the samples of what it
finished carry partial: true and a cloud_report_phase_error sample says why;
output with no usable request fails the phase.
"""

import dataclasses
import importlib
import json
import logging
import os
import re
import stat
import tempfile
from urllib import parse as urlparse

from absl import flags
from perfkitbenchmarker import flags as pkb_flags  # pylint: disable=unused-import
from perfkitbenchmarker import errors
from perfkitbenchmarker import vm_util

from pkb_cloud_report.benchmarks.cloud_report import remote
from pkb_cloud_report.benchmarks.cloud_report import samples as samples_lib
from pkb_cloud_report.benchmarks.cloud_report.parsers import ttfb
from pkb_cloud_report.benchmarks.cloud_report import topology as topology_lib
from pkb_cloud_report.benchmarks.cloud_report.samples import object_storage as os_samples

PHASE = 'object_storage'
WORK_DIR = 'cloud_report_object_storage'
WORKER_DATA = 'object_storage/ttfb_worker.py'
# The study's object sizes: powers of two from 16 KiB to 32 MiB.
DEFAULT_SIZES = [f'{2**k}KiB' for k in range(4, 10)] + [
    f'{2**k}MiB' for k in range(0, 6)
]
_PROVIDER_OF_CLOUD = {'AWS': 's3', 'GCP': 'gcs', 'Azure': 'azure'}
_SERVICE_MODULE = {
    'AWS': 'perfkitbenchmarker.providers.aws.s3',
    'GCP': 'perfkitbenchmarker.providers.gcp.gcs',
    'Azure': 'perfkitbenchmarker.providers.azure.azure_blob_storage',
}
_SDK_IMPORT = {
    's3': 'boto3',
    'gcs': 'google.cloud.storage',
    'azure': 'azure.storage.blob',
}
PROVIDERS = ('s3', 'gcs', 'azure')
# Pinned SDKs the worker needs, per provider (pip requirements in configs/).
REQUIREMENTS_DATA = 'object_storage/requirements-{provider}.txt'
# Credential names in the credentials file and the environment.
CREDENTIAL_NAMES = {
    'AWS_ACCESS_KEY_ID': 'access_key',
    'AWS_SECRET_ACCESS_KEY': 'secret_key',
    'AZURE_STORAGE_ACCOUNT': 'azure_account',
    'AZURE_STORAGE_KEY': 'azure_key',
    'GOOGLE_CLOUD_PROJECT': 'project',
}
_UNITS = {'': 1, 'b': 1, 'kib': 1 << 10, 'mib': 1 << 20, 'gib': 1 << 30}
_SIZE = re.compile(r'^\s*(\d+)\s*([a-zA-Z]*)\s*$')

_LATENCY_REQUESTS = flags.DEFINE_integer(
    'cloud_report_object_storage_latency_requests',
    1000,
    'TTFB requests per operation (PUT, GET) and per connection kind (new, '
    'reused); 0 skips the latency workload.',
    lower_bound=0,
)
_LATENCY_OBJECT_BYTES = flags.DEFINE_integer(
    'cloud_report_object_storage_latency_object_bytes',
    1,
    "Object size of the TTFB requests (the study used PKB's one-byte "
    'read/write test).',
    lower_bound=1,
)
_SIZES = flags.DEFINE_list(
    'cloud_report_object_storage_sizes',
    DEFAULT_SIZES,
    'Object sizes of the single-stream throughput workload, as bytes or with '
    'a KiB/MiB/GiB suffix; empty skips it.',
)
_DOWNLOADS = flags.DEFINE_integer(
    'cloud_report_object_storage_downloads_per_size',
    100,
    'Uploads, then downloads, per object size (each object read once); 0 '
    'skips the throughput workload.',
    lower_bound=0,
)
_CONCURRENCY = flags.DEFINE_list(
    'cloud_report_object_storage_concurrency',
    ['1', '5', '10', '20'],
    'Simultaneous transfers for the aggregate throughput workload; empty '
    'skips it.',
)
_ROUNDS = flags.DEFINE_integer(
    'cloud_report_object_storage_concurrency_rounds',
    20,
    'Rounds (replicates) per concurrency level.',
    lower_bound=1,
)
_CONCURRENCY_SIZE = flags.DEFINE_string(
    'cloud_report_object_storage_concurrency_object_size',
    '32MiB',
    'Object size of the concurrency workload.',
)
_PREFIX = flags.DEFINE_string(
    'cloud_report_object_storage_prefix',
    'cloud-report-2021/',
    'Prefix of every object name the worker writes.',
)
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
    list(PROVIDERS),
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
_PYTHON = flags.DEFINE_string(
    'cloud_report_object_storage_python',
    'python3',
    'Python interpreter on the client VM that runs the worker.',
)


def ParseSize(text: str) -> int:
  """Returns the bytes of '16KiB', '32MiB', '1GiB' or '4096'."""
  m = _SIZE.match(str(text))
  if not m or m.group(2).lower() not in _UNITS:
    raise ValueError(
        f'bad object size {text!r}: use bytes or a KiB, MiB or GiB suffix'
    )
  size = int(m.group(1)) * _UNITS[m.group(2).lower()]
  if size < 1:
    raise ValueError(f'object size {text!r} must be at least 1 byte')
  return size


def _Checker(name, check):
  def Check(value):
    try:
      check(value)
    except ValueError as e:
      raise flags.ValidationError(f'--{name}: {e}') from e
    return True

  flags.register_validator(name, Check)


def _CheckLevels(values):
  for v in values or ():
    if not str(v).isdigit() or int(v) < 1:
      raise ValueError(f'concurrency levels are integers >= 1, got {v!r}')


def _CheckPrefix(prefix):
  if prefix.startswith('/') or '..' in prefix.split('/') or len(prefix) > 512:
    raise ValueError(f'{prefix!r} is not a relative object name prefix')


def _CheckEndpoint(url):
  if url and urlparse.urlparse(url).scheme not in ('http', 'https'):
    raise ValueError(f'{url!r} is not an http(s) URL')


_Checker(_SIZES.name, lambda v: [ParseSize(s) for s in v or ()])
_Checker(_CONCURRENCY.name, _CheckLevels)
_Checker(_CONCURRENCY_SIZE.name, ParseSize)
_Checker(_PREFIX.name, _CheckPrefix)
_Checker(_ENDPOINT.name, _CheckEndpoint)
_Checker(_CREDENTIALS_FILE.name, lambda p: p and ReadCredentialsFile(p))


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


@dataclasses.dataclass(frozen=True)
class Params:
  """The phase's flags, read once."""

  latency_requests: int = 1000
  latency_object_bytes: int = 1
  sizes: tuple[int, ...] = tuple(ParseSize(s) for s in DEFAULT_SIZES)
  downloads_per_size: int = 100
  concurrency: tuple[int, ...] = (1, 5, 10, 20)
  concurrency_rounds: int = 20
  concurrency_object_bytes: int = 32 << 20
  prefix: str = 'cloud-report-2021/'
  endpoint: str | None = None
  provider: str | None = None
  credentials: Credentials = Credentials()
  python: str = 'python3'

  @classmethod
  def FromFlags(cls) -> 'Params':
    return cls(
        latency_requests=_LATENCY_REQUESTS.value,
        latency_object_bytes=_LATENCY_OBJECT_BYTES.value,
        sizes=tuple(ParseSize(s) for s in _SIZES.value or ()),
        downloads_per_size=_DOWNLOADS.value,
        concurrency=tuple(int(c) for c in _CONCURRENCY.value or ()),
        concurrency_rounds=_ROUNDS.value,
        concurrency_object_bytes=ParseSize(_CONCURRENCY_SIZE.value),
        prefix=_PREFIX.value,
        endpoint=_ENDPOINT.value or None,
        provider=_PROVIDER.value,
        credentials=(
            ReadCredentialsFile(_CREDENTIALS_FILE.value)
            if _CREDENTIALS_FILE.value
            else CredentialsFromEnvironment()
        ),
        python=_PYTHON.value,
    )


# Scopes (gcloud's short names and full URLs) that let a GCE VM's service
# account write objects; gcloud's default scopes only read them.
GCS_WRITE_SCOPES = frozenset({
    'storage-rw',
    'storage-full',
    'cloud-platform',
    'https://www.googleapis.com/auth/devstorage.read_write',
    'https://www.googleapis.com/auth/devstorage.full_control',
    'https://www.googleapis.com/auth/cloud-platform',
})
_PREPARE_VM_PROVIDERS = ('s3', 'gcs')


def CredentialProblems(
    cloud: str,
    static: bool,
    endpoint: str | None,
    instance_profile: str | None,
    gcloud_scopes: str | None,
) -> list[str]:
  """What keeps the worker on a client VM from writing objects (pure).

  Args:
    cloud: the client vm_group's cloud.
    static: the client is a static VM (--static_vm_file).
    endpoint: --cloud_report_object_storage_endpoint.
    instance_profile: --aws_ec2_instance_profile.
    gcloud_scopes: --gcloud_scopes.

  Returns:
    One message per problem, each naming the flag that fixes it.
  """
  if endpoint:
    return []
  if static or cloud not in _PROVIDER_OF_CLOUD:
    return [
        f'a {"static VM" if static else cloud} client has no cloud object'
        f' storage; set --{_ENDPOINT.name} to an S3-compatible endpoint'
    ]
  if cloud == 'AWS' and not instance_profile:
    return [
        'the worker on the AWS client VM has no credentials for S3; set'
        ' --aws_ec2_instance_profile to an instance profile allowed to'
        ' create, write, read and delete buckets'
    ]
  if cloud == 'GCP':
    scopes = {s for s in re.split(r'[,; ]', gcloud_scopes or '') if s}
    if not scopes & GCS_WRITE_SCOPES:
      return [
          'the GCP client VM can only read Cloud Storage with'
          f' {"--gcloud_scopes=" + gcloud_scopes if scopes else "gcloud"}'
          "'s default scopes, so every PUT fails with 403; set"
          ' --gcloud_scopes=storage-rw (or cloud-platform)'
      ]
  return []


def CheckPrerequisites(benchmark_config) -> list[str]:
  """Preflight: problems with the object storage credentials (no I/O)."""
  group = (benchmark_config.vm_groups or {}).get('client')
  if group is None:
    return []
  return CredentialProblems(
      str(group.cloud),
      bool(getattr(group, 'static_vms', None))
      or bool(flags.FLAGS['static_vm_file'].value),
      _ENDPOINT.value,
      flags.FLAGS['aws_ec2_instance_profile'].value
      if 'aws_ec2_instance_profile' in flags.FLAGS
      else None,
      flags.FLAGS['gcloud_scopes'].value
      if 'gcloud_scopes' in flags.FLAGS
      else None,
  )


def ProviderOf(vm, params: Params) -> str:
  """Returns s3, gcs or azure: the endpoint's protocol or the VM's cloud."""
  if params.endpoint:
    return params.provider or 's3'
  if vm.CLOUD not in _PROVIDER_OF_CLOUD:
    raise ValueError(
        'the object storage phase has no object storage for cloud '
        f'{vm.CLOUD!r}; set --{_ENDPOINT.name} (and --{_PROVIDER.name}) to '
        'an object storage endpoint'
    )
  own = _PROVIDER_OF_CLOUD[vm.CLOUD]
  if params.provider and params.provider != own:
    raise ValueError(
        f'--{_PROVIDER.name}={params.provider} needs --{_ENDPOINT.name}: on '
        f"{vm.CLOUD} the phase uses {own} through PKB's service"
    )
  return own


def Where(provider: str, params: Params, region: str, cloud: str = '') -> str:
  """Names the object storage reached, for errors: provider and endpoint."""
  if params.endpoint:
    return f'{provider} at {params.endpoint}'
  return f'{provider} ({cloud or "cloud"} service, region {region})'


def OneLine(error: BaseException | str, limit: int = 300) -> str:
  """The first non-empty line of an error, shortened (pure)."""
  text = str(error)
  lines = [l.strip() for l in text.splitlines() if l.strip()]
  first = lines[0] if lines else ''
  if isinstance(error, BaseException):
    first = (
        f'{type(error).__name__}: {first}' if first else type(error).__name__
    )
  return first if len(first) <= limit else first[: limit - 3] + '...'


class ObjectStorageError(RuntimeError):
  """The phase cannot measure: one line naming provider and endpoint."""


def RegionOf(vm) -> str:
  return getattr(vm, 'region', None) or topology_lib.RegionFromZone(vm.zone)


def BucketName(run_uri: str) -> str:
  """A bucket name valid on S3, GCS and Azure (3-63 lowercase chars)."""
  name = re.sub(r'[^a-z0-9-]', '', f'pkb-ext-os-{run_uri}'.lower())
  return name[:63]


def WorkerConfig(params, provider, bucket, region, extra=None) -> dict:
  """The worker's JSON config (pure); `extra` holds endpoint credentials."""
  return {
      'provider': provider,
      'bucket': bucket,
      'region': region,
      'prefix': params.prefix,
      'endpoint': params.endpoint,
      'latency_requests': params.latency_requests,
      'latency_object_bytes': params.latency_object_bytes,
      'sizes': list(params.sizes),
      'downloads_per_size': params.downloads_per_size,
      'concurrency': list(params.concurrency),
      'concurrency_rounds': params.concurrency_rounds,
      'concurrency_object_bytes': params.concurrency_object_bytes,
      **(extra or {}),
  }


def WorkerCommand(params: Params) -> str:
  """Runs the worker; its exit code goes to worker.rc (pure)."""
  worker = (
      f'{params.python} ttfb_worker.py --config worker.json --out ttfb.jsonl'
      ' 2> worker.stderr'
  )
  return f'cd {WORK_DIR} && {{ {remote.ExitStatusTo(worker, "worker.rc")}; }}'


_RC_MARK = '@@@ cloud_report ttfb worker exit '
_STDERR_MARK = '@@@ cloud_report ttfb worker stderr'


def RunAndCollectCommand(params: Params) -> str:
  """WorkerCommand, then in the same command what Run reads back (pure).

  Makes the pushed config private first (it may hold credentials) and
  removes it after; then prints the worker's exit code, its output
  (ttfb.jsonl) and the tail of its stderr, which ParseCollected splits. The
  command fails only if the worker could not be started (no config, no
  work directory): the worker's own failures are in what it prints. There
  is no subshell: the worker is a child of the command's shell, as with
  WorkerCommand alone.
  """
  w = WORK_DIR
  return (
      f'b=$PWD; chmod 600 {w}/worker.json && {WorkerCommand(params)}; s=$?;'
      f' cd "$b"; rm -f {w}/worker.json;'
      f' echo "{_RC_MARK}$(cat {w}/worker.rc 2>/dev/null)";'
      f' cat {w}/ttfb.jsonl 2>/dev/null;'
      f" printf '\\n{_STDERR_MARK}\\n'; tail -c 2000 {w}/worker.stderr"
      ' 2>/dev/null; exit $s'
  )


def ParseCollected(out: str) -> tuple[str, int, str]:
  """(worker output, exit code or -1, stderr tail) of RunAndCollectCommand's
  output (pure)."""
  _, _, rest = out.partition(_RC_MARK)
  rc_text, _, rest = rest.partition('\n')
  text, _, stderr = rest.partition(f'\n{_STDERR_MARK}\n')
  try:
    rc = int(rc_text.strip())
  except ValueError:
    rc = -1
  return text, rc, stderr.strip()


class PkbBuckets:
  """A bucket through PKB's object storage service of the VM's cloud."""

  def __init__(self, cloud: str, region: str):
    # pylint: disable=g-import-not-at-top,import-outside-toplevel
    from perfkitbenchmarker import object_storage_service

    importlib.import_module(_SERVICE_MODULE[cloud])
    self.service = object_storage_service.GetObjectStorageClass(cloud)()
    self._region = region

  def Make(self, bucket: str) -> None:
    # Azure's PrepareService makes a resource group and a storage account,
    # which Delete's CleanupService removes.
    self.service.PrepareService(self._region)
    self.service.MakeBucket(bucket)

  def Delete(self, bucket: str) -> None:
    # Every provider's DeleteBucket removes the objects too (PKB contract).
    self.service.DeleteBucket(bucket)
    self.service.CleanupService()

  def WorkerExtra(self) -> dict:
    account = getattr(self.service, 'storage_account', None)
    if account is None:  # S3 (instance profile) and GCS (service account)
      return {}
    return {'azure_account': account.name, 'azure_key': account.key}


class S3EndpointBuckets:
  """A bucket on an S3-compatible endpoint, through boto3 on this host."""

  def __init__(self, params: Params, region: str):
    # pylint: disable=g-import-not-at-top,import-outside-toplevel
    import boto3
    from botocore import config

    creds = params.credentials
    self.client = boto3.client(
        's3',
        endpoint_url=params.endpoint,
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


class GcsEndpointBuckets:
  """A bucket on a GCS endpoint (fake-gcs-server), anonymous, from here."""

  def __init__(self, params: Params, region: str):
    # pylint: disable=g-import-not-at-top,import-outside-toplevel
    from google.auth import credentials
    from google.cloud import storage

    self._region = region
    self.client = storage.Client(
        project=params.credentials.project or 'pkb-ext',
        credentials=credentials.AnonymousCredentials(),
        client_options={'api_endpoint': params.endpoint},
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


class AzureEndpointBuckets:
  """A container on an Azure Blob endpoint (Azurite), with the shared key."""

  def __init__(self, params: Params, region: str):
    del region
    # pylint: disable=g-import-not-at-top,import-outside-toplevel
    from azure.storage import blob

    creds = params.credentials
    if not creds.azure_account:
      raise ObjectStorageError(
          f'object storage azure at {params.endpoint}: no account: set '
          'AZURE_STORAGE_ACCOUNT and AZURE_STORAGE_KEY in '
          f'--{_CREDENTIALS_FILE.name} or the environment'
      )
    self.client = blob.BlobServiceClient(
        account_url=params.endpoint,
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


_ENDPOINT_BUCKETS = {
    's3': S3EndpointBuckets,
    'gcs': GcsEndpointBuckets,
    'azure': AzureEndpointBuckets,
}

# Buckets made and not yet deleted in this process: name -> buckets object.
_LIVE = {}


def _Buckets(vm, params: Params, provider: str, region: str):
  if params.endpoint:
    return _ENDPOINT_BUCKETS[provider](params, region)
  return PkbBuckets(vm.CLOUD, region)


def _WorkerExtra(buckets, params: Params, provider: str) -> dict:
  if isinstance(buckets, PkbBuckets):
    return buckets.WorkerExtra()
  return params.credentials.WorkerExtra(provider)


def _DeleteBucket(name: str) -> None:
  logging.info('object_storage: deleting bucket %s and its objects', name)
  _LIVE[name].Delete(name)
  del _LIVE[name]


def Prepare(topology) -> None:
  """Installs the provider's pinned SDK if missing and pushes the worker."""
  vm = topology.RequireClient(PHASE)
  params = Params.FromFlags()
  provider = ProviderOf(vm, params)
  if not params.endpoint and provider in _PREPARE_VM_PROVIDERS:
    # As PKB's object_storage_service benchmark: the service installs its
    # SDK on the VM and refuses a VM without credentials (S3: no instance
    # profile). Azure's PrepareVM would copy this host's Azure CLI tokens to
    # the VM; the worker uses the storage account's key instead.
    PkbBuckets(vm.CLOUD, RegionOf(vm)).service.PrepareVM(vm)
  module = _SDK_IMPORT[provider]
  check = f'{params.python} -c "import {module}"'
  mkdir = f'mkdir -p {WORK_DIR}'
  # A cloud VM always gets the pinned SDK (PKB's PrepareVM installs the
  # latest boto3); with an endpoint an interpreter that has it is used as is
  # (checked in the command that makes the work directory).
  if params.endpoint:
    install = vm.RemoteCommandWithReturnCode(
        f'{mkdir} && {check}', ignore_failure=True
    )[2]
  else:
    vm.RemoteCommand(mkdir)
    install = True
  if install:
    requirements = f'{WORK_DIR}/requirements-{provider}.txt'
    vm.PushDataFile(REQUIREMENTS_DATA.format(provider=provider), requirements)
    vm.Install('pip')
    vm.RemoteCommand(
        f'sudo {params.python} -m pip install -q -r {requirements}'
    )
    _, stderr, rc = vm.RemoteCommandWithReturnCode(check, ignore_failure=True)
    if rc:
      raise RuntimeError(
          f'{params.python} on {vm.name} cannot import {module} after '
          f'installing it: {stderr.strip()[-300:]}'
      )
  vm.PushDataFile(WORKER_DATA, f'{WORK_DIR}/ttfb_worker.py')


def _RunWorker(vm, params: Params, config: dict) -> tuple[str, int, str]:
  """Runs the worker; returns its output, exit code and stderr tail."""
  with tempfile.NamedTemporaryFile('w', suffix='.json', delete=False) as f:
    json.dump(config, f)
  try:
    os.chmod(f.name, 0o600)
    vm.PushFile(f.name, f'{WORK_DIR}/worker.json')
  finally:
    os.remove(f.name)
  try:
    out, _ = vm.RobustRemoteCommand(RunAndCollectCommand(params))
  except errors.VirtualMachine.RemoteCommandError:
    # The command may not have got to removing the config (credentials).
    vm.RemoteCommand(f'rm -f {WORK_DIR}/worker.json', ignore_failure=True)
    raise
  text, rc, stderr = ParseCollected(out)
  _Archive(text)
  return text, rc, stderr


def _Archive(text: str) -> None:
  """Keeps the raw output in PKB's run directory, to be parsed again later."""
  try:
    path = os.path.join(vm_util.GetTempDir(), 'object_storage_ttfb.jsonl')
    with open(path, 'w') as f:
      f.write(text)
    logging.info('object_storage: worker output saved to %s', path)
  except Exception as e:  # pylint: disable=broad-except
    logging.info('object_storage: worker output not archived: %s', e)


def Run(topology) -> list:
  """Makes the bucket, runs the worker, deletes the bucket; returns samples.

  Raises:
    ObjectStorageError: (one line, naming provider and endpoint) the bucket
      could not be made, or the worker measured nothing.
  """
  vm = topology.RequireClient(PHASE)
  params = Params.FromFlags()
  provider = ProviderOf(vm, params)
  region = RegionOf(vm)
  where = Where(provider, params, region, vm.CLOUD)
  bucket = BucketName(flags.FLAGS.run_uri or 'norunuri')
  buckets = _Buckets(vm, params, provider, region)
  try:
    buckets.Make(bucket)
  except Exception as e:  # pylint: disable=broad-except
    raise ObjectStorageError(
        f'object storage {where}: cannot create bucket {bucket}: ' + OneLine(e)
    ) from e
  _LIVE[bucket] = buckets
  try:
    config = WorkerConfig(
        params,
        provider,
        bucket,
        region,
        _WorkerExtra(buckets, params, provider),
    )
    text, rc, stderr = _RunWorker(vm, params, config)
  except BaseException:
    try:  # the first error is the one to report; Cleanup retries this
      _DeleteBucket(bucket)
    except Exception as e:  # pylint: disable=broad-except
      logging.warning('object_storage: bucket %s not deleted: %s', bucket, e)
    raise
  _DeleteBucket(bucket)
  return Samples(text, rc, stderr, region, where)


def Samples(
    text: str, rc: int, stderr: str, region: str = '', where: str = ''
) -> list:
  """Parses the worker's output into samples (see module docstring)."""
  where = where or 'object storage'
  try:
    result = ttfb.Parse(text)
  except ttfb.ParseError as e:
    logging.error('object_storage: worker stderr: %s', stderr[-2000:])
    reason = _AbortReason(text)
    if not reason:
      tail = stderr.strip().splitlines()
      reason = tail[-1] if tail else str(e)
    raise ObjectStorageError(
        f'object storage {where}: worker exited {rc}, nothing measured: '
        + OneLine(reason)
    ) from e
  out = os_samples.FromResult(result)
  for s in out:
    s.metadata['bucket_region'] = region
  if rc or result.partial:
    why = '; '.join(result.problems) or f'worker exited {rc}'
    logging.error('object_storage: partial results: %s', why)
    out.append(
        samples_lib.Make(
            samples_lib.METRICS,
            'cloud_report_phase_error',
            1,
            {
                'error': f'worker exit {rc}: {why}'[:1000],
                'partial': True,
                'provider': result.header.provider,
            },
        )
    )
  return out


def _AbortReason(text: str) -> str:
  """The worker's abort record's error, if its output has one."""
  for line in reversed(text.splitlines()):
    try:
      record = json.loads(line)
    except ValueError:
      continue
    if isinstance(record, dict) and record.get('kind') == 'abort':
      return str(record.get('error') or '')
  return ''


def Cleanup(topology) -> None:
  """Deletes any bucket Run could not, and the worker's files."""
  failures = []
  for name in list(_LIVE):
    try:
      _DeleteBucket(name)
    except Exception as e:  # pylint: disable=broad-except
      logging.exception('object_storage: bucket %s not deleted', name)
      failures.append(f'{name}: {e}')
  if topology.client_vm is not None:
    topology.client_vm.RemoteCommand(f'rm -rf {WORK_DIR}', ignore_failure=True)
  if failures:
    raise RuntimeError(
        'object storage buckets left behind: ' + '; '.join(failures)
    )
