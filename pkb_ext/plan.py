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
"""pkb-ext plan [--prices=FILE] [PKB FLAGS]: what a pkb.py run would do.

PKB's flags are parsed and expanded into benchmark configurations exactly as
pkb.py does (benchmark sets, --benchmark_config_file, --flag_matrix), with
no VM, no network and no temp directory. For each configuration it prints
the VMs and disks, the phases with an expected wall time, the VM-hours and
the expected on-demand cost from the dated price tables (configs/pricing),
and what pkb_ext's preflight would refuse; then the totals and the date of
the prices. --prices=FILE (a <cloud>.yaml table of the same form, dated)
prices the run at that table instead of configs/pricing's for its cloud;
the report's tables, which $/tpm uses, stay as they are.

Values that make no plan are refused with a one-line error and exit 1: a
data disk size <= 0, negative provisioned IOPS or MB/s, a machine type with
no price in the tables (or none at all), a non-finite number, a config file
that is missing, not a regular file, too large, not YAML or not a mapping,
an unknown benchmark or flag matrix. Flags pkb.py would not parse, and
unusable --run_processes or --prices, are usage errors (exit 2).

The expected times are the phases' own: each phase's package has an
estimate module (e.g. cloud_report.cpu.estimate) that computes its wall
time from its flags (their defaults are the report's), the estimates
module's rates (the ones the run's own timeouts use) and the assumptions
its docstring states; the plan gives it the io phase's data disk (the fill:
its size, and the lowest known throughput ceiling of the disk and the
machine from configs/pricing) and the db VM count. Provisioning is taken as
PROVISION_S (create, boot, teardown).

The suite's wall time follows --cloud_report_overlap (default true): the
phases phases.MakeSchedule runs beside io (cpu, net, object_storage, where
the topology has the VMs for them) count once, as the longer of io and
their sum; every VM is billed for the whole wall time. Each configuration
and the totals show the wall time and VM-hours with and without overlap.
"""

import dataclasses
import datetime
import logging
import math
import os
import re
import stat
import sys
from typing import Any, Sequence
import warnings

import yaml

from benchmarks.cloud_report import estimates
from pkb_ext import inputs
from pkb_ext import pricing
from pkb_ext import registry

# Assumption (seconds); see the module docstring.
PROVISION_S = 600
# Far above any real benchmark config or price file.
MAX_INPUT_BYTES = 64 * 1024 * 1024

PRICES_OPTION = '--prices'
HELP_ARGS = frozenset(('-h', '--help', '-help', '--helpshort', '--helpfull'))
USAGE = f"""\
usage: pkb-ext plan [{PRICES_OPTION}=FILE] [PKB FLAGS...]

What a pkb.py run with PKB FLAGS would provision, do and cost, before it
does anything: each configuration's VMs and disks, its phases with expected
wall times (the TPC-C import included), VM-hours and on-demand dollars, what
preflight would refuse, then the totals. Without --benchmarks,
--benchmarks=cloud_report_2021 is added.

  {PRICES_OPTION}=FILE   a dated price table of one cloud, in the form of
                   configs/pricing/<cloud>.yaml, for the run's cost (the
                   report's tables stay the basis of $/tpm)
  --helpmatch=RE   PKB's help for the flags of modules matching RE

Exit status: 0 a plan, 1 input that makes no plan or a configuration
preflight would refuse, 2 a usage error.
"""
# PKB imports pkg_resources, whose deprecation warnings are not the plan's.
_PKB_IMPORT_WARNINGS = (
    r'pkg_resources is deprecated',
    r'Module \S+ was already imported from',
)


class PlanError(Exception):
  """The input makes no plan (the message says why)."""

  exit_code = 1


class UsageError(PlanError):
  """The command line cannot be used (exit 2)."""

  exit_code = 2


@dataclasses.dataclass(frozen=True)
class Group:
  """One vm_group: its VMs and each VM's data disk."""

  name: str
  cloud: str
  vm_count: int
  machine_type: str | None
  zone: str | None
  disk_type: str | None
  disk_size_gb: float
  disks_per_vm: int
  provisioned_iops: int | None
  provisioned_mbps: int | None
  static: bool
  local_volumes: int | None = None  # PKB's count of instance-store volumes

  @property
  def local(self) -> bool:
    return self.disk_type == 'local'

  def Describe(self) -> str:
    what = 'static VM' if self.static else (self.machine_type or '?')
    text = f'{self.name}: {self.vm_count} x {what}'
    if self.local:
      text += ', data disk: local (instance store)'
    elif self.disk_type:
      disk = f'{self.disk_type} {self.disk_size_gb:g} GB'
      if self.disks_per_vm > 1:
        disk = f'{self.disks_per_vm} x {disk}'
      if self.provisioned_iops:
        disk += f', {self.provisioned_iops} IOPS'
      if self.provisioned_mbps:
        disk += f', {self.provisioned_mbps} MB/s'
      text += f', data disk {disk}'
    return text


