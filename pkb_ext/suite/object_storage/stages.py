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
"""The object storage phase's stages: Prepare, Run, Cleanup, preflight.

The bucket lives inside Run: made, used, then emptied and deleted in a
`finally`, so a failure mid-run (worker killed, SSH lost, parse error) still
removes every object and the bucket. A deletion that fails is retried
(DELETE_ATTEMPTS); if the bucket is still there, Run fails naming it, with
the samples of what the worker measured kept (phases.PhaseFailure). Nothing
outlives Run: the back-end is made in it and handed to what uses it.

Credentials: the worker on the client VM uses the VM's own. On AWS that is
the instance profile (--aws_ec2_instance_profile), on GCP the VM's service
account with a scope that writes objects (--gcloud_scopes=storage-rw); on
Azure the worker gets the storage account's key. CheckPrerequisites refuses a
run without them before anything is provisioned, and Prepare runs the
service's PrepareVM on AWS and GCP as PKB's object_storage_service benchmark
does (on AWS it refuses a VM without an instance profile).
"""

import json
import logging
import os
import re
import tempfile
import time

from perfkitbenchmarker import errors

from benchmarks.cloud_report import remote
from pkb_ext import object_storage_endpoints as endpoints
from pkb_ext.suite.object_storage import buckets
from pkb_ext.suite.object_storage import params as params_lib
from pkb_ext.suite.object_storage import parser as ttfb_parser
from pkb_ext.suite.object_storage import samples as os_samples
from pkb_ext.suite.object_storage import worker
from pkb_ext.suite import leftovers
from pkb_ext.suite import phase_table
from pkb_ext.suite import phases
from pkb_ext.suite import topology as topology_lib

PHASE = phase_table.OBJECT_STORAGE.sample
# The phase's parser and samples modules (phase_modules pairs them).
PARSER = ttfb_parser
SAMPLES = os_samples
Params = params_lib.Params
WORK_DIR = worker.WORK_DIR
# Tries of a bucket deletion, and seconds between them.
DELETE_ATTEMPTS = 3
DELETE_WAIT_S = 10.0
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


def Backend(vm, region: str):
  """The back-end of the client VM's bucket.

  An endpoint's when the endpoint flags name one
  (pkb_ext.object_storage_endpoints), else PKB's service of the VM's cloud.
  """
  backend = endpoints.ENDPOINTS.ForVm(vm, region)
  return backend or buckets.PkbBackend(vm.CLOUD, region)


