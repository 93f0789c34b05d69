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

Check() runs from the CheckPrerequisites of every cloud_report benchmark,
which PKB runs while it builds the benchmark specs, before any VM exists:
the suite's calls it, and pkb_ext's registry makes each standalone phase
benchmark's call it (StandaloneCheck) in place of the exported module's
own, which checks only the phase (phases.Check). It reads the benchmark
config (vm_groups: cloud, machine type, disk, os_type) and the flags, and
raises one InvalidFlagConfigurationError listing every problem found, each
naming the flag or command that fixes it, one a line after a heading.
Problems() reaches no cloud API, so a planner can call it; Check() also
first runs the access check (cloud_access.Problems: whether this host can
provision, a cloud's CLI and credentials), which may.

  - a data disk of type local on a machine type to which PKB gives no local
    disk (or fewer than the disk is striped over);
  - a client --os_type whose python3 is older than a selected phase's
    pinned pip requirements need (the phase module's
    ClientPythonRequirements(): the object storage worker's SDKs; OS_PYTHON:
    the python3 of PKB's Linux os_types; an os_type missing from it is not
    refused);
  - an unwritable --cloud_report_spool_dir (the publisher's SpoolCheck);
  - whatever a selected phase module's own CheckPrerequisites(config)
    reports (object storage credentials, ...), and why this
    configuration's machines cannot run a selected phase (the phase
    module's Unrunnable(config): tpcc on arm64 without a CockroachDB build
    and checksum for it): phases.Problems, the checks the exported
    benchmarks run on their own. The suite skips such a phase on that
    configuration instead (Skips; --cloud_report_skip_unrunnable_phases),
    so one machine of a matrix refuses no other; a standalone benchmark,
    which runs that phase alone, refuses it;
  - vCPUs of this configuration above what --cloud_report_vcpu_quota says
    a quota of its region allows (QuotaProblems);
  - io and tpcc both repeated by --run_stage_iterations (RepeatProblems).
"""

import dataclasses
import re
from typing import Iterable, Sequence

from absl import flags
from perfkitbenchmarker import data
from perfkitbenchmarker import disk as pkb_disk
from perfkitbenchmarker import errors
from perfkitbenchmarker import os_types

from pkb_ext.suite import phase_table
from pkb_ext.suite import phases
from pkb_ext.suite import topology as topology_lib
from pkb_ext import cloud_access
from pkb_ext.publish import publisher
from pkb_ext.suite import quota

FLAGS = flags.FLAGS

# The python3 (major, minor) of the image PKB boots for each Linux os_type:
# the distribution's own python3 package.
OS_PYTHON = {
    os_types.AMAZONLINUX2: (3, 7),
    os_types.AMAZONLINUX2_DL: (3, 7),
    os_types.AMAZONLINUX2023: (3, 9),
    os_types.ALMA_LINUX8: (3, 6),
    os_types.ALMA_LINUX9: (3, 9),
    os_types.ALMA_LINUX10: (3, 12),
    os_types.CENTOS_STREAM9: (3, 9),
    os_types.DEBIAN11: (3, 9),
    os_types.DEBIAN11_BACKPORTS: (3, 9),
    os_types.DEBIAN12: (3, 11),
    os_types.DEBIAN12_DL: (3, 11),
    os_types.DEBIAN13: (3, 13),
    os_types.FEDORA36: (3, 10),
    os_types.FEDORA37: (3, 11),
    os_types.OL8: (3, 6),
    os_types.OL9: (3, 9),
    os_types.RHEL8: (3, 6),
    os_types.RHEL9: (3, 9),
    os_types.RHEL10: (3, 12),
    os_types.ROCKY_LINUX8: (3, 6),
    os_types.ROCKY_LINUX8_OPTIMIZED: (3, 6),
    os_types.ROCKY_LINUX9: (3, 9),
    os_types.ROCKY_LINUX9_OPTIMIZED: (3, 9),
    os_types.ROCKY_LINUX10: (3, 12),
    os_types.ROCKY_LINUX10_OPTIMIZED: (3, 12),
    os_types.UBUNTU2004: (3, 8),
    os_types.UBUNTU2004_DL: (3, 8),
    os_types.UBUNTU2004_EFA: (3, 8),
    os_types.UBUNTU2204: (3, 10),
    os_types.UBUNTU2404: (3, 12),
}
# A worker requirements file states the oldest Python its pins and their
# dependencies install on, in a line `# Requires-Python: >=X.Y`.
_REQUIRES_PYTHON = re.compile(
    r'^#\s*Requires-Python:\s*>=\s*(\d+)\.(\d+)\b', re.MULTILINE
)


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
  os_type: str | None = None


def UsesStaticVms(group) -> bool:
  """Whether a vm_group's VMs are static.

  They are when the group lists static_vms, or when --static_vm_file is set:
  PKB then takes every VM from that file's pool while it lasts.
  """
  return bool(getattr(group, 'static_vms', None)) or bool(
      topology_lib.FlagValue('static_vm_file')
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
            os_type=getattr(group, 'os_type', None),
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


def RequiresPython(path: str) -> tuple[int, int]:
  """The `# Requires-Python: >=X.Y` of a requirements file, as (X, Y)."""
  with open(path) as f:
    match = _REQUIRES_PYTHON.search(f.read())
  if not match:
    raise ValueError(f'{path}: no "# Requires-Python: >=X.Y" line')
  return int(match.group(1)), int(match.group(2))


def PythonFloor(names: Iterable[str]) -> tuple[tuple[int, int], str]:
  """The newest Requires-Python among requirements files.

  Args:
    names: data names of pip requirements files.

  Returns:
    (X, Y) and the data name of the file that states it.
  """
  return max((RequiresPython(data.ResourcePath(n)), n) for n in names)


def _ClientRequirements(names: Sequence[str]) -> list[tuple[str, list[str]]]:
  """(what, data names) of each selected phase's client pip requirements."""
  out = []
  for name in names:
    wanted = getattr(phases.Load(name), 'ClientPythonRequirements', None)
    found = wanted() if wanted else None
    if found and found[1]:
      out.append(found)
  return out


def _Version(version: tuple[int, int]) -> str:
  return '.'.join(map(str, version))


def OsTypeProblems(groups: Iterable[Group], names: Sequence[str]) -> list[str]:
  """A client os_type whose python3 cannot install a phase's pinned pip
  requirements.

  A phase module's ClientPythonRequirements() returns (what they are, the
  data names of its requirements files), or None: nothing to install on the
  image's python3.
  """
  client = [g for g in groups if g.name == 'client' and g.os_type]
  if not client or client[0].os_type not in OS_PYTHON:
    return []
  os_type = client[0].os_type
  fix = os_types.DEFAULT
  problems = []
  for what, files in _ClientRequirements(names):
    try:
      floor, name = PythonFloor(files)
    except (data.ResourceNotFound, OSError, ValueError) as e:
      problems.append(f'{what}: {e}')
      continue
    if OS_PYTHON[os_type] >= floor:
      continue
    problems.append(
        f'vm_group client: --os_type={os_type} boots Python'
        f' {_Version(OS_PYTHON[os_type])}, and {what} ({name}) need Python'
        f' >= {_Version(floor)}; set --os_type={fix} (Python'
        f' {_Version(OS_PYTHON[fix])}) or another os_type with a newer Python'
    )
  return problems


# Each selected phase this configuration cannot run, and why.
Skips = phases.Unrunnable
# The selected phase modules' own problems: their CheckPrerequisites(config)
# and, without skip, Skips'.
PhaseProblems = phases.Problems
REFUSAL_HEADING = phases.REFUSAL_HEADING
Refusal = phases.Refusal


def Notes(names: Sequence[str], benchmark_config) -> list[str]:
  """What selected phases run differently on this configuration.

  From each phase module's Notes(config), if any (tpcc: the CockroachDB
  release of arm64 machines), as 'phase: note'.
  """
  out = []
  for name in names:
    notes = getattr(phases.Load(name), 'Notes', None)
    out.extend(
        f'{name}: {n}' for n in (notes(benchmark_config) if notes else [])
    )
  return out


def QuotaProblems(benchmark_config) -> list[str]:
  """This configuration's vCPUs above --cloud_report_vcpu_quota, if set.

  Static VMs are not counted (no cloud quota applies to them).
  """
  limits = quota.ParseLimits(quota.VCPU_QUOTA.value)
  if not limits:
    return []
  vms = []
  for _, group in sorted((benchmark_config.vm_groups or {}).items()):
    if getattr(group, 'static_vms', None):
      continue
    vm_spec = getattr(group, 'vm_spec', None)
    machine_type = getattr(vm_spec, 'machine_type', None)
    vms.append((
        str(group.cloud),
        topology_lib.RegionFromZone(getattr(vm_spec, 'zone', None)),
        machine_type if isinstance(machine_type, str) else None,
        int(getattr(group, 'vm_count', 0) or 0),
        None,
    ))
  return quota.OverQuota(quota.NeedOf(vms).vcpus, limits, 'this configuration')


def RepeatProblems(names: Sequence[str]) -> list[str]:
  """io and tpcc cannot both be repeated by --run_stage_iterations.

  tpcc keeps its database on the data disks io writes raw: after tpcc, the
  disk is mounted and io refuses it; io run again would destroy the
  database.
  """
  repeats = (
      flags.FLAGS['run_stage_iterations'].value
      if 'run_stage_iterations' in flags.FLAGS
      else 1
  )
  if repeats > 1 and 'io' in names and 'tpcc' in names:
    return [
        f'--run_stage_iterations={repeats} repeats io after tpcc, which keeps'
        ' its database on the data disk io writes raw: repeat the other'
        ' phases in one run (--cloud_report_phases without tpcc) and run'
        ' tpcc in another'
    ]
  return []


def Problems(
    benchmark_config, names: Sequence[str], skip: bool = False
) -> list[str]:
  """Every problem preflight finds but the access check's (see above).

  skip: a phase the configuration cannot run is no problem (Skips says
  which and why); off, it is one.
  """
  groups = GroupsOf(benchmark_config)
  return (
      LocalDiskProblems(groups)
      + OsTypeProblems(groups, names)
      + publisher.SpoolCheck(benchmark_config, names)
      + PhaseProblems(names, benchmark_config, skip)
      + QuotaProblems(benchmark_config)
      + RepeatProblems(names)
  )


def Check(
    benchmark_config, names: Sequence[str], skip: bool = False
) -> dict[str, str]:
  """Raises InvalidFlagConfigurationError listing every problem found.

  The access check's problems (cloud_access.Problems) come first, then
  Problems'.

  Returns:
    With skip, the phases the configuration cannot run and why (Skips); the
    other phases are checked as ever. Without skip, nothing: such a phase is
    a problem.
  """
  problems = cloud_access.Problems(benchmark_config, names) + Problems(
      benchmark_config, names, skip=skip
  )
  if problems:
    raise errors.Setup.InvalidFlagConfigurationError(Refusal(problems))
  return Skips(names, benchmark_config) if skip else {}


def StandaloneCheck(benchmark_module):
  """A standalone phase benchmark's CheckPrerequisites that runs Check.

  Check holds the phase module's own checks too (PhaseProblems), so the
  benchmark module's CheckPrerequisites it replaces is not run. The
  function is named CheckPrerequisites, as pkb.py's log of a refusal
  expects (registry.LoggedByPkb), and keeps the one it replaces as
  pkb_ext_wrapped.
  """
  phase = phase_table.ByBenchmark(benchmark_module.BENCHMARK_NAME).sample
  own = benchmark_module.CheckPrerequisites

  def CheckPrerequisites(benchmark_config) -> None:
    """Fails before provisioning on what would fail after it (Check)."""
    Check(benchmark_config, [phase])

  CheckPrerequisites.pkb_ext_wrapped = own
  return CheckPrerequisites
