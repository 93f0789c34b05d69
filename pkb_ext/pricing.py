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
"""Dated on-demand price tables -> $/month per machine and $/tpm.

The tables are configs/pricing/<cloud>.yaml (VM $/hour, disk $/GB-month,
$/provisioned IOPS-month in tiers, $/provisioned MB/s-month, the machines'
published limits and instance-store volume sizes, the size tiers a disk
bills at, the disks' throughput ceilings) and configs/pricing/method.yaml
(hours per month, the 3-year term, flag thresholds). This module is the one
place that does the money arithmetic; the analysis SQL receives its results
as a table. $/tpm keeps the report's method ($/GB-month); `pkb-ext plan`
prices a run's disks at their billed tiers (MonthlyCost(tiered=True)).

The report's definition (seed 000, "Overall Conclusions"): $/tpm is the
"3-Year Total Cost Per Machine / tpm": one node's on-demand VM + data disk
cost over 36 months, divided by the cluster's tpmC.
"""

import dataclasses
import importlib.resources
import math
import os
from typing import Any, Mapping

import yaml

_METHOD_FILE = 'method.yaml'
# Report names of disks -> PKB disk types.
_DISK_ALIASES = {'premium': 'Premium_LRS', 'ultra': 'UltraSSD_LRS'}
_SIZE_TIER_KEYS = {'name', 'up_to_gb', 'usd_month', 'mbps'}


class PricingError(ValueError):
  """A price table is malformed, or a price is missing."""


@dataclasses.dataclass(frozen=True)
class Method:
  """How prices become report figures (configs/pricing/method.yaml)."""

  hours_per_month: float
  term_months: int
  over_limit_tolerance_pct: float
  bimodality_threshold: float
  bimodality_min_runs: int


@dataclasses.dataclass(frozen=True)
class Limits:
  """A machine's published limits; None where unpublished or unknown."""

  disk_iops: float | None = None
  disk_mbps: float | None = None
  network_gbps: float | None = None


@dataclasses.dataclass(frozen=True)
class Machine:
  machine_type: str
  usd_per_hour: float
  limits: Limits
  local_volume_gb: float | None = None  # each instance-store volume


@dataclasses.dataclass(frozen=True)
class SizeTier:
  """A size a disk is billed at: the smallest tier that holds the disk."""

  name: str
  up_to_gb: float
  usd_month: float | None  # None: the table has no price for it
  mbps: float | None = None  # the tier's published throughput


@dataclasses.dataclass(frozen=True)
class Tier:
  up_to: float
  usd: float


@dataclasses.dataclass(frozen=True)
class Disk:
  """A disk type's monthly prices (hourly rates already x hours/month)."""

  disk_type: str
  usd_per_gb_month: float
  iops_tiers: tuple[Tier, ...] = ()
  free_iops: float = 0
  usd_per_mbps_month: float = 0
  free_mbps: float = 0
  report_name: str | None = None
  billed_tiers: tuple[SizeTier, ...] = ()
  max_mbps: float | None = None
  mbps_per_gb: float | None = None
  mbps_per_iops: float | None = None
  volume_gb: float | None = None  # fixed-size volumes (GCP local SSD)

  def BilledTier(self, size_gb: float) -> SizeTier | None:
    """Returns the size tier a disk of size_gb bills at (None: no tiers).

    Raises:
      PricingError: the disk is larger than the last tier.
    """
    if not self.billed_tiers:
      return None
    for tier in self.billed_tiers:
      if size_gb <= tier.up_to_gb:
        return tier
    last = self.billed_tiers[-1]
    raise PricingError(
        f'{self.disk_type} {size_gb:g} GB is larger than its largest tier'
        f' ({last.name}, {last.up_to_gb:g} GB)'
    )

  def CapacityUsd(self, size_gb: float, tiered: bool = False) -> float:
    """Returns one disk's monthly capacity price.

    Args:
      size_gb: the disk's size.
      tiered: price it at the size tier it bills at (when the table has
        tiers), not at the table's $/GB-month (the report's method).

    Raises:
      PricingError: the tier it bills at has no price in the table.
    """
    tier = self.BilledTier(size_gb) if tiered else None
    if tier is None:
      return self.usd_per_gb_month * size_gb
    if tier.usd_month is None:
      raise PricingError(
          f'{self.disk_type} {size_gb:g} GB bills at {tier.name}, which has'
          ' no price in the table'
      )
    return tier.usd_month

  def ThroughputMbps(
      self, size_gb: float, iops: float = 0, mbps: float = 0
  ) -> float | None:
    """Returns one disk's published throughput ceiling, None if unknown."""
    caps = [self.max_mbps]
    tier = self.BilledTier(size_gb)
    if tier is not None:
      caps.append(tier.mbps)
    if self.usd_per_mbps_month:  # throughput is provisioned (gp3, Ultra)
      caps.append(max(float(mbps or 0), self.free_mbps) or None)
    if self.mbps_per_gb is not None:
      caps.append(self.mbps_per_gb * size_gb)
    if self.mbps_per_iops is not None and iops:
      caps.append(self.mbps_per_iops * iops)
    known = [c for c in caps if c is not None]
    return min(known) if known else None