def CredentialProblems(
    cloud: str,
    static: bool,
    endpoint: bool,
    instance_profile: str | None,
    gcloud_scopes: str | None,
) -> list[str]:
  """What keeps the worker on a client VM from writing objects (pure).

  Args:
    cloud: the client vm_group's cloud.
    static: the client is a static VM (--static_vm_file).
    endpoint: an endpoint, not the cloud's service, has the bucket (the
      endpoint flags); its credentials are the endpoint's.
    instance_profile: --aws_ec2_instance_profile.
    gcloud_scopes: --gcloud_scopes.

  Returns:
    One message per problem, each naming the flag that fixes it.
  """
  if endpoint:
    return []
  if static or cloud not in buckets.PROVIDER_OF_CLOUD:
    return [
        f'a {"static VM" if static else cloud} client has no cloud object'
        ' storage; the phase runs on '
        + ', '.join(buckets.PROVIDER_OF_CLOUD)
        + ' VMs'
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


def ClientPythonRequirements() -> tuple[str, list[str]] | None:
  """What the client's python3 must install: every provider's pinned SDKs.

  Which SDK a run installs depends on the cloud and the endpoint flags, so
  preflight holds the client's os_type to every provider's pins. None when
  --cloud_report_object_storage_python names another interpreter than the
  image's python3.
  """
  if params_lib.Params.FromFlags().python != 'python3':
    return None
  return (
      "the object storage worker's pinned SDKs",
      [
          worker.REQUIREMENTS_DATA.format(provider=provider)
          for provider in worker.PROVIDERS
      ],
  )


def CheckPrerequisites(benchmark_config) -> list[str]:
  """Preflight: problems with the object storage credentials (no I/O)."""
  group = (benchmark_config.vm_groups or {}).get('client')
  if group is None:
    return []
  return CredentialProblems(
      str(group.cloud),
      bool(getattr(group, 'static_vms', None))
      or bool(topology_lib.FlagValue('static_vm_file')),
      endpoints.ENDPOINTS.Serves(),
      topology_lib.FlagValue('aws_ec2_instance_profile'),
      topology_lib.FlagValue('gcloud_scopes'),
  )


def Install(topology) -> None:
  """Readies the VM, installs the provider's pinned SDK, pushes the worker.

  The bucket is made in Run.
  """
  vm = topology.RequireClient(PHASE)
  params = params_lib.Params.FromFlags()
  backend = Backend(vm, topology_lib.RegionOf(vm))
  backend.PrepareVm(vm)
  provider = backend.provider
  module = worker.SDK_IMPORT[provider]
  # The worker imports PKB's service interfaces, which import absl.flags.
  check = f'{params.python} -c "import {module}, absl.flags"'
  mkdir = f'mkdir -p {WORK_DIR}/{worker.PROVIDERS_DIR}'
  # PKB's PrepareVM installs the latest SDK, so a cloud VM always gets the
  # pinned one; a back-end may use an interpreter that has it as is
  # (checked in the command that makes the work directory).
  if backend.reuse_installed_sdk:
    # Quiet: an SDK that is not there yet is the usual case, not an error.
    install = vm.RemoteCommandWithReturnCode(
        f'{mkdir} && {check} 2>/dev/null', ignore_failure=True
    )[2]
  else:
    vm.RemoteCommand(mkdir)
    install = True
  if install:
    requirements = f'{WORK_DIR}/requirements-{provider}.txt'
    vm.PushDataFile(
        worker.REQUIREMENTS_DATA.format(provider=provider), requirements
    )
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
  for data, dest in worker.WORKER_FILES:
    vm.PushDataFile(data, f'{WORK_DIR}/{dest}')


def _RunWorker(vm, params, config: dict, run_dir: str) -> tuple[str, int, str]:
  """Runs the worker; returns its output, exit code and stderr tail."""
  with tempfile.NamedTemporaryFile('w', suffix='.json', delete=False) as f:
    json.dump(config, f)
  try:
    os.chmod(f.name, 0o600)
    vm.PushFile(f.name, f'{WORK_DIR}/worker.json')
  finally:
    os.remove(f.name)
  try:
    out, _ = vm.RobustRemoteCommand(worker.RunAndCollectCommand(params))
  except errors.VirtualMachine.RemoteCommandError:
    # The command may not have got to removing the config (credentials).
    vm.RemoteCommand(f'rm -f {WORK_DIR}/worker.json', ignore_failure=True)
    raise
  text, rc, stderr = worker.ParseCollected(out)
  _Archive(text, run_dir)
  return text, rc, stderr


def _Archive(text: str, run_dir: str) -> None:
  """Keeps the raw output in the run's directory, to be parsed again later."""
  try:
    path = os.path.join(run_dir, 'object_storage_ttfb.jsonl')
    with open(path, 'w') as f:
      f.write(text)
    logging.info('object_storage: worker output saved to %s', path)
  except Exception as e:  # pylint: disable=broad-except
    logging.info('object_storage: worker output not archived: %s', e)


def DeleteBucket(backend, bucket: str) -> str:
  """Deletes the bucket, trying DELETE_ATTEMPTS times.

  Returns:
    '' once deleted, else why the bucket is left behind (one line).
  """
  error = ''
  for attempt in range(1, DELETE_ATTEMPTS + 1):
    logging.info('object_storage: deleting bucket %s and its objects', bucket)
    try:
      backend.Delete(bucket)
      return ''
    except Exception as e:  # pylint: disable=broad-except
      error = worker.OneLine(e)
      logging.warning(
          'object_storage: bucket %s not deleted (try %d of %d): %s',
          bucket,
          attempt,
          DELETE_ATTEMPTS,
          error,
      )
    if attempt < DELETE_ATTEMPTS:
      time.sleep(DELETE_WAIT_S)
  return f'object storage {backend.where}: bucket {bucket} left behind: {error}'


def Run(topology) -> list:
  """Makes the bucket, runs the worker, deletes the bucket; returns samples.

  Raises:
    ObjectStorageError: (one line, naming provider and endpoint) the bucket
      could not be made, or the worker measured nothing.
    phases.PhaseFailure: the bucket could not be deleted; with the samples.
  """
  vm = topology.RequireClient(PHASE)
  identity = topology.RequireIdentity(PHASE)
  # A worker an earlier attempt of the run left would measure beside this
  # one, into the same bucket and output file.
  leftovers.EndLeftovers([vm], worker.TAG, 'object_storage')
  params = params_lib.Params.FromFlags()
  region = topology_lib.RegionOf(vm)
  backend = Backend(vm, region)
  bucket = buckets.BucketName(identity.run_uri)
  try:
    backend.Make(bucket)
  except Exception as e:  # pylint: disable=broad-except
    raise worker.ObjectStorageError(
        f'object storage {backend.where}: cannot create bucket {bucket}: '
        + worker.OneLine(e)
    ) from e
  try:
    config = worker.WorkerConfig(
        params, backend.provider, bucket, region, backend.WorkerExtra()
    )
    text, rc, stderr = _RunWorker(vm, params, config, identity.run_dir)
  except BaseException:
    left = DeleteBucket(backend, bucket)  # the first error is the one raised
    if left:
      logging.error('%s', left)
    raise
  left = DeleteBucket(backend, bucket)
  samples = worker.Samples(text, rc, stderr, region, backend.where)
  if left:
    raise phases.PhaseFailure(left, samples)
  return samples


def Cleanup(topology) -> None:
  """Removes the worker's files (Run has deleted the bucket)."""
  if topology.client_vm is not None:
    topology.client_vm.RemoteCommand(f'rm -rf {WORK_DIR}', ignore_failure=True)