@dataclasses.dataclass(frozen=True)
class Config:
  """One configuration's plan."""

  benchmark: str
  flags: dict[str, Any]
  groups: tuple[Group, ...]
  phases: tuple[estimates.Phase, ...]
  usd_per_hour: float | None  # every VM and disk; None: no price
  price_as_of: str | None
  price_problem: str | None
  problems: tuple[str, ...]  # what preflight refuses
  price_notes: tuple[str, ...] = ()
  # phases.Schedule with overlap asked for (None: no overlap possible), and
  # whether the run overlaps (--cloud_report_overlap of the suite).
  schedule: Any = None
  overlap: bool = False

  @property
  def series_seconds(self) -> float:
    """The wall time with every phase in series."""
    return PROVISION_S + sum(p.seconds for p in self.phases)

  @property
  def overlap_seconds(self) -> float:
    """The wall time with the side phases beside the fill (schedule)."""
    if self.schedule is None or not self.schedule.side:
      return self.series_seconds
    by_phase = {}
    for p in self.phases:
      name = _SCHEDULED_AS.get(p.name, p.name)
      by_phase[name] = by_phase.get(name, 0.0) + p.seconds

    def Sum(names):
      return sum(by_phase.get(n, 0.0) for n in names)

    return (
        PROVISION_S
        + Sum(self.schedule.before)
        + max(Sum(self.schedule.fill), Sum(self.schedule.side))
        + Sum(self.schedule.after)
    )

  @property
  def seconds(self) -> float:
    """The wall time of the run as configured (with or without overlap)."""
    return self.overlap_seconds if self.overlap else self.series_seconds

  @property
  def linear_seconds(self) -> float | None:
    """The wall time with a linear TPC-C search; None: it is linear."""
    linear = [p for p in self.phases if p.linear_seconds is not None]
    if not linear:
      return None
    return self.seconds + sum(p.linear_seconds - p.seconds for p in linear)

  @property
  def vms(self) -> int:
    return sum(g.vm_count for g in self.groups)

  @property
  def vm_hours(self) -> float:
    return self.VmHours(self.seconds)

  def VmHours(self, seconds: float) -> float:
    """Every VM of the configuration lives for the whole run."""
    return self.vms * seconds / 3600

  @property
  def usd(self) -> float | None:
    return self.UsdFor(self.seconds)

  def UsdFor(self, seconds: float | None) -> float | None:
    if self.usd_per_hour is None or seconds is None:
      return None
    return self.usd_per_hour * seconds / 3600


# Plan phases that are part of a scheduled phase (phases.Schedule).
_SCHEDULED_AS = {'tpcc_import': 'tpcc'}

# --- Phase estimates: each phase's own (its package's estimate module). ---


def PhaseEstimates(
    name: str, fill: estimates.Fill | None, db_nodes: int
) -> list[estimates.Phase]:
  """Estimates a phase from its flags (read under the config's flags)."""
  from benchmarks.cloud_report import phase_modules  # pylint: disable=g-import-not-at-top

  context = estimates.Context(fill=fill, db_nodes=db_nodes)
  try:
    return phase_modules.BY_PHASE[name].stages.Estimate(context)
  except estimates.EstimateError as e:
    raise PlanError(str(e)) from e


# --- Disks: what the fill writes, what they bill. ---


def _FillGroup(groups: Sequence[Group]) -> Group | None:
  """The group of the VM the io phase runs on (the first db VM)."""
  with_disk = [g for g in groups if g.disk_type]
  db = [g for g in with_disk if g.name == 'db']
  return (db or with_disk or [None])[0]


def LocalVolumeGb(catalog: pricing.Catalog, group: Group) -> float | None:
  """The size of one instance-store volume of group's VMs; None: unknown.

  The machine's (AWS, Azure), else the disk type's (GCP's local SSD).
  """
  machine = catalog.Machine(group.cloud, group.machine_type or '')
  disk = catalog.Disk(group.cloud, group.disk_type or '')
  return (machine and machine.local_volume_gb) or (disk and disk.volume_gb)


