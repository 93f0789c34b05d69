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
"""pkb-ext plan [PKB FLAGS]: what a pkb.py run would do, before it does it.

PKB's flags are parsed and expanded into benchmark configurations exactly as
pkb.py does (benchmark sets, --benchmark_config_file, --flag_matrix), with
no VM, no network and no temp directory. For each configuration it prints
the VMs and disks, the phases with an expected wall time, the VM-hours and
the expected on-demand cost from the dated price tables (configs/pricing),
and what pkb_ext's preflight would refuse; then the totals.

The expected times come from the phases' flags (their defaults are the
report's) and a few stated assumptions (the constants below):

  cpu             modes x --cloud_report_coremark_runs x COREMARK_RUN_S,
                  plus COREMARK_BUILD_S
  io              the fill (disk size at FIO_FILL_MBPS), then each job's
                  runtime + ramp
  net             per test (and TCP_STREAM stream count) x repetitions x
                  the confidence interval's maximum iterations x duration
  object_storage  the request counts at OBJECT_REQUEST_S each plus the bytes
                  at OBJECT_MBPS
  tpcc            the most steps the search can take on its grid (found by
                  running the search's own decisions against every possible
                  capacity) x (duration + ramp); the load of the warehouses
                  is not estimated
  provisioning    PROVISION_S (create, boot, teardown)
"""

import dataclasses
import logging
import math
import sys
from typing import Any, Sequence

from pkb_cloud_report.benchmarks.cloud_report import preflight
from pkb_cloud_report.benchmarks.cloud_report import stepping
from pkb_ext import pricing
from pkb_ext import registry

# Assumptions (seconds, MB/s); see the module docstring.
PROVISION_S = 600
COREMARK_RUN_S = 15
COREMARK_BUILD_S = 60
FIO_FILL_MBPS = 250
OBJECT_REQUEST_S = 0.05
OBJECT_MBPS = 100


class PlanError(Exception):
  """The flags do not make a plan (the message says why)."""


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

  def Describe(self) -> str:
    what = 'static VM' if self.static else (self.machine_type or '?')
    text = f'{self.name}: {self.vm_count} x {what}'
    if self.disk_type == 'local':
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
class Phase:
  name: str
  seconds: float
  how: str


@dataclasses.dataclass(frozen=True)
class Config:
  """One configuration's plan."""

  benchmark: str
  flags: dict[str, Any]
  groups: tuple[Group, ...]
  phases: tuple[Phase, ...]
  usd_per_hour: float | None  # every VM and disk; None: no price
  price_as_of: str | None
  price_problem: str | None
  problems: tuple[str, ...]  # what preflight refuses

  @property
  def seconds(self) -> float:
    return PROVISION_S + sum(p.seconds for p in self.phases)

  @property
  def vms(self) -> int:
    return sum(g.vm_count for g in self.groups)

  @property
  def vm_hours(self) -> float:
    return self.vms * self.seconds / 3600

  @property
  def usd(self) -> float | None:
    if self.usd_per_hour is None:
      return None
    return self.usd_per_hour * self.seconds / 3600


# --- Phase estimates (pure, from the phases' Params). ---


def CpuPhase(params) -> Phase:
  runs = len(params.modes) * params.runs
  return Phase(
      'cpu',
      COREMARK_BUILD_S + runs * COREMARK_RUN_S,
      f'{len(params.modes)} mode(s) x {params.runs} CoreMark runs x'
      f' ~{COREMARK_RUN_S} s + build',
  )


def IoPhase(params, disk_size_gb: float) -> Phase:
  jobs = len(params.jobs)
  per_job = params.runtime_s + params.ramp_time_s
  seconds = jobs * per_job
  how = f'{jobs} fio jobs x {per_job} s'
  if params.fill:
    fill = disk_size_gb * 1e3 / FIO_FILL_MBPS
    seconds += fill
    how = (
        f'fill {disk_size_gb:g} GB at ~{FIO_FILL_MBPS} MB/s'
        f' ({fill / 60:.0f} min) + {how}'
    )
  return Phase('io', seconds, how)


def NetPhase(params) -> Phase:
  runs = sum(len(params.RunsOf(t)) for t in params.tests)
  runs *= params.repetitions
  seconds = runs * params.max_iterations * params.duration_s
  return Phase(
      'net',
      seconds,
      f'{runs} netperf run(s) x up to {params.max_iterations} iterations x'
      f' {params.duration_s} s',
  )


