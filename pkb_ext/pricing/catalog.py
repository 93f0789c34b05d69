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
"""Every cloud's price table and the method: one node's cost and $/tpm.

Catalog.MonthlyCost prices one node (its VM and data disks) per month, at
the table's $/GB-month (the report's method) or at the size tiers the disks
bill at; TermCost and UsdPerTpm turn it into the report's figures.
"""

import dataclasses
from typing import Mapping

from pkb_ext.pricing import model

# Report names of disks -> PKB disk types.
_DISK_ALIASES = {'premium': 'Premium_LRS', 'ultra': 'UltraSSD_LRS'}


@dataclasses.dataclass(frozen=True)
class Catalog:
  """Every cloud's price table and the method that applies them."""

  method: model.Method
  tables: Mapping[str, model.PriceTable]  # by lower-case cloud name

  def Table(self, cloud: str) -> model.PriceTable | None:
    return self.tables.get(cloud.lower())

  def Machine(self, cloud: str, machine_type: str) -> model.Machine | None:
    table = self.Table(cloud)
    return table.machines.get(machine_type) if table else None

  def Regional(self, cloud: str, region: str | None) -> model.PriceTable | None:
    """The cloud's table of region (None: its home region); None: none."""
    table = self.Table(cloud)
    return table.ForRegion(region) if table else None

  def Disk(
      self, cloud: str, disk_type: str, region: str | None = None
  ) -> model.Disk | None:
    table = self.Regional(cloud, region)
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
      region: str | None = None,
  ) -> model.Cost:
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
      region: price in this region's table (default: the home region's).

    Raises:
      model.PricingError: no price for the cloud, region, machine or disk
        type (the message says `no price for X in REGION`), no
        provisioned IOPS for a disk that bills every IOPS (io2, Ultra), or
        more provisioned IOPS than the disk's tiers cover.
    """
    home = self.Table(cloud)
    if home is None:
      raise model.PricingError(f'no price table for cloud {cloud!r}')
    table = home.ForRegion(region)
    where = region or home.region
    if table is None:
      raise model.PricingError(
          f'no price for {machine_type} in {where} (no {cloud} prices there)'
      )
    machine = table.machines.get(machine_type)
    if machine is None:
      raise model.PricingError(f'no price for {machine_type} in {where}')
    disk = self.Disk(cloud, disk_type, where)
    if disk is None:
      raise model.PricingError(f'no price for {disk_type} in {where}')
    if disk.iops_tiers and not disk.free_iops and not provisioned_iops:
      # io2, Ultra: every IOPS is provisioned and billed; a missing count
      # would drop the IOPS price from $/tpm without a word.
      raise model.PricingError(
          f'{cloud} {disk.disk_type} is billed per provisioned IOPS, and no'
          ' provisioned IOPS were given'
      )
    return model.Cost(
        vm_usd=machine.usd_per_hour * self.method.hours_per_month,
        disk_capacity_usd=disks
        * disk.CapacityUsd(float(disk_size_gb or 0) / disks, tiered),
        disk_iops_usd=_IopsCost(disk, provisioned_iops or 0),
        disk_mbps_usd=disk.usd_per_mbps_month
        * max(0.0, float(provisioned_mbps or 0) - disk.free_mbps),
        as_of=table.as_of,
    )

  def WithTable(self, table: model.PriceTable) -> 'Catalog':
    """Returns this catalog with `table` in place of its cloud's table."""
    return dataclasses.replace(
        self, tables={**self.tables, table.cloud.lower(): table}
    )

  def TermCost(self, monthly: model.Cost) -> float:
    """Returns the cost over the report's term (36 months)."""
    return monthly.total_usd * self.method.term_months

  def UsdPerTpm(self, monthly: model.Cost, tpmc: float) -> float:
    """Returns the report's $/tpm: term cost of one node / cluster tpmC."""
    if not tpmc or tpmc <= 0:
      raise model.PricingError(f'tpmC must be > 0, got {tpmc}')
    return self.TermCost(monthly) / tpmc

  def ImpliedTpmc(self, monthly: model.Cost, usd_per_tpm: float) -> float:
    """Returns the tpmC that gives `usd_per_tpm` for this node's cost."""
    if usd_per_tpm <= 0:
      raise model.PricingError(f'$/tpm must be > 0, got {usd_per_tpm}')
    return self.TermCost(monthly) / usd_per_tpm


def _IopsCost(disk: model.Disk, iops: float) -> float:
  billable = max(0.0, float(iops) - disk.free_iops)
  if not billable:
    return 0.0
  if not disk.iops_tiers:
    raise model.PricingError(
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
  raise model.PricingError(
      f'{iops} provisioned IOPS is beyond the {disk.disk_type} price tiers '
      f'(max {disk.iops_tiers[-1].up_to:g})'
  )