@dataclasses.dataclass(frozen=True)
class PriceTable:
  cloud: str
  region: str
  currency: str
  as_of: str
  sources: Mapping[str, str]
  machines: Mapping[str, Machine]
  disks: Mapping[str, Disk]


@dataclasses.dataclass(frozen=True)
class Cost:
  """One node's monthly on-demand cost, by part."""

  vm_usd: float
  disk_capacity_usd: float
  disk_iops_usd: float
  disk_mbps_usd: float
  as_of: str

  @property
  def disk_usd(self) -> float:
    return self.disk_capacity_usd + self.disk_iops_usd + self.disk_mbps_usd

  @property
  def total_usd(self) -> float:
    return self.vm_usd + self.disk_usd


def _Number(value: Any, where: str) -> float:
  if isinstance(value, bool) or not isinstance(value, (int, float)):
    raise PricingError(f'{where}: expected a number, got {value!r}')
  if not math.isfinite(value):
    raise PricingError(f'{where}: must be finite, got {value}')
  if value < 0:
    raise PricingError(f'{where}: must be >= 0, got {value}')
  return float(value)


def _Optional(d: Mapping[str, Any], key: str, where: str) -> float | None:
  return None if d.get(key) is None else _Number(d[key], f'{where}.{key}')


def _ParseDisk(name: str, d: Mapping[str, Any], hours: float, where: str):
  where = f'{where}: disks.{name}'
  known = {
      'usd_per_gb_month',
      'usd_per_gb_hour',
      'usd_per_iops_month',
      'usd_per_iops_hour',
      'usd_per_mbps_month',
      'usd_per_mbps_hour',
      'free_iops',
      'free_mbps',
      'report_name',
      'billed_tiers',
      'max_mbps',
      'mbps_per_gb',
      'mbps_per_iops',
      'volume_gb',
  }
  unknown = set(d) - known
  if unknown:
    raise PricingError(f'{where}: unknown keys {sorted(unknown)}')

  def Monthly(base: str) -> float | None:
    monthly, hourly = d.get(f'{base}_month'), d.get(f'{base}_hour')
    if monthly is not None and hourly is not None:
      raise PricingError(f'{where}: give {base}_month or {base}_hour, not both')
    if hourly is not None:
      return _Number(hourly, f'{where}.{base}_hour') * hours
    if monthly is None or isinstance(monthly, list):
      return None
    return _Number(monthly, f'{where}.{base}_month')

  gb = Monthly('usd_per_gb')
  if gb is None:
    raise PricingError(f'{where}: needs usd_per_gb_month or usd_per_gb_hour')
  tiers = []
  raw_tiers = d.get('usd_per_iops_month')
  if isinstance(raw_tiers, list):
    for i, t in enumerate(raw_tiers):
      tiers.append(
          Tier(
              _Number(t.get('up_to'), f'{where}.usd_per_iops_month[{i}].up_to'),
              _Number(t.get('usd'), f'{where}.usd_per_iops_month[{i}].usd'),
          )
      )
    if [t.up_to for t in tiers] != sorted({t.up_to for t in tiers}):
      raise PricingError(f'{where}: IOPS tiers must increase strictly')
  else:
    flat = Monthly('usd_per_iops')
    if flat is not None:
      tiers.append(Tier(float('inf'), flat))
  return Disk(
      disk_type=name,
      usd_per_gb_month=gb,
      iops_tiers=tuple(tiers),
      free_iops=_Optional(d, 'free_iops', where) or 0,
      usd_per_mbps_month=Monthly('usd_per_mbps') or 0,
      free_mbps=_Optional(d, 'free_mbps', where) or 0,
      report_name=d.get('report_name'),
      billed_tiers=_ParseSizeTiers(d.get('billed_tiers') or [], where),
      max_mbps=_Optional(d, 'max_mbps', where),
      mbps_per_gb=_Optional(d, 'mbps_per_gb', where),
      mbps_per_iops=_Optional(d, 'mbps_per_iops', where),
      volume_gb=_Optional(d, 'volume_gb', where),
  )


