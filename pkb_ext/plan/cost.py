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
"""What a configuration's disks write and what its VMs and disks cost.

From the dated price tables (pkb_ext.pricing): the io phase's fill (the
data disk's size and the lowest known throughput ceiling of the disk and
the machine), every VM's and data disk's $/hour with disks priced at the
size tier they bill at, and the check that a machine type has a price.
"""

from typing import Sequence

from benchmarks.cloud_report import estimates
from pkb_ext import pricing
from pkb_ext.plan import errors
from pkb_ext.plan import model

# The option that prices a run at another dated table (see cli).
PRICES_OPTION = '--prices'


def FillGroup(groups: Sequence[model.Group]) -> model.Group | None:
  """The group of the VM the io phase runs on (the first db VM)."""
  with_disk = [g for g in groups if g.disk_type]
  db = [g for g in with_disk if g.name == 'db']
  return (db or with_disk or [None])[0]


def LocalVolumeGb(catalog: pricing.Catalog, group: model.Group) -> float | None:
  """The size of one instance-store volume of group's VMs; None: unknown.

  The machine's (AWS, Azure), else the disk type's (GCP's local SSD).
  """
  machine = catalog.Machine(group.cloud, group.machine_type or '')
  disk = catalog.Disk(group.cloud, group.disk_type or '')
  return (machine and machine.local_volume_gb) or (disk and disk.volume_gb)


def DataDiskFill(
    catalog: pricing.Catalog, group: model.Group
) -> estimates.Fill:
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


def _LocalPricedGb(catalog: pricing.Catalog, g: model.Group) -> float:
  """Instance-store GB a VM is billed for: every volume PKB attaches."""
  volume_gb = LocalVolumeGb(catalog, g) or 0
  return float(volume_gb * (g.local_volumes or g.disks_per_vm))


def HourlyCost(
    catalog: pricing.Catalog, groups: Sequence[model.Group]
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


def CheckMachinePrice(catalog: pricing.Catalog, g: model.Group) -> None:
  """Refuses a machine type that has no price in the tables.

  Raises:
    errors.PlanError: no table for the cloud, or no price in it.
  """
  if g.static:
    return
  table = catalog.Table(g.cloud)
  if table is None:
    raise errors.PlanError(
        f'vm_group {g.name}: no price table for cloud {g.cloud}'
        f' (configs/pricing; give one with {PRICES_OPTION}=FILE)'
    )
  if g.machine_type not in table.machines:
    raise errors.PlanError(
        f'vm_group {g.name}: machine type {g.machine_type!r} has no'
        f' {g.cloud} price (prices as of {table.as_of}); is it a real'
        f' {g.cloud} machine type? Price it with {PRICES_OPTION}=FILE'
    )
