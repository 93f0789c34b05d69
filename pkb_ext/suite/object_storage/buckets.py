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
"""Buckets of the object storage phase on PKB's services.

A back-end makes and deletes the bucket (Azure: container) the worker uses,
and tells the worker how to reach it. On AWS, GCP and Azure it is PKB's
object storage service of the client VM's cloud (S3Service,
GoogleCloudStorageService, AzureBlobStorageService) in the VM's region.

Where the endpoint flags name another object storage, the back-end is an
endpoint's (pkb_ext.object_storage_endpoints; stages.Backend chooses). A
back-end has:

  provider              's3', 'gcs' or 'azure': the API the worker speaks;
  where                 names the storage reached, for errors;
  reuse_installed_sdk   True: an interpreter that imports the provider's SDK
                        is used as is; False: the pinned SDK is installed;
  PrepareVm(vm)         readies the client VM (credentials, SDK);
  Make(bucket), Delete(bucket)
                        Delete removes the objects too, and tolerates a
                        bucket that is already gone;
  WorkerExtra()         keys added to the worker's config (credentials,
                        an 'endpoint' URL).
"""

import importlib
import re

PROVIDER_OF_CLOUD = {'AWS': 's3', 'GCP': 'gcs', 'Azure': 'azure'}
_SERVICE_MODULE = {
    'AWS': 'perfkitbenchmarker.providers.aws.s3',
    'GCP': 'perfkitbenchmarker.providers.gcp.gcs',
    'Azure': 'perfkitbenchmarker.providers.azure.azure_blob_storage',
}
# Providers whose service's PrepareVM the phase runs (see PkbBackend).
_PREPARE_VM_PROVIDERS = ('s3', 'gcs')


def BucketName(run_uri: str) -> str:
  """A bucket name valid on S3, GCS and Azure (3-63 lowercase chars)."""
  name = re.sub(r'[^a-z0-9-]', '', f'cloud-report-os-{run_uri}'.lower())
  return name[:63]


def CloudProvider(cloud: str) -> str:
  """The provider of a cloud's own object storage (s3, gcs or azure)."""
  if cloud not in PROVIDER_OF_CLOUD:
    raise ValueError(
        f'the object storage phase has no object storage for cloud {cloud!r};'
        f' it runs on {", ".join(PROVIDER_OF_CLOUD)}'
    )
  return PROVIDER_OF_CLOUD[cloud]


class PkbBackend:
  """A bucket through PKB's object storage service of the VM's cloud."""

  reuse_installed_sdk = False  # PrepareVM installs the latest SDK: pin it

  def __init__(self, cloud: str, region: str):
    # pylint: disable=g-import-not-at-top,import-outside-toplevel
    from perfkitbenchmarker import object_storage_service

    self.provider = CloudProvider(cloud)
    self.where = f'{self.provider} ({cloud} service, region {region})'
    importlib.import_module(_SERVICE_MODULE[cloud])
    self.service = object_storage_service.GetObjectStorageClass(cloud)()
    self._region = region

  def PrepareVm(self, vm) -> None:
    # As PKB's object_storage_service benchmark: the service installs its
    # SDK on the VM and refuses a VM without credentials (S3: no instance
    # profile). Azure's PrepareVM would copy this host's Azure CLI tokens to
    # the VM; the worker uses the storage account's key instead.
    if self.provider in _PREPARE_VM_PROVIDERS:
      self.service.PrepareVM(vm)

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
