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
"""Builds a phases.Topology from a PKB benchmark spec."""

import math

from absl import flags
from perfkitbenchmarker import flags as pkb_flags  # pylint: disable=unused-import
from perfkitbenchmarker import publisher as pkb_publisher
from perfkitbenchmarker import vm_util

from benchmarks.cloud_report import DataDisk  # pylint: disable=unused-import
from benchmarks.cloud_report import DevicePath  # pylint: disable=unused-import
from benchmarks.cloud_report import RegionFromZone  # pylint: disable=unused-import
from benchmarks.cloud_report import RegionOf  # pylint: disable=unused-import
from benchmarks.cloud_report import REPORT_VERSION
from pkb_ext.suite import phases
from pkb_ext.suite import resume
from pkb_ext.suite import samples as samples_lib


def FiniteValidator(name: str):
  """Returns an absl flag validator refusing nan and inf for flag `name`."""

  def Check(value) -> bool:
    if value is not None and not math.isfinite(value):
      raise flags.ValidationError(f'--{name}={value}: must be a finite number')
    return True

  return Check


def FlagValue(name: str):
  """A flag's value, or None where no module defined the flag."""
  return flags.FLAGS[name].value if name in flags.FLAGS else None


def _CpuPlatform(vm) -> str:
  try:
    lscpu = vm.CheckLsCpu().data
  except Exception:  # pylint: disable=broad-except
    return 'unknown'
  return lscpu.get('Model name') or lscpu.get('Vendor ID') or 'unknown'


def _OptionalInt(value) -> int | None:
  return None if value in (None, '') else int(value)


# Where PKB's disks keep what was provisioned: GCP and Azure disks in
# provisioned_iops and provisioned_throughput, AWS disks in iops and
# throughput. Not the disk spec: a disk type without provisioned performance
# (GCP pd-ssd) ignores the spec's values.
_IOPS_ATTRS = ('provisioned_iops', 'iops')
_MBPS_ATTRS = ('provisioned_throughput', 'throughput')


def _Provisioned(disk, attrs) -> int | None:
  """Returns a disk's provisioned IOPS or MB/s, whichever attribute has it."""
  for attr in attrs:
    value = getattr(disk, attr, None)
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
      continue
    if value not in ('', 0):
      return _OptionalInt(value)
  return None


def RunMetadataFromVm(vm) -> samples_lib.RunMetadata:
  """Reads the common metadata off a db VM and its first scratch disk.

  A static VM (PKB's --static_vm_file) has no machine or disk type; it is
  labelled by what it is: static-<vCPUs>vcpu, and static for its disk, so
  reports show a machine rather than 'unknown'.
  """
  disk = DataDisk(vm)
  vcpus = int(vm.NumCpusForBenchmark())
  static = str(vm.CLOUD) == 'Static'
  return samples_lib.RunMetadata(
      cloud=str(vm.CLOUD),
      region=RegionFromZone(vm.zone),
      zone=str(vm.zone or ''),
      machine_type=str(
          vm.machine_type or (f'static-{vcpus}vcpu' if static else 'unknown')
      ),
      vcpus=vcpus,
      cpu_platform=_CpuPlatform(vm),
      disk_type=str(
          getattr(disk, 'disk_type', None)
          or ('static' if static else 'unknown')
      ),
      disk_size_gb=_OptionalInt(getattr(disk, 'disk_size', None)),
      provisioned_iops=_Provisioned(disk, _IOPS_ATTRS),
      provisioned_mbps=_Provisioned(disk, _MBPS_ATTRS),
      report_version=REPORT_VERSION,
  )


def FromSpec(spec, with_metadata: bool = True) -> phases.Topology:
  """Returns the topology of a spec with vm_groups db and/or client.

  Standalone phase benchmarks may have only one of the groups: with no
  client group, client_vm is None; with no db group, db_vms is empty and the
  run metadata comes from the client. A phase that needs the missing group
  says so (Topology.RequireClient, Topology.first_db).

  Args:
    spec: a PKB BenchmarkSpec.
    with_metadata: read the run metadata off the first db VM, or the client
      (one remote command); Prepare and Cleanup do not need it.

  The run's identity (phases.RunIdentity) is read here, once: --run_uri,
  the spec's configuration and PKB's temp dir.
  """
  db_vms = tuple(spec.vm_groups.get(phases.DB_GROUP, ()))
  clients = spec.vm_groups.get(phases.CLIENT_GROUP, ())
  if not db_vms and not clients:
    raise ValueError(
        'cloud_report needs a vm_group "db" and/or "client"; got '
        + (
            ', '.join(f'{k}={len(v)}' for k, v in spec.vm_groups.items())
            or 'none'
        )
    )
  metadata_vm = db_vms[0] if db_vms else clients[0]
  run_uri, config_key = resume.RunKey(spec, flags.FLAGS.run_uri)
  return phases.Topology(
      db_vms=db_vms,
      client_vm=clients[0] if clients else None,
      run_metadata=RunMetadataFromVm(metadata_vm) if with_metadata else None,
      identity=phases.RunIdentity(run_uri, config_key, vm_util.GetTempDir()),
  )


def Publish(spec, samples, run_number: int | None = None) -> None:
  """Publishes samples now, through PKB's publishers, not Run's return.

  PKB's own way for a Run that publishes as it goes
  (publisher.PublishRunStageSamples): the samples get the metadata PKB's
  collector adds to every sample (run_uri, the benchmark's metadata) and go
  to every publisher at once, so a Run that fails later keeps them. PKB adds
  run_number (with --run_stage_iterations or --run_stage_time) only to
  returned samples, so it is added here when given and PKB would add it.
  """
  if run_number is not None and (
      flags.FLAGS.run_stage_time or flags.FLAGS.run_stage_iterations
  ):
    for s in samples:
      s.metadata['run_number'] = run_number
  pkb_publisher.PublishRunStageSamples(spec, samples)
