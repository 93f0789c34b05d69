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
"""TPC-C at a real capacity edge: linear and probe on a local machine type.

The postgres engine (PostgreSQL on db1, go-tpc on the client) runs on the
hosts of a local machine type's cloud (pkb_ext/local/machine_types.py),
through PKB's own static VMs (ssh, RobustRemoteCommand) as in a pkb.py run.
The database is loaded once; then the `linear` search and the `probe`
search run one after the other on it, over the same grid, under the same
pass rule, and each step's wall time is taken.

Why a real edge exists here: go-tpc without think times runs each thread
back to back, a closed loop. Once the type's CPU time is used up, adding
threads adds only waiting: the mean newOrder latency is the threads over
the throughput the quota allows (Little's law), so it grows with the
threads (threads_per_warehouse * active warehouses), and a latency limit
fails every level above a warehouse count that the type's quota sets. The
rule is on the mean (custom:avg_ms<LIMIT_MS): go-tpc takes its percentiles
from a histogram of coarse buckets, so a run's p90 moves in jumps of a
bucket, which near a limit decides a verdict by which bucket a run lands
in; the mean has no buckets.

The grid (Grid): levels 1, 2, ..., warehouses, each one warehouse more.
Each type's threads per warehouse grow with its CPU quota
(THREADS_PER_WAREHOUSE_PER_CORE * cores), as the report sizes its grid
(2,500 to 5,000 warehouses) for the 16-vCPU machines it compares: the same
levels and one pass rule on every type. Where the edge falls is measured,
not chosen per type. How much probe saves depends on where: linear pays
one full step for every level up to the one above the edge, probe about
log2(levels) short probes and two full steps (a pass at the edge, a fail
above it), more where a probe misleads. An edge at the grid's first
levels makes linear the cheaper search.

Durations: full steps of FULL_S after a RAMP_S ramp, probes of PROBE_S after
the same ramp. Each step is one go-tpc process (the engine's): its
connections open during the ramp, and only the interval reports after it
are measured, so a short probe and a full step at the same level measure
the same running load. A step's time (StepSeconds) is what its process
runs: the ramp, the measured time and half a report interval after it.

The load is not a step: it runs with the hosts' limits lifted
(LoadWithoutLimits), and the type's limits are applied again, and read
back, before the first step. Every go-tpc run is bounded on the client
(the engine's RunLogged); what is left is ended (stages.EndLeftovers) and
the database stopped and removed (engine.Cleanup) before the cloud goes
down.
"""

import contextlib
import dataclasses
import logging
import os
import re
import subprocess
import sys
import tempfile
import time

from benchmarks.cloud_report.tpcc import stepping

FULL_S = 15
PROBE_S = 3
RAMP_S = 1
THREADS_PER_WAREHOUSE_PER_CORE = 5.0
LATENCY_METRIC = 'avg_ms'
LIMIT_MS = 75.0
WAREHOUSES = 10
INTERVAL_S = 5  # --cloud_report_tpcc_gotpc_interval
STRATEGIES = (stepping.LINEAR, stepping.PROBE)
_CURRENT_NEW_ORDER_AVG = re.compile(
    r'^\[Current\] NEW_ORDER - .*, Avg\(ms\): ([0-9.]+),', re.M
)
# Settings that make PostgreSQL load fast (the smoke preset's).
FAST_PG = (
    'fsync=off,synchronous_commit=off,full_page_writes=off,max_wal_size=256MB'
)