def DataDiskFill(catalog: pricing.Catalog, group: Group) -> estimates.Fill:
  """What the fill of group's first data disk writes, and how fast."""
  machine = catalog.Machine(group.cloud, group.machine_type or '')
  disk = catalog.Disk(group.cloud, group.disk_type)
  stripes = group.disks_per_vm
  default = f'estimates.FILL_MBPS, no published {group.disk_type} figure'
  if group.static:
    return estimates.Fill(
        None, estimates.FILL_MBPS, "the static VMs' disk", default
    )
  if group.local:
    volume_gb = LocalVolumeGb(catalog, group)
    count = group.local_volumes
    have = f' of {count}' if count else ''
    if not volume_gb:
      return estimates.Fill(
          None,
          estimates.FILL_MBPS,
          f'{stripes}{have} instance-store volume(s) of {group.machine_type}',
          default,
      )
    return estimates.Fill(
        volume_gb * stripes,
        estimates.FILL_MBPS,
        f'{stripes}{have} x {volume_gb:g} GB instance-store volume(s)',
        default,
    )
  caps = []
  if disk is not None:
    per_disk = disk.ThroughputMbps(
        group.disk_size_gb,
        group.provisioned_iops or 0,
        group.provisioned_mbps or 0,
    )
    if per_disk is not None:
      caps.append((per_disk * stripes, f'the {group.disk_type} ceiling'))
  if machine is not None and machine.limits.disk_mbps is not None:
    caps.append(
        (machine.limits.disk_mbps, f'the {machine.machine_type} disk cap')
    )
  what = group.disk_type
  if stripes > 1:
    what = f'{stripes} x {group.disk_size_gb:g} GB {what} striped'
  if not caps:
    return estimates.Fill(
        group.disk_size_gb * stripes, estimates.FILL_MBPS, what, default
    )
  mbps, source = min(caps)
  return estimates.Fill(group.disk_size_gb * stripes, mbps, what, source)


def _LocalPricedGb(catalog: pricing.Catalog, g: Group) -> float:
  """Instance-store GB a VM is billed for: every volume PKB attaches."""
  volume_gb = LocalVolumeGb(catalog, g) or 0
  return float(volume_gb * (g.local_volumes or g.disks_per_vm))


def HourlyCost(
    catalog: pricing.Catalog, groups: Sequence[Group]
) -> tuple[float, str, list[str]]:
  """Returns every VM's and data disk's $/hour, the prices' date, notes.

  Disks are priced at the size tier they bill at (Azure Premium SSD); a
  note gives the report's method beside it where the two differ.

  Raises:
    pricing.PricingError: a price is missing (static VMs have none).
  """
  usd, dates, notes = 0.0, set(), []
  for g in groups:
    if g.static or not g.machine_type:
      raise pricing.PricingError(f'vm_group {g.name}: no machine type to price')
    if g.disk_type:
      size = _LocalPricedGb(catalog, g) if g.local else g.disk_size_gb
      disks = 1 if g.local else g.disks_per_vm
      args = (
          g.cloud,
          g.machine_type,
          g.disk_type,
          size * disks,
          (g.provisioned_iops or 0) * disks,
          (g.provisioned_mbps or 0) * disks,
      )
      monthly = catalog.MonthlyCost(*args, tiered=True, disks=disks)
      report = catalog.MonthlyCost(*args, disks=disks)
      tier = catalog.Disk(g.cloud, g.disk_type).BilledTier(size)
      if tier is not None and monthly.disk_usd != report.disk_usd:
        notes.append(
            f'{g.name} data disk: {g.disk_type} {size:g} GB bills as'
            f" {tier.name}, ${monthly.disk_usd:,.2f}/month; the report's"
            f' method (configs/pricing, $/tpm): ${report.disk_usd:,.2f}/month'
        )
      per_vm = monthly.total_usd / catalog.method.hours_per_month
      dates.add(monthly.as_of)
    else:
      machine = catalog.Machine(g.cloud, g.machine_type)
      if machine is None:
        raise pricing.PricingError(
            f'no {g.cloud} price for machine {g.machine_type!r}'
        )
      per_vm = machine.usd_per_hour
      dates.add(catalog.Table(g.cloud).as_of)
    usd += per_vm * g.vm_count
  return usd, ', '.join(sorted(dates)), notes


# --- Configurations, as pkb.py builds them. ---


def _Finite(value: Any, what: str) -> float:
  number = float(value)
  if not math.isfinite(number):
    raise PlanError(f'{what}: {value} is not a finite number')
  return number


def CheckGroup(g: Group) -> None:
  """Refuses values that make no plan (the message names the flag).

  Raises:
    PlanError: a disk size <= 0, negative provisioned IOPS or MB/s, or
      no machine type on VMs that are not static.
  """
  where = f'vm_group {g.name}'
  if not g.static and not g.machine_type:
    raise PlanError(
        f'{where}: no machine type PKB can create and price'
        ' (set --machine_type)'
    )
  if g.disk_type and not g.local and not g.static:
    if _Finite(g.disk_size_gb, f'{where} disk size') <= 0:
      raise PlanError(
          f'{where}: data disk size {g.disk_size_gb:g} GB must be > 0'
          ' (--data_disk_size)'
      )
  for value, flag in (
      (g.provisioned_iops, 'provisioned_iops'),
      (g.provisioned_mbps, 'provisioned_throughput'),
  ):
    if value is not None and _Finite(value, f'{where} {flag}') < 0:
      raise PlanError(f'{where}: --{flag}={value} must be >= 0')