def _ParseSizeTiers(raw: Any, where: str) -> tuple[SizeTier, ...]:
  if not isinstance(raw, list):
    raise PricingError(f'{where}.billed_tiers: expected a list')
  tiers = []
  for i, t in enumerate(raw):
    w = f'{where}.billed_tiers[{i}]'
    if not isinstance(t, dict) or set(t) - _SIZE_TIER_KEYS:
      raise PricingError(f'{w}: expected name, up_to_gb, usd_month, mbps')
    tiers.append(
        SizeTier(
            name=str(t.get('name') or f'tier {i}'),
            up_to_gb=_Number(t.get('up_to_gb'), f'{w}.up_to_gb'),
            usd_month=_Optional(t, 'usd_month', w),
            mbps=_Optional(t, 'mbps', w),
        )
    )
  if [t.up_to_gb for t in tiers] != sorted({t.up_to_gb for t in tiers}):
    raise PricingError(f'{where}: billed tiers must increase strictly')
  return tuple(tiers)


def _ParseTable(d: Mapping[str, Any], hours: float, where: str) -> PriceTable:
  if not isinstance(d, dict):
    raise PricingError(f'{where}: expected a mapping of cloud, region, ...')
  for key in (
      'cloud',
      'region',
      'currency',
      'as_of',
      'sources',
      'machines',
      'disks',
  ):
    if key not in d:
      raise PricingError(f'{where}: missing key {key!r}')
  if d['currency'] != 'USD':
    raise PricingError(f'{where}: only USD is supported, got {d["currency"]}')
  for key in ('machines', 'disks'):
    if not isinstance(d[key], dict):
      raise PricingError(f'{where}: {key} must be a mapping')
  machines = {}
  for name, m in d['machines'].items():
    w = f'{where}: machines.{name}'
    if not isinstance(m, dict):
      raise PricingError(f'{w}: must be a mapping')
    unknown = set(m) - {'usd_per_hour', 'limits', 'local_volume_gb'}
    if unknown:
      raise PricingError(f'{w}: unknown keys {sorted(unknown)}')
    lim = m.get('limits') or {}
    unknown = set(lim) - {'disk_iops', 'disk_mbps', 'network_gbps'}
    if unknown:
      raise PricingError(f'{w}.limits: unknown keys {sorted(unknown)}')
    machines[name] = Machine(
        machine_type=name,
        usd_per_hour=_Number(m.get('usd_per_hour'), f'{w}.usd_per_hour'),
        limits=Limits(**{k: _Optional(lim, k, f'{w}.limits') for k in lim}),
        local_volume_gb=_Optional(m, 'local_volume_gb', w),
    )
  disks = {
      name: _ParseDisk(name, disk, hours, where)
      for name, disk in d['disks'].items()
  }
  return PriceTable(
      cloud=str(d['cloud']),
      region=str(d['region']),
      currency='USD',
      as_of=str(d['as_of']),
      sources=dict(d['sources']),
      machines=machines,
      disks=disks,
  )