def ObjectStoragePhase(params) -> Phase:
  latency = params.latency_requests * 2 * 2  # PUT, GET; new, reused
  transfers = params.downloads_per_size * len(params.sizes) * 2
  transfer_bytes = params.downloads_per_size * sum(params.sizes) * 2
  rounds = params.concurrency_rounds * len(params.concurrency)
  round_bytes = 2 * params.concurrency_object_bytes  # PUTs, then GETs
  requests = latency + transfers + 2 * rounds
  seconds = requests * OBJECT_REQUEST_S + (
      transfer_bytes + rounds * round_bytes
  ) / (OBJECT_MBPS * 1e6)
  return Phase(
      'object_storage',
      seconds,
      f'{latency} TTFB requests, {transfers} transfers'
      f' ({transfer_bytes / 1e9:.1f} GB), {rounds} concurrency rounds;'
      f' ~{OBJECT_REQUEST_S * 1000:g} ms a request, ~{OBJECT_MBPS} MB/s',
  )


def SearchSteps(plan: stepping.Plan) -> tuple[int, int]:
  """Returns the fewest and most steps the search can take on its grid.

  Runs the search's own decisions (stepping.Next) against every capacity:
  below the first level, between each two levels, above the last.
  """
  levels = plan.levels
  counts = []
  for capacity in [levels[0] - 1] + list(levels):
    history = []
    while True:
      decision = stepping.Next(plan, history)
      if decision.next_level is None:
        break
      history.append((decision.next_level, decision.next_level <= capacity))
      if len(history) > 4 * len(levels) + 4:
        raise PlanError(f'the {plan.strategy} search does not end on {levels}')
    counts.append(len(history))
  return min(counts), max(counts)


def TpccPhase(params) -> Phase:
  fewest, most = SearchSteps(params.plan)
  per_step = params.duration_s + params.ramp_s
  return Phase(
      'tpcc',
      most * per_step,
      f'{params.strategy} search over {len(params.plan.levels)} levels'
      f' ({params.start}..{params.max_warehouses} by {params.step}):'
      f' {fewest} to {most} steps, planned at {most} x'
      f' {per_step / 60:g} min; the load is not estimated',
  )


def PhaseEstimate(name: str, disk_size_gb: float) -> Phase:
  """Estimates a phase from its flags (read under the config's flags)."""
  from pkb_cloud_report.benchmarks.cloud_report import phases  # pylint: disable=g-import-not-at-top

  params = phases.Load(name).Params.FromFlags()
  if name == 'cpu':
    return CpuPhase(params)
  if name == 'io':
    return IoPhase(params, disk_size_gb)
  if name == 'net':
    return NetPhase(params)
  if name == 'object_storage':
    return ObjectStoragePhase(params)
  if name == 'tpcc':
    return TpccPhase(params)
  raise PlanError(f'no estimate for phase {name!r}')


# --- Configurations, as pkb.py builds them. ---


def _Groups(config) -> tuple[Group, ...]:
  out = []
  for name, g in sorted((config.vm_groups or {}).items()):
    vm_spec = getattr(g, 'vm_spec', None)
    disk = getattr(g, 'disk_spec', None)
    machine_type = getattr(vm_spec, 'machine_type', None)
    static = preflight.UsesStaticVms(g)
    out.append(
        Group(
            name=name,
            cloud=str(g.cloud),
            vm_count=int(g.vm_count or 0),
            machine_type=machine_type
            if isinstance(machine_type, str)
            else None,
            zone=getattr(vm_spec, 'zone', None),
            disk_type=getattr(disk, 'disk_type', None) if disk else None,
            disk_size_gb=float(getattr(disk, 'disk_size', None) or 0),
            disks_per_vm=int(getattr(disk, 'num_striped_disks', None) or 1),
            provisioned_iops=getattr(disk, 'provisioned_iops', None),
            provisioned_mbps=getattr(disk, 'provisioned_throughput', None),
            static=static,
        )
    )
  return tuple(out)