@dataclasses.dataclass(frozen=True)
class Grid:
  """The levels, durations and pass rule of the searches on one type."""

  warehouses: int = WAREHOUSES
  full_s: int = FULL_S
  probe_s: int = PROBE_S
  ramp_s: int = RAMP_S
  threads_per_warehouse_per_core: float = THREADS_PER_WAREHOUSE_PER_CORE
  metric: str = LATENCY_METRIC
  limit_ms: float = LIMIT_MS

  @property
  def rule(self) -> str:
    return f'custom:{self.metric}<{self.limit_ms:g}'

  def ThreadsPerWarehouse(self, cores: float) -> float:
    return self.threads_per_warehouse_per_core * cores

  def Flags(self, cores: float, go_tpc: str) -> dict:
    """The phase's and the engine's flag values for a type of `cores`."""
    return {
        'cloud_report_tpcc_engine': 'postgres',
        'cloud_report_tpcc_start_warehouses': 1,
        'cloud_report_tpcc_step_warehouses': 1,
        'cloud_report_tpcc_max_warehouses': self.warehouses,
        'cloud_report_tpcc_duration': f'{self.full_s}s',
        'cloud_report_tpcc_probe_duration': f'{self.probe_s}s',
        'cloud_report_tpcc_ramp': f'{self.ramp_s}s',
        'cloud_report_tpcc_pass_rule': self.rule,
        'cloud_report_tpcc_step_retries': 1,
        'cloud_report_tpcc_load_timeout': '15m',
        # A hung run is ended on the client after this long.
        'cloud_report_tpcc_step_timeout': f'{4 * (self.ramp_s + self.full_s)}s',
        'cloud_report_tpcc_gotpc_threads_per_warehouse': (
            self.ThreadsPerWarehouse(cores)
        ),
        'cloud_report_tpcc_gotpc_load_check': False,
        'cloud_report_tpcc_gotpc_interval': f'{INTERVAL_S}s',
        'cloud_report_tpcc_postgres_options': FAST_PG.split(','),
        'cloud_report_go_tpc_path': go_tpc,
    }

  def StepSeconds(self, step: stepping.Step) -> float:
    """A step's nominal seconds: its ramp, its measured time and the half
    report interval go-tpc runs after it (the engine's RunStep)."""
    from pkb_ext.tpcc_postgres import parser  # pylint: disable=g-import-not-at-top

    measured = self.probe_s if step.probe else self.full_s
    interval = parser.WindowInterval(self.ramp_s, measured, INTERVAL_S)
    return self.ramp_s + measured + interval / 2


def ReportMeans(output: str) -> list[float]:
  """NEW_ORDER's Avg(ms) in each go-tpc [Current] report of a step's output."""
  return [float(m.group(1)) for m in _CURRENT_NEW_ORDER_AVG.finditer(output)]


def WallSeconds(result: stepping.Result) -> float:
  """The search's steps' wall time (each Measure call, ssh included)."""
  return sum(float(s.extra.get('wall_s', 0.0)) for s in result.steps)


def Trail(result: stepping.Result) -> str:
  """'p4+ p6- F5+ F6-': each step's kind (p probe, F full), level, verdict."""
  return ' '.join(
      f'{"p" if s.probe else "F"}{s.level}{"+" if s.passed else "-"}'
      for s in result.steps
  )


def Compare(grid: Grid, results: dict) -> dict:
  """The comparison of a type's linear and probe searches (pure).

  Args:
    grid: the grid both ran.
    results: {'linear': stepping.Result, 'probe': stepping.Result}.

  Returns:
    Both maxima, each search's steps, nominal and wall seconds, and the
    ratios probe / linear (minutes_ratio: nominal step time; wall_ratio:
    wall time); `problems` says why the comparison is not valid (empty when
    both found the same maximum strictly inside the grid).
  """
  linear, probe = results[stepping.LINEAR], results[stepping.PROBE]
  out = {'grid': dataclasses.asdict(grid), 'rule': grid.rule}
  for name, result in results.items():
    out[name] = {
        'max_passing': result.max_passing,
        'end': result.end,
        'steps': result.steps_used,
        'probes': result.probes_used,
        'trail': Trail(result),
        'nominal_s': sum(grid.StepSeconds(s) for s in result.steps),
        'wall_s': round(WallSeconds(result), 1),
        'latency_ms': {
            f'{"p" if s.probe else "F"}{s.level}': {
                k: s.metrics.get(k) for k in ('avg_ms', 'p50_ms', 'p90_ms')
            }
            for s in result.steps
        },
        'tpmc': [s.metrics.get('tpmc') for s in result.steps],
        # NEW_ORDER's mean latency in each interval report, the ramp's first.
        'report_avg_ms': [s.extra.get('report_avg_ms') for s in result.steps],
    }
  problems = []
  if linear.max_passing != probe.max_passing:
    problems.append(
        f'linear found {linear.max_passing}, probe {probe.max_passing}'
    )
  for name, result in results.items():
    if result.end != stepping.END_FAIL or result.max_passing is None:
      problems.append(
          f'{name}: the edge is not inside the grid 1..{grid.warehouses}'
          f' (max passing {result.max_passing}, the search ended:'
          f' {result.end})'
      )
  out['problems'] = problems
  out['minutes_ratio'] = out['probe']['nominal_s'] / out['linear']['nominal_s']
  out['wall_ratio'] = (
      out['probe']['wall_s'] / out['linear']['wall_s']
      if out['linear']['wall_s']
      else None
  )
  return out


