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
"""Runs PKB's TimeToFirstByte scenario for the phase (runs on a VM).

Usage: python3 ttfb_worker.py --config worker.json --out ttfb.jsonl

Pushed to the client VM by cloud_report.object_storage with PKB's object
storage API test scripts in providers/ beside it: the service interfaces
(s3.py, gcs.py, azure_service.py), their flag modules and ttfb.py, which
times the requests and writes the JSON lines (its docstring defines them).
This file only maps the phase's JSON config onto them: the workloads'
settings, the provider's service interface, and where it points:

  s3     an endpoint becomes AWS_ENDPOINT_URL with path-style addressing (an
         AWS config file of its own), keys AWS_ACCESS_KEY_ID and
         AWS_SECRET_ACCESS_KEY; without them boto3 finds the VM's own;
  gcs    an endpoint becomes STORAGE_EMULATOR_HOST (google-cloud-storage
         then uses anonymous credentials), a project GOOGLE_CLOUD_PROJECT;
  azure  the account, its key and its URL (endpoint, or the account's
         blob.core.windows.net URL).

boto3's request and response checksums are left to when S3 requires them,
as botocore before 1.36 did, so that every SDK version moves the same bytes.
"""

import argparse
import json
import os
import signal
import sys
import tempfile
import time

from absl import flags

# Keys of the phase's config that are the workloads' settings.
SETTINGS = (
    'prefix',
    'latency_requests',
    'latency_object_bytes',
    'sizes',
    'downloads_per_size',
    'concurrency',
    'concurrency_rounds',
    'concurrency_object_bytes',
)
FLAGS = flags.FLAGS


def Environment(cfg, config_dir):
  """The SDK's environment variables for the config (pure but for a file).

  Args:
    cfg: the phase's config.
    config_dir: where an S3 endpoint's AWS config file is written.

  Returns:
    A dict of variables to set.
  """
  env = {}
  provider, endpoint = cfg['provider'], cfg.get('endpoint')
  if provider == 's3':
    env['AWS_REQUEST_CHECKSUM_CALCULATION'] = 'when_required'
    env['AWS_RESPONSE_CHECKSUM_VALIDATION'] = 'when_required'
    if cfg.get('access_key'):
      env['AWS_ACCESS_KEY_ID'] = cfg['access_key']
      env['AWS_SECRET_ACCESS_KEY'] = cfg['secret_key']
    if endpoint:
      env['AWS_ENDPOINT_URL'] = endpoint
      path = os.path.join(config_dir, 'aws_config')
      with open(path, 'w') as f:
        f.write('[default]\ns3 =\n  addressing_style = path\n')
      env['AWS_CONFIG_FILE'] = path
  elif provider == 'gcs':
    if endpoint:
      env['STORAGE_EMULATOR_HOST'] = endpoint
    if cfg.get('project'):
      env['GOOGLE_CLOUD_PROJECT'] = cfg['project']
  return env


class AzureBlobService:
  """azure_service.AzureService on azure-storage-blob 12.

  PKB's azure_service.py at the pinned commit calls the legacy SDK's
  BlobService (azure-storage 0.20), which azure-storage-blob 12 lacks, and
  reaches only https://<account>.blob.core.windows.net. This stands in for
  it until azure_service.py itself uses azure-storage-blob 12 and takes the
  account's URL (--azure_blob_endpoint).
  """

  def __init__(self):
    from azure.storage import blob  # pylint: disable=g-import-not-at-top

    self.client = blob.BlobServiceClient(
        account_url=FLAGS.azure_blob_endpoint
        or f'https://{FLAGS.azure_account}.blob.core.windows.net',
        credential={
            'account_name': FLAGS.azure_account,
            'account_key': FLAGS.azure_key,
        },
    )

  def WriteObjectFromBuffer(self, bucket, object_name, stream, size):
    stream.seek(0)
    start = time.time()
    self.client.get_blob_client(bucket, object_name).upload_blob(
        stream, length=size, overwrite=True
    )
    return start, time.time() - start

  def ReadObject(self, bucket, object_name):
    start = time.time()
    self.client.get_blob_client(bucket, object_name).download_blob().readall()
    return start, time.time() - start

  def DeleteObjects(self, bucket, objects_to_delete):
    container = self.client.get_container_client(bucket)
    for name in objects_to_delete:
      container.delete_blob(name)


def ServiceClass(cfg):
  """The provider's service interface class, its flags set from cfg."""
  provider = cfg['provider']
  if provider == 's3':
    from providers import s3  # pylint: disable=g-import-not-at-top

    FLAGS.region = cfg.get('region') or 'us-east-1'
    return s3.S3Service
  if provider == 'gcs':
    from providers import gcs  # pylint: disable=g-import-not-at-top

    return gcs.GcsService
  FLAGS.azure_account = cfg['azure_account']
  FLAGS.azure_key = cfg['azure_key']
  FLAGS.azure_blob_endpoint = cfg.get('endpoint')
  return AzureBlobService


def _DefineFlags():
  """The flags of the interfaces and of ttfb.py, parsed with defaults."""
  here = os.path.dirname(os.path.abspath(__file__))
  try:
    # pylint: disable=g-import-not-at-top,unused-import
    from providers import azure_flags
    from providers import s3_flags
    from providers import ttfb

    # pylint: enable=g-import-not-at-top,unused-import
  except ImportError as e:
    sys.exit(
        "ttfb_worker: cannot import PKB's object storage scripts from"
        f' {here}/providers (they are pushed with the worker): {e}'
    )
  if 'object_storage_class' not in FLAGS:  # object_storage_api_tests' own
    flags.DEFINE_string('object_storage_class', None, 'S3 storage class.')
  if 'azure_blob_endpoint' not in FLAGS:
    flags.DEFINE_string('azure_blob_endpoint', None, 'Blob service URL.')
  FLAGS(['ttfb_worker'])
  return ttfb


def Run(cfg, out):
  """Runs the scenario with cfg; returns its exit code."""
  ttfb = _DefineFlags()
  with tempfile.TemporaryDirectory(prefix='ttfb-') as config_dir:
    os.environ.update(Environment(cfg, config_dir))
    return ttfb.Run(
        ServiceClass(cfg),
        cfg['provider'],
        cfg['bucket'],
        out,
        {k: cfg[k] for k in SETTINGS},
        region=cfg.get('region'),
        endpoint=cfg.get('endpoint'),
    )


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
    rc = Run(cfg, out)
  if rc:
    print('ttfb_worker: aborted (see the abort record)', file=sys.stderr)
  return rc


if __name__ == '__main__':
  sys.exit(main())
