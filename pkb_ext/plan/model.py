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
"""What a plan is made of: groups of VMs, configurations, their wall time.

Pure: no PKB, no flags, no prices. A Config's price per hour and its
preflight problems are computed elsewhere (cost, configurations) and held
here; its wall time is its provisioning, what runs once (installs, the
TPC-C data's load: each phase's once_s), then each Run stage
(--run_stage_iterations) following the suite's schedule
(phases.MakeSchedule): the phases beside io count once, as the longest of
io and each lane's sum, and those beside tpcc's load (object_storage, where
the engine leaves the client idle) take only what the load does not cover.
"""

import dataclasses
import math
from typing import Any, Sequence

from pkb_ext.plan import errors
from pkb_ext.plan import estimates
from pkb_ext.plan import phase_estimates
from pkb_ext.suite import side_lanes

# Provisioning of a configuration (create, boot, teardown), in seconds: an
# assumption for clouds (a price table's rates may give its own).
PROVISION_S = int(estimates.RATES['provision_s'][0])

# Plan phases that are part of a scheduled phase (phases.Schedule).
_SCHEDULED_AS = {'tpcc_import': side_lanes.LOAD_PHASE}


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
  region: str = ''  # of its zone; '' without a zone
  vcpus: int | None = None  # of each VM; None: unknown

  @property
  def local(self) -> bool:
    return self.disk_type == 'local'

  def Describe(self) -> str:
    what = self.machine_type or '?'
    if self.static:
      what = 'static VM' + (
          f' ({self.machine_type})' if self.machine_type else ''
      )
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
class Variant:
  """The VMs and $/hour of a configuration with or without overlap."""

  vms: int
  usd_per_hour: float | None


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
  # (phase, why) of each phase the configuration skips: not in phases.
  skipped: tuple[tuple[str, str], ...] = ()
  notes: tuple[str, ...] = ()  # what a phase runs differently here
  price_region: str | None = None  # the region(s) priced
  need: Any = None  # quota.Need: its vCPUs per cloud quota

  # The run with overlap and in series, where it provisions other VMs than
  # groups (the suite's second db VM is for overlap); None: groups'.
  with_overlap: Variant | None = None
  in_series: Variant | None = None
  iterations: int = 1  # Run stages (--run_stage_iterations)
  provision_s: float = PROVISION_S
  stage_overhead_s: float = 0.0  # each Run stage's, outside its phases
  rates_source: str = ''  # where its measured rates come from; '': none

  @property
  def once_seconds(self) -> float:
    """Provisioning and what runs once (installs, the TPC-C data's load)."""
    return self.provision_s + sum(p.once_s for p in self.phases)

  def _RunOf(self, p: estimates.Phase) -> float:
    return p.seconds - p.once_s

  @property
  def vcpus(self) -> int | None:
    """Every VM's vCPUs; None if a VM's are unknown."""
    each = [g.vcpus for g in self.groups]
    if any(v is None for v in each):
      return None
    return sum(v * g.vm_count for v, g in zip(each, self.groups))

  @property
  def series_seconds(self) -> float:
    """The wall time with every phase in series."""
    run = sum(self._RunOf(p) for p in self.phases) + self.stage_overhead_s
    return self.once_seconds + self.iterations * run

  @property
  def overlap_seconds(self) -> float:
    """The wall time with the side phases beside the fill, and those beside
    tpcc's load (schedule): the load runs once, in the first Run stage, so
    only that stage's beside_load phases run beside it."""
    schedule = self.schedule
    if schedule is None or not schedule.overlapped:
      return self.series_seconds
    by_phase, load_s = {}, 0.0
    for p in self.phases:
      name = _SCHEDULED_AS.get(p.name, p.name)
      by_phase[name] = by_phase.get(name, 0.0) + self._RunOf(p)
      if name == side_lanes.LOAD_PHASE:  # its once_s: the data's load
        load_s += p.once_s

    def Sum(names):
      return sum(by_phase.get(n, 0.0) for n in names)

    beside_fill = [Sum(lane) for lane in schedule.lanes]
    run = (
        Sum(schedule.before)
        + max([Sum(schedule.fill), *beside_fill])
        + Sum(schedule.after)
        + Sum(schedule.beside_load)
        + self.stage_overhead_s
    )
    beside_load = min(load_s, Sum(schedule.beside_load))
    return self.once_seconds + self.iterations * run - beside_load

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
    return self.seconds + self.iterations * sum(
        p.linear_seconds - p.seconds for p in linear
    )

  @property
  def report_seconds(self) -> float | None:
    """The wall time the report's way, a linear TPC-C search on data
    generated in the run; None: this run is planned that way."""
    generated = [p for p in self.phases if p.generate_s is not None]
    if not generated and self.linear_seconds is None:
      return None
    base = self.seconds if self.linear_seconds is None else self.linear_seconds
    return base + sum(p.generate_s - p.seconds for p in generated)

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

  def VariantOf(self, overlapped: bool) -> Variant:
    """The VMs and $/hour of the run with overlap, or in series."""
    variant = self.with_overlap if overlapped else self.in_series
    return variant or Variant(self.vms, self.usd_per_hour)

  def VmHoursOf(self, overlapped: bool) -> float:
    """The VM-hours of the run with overlap, or in series."""
    seconds = self.overlap_seconds if overlapped else self.series_seconds
    return self.VariantOf(overlapped).vms * seconds / 3600

  def UsdOf(self, overlapped: bool) -> float | None:
    """The dollars of the run with overlap, or in series; None: no price."""
    seconds = self.overlap_seconds if overlapped else self.series_seconds
    usd_per_hour = self.VariantOf(overlapped).usd_per_hour
    return None if usd_per_hour is None else usd_per_hour * seconds / 3600


