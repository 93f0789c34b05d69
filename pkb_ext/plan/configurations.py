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
"""Each configuration of a PKB command line, planned.

For every configuration pkb_config builds: its vm_groups as model.Groups,
checked and priced in their zone's region (cost), their vCPUs per cloud
quota (quota.NeedOf), the phases it would skip and why (the suite's
SkippedPhases), the other phases' estimates (the io phase's fill from the
first db VM's data disk) and notes, what preflight would refuse, and the
suite's schedule, all read under the configuration's own flags. Where the
suite provisions other VMs with overlap than without (a second db VM for
cpu or net beside io), the configuration is built again with each, for the
VMs and dollars of each.

The estimates use the measured rates of the `rates:` entry of the price
table of the configuration's cloud (Static for static VMs), where it has
one; the Run stages are --run_stage_iterations; the TPC-C data is planned
loaded from a fixture when --cloud_report_tpcc_fixtures (where a module
defines it) is `auto`, else generated.
"""

import dataclasses
from typing import Sequence

from absl import flags

from pkb_ext import pricing
from pkb_ext.plan import cost
from pkb_ext.plan import model
from pkb_ext.plan import pkb_config

# The exported modules below import PKB's: they are imported when a plan is
# made, under cli.Main's filter of PKB's import warnings.
# pylint: disable=g-import-not-at-top


def Groups(
    config, catalog: pricing.Catalog | None = None
) -> tuple[model.Group, ...]:
  """The vm_groups of a BenchmarkConfigSpec, by name.

  A group's vCPUs are its machine's in the price tables (catalog), else the
  cloud's naming rule's (quota.Vcpus). Its zone is --zone's first (pkb.py
  gives each VM the next zone of --zone), else its vm_spec's. Read under
  the configuration's flags.
  """
  from pkb_ext.suite import topology
  from pkb_ext.suite import preflight
  from pkb_ext.suite import quota

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
    static = preflight.UsesStaticVms(g)
    # pkb.py gives each VM a zone of --zone in turn, else the spec's.
    zones = list(getattr(flags.FLAGS, 'zone', None) or [])
    zone = zones[0] if zones else getattr(vm_spec, 'zone', None)
    machine = catalog and catalog.Machine(str(g.cloud), machine_type or '')
    vcpus = None
    if not static:
      vcpus = (machine and machine.vcpus) or quota.Vcpus(
          str(g.cloud), machine_type
      )
    out.append(
        model.Group(
            name=name,
            cloud=str(g.cloud),
            vm_count=int(g.vm_count or 0),
            machine_type=machine_type,
            zone=zone,
            disk_type=disk_type,
            disk_size_gb=float(0 if size is None else size),
            disks_per_vm=int(getattr(disk, 'num_striped_disks', None) or 1),
            provisioned_iops=getattr(disk, 'provisioned_iops', None),
            provisioned_mbps=getattr(disk, 'provisioned_throughput', None),
            static=static,
            local_volumes=local_volumes,
            region=topology.RegionFromZone(zone)
            if isinstance(zone, str)
            else '',
            vcpus=vcpus,
        )
    )
  return tuple(out)


# The flag that loads TPC-C's data from prebuilt fixtures: `auto` (from the
# run's bucket when a matching fixture is there, else generated) or `off`.
FIXTURES_FLAG = 'cloud_report_tpcc_fixtures'
FIXTURES_AUTO = 'auto'


def Fixtures(flag_values) -> bool:
  """Whether the TPC-C data is planned loaded from a fixture: the fixtures
  flag is defined and `auto` (else it is generated)."""
  if FIXTURES_FLAG not in flag_values:
    return False
  return str(flag_values[FIXTURES_FLAG].value) == FIXTURES_AUTO


def Iterations(flag_values) -> int:
  """The Run stages of each configuration (--run_stage_iterations)."""
  if 'run_stage_iterations' not in flag_values:
    return 1
  return max(1, int(flag_values['run_stage_iterations'].value or 1))


def RatesCloud(groups: Sequence[model.Group]) -> str | None:
  """The cloud whose table's rates apply: Static when every VM is static."""
  if groups and all(g.static for g in groups):
    return cost.STATIC_CLOUD
  return groups[0].cloud if groups else None


def Rates(
    catalog: pricing.Catalog, groups: Sequence[model.Group]
) -> model.Rates | None:
  """The measured rates of the configuration's cloud and (first group's)
  machine type; None: its table has none.

  Raises:
    errors.PlanError: the table gives a rate no estimate knows.
  """
  cloud = RatesCloud(groups)
  table = catalog.Table(cloud) if cloud else None
  rates = table.rates if table else None
  model.CheckRates(rates, f'the {cloud} price table')
  if rates is None:
    return None
  machine = groups[0].machine_type if groups else None
  return model.Rates(
      rates.For(machine),
      f'the {cloud} table (configs/pricing), {rates.as_of}: {rates.source}',
  )


def _PhasesOf(module) -> list[str]:
  if hasattr(module, 'PHASE'):
    return [module.PHASE]
  return list(module.SelectedPhases())


def _SkipsOf(module, config) -> dict[str, str]:
  """The phases the suite skips on config (a standalone module skips none)."""
  if hasattr(module, 'PHASE'):
    return {}
  return dict(module.SkippedPhases(config))