def DefaultDirectory() -> str:
  """Returns configs/pricing of the installed pkb_ext.configs package."""
  return str(importlib.resources.files('pkb_ext.configs') / 'pricing')


@dataclasses.dataclass(frozen=True)
class Catalog:
  """Every cloud's price table and the method that applies them."""

  method: Method
  tables: Mapping[str, PriceTable]  # by lower-case cloud name

  def Table(self, cloud: str) -> PriceTable | None:
    return self.tables.get(cloud.lower())

  def Machine(self, cloud: str, machine_type: str) -> Machine | None:
    table = self.Table(cloud)
    return table.machines.get(machine_type) if table else None

  def Disk(self, cloud: str, disk_type: str) -> Disk | None:
    table = self.Table(cloud)
    if not table:
      return None
    disk_type = _DISK_ALIASES.get(disk_type.lower(), disk_type)
    for name, disk in table.disks.items():
      if name.lower() == disk_type.lower():
        return disk
    return None

  def MonthlyCost(
      self,
      cloud: str,
      machine_type: str,
      disk_type: str,
      disk_size_gb: float,
      provisioned_iops: float | None = None,
      provisioned_mbps: float | None = None,
      tiered: bool = False,
      disks: int = 1,
  ) -> Cost:
    """Returns one node's monthly on-demand cost: VM + its data disks.

    Args:
      cloud: the cloud's name.
      machine_type: the VM's machine type.
      disk_type: the data disk's PKB disk type (or its report name).
      disk_size_gb: the size of all `disks` together.
      provisioned_iops: of all `disks` together.
      provisioned_mbps: of all `disks` together.
      tiered: price each disk at the size tier it bills at (Disk.BilledTier)
        where the table has tiers; default: the table's $/GB-month, the
        report's method, which $/tpm keeps.
      disks: how many equal disks the size, IOPS and MB/s are spread over.

    Raises:
      PricingError: no price for the cloud, machine or disk type, no
        provisioned IOPS for a disk that bills every IOPS (io2, Ultra), or
        more provisioned IOPS than the disk's tiers cover.
    """
    table = self.Table(cloud)
    if table is None:
      raise PricingError(f'no price table for cloud {cloud!r}')
    machine = self.Machine(cloud, machine_type)
    if machine is None:
      raise PricingError(f'no {cloud} price for machine {machine_type!r}')
    disk = self.Disk(cloud, disk_type)
    if disk is None:
      raise PricingError(f'no {cloud} price for disk type {disk_type!r}')
    if disk.iops_tiers and not disk.free_iops and not provisioned_iops:
      # io2, Ultra: every IOPS is provisioned and billed; a missing count
      # would drop the IOPS price from $/tpm without a word.
      raise PricingError(
          f'{cloud} {disk.disk_type} is billed per provisioned IOPS, and no'
          ' provisioned IOPS were given'
      )
    return Cost(
        vm_usd=machine.usd_per_hour * self.method.hours_per_month,
        disk_capacity_usd=disks
        * disk.CapacityUsd(float(disk_size_gb or 0) / disks, tiered),
        disk_iops_usd=_IopsCost(disk, provisioned_iops or 0),
        disk_mbps_usd=disk.usd_per_mbps_month
        * max(0.0, float(provisioned_mbps or 0) - disk.free_mbps),
        as_of=table.as_of,
    )

  def WithTable(self, table: PriceTable) -> 'Catalog':
    """Returns this catalog with `table` in place of its cloud's table."""
    return dataclasses.replace(
        self, tables={**self.tables, table.cloud.lower(): table}
    )

  def TermCost(self, monthly: Cost) -> float:
    """Returns the cost over the report's term (36 months)."""
    return monthly.total_usd * self.method.term_months

  def UsdPerTpm(self, monthly: Cost, tpmc: float) -> float:
    """Returns the report's $/tpm: term cost of one node / cluster tpmC."""
    if not tpmc or tpmc <= 0:
      raise PricingError(f'tpmC must be > 0, got {tpmc}')
    return self.TermCost(monthly) / tpmc

  def ImpliedTpmc(self, monthly: Cost, usd_per_tpm: float) -> float:
    """Returns the tpmC that gives `usd_per_tpm` for this node's cost."""
    if usd_per_tpm <= 0:
      raise PricingError(f'$/tpm must be > 0, got {usd_per_tpm}')
    return self.TermCost(monthly) / usd_per_tpm