def CheckMachinePrice(catalog: pricing.Catalog, g: Group) -> None:
  """Refuses a machine type that has no price in the tables."""
  if g.static:
    return
  table = catalog.Table(g.cloud)
  if table is None:
    raise PlanError(
        f'vm_group {g.name}: no price table for cloud {g.cloud}'
        f' (configs/pricing; give one with {PRICES_OPTION}=FILE)'
    )
  if g.machine_type not in table.machines:
    raise PlanError(
        f'vm_group {g.name}: machine type {g.machine_type!r} has no'
        f' {g.cloud} price (prices as of {table.as_of}); is it a real'
        f' {g.cloud} machine type? Price it with {PRICES_OPTION}=FILE'
    )


def _Groups(config) -> tuple[Group, ...]:
  from benchmarks.cloud_report import preflight  # pylint: disable=g-import-not-at-top

  out = []
  for name, g in sorted((config.vm_groups or {}).items()):
    vm_spec = getattr(g, 'vm_spec', None)
    disk = getattr(g, 'disk_spec', None)
    machine_type = getattr(vm_spec, 'machine_type', None)
    if not isinstance(machine_type, str):
      machine_type = None
    disk_type = getattr(disk, 'disk_type', None) if disk else None
    local_volumes = None
    if disk_type == 'local' and machine_type:
      local_volumes = preflight.LocalDisks(
          str(g.cloud),
          machine_type,
          int(getattr(vm_spec, 'num_local_ssds', 0) or 0),
      )
    size = getattr(disk, 'disk_size', None)
    out.append(
        Group(
            name=name,
            cloud=str(g.cloud),
            vm_count=int(g.vm_count or 0),
            machine_type=machine_type,
            zone=getattr(vm_spec, 'zone', None),
            disk_type=disk_type,
            disk_size_gb=float(0 if size is None else size),
            disks_per_vm=int(getattr(disk, 'num_striped_disks', None) or 1),
            provisioned_iops=getattr(disk, 'provisioned_iops', None),
            provisioned_mbps=getattr(disk, 'provisioned_throughput', None),
            static=preflight.UsesStaticVms(g),
            local_volumes=local_volumes,
        )
    )
  return tuple(out)


def _PhasesOf(module) -> list[str]:
  if hasattr(module, 'PHASE'):
    return [module.PHASE]
  return list(module.SelectedPhases())


def _Schedule(module, names: Sequence[str], groups: Sequence[Group]):
  """(the suite's schedule with overlap, whether the run overlaps).

  Read under the configuration's flags. A standalone phase module runs one
  phase, so (None, False).
  """
  # pylint: disable=g-import-not-at-top
  from absl import flags
  from benchmarks.cloud_report import phases
  # pylint: enable=g-import-not-at-top

  if hasattr(module, 'PHASE'):
    return None, False
  count = {g.name: g.vm_count for g in groups}
  schedule = phases.MakeSchedule(
      names,
      count.get(phases.DB_GROUP, 0),
      count.get(phases.CLIENT_GROUP, 0) > 0,
      overlap=True,
  )
  return schedule, bool(flags.FLAGS.cloud_report_overlap)


def _OneLine(e: BaseException) -> str:
  text = ' '.join(str(e).split()) or type(e).__name__
  return text if len(text) <= 400 else text[:400] + ' ...'


def ReadText(path: str) -> str:
  """Returns the text of a regular UTF-8 file of MAX_INPUT_BYTES or less.

  Raises:
    PlanError: not so.
  """
  try:
    info = os.stat(path)
    if not stat.S_ISREG(info.st_mode):
      raise PlanError(
          f'{path}: not a regular file (a FIFO, device or directory)'
      )
    if info.st_size > MAX_INPUT_BYTES:
      raise PlanError(
          f'{path}: {info.st_size:,} bytes, larger than the'
          f' {MAX_INPUT_BYTES:,} a config or price file may have'
      )
    return inputs.ReadText(path, MAX_INPUT_BYTES, 'a config or price file')
  except OSError as e:
    raise PlanError(f'{path}: {e.strerror or e}') from e
  except inputs.InputError as e:
    raise PlanError(str(e)) from e