def HourlyCost(
    catalog: pricing.Catalog, groups: Sequence[Group]
) -> tuple[float, str]:
  """Returns every VM's and data disk's $/hour, and the prices' date.

  Raises:
    pricing.PricingError: a price is missing (static VMs have none).
  """
  usd, dates = 0.0, set()
  for g in groups:
    if g.static or not g.machine_type:
      raise pricing.PricingError(f'vm_group {g.name}: no machine type to price')
    if g.disk_type:
      monthly = catalog.MonthlyCost(
          g.cloud,
          g.machine_type,
          g.disk_type,
          g.disk_size_gb * g.disks_per_vm,
          (g.provisioned_iops or 0) * g.disks_per_vm,
          (g.provisioned_mbps or 0) * g.disks_per_vm,
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
  return usd, ', '.join(sorted(dates))


def _PhasesOf(module) -> list[str]:
  if hasattr(module, 'PHASE'):
    return [module.PHASE]
  return list(module.SelectedPhases())


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
  from absl import flags
  from perfkitbenchmarker import benchmark_sets
  from perfkitbenchmarker import flag_alias
  from perfkitbenchmarker import flag_util
  from perfkitbenchmarker import os_types
  from perfkitbenchmarker.configs import benchmark_config_spec
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
    flags.FLAGS(['pkb.py'] + flag_alias.AliasFlagsFromArgs(argv))
  except flags.Error as e:
    raise PlanError(str(e)) from e
  ours = {m.BENCHMARK_NAME for m in registry.BenchmarkModules()}
  out = []
  for module, user_config in benchmark_sets.GetBenchmarksFromFlags():
    name = module.BENCHMARK_NAME
    if name not in ours:
      raise PlanError(
          f'{name} is not a pkb_ext benchmark; plan knows only ours'
      )
    config_flags = dict(user_config.get('flags') or {})
    try:
      with flag_util.OverrideFlags(flags.FLAGS, config_flags):
        config_dict = module.GetConfig(user_config)
      config = benchmark_config_spec.BenchmarkConfigSpec(
          name,
          expected_os_types=os_types.ALL,
          flag_values=flags.FLAGS,
          **config_dict,
      )
    except Exception as e:  # pylint: disable=broad-except
      raise PlanError(f'{name} {config_flags}: {e}') from e
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

  catalog = catalog or pricing.Load()
  out = []
  for module, config_flags, config in BenchmarkConfigs(pkb_argv):
    groups = _Groups(config)
    with config.RedirectFlags(flags.FLAGS):
      names = _PhasesOf(module)
      disk_gb = max((g.disk_size_gb for g in groups if g.disk_type), default=0)
      phase_plans = tuple(PhaseEstimate(n, disk_gb) for n in names)
      problems = tuple(preflight.Problems(config, names))
    try:
      usd_per_hour, as_of = HourlyCost(catalog, groups)
      price_problem = None
    except pricing.PricingError as e:
      usd_per_hour, as_of, price_problem = None, None, str(e)
    out.append(
        Config(
            benchmark=module.BENCHMARK_NAME,
            flags=config_flags,
            groups=groups,
            phases=phase_plans,
            usd_per_hour=usd_per_hour,
            price_as_of=as_of,
            price_problem=price_problem,
            problems=problems,
        )
    )
  return out


def Makespan(seconds: Sequence[float], processes: int | None) -> float:
  """Wall time of configurations run in order by `processes` workers."""
  if not processes or processes <= 1:
    return sum(seconds)
  workers = [0.0] * processes
  for s in seconds:
    i = workers.index(min(workers))
    workers[i] += s
  return max(workers)


def _Hms(seconds: float) -> str:
  minutes = int(math.ceil(seconds / 60))
  return f'{minutes // 60}h{minutes % 60:02d}m'


def _Usd(value: float | None) -> str:
  return 'no price' if value is None else f'${value:,.2f}'


def Format(configs: Sequence[Config], processes: int | None = None) -> str:
  """The plan as text: each configuration, then the totals."""
  lines = []
  n = len(configs)
  for i, c in enumerate(configs, 1):
    varying = ', '.join(f'{k}={v}' for k, v in sorted(c.flags.items()))
    lines.append(f'configuration {i}/{n}: {c.benchmark} {varying}'.rstrip())
    for g in c.groups:
      lines.append(f'  vms     {g.Describe()}')
    for p in c.phases:
      lines.append(f'  phase   {p.name:<15} {_Hms(p.seconds):>7}  {p.how}')
    lines.append(
        f'  total   {_Hms(c.seconds)} wall (with ~{PROVISION_S // 60} min'
        f' provisioning), {c.vms} VMs, {c.vm_hours:.1f} VM-hours,'
        f' {_Usd(c.usd)}'
        + (f' (prices as of {c.price_as_of})' if c.price_as_of else '')
        + (f' ({c.price_problem})' if c.price_problem else '')
    )
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
      + f', {_Hms(wall)} wall'
      + (
          f' with --run_processes={processes}'
          if processes and processes > 1
          else ' in series'
      )
  )
  lines.append(
      'Excludes the TPC-C load; times are estimates (see pkb_ext/plan.py).'
  )
  refused = sum(1 for c in configs if c.problems)
  if refused:
    lines.append(f'{refused} configuration(s) would be REFUSED by preflight.')
  return '\n'.join(lines)


def Main(argv: Sequence[str]) -> int:
  """pkb-ext plan [PKB FLAGS]; exit 1 on bad flags or a refused config."""
  logging.getLogger().setLevel(logging.ERROR)  # PKB's config chatter
  try:
    configs = Configurations(argv)
  except (PlanError, pricing.PricingError) as e:
    print(f'pkb-ext plan: {e}', file=sys.stderr)
    return 1
  from absl import flags  # pylint: disable=g-import-not-at-top

  print(Format(configs, flags.FLAGS.run_processes))
  return 1 if any(c.problems for c in configs) else 0
