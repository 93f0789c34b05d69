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
size tier they bill at, in the region of the group's zone, and the check
that a machine type is a name its cloud could have.
"""

from typing import Sequence

from pkb_ext.plan import errors
from pkb_ext.plan import estimates
from pkb_ext.plan import model
from pkb_ext import pricing
from pkb_ext.suite import quota

# The option that prices a run at another dated table (see cli).
PRICES_OPTION = '--prices'
# The cloud PKB labels static VMs with; its table (configs/pricing/
# static.yaml) prices the machine types static VMs are given.
STATIC_CLOUD = 'Static'


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
) -> tuple[float, str, list[str], str]:
  """Returns every VM's and data disk's $/hour, the prices' date, notes, region.

  Each group is priced in its zone's region (without a zone, in its
  table's home region). Disks are priced at the size tier they bill at
  (Azure Premium SSD); a note gives the report's method beside it where
  the two differ. Static VMs are priced at the Static table's price of
  their machine type (its disks included).

  Raises:
    pricing.PricingError: a price is missing (static VMs of a machine type
      the Static table has not); the message says `no price for X in
      REGION`.
  """
  usd, dates, notes, regions = 0.0, set(), [], set()
  for g in groups:
    if g.static:
      table = catalog.Table(STATIC_CLOUD)
      machine = catalog.Machine(STATIC_CLOUD, g.machine_type or '')
      if machine is None:
        known = ', '.join(sorted(table.machines)) if table else 'none'
        raise pricing.PricingError(
            f'vm_group {g.name}: static VMs, no machine type to price (the'
            f' {STATIC_CLOUD} table prices {known})'
        )
      usd += machine.usd_per_hour * g.vm_count
      dates.add(table.as_of)
      regions.add(table.region)
      continue
    if not g.machine_type:
      raise pricing.PricingError(f'vm_group {g.name}: no machine type to price')
    home = catalog.Table(g.cloud)
    if home is None:
      raise pricing.PricingError(
          f'no price for {g.machine_type} in {g.region or g.cloud}'
          f' (no {g.cloud} price table; give one with {PRICES_OPTION}=FILE)'
      )
    region = g.region or home.region
    table = home.ForRegion(region)
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
      monthly = catalog.MonthlyCost(
          *args, tiered=True, disks=disks, region=region
      )
      report = catalog.MonthlyCost(*args, disks=disks, region=region)
      tier = catalog.Disk(g.cloud, g.disk_type, region).BilledTier(size)
      if tier is not None and monthly.disk_usd != report.disk_usd:
        notes.append(
            f'{g.name} data disk: {g.disk_type} {size:g} GB bills as'
            f" {tier.name}, ${monthly.disk_usd:,.2f}/month; the report's"
            f' method (configs/pricing, $/tpm): ${report.disk_usd:,.2f}/month'
        )
      per_vm = monthly.total_usd / catalog.method.hours_per_month
      dates.add(monthly.as_of)
    else:
      machine = table and table.machines.get(g.machine_type)
      if machine is None:
        raise pricing.PricingError(f'no price for {g.machine_type} in {region}')
      per_vm = machine.usd_per_hour
      dates.add(table.as_of)
    regions.add(region)
    usd += per_vm * g.vm_count
  return usd, ', '.join(sorted(dates)), notes, ', '.join(sorted(regions))


def CheckMachineName(g: model.Group) -> None:
  """Refuses a machine type name no cloud could have (its naming pattern).

  A real name without a price is planned with its price unknown.

  Raises:
    errors.PlanError: the name cannot be one of g's cloud.
  """
  if g.static:
    return
  why = quota.Impossible(g.cloud, g.machine_type)
  if why:
    raise errors.PlanError(f'vm_group {g.name}: {why}; check --machine_type')
