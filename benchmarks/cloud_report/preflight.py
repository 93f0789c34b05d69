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
"""Checks, before anything is provisioned, what would fail after it.

The benchmark modules call Check() from their CheckPrerequisites, which PKB
runs while it builds the benchmark specs, before any VM exists. It reads the
benchmark config (vm_groups: cloud, machine type, disk) and the flags, needs
no network, and raises one InvalidFlagConfigurationError listing every
problem found, each naming the flag that fixes it:

  - a data disk of type local on a machine type to which PKB gives no local
    disk (or fewer than the disk is striped over);
  - a --cloud_report_spool_dir that cannot be created or written;
  - whatever a selected phase module's own CheckPrerequisites(config)
    reports (object storage credentials, ...): it returns a list of
    problems, or raises.
"""

import dataclasses
import os
from typing import Any, Iterable, Sequence

from absl import flags
from perfkitbenchmarker import disk as pkb_disk
from perfkitbenchmarker import errors

from pkb_cloud_report.benchmarks.cloud_report import phases

FLAGS = flags.FLAGS
SPOOL_DIR_FLAG = 'cloud_report_spool_dir'


@dataclasses.dataclass(frozen=True)
class Group:
  """What preflight needs of one vm_group of a benchmark config."""

  name: str
  cloud: str
  machine_type: str | None
  disk_type: str | None
  num_striped_disks: int
  static: bool
  gce_num_local_ssds: int = 0


def UsesStaticVms(group) -> bool:
  """Whether a vm_group's VMs are static.

  They are when the group lists static_vms, or when --static_vm_file is set:
  PKB then takes every VM from that file's pool while it lasts.
  """
  return bool(getattr(group, 'static_vms', None)) or bool(
      _FlagValue('static_vm_file')
  )


def GroupsOf(benchmark_config) -> list[Group]:
  """Reads the vm_groups of a PKB BenchmarkConfigSpec."""
  out = []
  for name, group in sorted((benchmark_config.vm_groups or {}).items()):
    vm_spec = getattr(group, 'vm_spec', None)
    disk_spec = getattr(group, 'disk_spec', None)
    machine_type = getattr(vm_spec, 'machine_type', None)
    out.append(
        Group(
            name=name,
            cloud=str(group.cloud),
            machine_type=machine_type
            if isinstance(machine_type, str)
            else None,
            disk_type=getattr(disk_spec, 'disk_type', None),
            num_striped_disks=int(
                getattr(disk_spec, 'num_striped_disks', None) or 1
            ),
            static=UsesStaticVms(group),
            gce_num_local_ssds=int(getattr(vm_spec, 'num_local_ssds', 0) or 0),
        )
    )
  return out


def LocalDisks(
    cloud: str, machine_type: str, gce_num_local_ssds: int = 0
) -> int | None:
  """Returns how many local disks PKB gives a machine type.

  Args:
    cloud: AWS, GCP or Azure.
    machine_type: the cloud's machine type name.
    gce_num_local_ssds: --gce_num_local_ssds (GCP machine types without a
      fixed count of local SSDs get this many).

  Returns:
    The count, from PKB's providers' tables; None for another cloud.
  """
  # pylint: disable=g-import-not-at-top,import-outside-toplevel
  if cloud == 'AWS':
    from perfkitbenchmarker.providers.aws import aws_disk

    return aws_disk.NUM_LOCAL_VOLUMES.get(machine_type, 0)
  if cloud == 'GCP':
    from perfkitbenchmarker.providers.gcp import gce_disk

    fixed = gce_disk.FIXED_SSD_MACHINE_TYPES.get(machine_type)
    return fixed if fixed is not None else int(gce_num_local_ssds or 0)
  if cloud == 'Azure':
    from perfkitbenchmarker.providers.azure import azure_disk
    from perfkitbenchmarker.providers.azure import azure_virtual_machine

    if not azure_disk.HasTempDrive(machine_type):
      return 0
    return azure_virtual_machine.NUM_LOCAL_VOLUMES.get(machine_type, 1)
  return None


def LocalDiskProblems(groups: Iterable[Group]) -> list[str]:
  """Problems of groups whose data disk is local (instance-store) storage."""
  problems = []
  for group in groups:
    if (
        group.static
        or group.disk_type != pkb_disk.LOCAL
        or group.machine_type is None
    ):
      continue
    have = LocalDisks(group.cloud, group.machine_type, group.gce_num_local_ssds)
    need = group.num_striped_disks
    if have is None or have >= need:
      continue
    fix = '--machine_type=<a type with local SSDs>'
    if group.cloud == 'GCP' and not have:
      fix += ' or --gce_num_local_ssds=N'
    problems.append(
        f'vm_group {group.name}: PKB gives {group.cloud} {group.machine_type}'
        f' {have} local disk(s), the data disk (--data_disk_type=local) needs'
        f' {need}; set {fix}, or a network disk with --data_disk_type'
    )
  return problems


def _NearestExisting(path: str) -> str:
  path = os.path.abspath(path)
  while not os.path.exists(path):
    parent = os.path.dirname(path)
    if parent == path:
      break
    path = parent
  return path


def SpoolProblems(spool_dir: str | None) -> list[str]:
  """Problems of a spool directory that could not take the samples."""
  if not spool_dir:
    return []
  existing = _NearestExisting(spool_dir)
  if existing != os.path.abspath(spool_dir) and not os.path.isdir(existing):
    return [
        f'--{SPOOL_DIR_FLAG}={spool_dir}: {existing} is not a directory;'
        f' set --{SPOOL_DIR_FLAG} to a writable directory'
    ]
  if not os.path.isdir(existing):
    return [
        f'--{SPOOL_DIR_FLAG}={spool_dir} is not a directory; set'
        f' --{SPOOL_DIR_FLAG} to a writable directory'
    ]
  if not os.access(existing, os.W_OK | os.X_OK):
    return [
        f'--{SPOOL_DIR_FLAG}={spool_dir}: {existing} is not writable by this'
        f' user; set --{SPOOL_DIR_FLAG} to a writable directory'
    ]
  return []


def _FlagValue(name: str) -> Any:
  return FLAGS[name].value if name in FLAGS else None


def PhaseProblems(names: Sequence[str], benchmark_config) -> list[str]:
  """Runs each selected phase module's CheckPrerequisites(config), if any."""
  problems = []
  for name in names:
    module = phases.Load(name)
    check = getattr(module, 'CheckPrerequisites', None)
    if check is None:
      continue
    try:
      found = check(benchmark_config) or []
    except (
        errors.Setup.InvalidFlagConfigurationError,
        errors.Setup.InvalidConfigurationError,
        ValueError,
    ) as e:
      found = [str(e)]
    problems.extend(f'{name}: {p}' for p in found)
  return problems


def Problems(benchmark_config, names: Sequence[str]) -> list[str]:
  """Every problem preflight finds (see the module docstring)."""
  return (
      LocalDiskProblems(GroupsOf(benchmark_config))
      + SpoolProblems(_FlagValue(SPOOL_DIR_FLAG))
      + PhaseProblems(names, benchmark_config)
  )


def Check(benchmark_config, names: Sequence[str]) -> None:
  """Raises InvalidFlagConfigurationError listing every problem found."""
  problems = Problems(benchmark_config, names)
  if problems:
    raise errors.Setup.InvalidFlagConfigurationError(
        'cloud_report preflight (nothing was provisioned): '
        + '; '.join(problems)
    )