def _IopsCost(disk: Disk, iops: float) -> float:
  billable = max(0.0, float(iops) - disk.free_iops)
  if not billable:
    return 0.0
  if not disk.iops_tiers:
    raise PricingError(
        f'disk type {disk.disk_type} has no provisioned-IOPS price, '
        f'got {iops} provisioned IOPS'
    )
  total, floor = 0.0, 0.0
  for tier in disk.iops_tiers:
    units = min(billable, tier.up_to - disk.free_iops) - floor
    if units > 0:
      total += units * tier.usd
    floor = tier.up_to - disk.free_iops
    if billable <= floor:
      return total
  raise PricingError(
      f'{iops} provisioned IOPS is beyond the {disk.disk_type} price tiers '
      f'(max {disk.iops_tiers[-1].up_to:g})'
  )


def ParseTable(text: str, where: str, method: Method) -> PriceTable:
  """Parses the text of one <cloud>.yaml price table.

  Args:
    text: the file's YAML.
    where: the file's name, for messages.
    method: whose hours_per_month turn hourly rates into monthly ones.

  Raises:
    PricingError: not YAML, or not a price table.
  """
  try:
    raw = yaml.safe_load(text)
  except yaml.YAMLError as e:
    mark = getattr(e, 'problem_mark', None)
    line = f' line {mark.line + 1}' if mark else ''
    problem = getattr(e, 'problem', None) or type(e).__name__
    raise PricingError(f'{where}{line}: not YAML ({problem})') from e
  except RecursionError as e:
    raise PricingError(f'{where}: nested too deeply') from e
  return _ParseTable(raw or {}, method.hours_per_month, where)


def Load(directory: str | None = None) -> Catalog:
  """Loads method.yaml and every <cloud>.yaml of a pricing directory.

  Args:
    directory: default configs/pricing of the installed package.

  Raises:
    PricingError: a file is malformed, or a cloud is defined twice.
  """
  directory = directory or DefaultDirectory()
  path = os.path.join(directory, _METHOD_FILE)
  try:
    with open(path, encoding='utf-8') as f:
      raw = (yaml.safe_load(f) or {}).get('method') or {}
  except OSError as e:
    raise PricingError(f'cannot read {path}: {e}') from e
  try:
    method = Method(
        hours_per_month=_Number(raw['hours_per_month'], 'hours_per_month'),
        term_months=int(_Number(raw['term_months'], 'term_months')),
        over_limit_tolerance_pct=_Number(
            raw['over_limit_tolerance_pct'], 'over_limit_tolerance_pct'
        ),
        bimodality_threshold=_Number(
            raw['bimodality_threshold'], 'bimodality_threshold'
        ),
        bimodality_min_runs=int(
            _Number(raw['bimodality_min_runs'], 'bimodality_min_runs')
        ),
    )
  except KeyError as e:
    raise PricingError(f'{path}: method is missing {e}') from e
  tables = {}
  for name in sorted(os.listdir(directory)):
    if not name.endswith('.yaml') or name == _METHOD_FILE:
      continue
    path = os.path.join(directory, name)
    with open(path, encoding='utf-8') as f:
      table = ParseTable(f.read(), path, method)
    key = table.cloud.lower()
    if key in tables:
      raise PricingError(f'{path}: cloud {table.cloud} is defined twice')
    tables[key] = table
  return Catalog(method=method, tables=tables)