def PhaseEstimates(
    name: str,
    fill: estimates.Fill | None,
    db_nodes: int,
    rates: Any = None,
    fixtures: bool = False,
) -> list[estimates.Phase]:
  """Estimates a phase from its flags (read under the config's flags).

  Each phase's estimate module (phase_estimates) computes its wall time.

  Args:
    name: the phase.
    fill: the io phase's data disk.
    db_nodes: the db VMs.
    rates: the measured rates of the cloud and machine type (name ->
      value; see Rates), or None.
    fixtures: the TPC-C data is loaded from a fixture when one matches.

  Raises:
    errors.PlanError: the estimate refuses the flags.
  """
  context = estimates.Context(
      fill=fill,
      db_nodes=db_nodes,
      rates=dict(rates.values) if rates else {},
      fixtures=fixtures,
  )
  try:
    return phase_estimates.Estimate(name, context)
  except estimates.EstimateError as e:
    raise errors.PlanError(str(e)) from e


def Finite(value: Any, what: str) -> float:
  """value as a float.

  Raises:
    errors.PlanError: it is not finite (what names it).
  """
  number = float(value)
  if not math.isfinite(number):
    raise errors.PlanError(f'{what}: {value} is not a finite number')
  return number


@dataclasses.dataclass(frozen=True)
class Rates:
  """The measured rates of one configuration's cloud and machine type."""

  values: dict[str, float]
  source: str  # the run that measured them, and its date


def CheckRates(rates: Any, where: str) -> None:
  """Refuses a price table's rate no estimate knows (a misspelt name).

  Args:
    rates: a pricing.Rates, or None.
    where: the table, for the message.

  Raises:
    errors.PlanError: naming the rate and the table.
  """
  names = set()
  if rates:
    names = set(rates.values).union(*rates.machines.values())
  unknown = sorted(names - set(estimates.RATES))
  if unknown:
    raise errors.PlanError(
        f'{where} rates: {", ".join(unknown)} not a rate plan knows; known:'
        f' {", ".join(sorted(estimates.RATES))}'
    )


def CheckGroup(g: Group) -> None:
  """Refuses values that make no plan (the message names the flag).

  Raises:
    errors.PlanError: a disk size <= 0, negative provisioned IOPS or MB/s,
      or no machine type on VMs that are not static.
  """
  where = f'vm_group {g.name}'
  if not g.static and not g.machine_type:
    raise errors.PlanError(
        f'{where}: no machine type PKB can create and price'
        ' (set --machine_type)'
    )
  if g.disk_type and not g.local and not g.static:
    if Finite(g.disk_size_gb, f'{where} disk size') <= 0:
      raise errors.PlanError(
          f'{where}: data disk size {g.disk_size_gb:g} GB must be > 0'
          ' (--data_disk_size)'
      )
  for value, flag in (
      (g.provisioned_iops, 'provisioned_iops'),
      (g.provisioned_mbps, 'provisioned_throughput'),
  ):
    if value is not None and Finite(value, f'{where} {flag}') < 0:
      raise errors.PlanError(f'{where}: --{flag}={value} must be >= 0')


def CheckPhases(phases: Sequence[estimates.Phase]) -> None:
  """Refuses a phase estimate that is not a duration.

  Raises:
    errors.PlanError: a negative or non-finite number of seconds.
  """
  for p in phases:
    if Finite(p.seconds, f'phase {p.name}') < 0:
      raise errors.PlanError(
          f'phase {p.name}: {p.seconds:g} s is not a duration'
      )


def Makespan(seconds: Sequence[float], processes: int | None) -> float:
  """Wall time of configurations run in order by `processes` workers."""
  if not processes or processes <= 1:
    return sum(seconds)
  workers = [0.0] * min(processes, max(len(seconds), 1))
  for s in seconds:
    i = workers.index(min(workers))
    workers[i] += s
  return max(workers)