def Configurations(
    pkb_argv: Sequence[str],
    catalog: pricing.Catalog | None = None,
    fixtures: bool | None = None,
) -> list[model.Config]:
  """Plans every configuration PKB flags expand to.

  Args:
    pkb_argv: PKB flags; --benchmarks defaults to cloud_report_2021.
    catalog: price tables (default: configs/pricing).
    fixtures: plan the TPC-C data loaded from a fixture (True) or generated
      (False); None: as the fixtures flag says (Fixtures).

  Raises:
    errors.PlanError: the flags or a configuration are invalid.
  """
  from pkb_ext.suite import preflight
  from pkb_ext.suite import provision as provision_lib
  from pkb_ext.suite import quota

  catalog = catalog or pricing.Load()
  out = []
  varies = []  # (index, phases) of the configurations overlap provisions
  for module, config_flags, config in pkb_config.BenchmarkConfigs(pkb_argv):
    with config.RedirectFlags(flags.FLAGS):
      groups = Groups(config, catalog)
      for g in groups:
        model.CheckGroup(g)
        cost.CheckMachineName(g)
      skipped = _SkipsOf(module, config)
      names = [n for n in _PhasesOf(module) if n not in skipped]
      fill_group = cost.FillGroup(groups)
      fill = fill_group and cost.DataDiskFill(catalog, fill_group)
      db_nodes = sum(g.vm_count for g in groups if g.name == 'db') or 1
      rates = Rates(catalog, groups)
      from_fixtures = Fixtures(flags.FLAGS) if fixtures is None else fixtures
      phase_plans = []
      for n in names:
        phase_plans.extend(
            model.PhaseEstimates(n, fill, db_nodes, rates, from_fixtures)
        )
      model.CheckPhases(phase_plans)
      try:
        usd_per_hour, as_of, price_notes, region = cost.HourlyCost(
            catalog, groups
        )
        price_problem = None
      except pricing.PricingError as e:
        usd_per_hour, as_of, price_notes, region = None, None, [], None
        price_problem = str(e)
      need = quota.NeedOf(
          (g.cloud, g.region, g.machine_type, g.vm_count, g.vcpus)
          for g in groups
          if not g.static
      )
      # Last, what the suite itself says (it uses nothing of the plan's).
      # Skipped phases are no problem; without skipping (the flag off, or
      # a standalone module) what makes a phase unrunnable is one.
      problems = tuple(
          preflight.Problems(config, _PhasesOf(module), skip=bool(skipped))
      )
      notes = tuple(preflight.Notes(names, config))
      iterations = Iterations(flags.FLAGS)
      # The suite's schedule with overlap (a standalone module runs one
      # phase, so none), read under the configuration's flags.
      schedule, overlap = None, False
      if not hasattr(module, 'PHASE'):
        schedule = _Schedule(names, groups)
        overlap = bool(flags.FLAGS.cloud_report_overlap)
        selected = module.SelectedPhases()
        if provision_lib.ProvisionFor(
            selected, True
        ) != provision_lib.ProvisionFor(selected, False):
          varies.append((len(out), names))
    out.append(
        model.Config(
            benchmark=module.BENCHMARK_NAME,
            flags=config_flags,
            groups=groups,
            phases=tuple(phase_plans),
            usd_per_hour=usd_per_hour,
            price_as_of=as_of,
            price_problem=price_problem,
            problems=problems,
            price_notes=tuple(price_notes),
            skipped=tuple(skipped.items()),
            notes=notes,
            schedule=schedule,
            overlap=overlap,
            price_region=region,
            need=need,
            iterations=iterations,
            provision_s=(rates and rates.values.get('provision_s'))
            or model.PROVISION_S,
            stage_overhead_s=(
                rates and rates.values.get('run_stage_overhead_s')
            )
            or 0.0,
            rates_source=rates.source if rates else '',
        )
    )
  if varies:
    _AddVariants(catalog, out, varies)
  return out


def _Schedule(names: Sequence[str], groups: Sequence[model.Group]):
  """The suite's schedule with overlap on groups' VMs (and the TPC-C
  engine of the flags: whether its load leaves the client idle)."""
  from pkb_ext.suite import phases as phases_lib
  from pkb_ext.suite.tpcc import engines as suite_engines

  count = {g.name: g.vm_count for g in groups}
  return phases_lib.MakeSchedule(
      names,
      count.get(phases_lib.DB_GROUP, 0),
      count.get(phases_lib.CLIENT_GROUP, 0) > 0,
      overlap=True,
      idle_client_load=suite_engines.LoadLeavesClientIdle(
          suite_engines.ENGINE.value
      ),
  )


def _AddVariants(
    catalog: pricing.Catalog,
    out: list[model.Config],
    varies: Sequence[tuple[int, Sequence[str]]],
) -> None:
  """Gives out[i] its VMs and $/hour with and without overlap.

  The suite provisions a second db VM for overlap only (its GetConfig:
  provision.ProvisionFor), so each variant is the configuration built again
  with --cloud_report_overlap set as on the command line (where it wins over
  a config file's flags, as in pkb.py); the schedule with overlap is the
  one on the overlap variant's VMs.
  """
  for overlapped in (True, False):
    with pkb_config.FlagAsGiven(
        flags.FLAGS, 'cloud_report_overlap', overlapped
    ):
      built = pkb_config.ConfigsFromFlags(flags.FLAGS)
    for i, names in varies:
      config = built[i][2]
      with config.RedirectFlags(flags.FLAGS):
        groups = Groups(config)
      if groups == out[i].groups:
        continue
      try:
        usd_per_hour = cost.HourlyCost(catalog, groups)[0]
      except pricing.PricingError:
        usd_per_hour = None
      variant = model.Variant(sum(g.vm_count for g in groups), usd_per_hour)
      if overlapped:
        out[i] = dataclasses.replace(
            out[i], with_overlap=variant, schedule=_Schedule(names, groups)
        )
      else:
        out[i] = dataclasses.replace(out[i], in_series=variant)