class TypeCloud:
  """`pkb-ext local --machine-type=T`: up on this machine's software, down."""

  def __init__(self, type_name: str, disk_gib: float = 2.0):
    from pkb_ext.local import layout  # pylint: disable=g-import-not-at-top
    from pkb_ext.local import machine_types  # pylint: disable=g-import-not-at-top

    self.mtype = machine_types.Get(type_name)
    self.state_dir = layout.MachineTypeStateDir(type_name)
    self.disk_gib = disk_gib

  def Cli(self, *args, timeout=600) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    env.pop('PKB_EXT_LOCAL_STATE', None)
    return subprocess.run(
        [sys.executable, '-m', 'pkb_ext.cli', 'local',
         f'--machine-type={self.mtype.name}', *args],
        env=env, capture_output=True, text=True, timeout=timeout,
        check=False,
    )  # fmt: skip

  def Up(self) -> str:
    """Brings the cloud up afresh; returns its static VM file."""
    proc = self.Cli(
        'up', '--image=host', '--no-minio', '--reset',
        f'--disk-size={self.disk_gib:g}',
    )  # fmt: skip
    if proc.returncode:
      raise RuntimeError(
          f'pkb-ext local --machine-type={self.mtype.name} up failed:'
          f' {proc.stderr[-2000:]}'
      )
    return self.Status()['static_vm_file']

  def Status(self) -> dict:
    from pkb_ext_dev import local_cloud  # pylint: disable=g-import-not-at-top

    return local_cloud.Status(self.Cli)

  def Down(self) -> None:
    proc = self.Cli('down')
    if proc.returncode:
      raise RuntimeError(
          f'pkb-ext local --machine-type={self.mtype.name} down failed:'
          f' {proc.stderr[-2000:]}'
      )

  def Plan(self):
    from pkb_ext.local import cloud  # pylint: disable=g-import-not-at-top

    return cloud.PlanOf(self.state_dir)

  def SetLimits(self, mtype) -> None:
    """Applies mtype's limits to every host of the cloud (as `up` does)."""
    # pylint: disable=g-import-not-at-top
    from pkb_ext.local import cloud
    from pkb_ext.local import limits

    # pylint: enable=g-import-not-at-top
    plan = self.Plan()
    state = cloud.LoadState(plan)
    for host in plan.hosts:
      hstate = state['hosts'][host.name]
      limits.Apply(
          plan, host, mtype, hstate['sshd_pid'],
          hstate.get('loop') if host.has_disk else None,
      )  # fmt: skip

  def Quotas(self) -> dict[str, str]:
    """Each host's CPU quota now (cpu.cfs_quota_us)."""
    from pkb_ext.local import limits  # pylint: disable=g-import-not-at-top

    plan = self.Plan()
    return {
        h.name: limits.Read(plan, h).get('cpu.cfs_quota_us') for h in plan.hosts
    }

  @contextlib.contextmanager
  def LoadWithoutLimits(self):
    """Lifts the hosts' limits for the body, then applies the type's again."""
    lifted = dataclasses.replace(
        self.mtype,
        cpus=float(os.cpu_count() or 1),
        disk_iops=1_000_000,
        disk_mbps=10_000,
        network_mbps=10_000,
    )
    self.SetLimits(lifted)
    try:
      yield
    finally:
      self.SetLimits(self.mtype)
      quotas = self.Quotas()
      want = str(self.mtype.cpu_quota_us)
      if any(q != want for q in quotas.values()):
        raise RuntimeError(
            f'{self.mtype.name}: CPU quotas {quotas} after the load, not {want}'
        )

  def Leftovers(self, work_dir: str | None = None) -> list[str]:
    """What of this cloud still exists: its namespaces, and processes that
    name its state dir or subnet (its hosts' sshd, PostgreSQL, go-tpc).

    ssh clients count only when they name work_dir (PKB's ControlMaster
    connections of this run): another run's may outlive a cloud by a few
    minutes, until their keep-alives give up.
    """
    subnet = self.mtype.subnet.rsplit('.', 1)[0] + '.'
    found = []
    netns = subprocess.run(
        ['ip', 'netns', 'list'], capture_output=True, text=True, check=False
    ).stdout
    found += [
        f'netns {line.split()[0]}'
        for line in netns.splitlines()
        if line.startswith(self.mtype.prefix + '-')
    ]
    for pid in filter(str.isdigit, os.listdir('/proc')):
      try:
        with open(f'/proc/{pid}/cmdline', 'rb') as f:
          cmdline = f.read().replace(b'\0', b' ').decode(errors='replace')
        with open(f'/proc/{pid}/comm') as f:
          comm = f.read().strip()
      except OSError:
        continue
      if int(pid) == os.getpid() or 'pytest' in cmdline:
        continue
      if comm == 'ssh':
        if work_dir and work_dir in cmdline:
          found.append(f'process {pid}: {cmdline[:120]}')
      elif self.state_dir + '/' in cmdline or subnet in cmdline:
        found.append(f'process {pid}: {cmdline[:120]}')
    return found