def _Where(line: int, files: Sequence[tuple[str, int]]) -> str:
  """'FILE line N' of a 0-based line of files concatenated by newlines."""
  for path, lines in files:
    if line < lines:
      return f'{path} line {line + 1}'
    line -= lines
  return files[-1][0]


def _YamlProblem(e: yaml.YAMLError, files: Sequence[tuple[str, int]]) -> str:
  """Names the file and line of a YAML error in concatenated files."""
  mark = getattr(e, 'problem_mark', None)
  problem = getattr(e, 'problem', None) or type(e).__name__
  where = files[-1][0] if mark is None else _Where(mark.line, files)
  return f'{where}: not YAML ({problem})'


# Keys of a benchmark's entry in a config file that PKB reads as mappings;
# True: each of its values is a mapping too.
_MAPPING_KEYS = {
    'flags': False,
    'vm_groups': True,
    'flag_matrix_defs': True,
    'flag_zip_defs': True,
    'flag_matrix_filters': False,
}


def _CheckConfigShape(root, files: Sequence[tuple[str, int]]) -> None:
  """Refuses a config whose parts PKB reads as mappings are not.

  Args:
    root: the composed YAML node of the config.
    files: (path, line count) of the concatenated files, for messages.

  Raises:
    PlanError: naming the file, line and key.
  """

  def Check(node, what: str) -> None:
    if not isinstance(node, yaml.MappingNode):
      raise PlanError(
          f'{_Where(node.start_mark.line, files)}: {what} must be a mapping'
      )

  if root is None:
    return
  Check(root, 'a benchmark config')
  for key, entry in root.value:
    Check(entry, f'benchmark {key.value}')
    for sub_key, sub in entry.value:
      nested = _MAPPING_KEYS.get(sub_key.value)
      if nested is None:
        continue
      Check(sub, f'{key.value}.{sub_key.value}')
      if nested:
        for name, value in sub.value:
          Check(value, f'{key.value}.{sub_key.value}.{name.value}')


def CheckConfigFile(path: str) -> None:
  """Checks --benchmark_config_file as PKB will read it, imports included.

  PKB blocks on a FIFO, reads any size, and raises tracebacks on a missing
  file, a directory or bad YAML; this reads what it would read first.

  Raises:
    PlanError: a file is missing, not a regular file, too large, not UTF-8
      or YAML, nested too deeply, or not a mapping.
  """
  # pylint: disable=g-import-not-at-top
  from perfkitbenchmarker import configs
  from perfkitbenchmarker import data
  # pylint: enable=g-import-not-at-top

  files, texts, queue, seen = [], [], [path], set()
  while queue:
    name = queue.pop(0)
    try:
      resolved = data.ResourcePath(name)
    except data.ResourceNotFound as e:
      raise PlanError(
          f'{name}: no such config file (a relative path is looked up from'
          f" {os.getcwd()} and PKB's data directories)"
      ) from e
    if resolved in seen:
      continue
    seen.add(resolved)
    text = ReadText(resolved)
    for line in text.splitlines():
      match = configs.IMPORT_REGEX.match(line + '\n')
      if not match:
        break
      queue.append(match.group(1))
    files.append((resolved, text.count('\n') + 1))
    texts.append(text)
  text = '\n'.join(texts)
  try:
    _CheckConfigShape(yaml.compose(text, Loader=yaml.SafeLoader), files)
    yaml.safe_load(text)  # what PKB will do: tags, duplicate anchors, ...
  except yaml.YAMLError as e:
    raise PlanError(_YamlProblem(e, files)) from e
  except RecursionError as e:
    raise PlanError(f'{path}: YAML nested too deeply') from e


def CheckNumericFlags(flag_values) -> None:
  """Refuses a non-finite float flag, and disk flags out of range.

  Raises:
    UsageError: naming the flag.
  """
  for name in flag_values:
    flag = flag_values[name]
    value = flag.value
    if flag.present and isinstance(value, float) and not math.isfinite(value):
      raise UsageError(f'--{name}={value}: not a finite number')
  for name, low in (('data_disk_size', 1), ('provisioned_iops', 0),
                    ('provisioned_throughput', 0)):  # fmt: skip
    if name in flag_values and flag_values[name].present:
      value = flag_values[name].value
      if value is not None and (not math.isfinite(float(value)) or value < low):
        raise UsageError(f'--{name}={value}: must be >= {low}')


def PrintHelpMatch(flag_values, pattern: str) -> None:
  """Prints PKB's help of the flags of modules matching pattern."""
  try:
    regex = re.compile(pattern)
  except re.error as e:
    raise UsageError(f'--helpmatch={pattern}: not a regular expression ({e})')
  for module_name in sorted(flag_values.flags_by_module_dict()):
    if regex.search(module_name):
      print(flag_values.module_help(module_name))


