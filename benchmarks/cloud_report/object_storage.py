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
--cloud_report_object_storage_endpoint (MinIO on the local cloud, any
S3-compatible store) the worker speaks S3 to that endpoint, and the bucket is
made and deleted with boto3 from the PKB host: PKB's S3Service shells out to
the aws CLI, which PKB's host may not have and which it calls with no
endpoint option, and it tags buckets, which MinIO does not need.

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
import tempfile
from urllib import parse as urlparse

from absl import flags
from perfkitbenchmarker import flags as pkb_flags  # pylint: disable=unused-import
from perfkitbenchmarker import vm_util

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
    'URL of an S3-compatible endpoint (e.g. MinIO on the local cloud). When '
    'set, the worker uses S3 there and the bucket is made with boto3 from '
    "the PKB host, instead of the client cloud's object storage.",
)
_ACCESS_KEY = flags.DEFINE_string(
    'cloud_report_object_storage_access_key',
    None,
    "Access key for --cloud_report_object_storage_endpoint (default: boto3's "
    'credential chain on the host and on the VM).',
)
_SECRET_KEY = flags.DEFINE_string(
    'cloud_report_object_storage_secret_key',
    None,
    'Secret key for --cloud_report_object_storage_endpoint.',
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
flags.register_multi_flags_validator(
    [_ACCESS_KEY.name, _SECRET_KEY.name],
    lambda d: bool(d[_ACCESS_KEY.name]) == bool(d[_SECRET_KEY.name]),
    message=f'--{_ACCESS_KEY.name} and --{_SECRET_KEY.name} go together',
)


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
  access_key: str | None = None
  secret_key: str | None = None
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
        access_key=_ACCESS_KEY.value,
        secret_key=_SECRET_KEY.value,
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
    return 's3'
  if vm.CLOUD not in _PROVIDER_OF_CLOUD:
    raise ValueError(
        'the object storage phase has no object storage for cloud '
        f'{vm.CLOUD!r}; set --{_ENDPOINT.name} to an S3-compatible endpoint'
    )
  return _PROVIDER_OF_CLOUD[vm.CLOUD]


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
  return (
      f'cd {WORK_DIR} && {{ {params.python} ttfb_worker.py '
      '--config worker.json --out ttfb.jsonl 2> worker.stderr; '
      'echo $? > worker.rc; }'
  )


class PkbBuckets:
  """A bucket through PKB's object storage service of the VM's cloud."""

  def __init__(self, cloud: str, region: str):
    from perfkitbenchmarker import object_storage_service  # pylint: disable=g-import-not-at-top

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


class EndpointBuckets:
  """A bucket on an S3-compatible endpoint, through boto3 on this host."""

  def __init__(self, params: Params, region: str):
    import boto3  # pylint: disable=g-import-not-at-top
    from botocore import config  # pylint: disable=g-import-not-at-top

    self._params = params
    self.client = boto3.client(
        's3',
        endpoint_url=params.endpoint,
        aws_access_key_id=params.access_key,
        aws_secret_access_key=params.secret_key,
        region_name=region or 'us-east-1',
        config=config.Config(s3={'addressing_style': 'path'}),
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

  def WorkerExtra(self) -> dict:
    if not self._params.access_key:
      return {}
    return {
        'access_key': self._params.access_key,
        'secret_key': self._params.secret_key,
    }


# Buckets made and not yet deleted in this process: name -> buckets object.
_LIVE = {}


def _Buckets(vm, params: Params, region: str):
  if params.endpoint:
    return EndpointBuckets(params, region)
  return PkbBuckets(vm.CLOUD, region)


def _DeleteBucket(name: str) -> None:
  logging.info('object_storage: deleting bucket %s and its objects', name)
  _LIVE[name].Delete(name)
  del _LIVE[name]


def Prepare(topology) -> None:
  """Installs the provider SDK for the VM's python3 and pushes the worker."""
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
  if vm.RemoteCommandWithReturnCode(check, ignore_failure=True)[2]:
    if provider == 'azure':
      vm.Install('pip')
      vm.RemoteCommand('sudo pip3 install azure-storage-blob')
    else:
      vm.Install({'s3': 'boto3', 'gcs': 'google_cloud_storage'}[provider])
    _, stderr, rc = vm.RemoteCommandWithReturnCode(check, ignore_failure=True)
    if rc:
      raise RuntimeError(
          f'{params.python} on {vm.name} cannot import {module} after '
          f'installing it: {stderr.strip()[-300:]}'
      )
  vm.RemoteCommand(f'mkdir -p {WORK_DIR}')
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
    vm.RemoteCommand(f'chmod 600 {WORK_DIR}/worker.json')
    vm.RobustRemoteCommand(WorkerCommand(params))
  finally:  # the config may hold credentials
    vm.RemoteCommand(f'rm -f {WORK_DIR}/worker.json', ignore_failure=True)
  rc_text, _ = vm.RemoteCommand(f'cat {WORK_DIR}/worker.rc')
  text, _ = vm.RemoteCommand(f'cat {WORK_DIR}/ttfb.jsonl', ignore_failure=True)
  stderr, _ = vm.RemoteCommand(
      f'tail -c 2000 {WORK_DIR}/worker.stderr', ignore_failure=True
  )
  try:
    rc = int(rc_text.strip())
  except ValueError:
    rc = -1
  _Archive(text)
  return text, rc, stderr.strip()


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
  """Makes the bucket, runs the worker, deletes the bucket; returns samples."""
  vm = topology.RequireClient(PHASE)
  params = Params.FromFlags()
  provider = ProviderOf(vm, params)
  region = RegionOf(vm)
  bucket = BucketName(flags.FLAGS.run_uri or 'norunuri')
  buckets = _Buckets(vm, params, region)
  _LIVE[bucket] = buckets
  try:
    buckets.Make(bucket)
    config = WorkerConfig(
        params, provider, bucket, region, buckets.WorkerExtra()
    )
    text, rc, stderr = _RunWorker(vm, params, config)
  finally:
    _DeleteBucket(bucket)
  return Samples(text, rc, stderr, region)


def Samples(text: str, rc: int, stderr: str, region: str = '') -> list:
  """Parses the worker's output into samples (see module docstring)."""
  try:
    result = ttfb.Parse(text)
  except ttfb.ParseError as e:
    raise RuntimeError(
        f'object storage worker exited {rc} with no usable output: {e}; '
        f'stderr: {stderr[-500:]}'
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
            {'error': f'worker exit {rc}: {why}'[:1000], 'partial': True},
        )
    )
  return out


def Cleanup(topology) -> None:
  """Deletes any bucket Run could not, and the worker's files."""
  errors = []
  for name in list(_LIVE):
    try:
      _DeleteBucket(name)
    except Exception as e:  # pylint: disable=broad-except
      logging.exception('object_storage: bucket %s not deleted', name)
      errors.append(f'{name}: {e}')
  if topology.client_vm is not None:
    topology.client_vm.RemoteCommand(f'rm -rf {WORK_DIR}', ignore_failure=True)
  if errors:
    raise RuntimeError(
        'object storage buckets left behind: ' + '; '.join(errors)
    )