def _Searched(params, engine, topology, log) -> stepping.Result:
  """Runs one search as the phase does (stages.Search), timing each step."""
  # pylint: disable=g-import-not-at-top
  from benchmarks.cloud_report.tpcc import engines
  from pkb_ext.suite.tpcc import stages

  # pylint: enable=g-import-not-at-top
  probe_params = dataclasses.replace(params, duration=params.probe_duration)
  probe_engine = stages.SelectEngine(engine.name, probe_params)

  def Measurer(run_params, run_engine):
    def Measure(warehouses: int, iteration: int) -> stepping.Measurement:
      started = time.monotonic()
      output, status = run_engine.RunStep(topology, warehouses, iteration)
      wall = time.monotonic() - started
      extra = {'wall_s': round(wall, 2), 'report_avg_ms': ReportMeans(output)}
      return engines.ToMeasurement(
          output,
          status,
          warehouses,
          run_params.duration_s,
          run_engine.StepExtra(warehouses) | extra,
          bound_s=run_engine.StepTimeout(),
          parse=run_engine.Parse,
      )

    return Measure

  def OnStep(iteration: int, step: stepping.Step) -> None:
    log(
        f'  {params.strategy} step {iteration} ({step.kind}) at'
        f' {step.level}: {step.reason} [{step.extra.get("wall_s")} s]'
    )

  return stepping.Search(
      params.plan,
      params.rule,
      Measurer(params, engine),
      None,
      OnStep,
      no_result_retries=params.step_retries,
      probe_measure=Measurer(probe_params, probe_engine),
  )


def _OnCloud(cloud_, grid, static_vm_file, work, log, out) -> None:
  """Load, both searches and cleanup on an up cloud; fills `out`."""
  # pylint: disable=g-import-not-at-top
  from absl.testing import flagsaver

  from pkb_ext.suite import phases
  from benchmarks.cloud_report.tpcc import engines
  from benchmarks.cloud_report.tpcc import params as tpcc_params
  from pkb_ext.suite.tpcc import stages
  from pkb_ext import local
  from pkb_ext_dev import bench_fidelity

  # pylint: enable=g-import-not-at-top
  name = cloud_.mtype.name
  run_uri = 'te' + format(int(time.time()) % 10**8, 'x')
  vms = bench_fidelity.LocalCloudVms(static_vm_file, work, run_uri)
  try:
    client, db = vms[0], vms[1]
    if db.disk_specs and not db.scratch_disks:
      db.CreateScratchDisk(0, db.disk_specs[0])  # as PKB's provisioning
    topology = phases.Topology((db,), client, None)
    values = grid.Flags(cloud_.mtype.cpus, local.BinaryPath('go-tpc'))
    with flagsaver.flagsaver(**values):
      base = tpcc_params.Params.FromFlags()
      engine = stages.SelectEngine('postgres', base)
      try:
        stages.EndLeftovers(topology)
        t = time.monotonic()
        log(f'{name}: loading {grid.warehouses} warehouses (limits lifted)')
        with cloud_.LoadWithoutLimits():
          engine.Setup(topology)
        out['load_s'] = round(time.monotonic() - t, 1)
        out['quotas_us'] = cloud_.Quotas()
        results = {}
        for strategy in STRATEGIES:
          params = dataclasses.replace(base, strategy=strategy)
          log(
              f'{name}: {strategy} search, rule {grid.rule},'
              f' {grid.ThreadsPerWarehouse(cloud_.mtype.cpus):g} threads per'
              ' warehouse'
          )
          results[strategy] = _Searched(params, engine, topology, log)
        out |= Compare(grid, results)
      finally:
        with contextlib.suppress(Exception):
          stages.EndLeftovers(topology)
        engine.Cleanup(topology)
  finally:
    with contextlib.suppress(Exception):
      bench_fidelity.CloseSshMasters(vms)