def ParseFlags(pkb_argv: Sequence[str]):
  """Parses PKB flags as pkb.py does; returns absl's FLAGS.

  Raises:
    UsageError: the flags do not parse, or a number is out of range.
  """
  # pylint: disable=g-import-not-at-top
  from absl import flags
  from perfkitbenchmarker import flag_alias
  # pylint: enable=g-import-not-at-top

  registry.Register()
  argv = list(pkb_argv)
  if not any(a.startswith('--benchmarks') for a in argv):
    argv.insert(0, '--benchmarks=' + registry.SUITE_BENCHMARK)
  # Planning installs nothing, so the providers' Python packages (awscli,
  # ...) are not needed here.
  if not any('package_requirements' in a for a in argv):
    argv.append('--ignore_package_requirements')
  try:
    rest = flags.FLAGS(['pkb.py'] + flag_alias.AliasFlagsFromArgs(argv))
  except flags.Error as e:
    raise UsageError(_OneLine(e)) from e
  if len(rest) > 1:
    raise UsageError(f'unexpected arguments: {" ".join(rest[1:])}')
  CheckNumericFlags(flags.FLAGS)
  return flags.FLAGS


def BenchmarkConfigs(pkb_argv: Sequence[str]) -> list[tuple[Any, dict, Any]]:
  """Parses PKB flags into configurations, as pkb.py builds them.

  Args:
    pkb_argv: PKB flags; --benchmarks defaults to cloud_report_2021.

  Returns:
    (benchmark module, the configuration's flags, its BenchmarkConfigSpec)
    for every configuration, in pkb.py's order. The process's flags stay
    parsed from pkb_argv.

  Raises:
    PlanError: the flags or a configuration are invalid.
  """
  # pylint: disable=g-import-not-at-top
  from perfkitbenchmarker import benchmark_sets
  from perfkitbenchmarker import flag_util
  from perfkitbenchmarker import os_types
  from perfkitbenchmarker.configs import benchmark_config_spec
  # pylint: enable=g-import-not-at-top

  flag_values = ParseFlags(pkb_argv)
  config_file = flag_values.benchmark_config_file
  if config_file:
    CheckConfigFile(config_file)
  try:
    resolved = benchmark_sets.GetBenchmarksFromFlags()
  except Exception as e:  # pylint: disable=broad-except
    # PKB raises ValueError, its FlagMatrixNotFoundException, YAML and
    # resource errors, ... for what the flags and config name.
    where = f'{config_file}: ' if config_file else ''
    raise PlanError(where + _OneLine(e)) from e
  ours = {m.BENCHMARK_NAME for m in registry.BenchmarkModules()}
  out = []
  for module, user_config in resolved:
    name = module.BENCHMARK_NAME
    if name not in ours:
      raise PlanError(
          f'{name} is not a pkb_ext benchmark; plan knows only ours'
      )
    config_flags = dict(user_config.get('flags') or {})
    try:
      with flag_util.OverrideFlags(flag_values, config_flags):
        config_dict = module.GetConfig(user_config)
      config = benchmark_config_spec.BenchmarkConfigSpec(
          name,
          expected_os_types=os_types.ALL,
          flag_values=flag_values,
          **config_dict,
      )
    except Exception as e:  # pylint: disable=broad-except
      raise PlanError(f'{name} {config_flags}: {_OneLine(e)}') from e
    out.append((module, config_flags, config))
  return out


def Configurations(
    pkb_argv: Sequence[str], catalog: pricing.Catalog | None = None
) -> list[Config]:
  """Plans every configuration PKB flags expand to.

  Args:
    pkb_argv: PKB flags; --benchmarks defaults to cloud_report_2021.
    catalog: price tables (default: configs/pricing).

  Raises:
    PlanError: the flags or a configuration are invalid.
  """
  from absl import flags  # pylint: disable=g-import-not-at-top
  from benchmarks.cloud_report import preflight  # pylint: disable=g-import-not-at-top

  catalog = catalog or pricing.Load()
  out = []
  for module, config_flags, config in BenchmarkConfigs(pkb_argv):
    with config.RedirectFlags(flags.FLAGS):
      groups = _Groups(config)
      for g in groups:
        CheckGroup(g)
        CheckMachinePrice(catalog, g)
      names = _PhasesOf(module)
      fill_group = _FillGroup(groups)
      fill = fill_group and DataDiskFill(catalog, fill_group)
      db_nodes = sum(g.vm_count for g in groups if g.name == 'db') or 1
      phase_plans = []
      for n in names:
        phase_plans.extend(PhaseEstimates(n, fill, db_nodes))
      for p in phase_plans:
        if _Finite(p.seconds, f'phase {p.name}') < 0:
          raise PlanError(f'phase {p.name}: {p.seconds:g} s is not a duration')
      problems = tuple(preflight.Problems(config, names))
      schedule, overlap = _Schedule(module, names, groups)
    try:
      usd_per_hour, as_of, notes = HourlyCost(catalog, groups)
      price_problem = None
    except pricing.PricingError as e:
      usd_per_hour, as_of, notes, price_problem = None, None, [], str(e)
    out.append(
        Config(
            benchmark=module.BENCHMARK_NAME,
            flags=config_flags,
            groups=groups,
            phases=tuple(phase_plans),
            usd_per_hour=usd_per_hour,
            price_as_of=as_of,
            price_problem=price_problem,
            problems=problems,
            price_notes=tuple(notes),
            schedule=schedule,
            overlap=overlap,
        )
    )
  return out


