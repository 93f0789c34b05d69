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
"""A price table's parts: machines, disks and their prices, the method.

The dataclasses a configs/pricing/<cloud>.yaml table parses into (see
load), and the disk arithmetic that needs only one disk's prices: the size
tier it bills at, its capacity price, its throughput ceiling.
"""

import dataclasses
from typing import Mapping

from pkb_ext import errors


class PricingError(errors.Error, ValueError):
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
  vcpus: int | None = None  # None: the cloud's naming rule says


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
class Rates:
  """How fast a cloud's machines do the phases' parts, where measured.

  values: rate name -> number, each a name the phases' estimates know
  (pkb_ext.plan.estimates.RATES), in place of its default;
  machines: machine type -> its own values, over those. The table's
  `rates:` entry dates them and names the run that measured them.
  """

  as_of: str
  source: str
  values: Mapping[str, float]
  machines: Mapping[str, Mapping[str, float]] = dataclasses.field(
      default_factory=dict
  )

  def For(self, machine_type: str | None) -> dict[str, float]:
    """The values for a machine type: the table's, then the machine's."""
    return {**self.values, **self.machines.get(machine_type or '', {})}


@dataclasses.dataclass(frozen=True)
class PriceTable:
  """One cloud's prices in its home region, and in the other regions.

  regions: a table of the same cloud per other region, with that region's
  own date and sources; a machine or disk it does not list has no price
  there (its limits and vCPUs are the home table's).
  """

  cloud: str
  region: str
  currency: str
  as_of: str
  sources: Mapping[str, str]
  machines: Mapping[str, Machine]
  disks: Mapping[str, Disk]
  regions: Mapping[str, 'PriceTable'] = dataclasses.field(default_factory=dict)
  rates: Rates | None = None  # the home region's, for every region

  def ForRegion(self, region: str | None) -> 'PriceTable | None':
    """The table of region (None or '': the home region's); None: none."""
    if not region or region == self.region:
      return self
    return self.regions.get(region)


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
