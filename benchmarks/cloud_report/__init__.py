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
"""The Cockroach Labs 2021 Cloud Report's TPC-C benchmark's pieces.

The tpcc sub-package (its flags, engine, pure parser, stepping search and
samples) behind the cloud_report_tpcc benchmark module beside this package;
the raw-disk guard and commands it uses (disk); remote command helpers
(remote), the parse error (parsers), wait bounds (timeouts) and typed flags
read once (settings); here, what is read of a VM the same way everywhere
(its data disk, its region). It imports only perfkitbenchmarker and itself.
"""

import re

REPORT_VERSION = '2021'
_AWS_ZONE = re.compile(r'^([a-z]{2}(?:-[a-z]+)+-\d+)[a-z]$')
_GCP_ZONE = re.compile(r'^([a-z]+-[a-z]+\d+)-[a-z]$')
_AZURE_ZONE = re.compile(r'^([a-z0-9]+)-\d+$')


def RegionFromZone(zone: str | None) -> str:
  """Returns the region of an AWS, GCP or Azure zone name (pure).

  Args:
    zone: e.g. us-east-1a (AWS), us-east1-b (GCP) or eastus-1 (Azure).

  Returns:
    The region, or the zone itself when it matches no known form (static
    VMs, regions given as zones), or '' for no zone.
  """
  if not zone:
    return ''
  for pattern in (_AWS_ZONE, _GCP_ZONE, _AZURE_ZONE):
    m = pattern.match(zone)
    if m:
      return m.group(1)
  return zone


def RegionOf(vm) -> str:
  """A VM's region: its region attribute, else its zone's region."""
  return getattr(vm, 'region', None) or RegionFromZone(vm.zone)


def DataDisk(vm):
  """Returns the VM's data disk (its first scratch disk), or None."""
  disks = getattr(vm, 'scratch_disks', None) or []
  return disks[0] if disks else None


def DevicePath(disk) -> str:
  """Returns a disk's device path (PKB disks, and static VMs' local disks)."""
  getter = getattr(disk, 'GetDevicePath', None)
  return getter() if getter else disk.device_path


def DiskDevice(disk) -> str | None:
  """The disk's device path, or None where PKB cannot tell it."""
  try:
    return DevicePath(disk)
  except Exception:  # pylint: disable=broad-except
    return None