def Makespan(seconds: Sequence[float], processes: int | None) -> float:
  """Wall time of configurations run in order by `processes` workers."""
  if not processes or processes <= 1:
    return sum(seconds)
  workers = [0.0] * min(processes, max(len(seconds), 1))
  for s in seconds:
    i = workers.index(min(workers))
    workers[i] += s
  return max(workers)


def _Usd(value: float | None) -> str:
  return 'no price' if value is None else f'${value:,.2f}'


def PricesNote(
    configs: Sequence[Config],
    today: datetime.date,
    prices_file: str | None = None,
) -> str:
  """Says which dated prices the plan uses, and how old they are."""
  dates = sorted({d for c in configs if c.price_as_of
                  for d in c.price_as_of.split(', ')})  # fmt: skip
  if not dates:
    return 'Prices: none apply (no configuration has a price).'
  ages = []
  for d in dates:
    try:
      years = (today - datetime.date.fromisoformat(d)).days / 365.25
      ages.append(f'{d} ({years:.1f} years before {today.isoformat()})')
    except ValueError:
      ages.append(d)
  text = f'Prices: on-demand list prices as of {", ".join(ages)}'
  if prices_file:
    return (
        text
        + f", from {prices_file} for its cloud; the report's tables"
        ' (configs/pricing) stay the basis of $/tpm.'
    )
  return (
      text
      + " (configs/pricing, the report's); give a newer dated table"
      f' with {PRICES_OPTION}=FILE to price the run at it.'
  )


def Format(
    configs: Sequence[Config],
    processes: int | None = None,
    prices_note: str | None = None,
) -> str:
  """The plan as text: each configuration, then the totals."""
  lines = []
  n = len(configs)
  for i, c in enumerate(configs, 1):
    varying = ', '.join(f'{k}={v}' for k, v in sorted(c.flags.items()))
    lines.append(f'configuration {i}/{n}: {c.benchmark} {varying}'.rstrip())
    for g in c.groups:
      lines.append(f'  vms     {g.Describe()}')
    for p in c.phases:
      lines.append(
          f'  phase   {p.name:<15} {estimates.Hms(p.seconds):>7}  {p.how}'
      )
    for note in c.price_notes:
      lines.append(f'  price   {note}')
    linear = ''
    if c.linear_seconds is not None:
      linear = (
          f'; with a linear TPC-C search {estimates.Hms(c.linear_seconds)},'
          f' {_Usd(c.UsdFor(c.linear_seconds))}'
      )
    lines.append(
        f'  total   {estimates.Hms(c.seconds)} wall (with ~{PROVISION_S // 60}'
        f' min provisioning), {c.vms} VMs, {c.vm_hours:.1f} VM-hours,'
        f' {_Usd(c.usd)}'
        + (f' (prices as of {c.price_as_of})' if c.price_as_of else '')
        + (f' ({c.price_problem})' if c.price_problem else '')
        + linear
    )
    line = OverlapLine(c)
    if line:
      lines.append(line)
    for problem in c.problems:
      lines.append(f'  REFUSED {problem}')
  priced = [c.usd for c in configs if c.usd is not None]
  wall = Makespan([c.seconds for c in configs], processes)
  lines.append(
      f'TOTAL   {n} configuration(s), {sum(c.vms for c in configs)} VMs,'
      f' {sum(c.vm_hours for c in configs):.1f} VM-hours,'
      f' {_Usd(sum(priced)) if priced else "no price"}'
      + (
          f' ({n - len(priced)} configuration(s) without a price)'
          if len(priced) < n
          else ''
      )
      + f', {estimates.Hms(wall)} wall'
      + (
          f' with --run_processes={processes}'
          if processes and processes > 1
          else ' in series'
      )
  )
  if any(c.schedule is not None and c.schedule.side for c in configs):
    lines.append(_OverlapTotal(configs, processes))
  if prices_note:
    lines.append(prices_note)
  lines.append('Times are estimates from stated rates (see pkb_ext/plan.py).')
  refused = sum(1 for c in configs if c.problems)
  if refused:
    lines.append(f'{refused} configuration(s) would be REFUSED by preflight.')
  return '\n'.join(lines)