def RunOnType(
    type_name: str, grid: Grid = Grid(), log=print, work_dir=None
) -> dict:
  """Up, load, linear and probe, cleanup, down: one type's comparison.

  The cloud is brought up afresh and always taken down; `leftovers` in
  the result lists what was still there after (empty when clean), and
  each is one of its `problems`.
  """
  # pylint: disable=g-import-not-at-top
  from absl import flags
  from absl.testing import flagsaver

  # pylint: enable=g-import-not-at-top
  cloud_ = TypeCloud(type_name)
  work = tempfile.mkdtemp(prefix='pkb-ext-tpcc-edge-', dir=work_dir)
  out = {'type': type_name, 'cores': cloud_.mtype.cpus}
  started = time.monotonic()
  root = logging.getLogger()
  level = root.level
  try:
    log(f'{type_name}: up')
    static_vm_file = cloud_.Up()
    out['up_s'] = round(time.monotonic() - started, 1)
    root.setLevel(logging.ERROR)  # PKB logs every ssh command
    with contextlib.ExitStack() as stack:
      if flags.FLAGS.is_parsed():  # else LocalCloudVms parses PKB's flags
        stack.enter_context(
            flagsaver.flagsaver(
                run_uri='te' + format(int(time.time()) % 10**8, 'x'),
                temp_dir=work,
            )
        )
      _OnCloud(cloud_, grid, static_vm_file, work, log, out)
  finally:
    root.setLevel(level)
    try:
      cloud_.Down()
    finally:
      out['leftovers'] = cloud_.Leftovers(work)
      out.setdefault('problems', []).extend(
          f'left after down: {x}' for x in out['leftovers']
      )
      out['total_s'] = round(time.monotonic() - started, 1)
  return out


def Summary(compared: list[dict]) -> dict:
  """The figure over types: the largest probe/linear ratio, when valid."""
  problems = [
      f'{c["type"]}: {p}' for c in compared for p in c.get('problems', ['?'])
  ]
  ratios = {c['type']: c.get('minutes_ratio') for c in compared}
  walls = {c['type']: c.get('wall_ratio') for c in compared}
  return {
      'types': [c['type'] for c in compared],
      'minutes_ratio_by_type': ratios,
      'wall_ratio_by_type': walls,
      'problems': problems,
      'tpcc_search_minutes_ratio': (
          None if problems or not ratios else max(ratios.values())
      ),
  }


def Run(
    types, out=sys.stdout, log=print, grid: Grid = Grid(), work_dir=None
) -> dict:
  """Runs RunOnType on each type in turn; prints a line per type.

  Returns Summary's keys plus `by_type` (each type's RunOnType result). A
  type whose run raised is a problem of the figure, with the exception.
  """
  compared = []
  for name in types:
    try:
      compared.append(RunOnType(name, grid, log, work_dir))
    except Exception as e:  # pylint: disable=broad-except
      compared.append({'type': name, 'problems': [f'{type(e).__name__}: {e}']})
  print(
      f'TPC-C edge, measured on PostgreSQL: grid 1..{grid.warehouses}'
      f' warehouses, rule {grid.rule}, steps {grid.ramp_s}+{grid.full_s} s,'
      f' probes {grid.ramp_s}+{grid.probe_s} s\n'
      'type     max (linear/probe)  linear steps s (wall)  probe steps s'
      ' (wall)  ratio (wall)  probe trail',
      file=out,
  )
  for c in compared:
    if 'linear' not in c:
      print(f'{c["type"]:8} {"; ".join(c["problems"])}', file=out)
      continue
    lin, pro = c['linear'], c['probe']
    print(
        f'{c["type"]:8} {lin["max_passing"]!s:>8}/{pro["max_passing"]!s:<9}'
        f' {lin["steps"]:>5} {lin["nominal_s"]:>4} ({lin["wall_s"]:>5})'
        f'      {pro["steps"]:>5} {pro["nominal_s"]:>4} ({pro["wall_s"]:>5})'
        f'  {c["minutes_ratio"]:.3f} ({c["wall_ratio"]:.3f})  {pro["trail"]}'
        + (f'  PROBLEM: {"; ".join(c["problems"])}' if c['problems'] else ''),
        file=out,
    )
  summary = Summary(compared)
  print(
      'tpcc_search_minutes_ratio (measured, the largest over types):'
      f' {summary["tpcc_search_minutes_ratio"]}',
      file=out,
  )
  return summary | {'by_type': compared}