def OverlapLine(c: Config) -> str | None:
  """A configuration's wall time and VM-hours with and without overlap."""
  if c.schedule is None:
    return None
  if not c.schedule.side:
    why = '; '.join(c.schedule.notes) or 'no phase can run beside io'
    return f'  overlap none: {why}'
  with_s, series_s = c.overlap_seconds, c.series_seconds
  saved = c.UsdFor(series_s - with_s)
  return (
      f'  overlap {",".join(c.schedule.side)} beside'
      f' {",".join(c.schedule.fill)}: {estimates.Hms(with_s)} wall,'
      f' {c.VmHours(with_s):.1f} VM-hours; without overlap'
      f' {estimates.Hms(series_s)}, {c.VmHours(series_s):.1f} VM-hours; overlap'
      f' saves {estimates.Hms(series_s - with_s)} and'
      f' {c.VmHours(series_s - with_s):.1f} VM-hours'
      + (f' ({_Usd(saved)})' if saved is not None else '')
      + ('' if c.overlap else '; this run: --cloud_report_overlap=false')
  )


def _OverlapTotal(configs: Sequence[Config], processes: int | None) -> str:
  """The totals with and without overlap."""
  with_h = sum(c.VmHours(c.overlap_seconds) for c in configs)
  series_h = sum(c.VmHours(c.series_seconds) for c in configs)
  with_wall = Makespan([c.overlap_seconds for c in configs], processes)
  series_wall = Makespan([c.series_seconds for c in configs], processes)
  saved = [c.UsdFor(c.series_seconds - c.overlap_seconds) for c in configs]
  priced = [usd for usd in saved if usd is not None]
  return (
      f'OVERLAP with overlap {estimates.Hms(with_wall)} wall, {with_h:.1f}'
      f' VM-hours; without overlap {estimates.Hms(series_wall)} wall,'
      f' {series_h:.1f} VM-hours; overlap saves'
      f' {estimates.Hms(series_wall - with_wall)} wall and'
      f' {series_h - with_h:.1f} VM-hours'
      + (f' ({_Usd(sum(priced))})' if priced else '')
  )


def SplitPricesOption(argv: Sequence[str]) -> tuple[str | None, list[str]]:
  """Takes --prices=FILE out of argv.

  Raises:
    UsageError: --prices without a file, or given twice.
  """
  prices, rest = None, []
  for arg in argv:
    if arg == PRICES_OPTION or arg.startswith(PRICES_OPTION + '='):
      value = arg.partition('=')[2]
      if not value or prices is not None:
        raise UsageError(f'give {PRICES_OPTION}=FILE once, with a file')
      prices = value
    else:
      rest.append(arg)
  return prices, rest


def LoadCatalog(prices_file: str | None) -> pricing.Catalog:
  """configs/pricing, with prices_file's table in place of its cloud's.

  Raises:
    PlanError: a table cannot be read or parsed.
  """
  catalog = pricing.Load()
  if prices_file is None:
    return catalog
  text = ReadText(prices_file)
  return catalog.WithTable(
      pricing.ParseTable(text, prices_file, catalog.method)
  )


def Main(argv: Sequence[str]) -> int:
  """pkb-ext plan [--prices=FILE] [PKB FLAGS]; see USAGE for exit codes."""
  if HELP_ARGS & set(argv):
    print(USAGE, end='')
    return 0
  with warnings.catch_warnings():
    for message in _PKB_IMPORT_WARNINGS:
      warnings.filterwarnings('ignore', message=message)
    return _Main(argv)


def _Main(argv: Sequence[str]) -> int:
  # PKB's config chatter, and errors that a PlanError says in one line.
  logging.getLogger().setLevel(logging.CRITICAL)
  try:
    prices_file, pkb_argv = SplitPricesOption(argv)
    catalog = LoadCatalog(prices_file)
    flag_values = ParseFlags(pkb_argv)
    if flag_values.helpmatch:
      PrintHelpMatch(flag_values, flag_values.helpmatch)
      return 0
    configs = Configurations(pkb_argv, catalog)
  except (PlanError, pricing.PricingError) as e:
    print(f'pkb-ext plan: {e}', file=sys.stderr)
    return getattr(e, 'exit_code', 1)
  note = PricesNote(configs, datetime.date.today(), prices_file)
  print(Format(configs, flag_values.run_processes, note))
  return 1 if any(c.problems for c in configs) else 0
