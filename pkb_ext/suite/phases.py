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
"""The report's phases (phase_table's, in its order), and how they run.

A phase's stages module (<phase package>.stages) has these functions,
used both by the combined cloud_report_2021 benchmark and by the standalone
per-phase benchmark modules:

  Install(topology: Topology) -> None   installs the phase's software;
      changes nothing another phase measures, so the suite's Prepare runs
      every selected phase's Install before any phase runs. Idempotent.
  Setup(topology: Topology) -> None     optional: the set-up that must wait
      until the phases before it have run (tpcc formats and mounts the data
      disk io measures raw, and starts its cluster). Run in the run stage,
      right before the phase's Run. Idempotent.
  Run(topology: Topology) -> list[sample.Sample]
  Cleanup(topology: Topology) -> None

and these names:

  Params     its settings: a frozen dataclass whose FromFlags() reads them
             from its flags (ReadParams below).
  PARSER, SAMPLES   its parser and samples modules (phase_modules).

and these optional functions, which a benchmark's CheckPrerequisites runs
before anything is provisioned (Check):

  CheckPrerequisites(config) -> list[str]   problems of the configuration
      (a flag it lacks, ...), each naming its fix; or it raises one.
  Unrunnable(config) -> list[str]   why this configuration's machines
      cannot run the phase (tpcc on arm64 without a CockroachDB build for
      it); empty when they can.

A standalone benchmark's Prepare is the phase's Install, then its Setup
(standalone.Benchmark).

Importing a phase's stages module defines its flags. The benchmark
modules import the stages modules they run, by name, before PKB parses
flags: the suite through phase_modules, a standalone benchmark its own.
Load returns such an imported module; it imports nothing itself, so every
import of a phase is one import-linter sees.

Overlap: the io phase fills the first db VM's data disk before it measures,
hours on a cloud, while the other VMs wait. The cpu phase (on a db VM other
than the first), net (between the client and the second db VM) and
object_storage (from the client) need neither that VM nor its disk, so with
overlap runner.RunAll runs them while io runs (Arrange decides which can),
then the phases after io: net then object_storage in one thread (both use
the client), and cpu in another, on the third db VM (on the second, where
net is not beside it or there is no third). Where tpcc's engine loads its
data inside the database (cockroach), leaving the client idle,
object_storage runs beside that load instead (tpcc's Setup; its Run waits
for both). Each sample records the VMs its phase ran on (phase_vms: roles
db1..dbN, client) and whether the phase overlapped another.

Provisioning (which of the report's VMs a selection of phases uses) is
pkb_ext.suite.provision's.
"""

import dataclasses
import sys
import types
from typing import Any, Sequence

from perfkitbenchmarker import errors

from pkb_ext import errors as pkb_ext_errors
from pkb_ext.suite import phase_table
from pkb_ext.suite import samples as samples_lib
from pkb_ext.suite import side_lanes

ORDER = phase_table.ORDER
DB_GROUP = 'db'
CLIENT_GROUP = 'client'
# The phase that fills the first db VM's disk, and the phases that can run
# beside it on other VMs (in the report's order).
(FILL_PHASE,) = (p.sample for p in phase_table.TABLE if p.fills)
SIDE_PHASES = tuple(p.sample for p in phase_table.TABLE if p.side)
SIDE_DB = side_lanes.SIDE_DB
# The report's db VMs: tpcc's cluster runs on every one of them.
REPORT_DB_VMS = 3
# Heads the refusal of a configuration before provisioning (Refusal).
REFUSAL_HEADING = 'cloud_report preflight (nothing was provisioned):'
_PACKAGE = __name__.rsplit('.', 1)[0]


class PhaseError(pkb_ext_errors.Error, errors.Benchmarks.RunError):
  """One or more phases failed; the message names each and why."""


class PhaseFailure(pkb_ext_errors.Error):
  """A phase failed after measuring: its samples are kept all the same.

  Raised by a phase's Run where the run cannot give the phase's result but
  what it measured is worth keeping (e.g. a TPC-C search whose lowest level
  gave no result: every step's samples).
  """

  def __init__(self, message: str, samples: Sequence[Any]):
    super().__init__(message)
    self.samples = list(samples)


def _Imported(name: str) -> types.ModuleType | None:
  """The imported stages module of a phase, wherever its package lives.

  A phase's stages module is `<package>.stages` under this package, or under
  the package of a benchmark module that runs the phase from outside it; it
  names its phase in PHASE.
  """
  entry = phase_table.Get(name)
  suffix = f'.{entry.package}.stages'
  for module_name, module in list(sys.modules.items()):
    if module_name.endswith(suffix) and (
        getattr(module, 'PHASE', None) == entry.sample
    ):
      return module
  return None


def ModuleName(name: str) -> str:
  """The dotted name of a phase's stages module (this package's if none is
  imported yet)."""
  if name not in ORDER:
    raise ValueError(f'unknown phase {name!r}; expected one of {ORDER}')
  module = _Imported(name)
  if module is not None:
    return module.__name__
  return f'{_PACKAGE}.{phase_table.Get(name).package}.stages'


def Load(name: str) -> types.ModuleType:
  """Returns a phase's stages module, which a module above imported.

  Raises:
    ValueError: the phase is unknown, or no module imported its stages
      module (a benchmark module imports the phases it runs; phase_modules
      imports them all).
  """
  module = _Imported(name) if name in ORDER else None
  if module is None:
    raise ValueError(
        f'phase {name}: {ModuleName(name)} is not imported; import it, or'
        ' phase_modules for every phase'
    )
  return module


def ReadParams(name: str):
  """A phase's settings, read from its flags (its stages module's Params)."""
  return Load(name).Params.FromFlags()


def Unrunnable(names: Sequence[str], benchmark_config) -> dict[str, str]:
  """Each phase of names this configuration's machines cannot run, and why.

  From each phase module's Unrunnable(config), if it has one: a list of
  reasons, empty when the phase can run.
  """
  out = {}
  for name in names:
    unrunnable = getattr(Load(name), 'Unrunnable', None)
    reasons = unrunnable(benchmark_config) if unrunnable else []
    if reasons:
      out[name] = '; '.join(reasons)
  return out


def Problems(
    names: Sequence[str], benchmark_config, skip: bool = False
) -> list[str]:
  """What each phase's module finds wrong with a configuration, as 'phase: ...'.

  Its CheckPrerequisites(config), if it has one (a list of problems, or
  raised), then, without skip, why the configuration cannot run it
  (Unrunnable).
  """
  unrunnable = {} if skip else Unrunnable(names, benchmark_config)
  problems = []
  for name in names:
    check = getattr(Load(name), 'CheckPrerequisites', None)
    try:
      found = list((check(benchmark_config) or []) if check else [])
    except (
        errors.Setup.InvalidFlagConfigurationError,
        errors.Setup.InvalidConfigurationError,
        ValueError,
    ) as e:
      found = [str(e)]
    found += [unrunnable[name]] if name in unrunnable else []
    problems.extend(f'{name}: {p}' for p in found)
  return problems


def Refusal(problems: Sequence[str]) -> str:
  """The refusal before provisioning: REFUSAL_HEADING, one problem a line."""
  return '\n'.join([REFUSAL_HEADING] + [f'  {p}' for p in problems])


def Check(benchmark_config, names: Sequence[str]) -> None:
  """Raises InvalidFlagConfigurationError listing every Problems' problem."""
  problems = Problems(names, benchmark_config)
  if problems:
    raise errors.Setup.InvalidFlagConfigurationError(Refusal(problems))


def Validate(names: Sequence[str]) -> list[str]:
  """Checks a phase selection and returns it in the report's order.

  Args:
    names: phase names, any order.

  Returns:
    The names in the report's order.

  Raises:
    ValueError: a name is unknown or repeated.
  """
  unknown = sorted(set(names) - set(ORDER))
  if unknown:
    raise ValueError(
        f'unknown phase(s) {", ".join(unknown)}; choose from {", ".join(ORDER)}'
    )
  if len(set(names)) != len(names):
    raise ValueError(f'phase listed twice in {",".join(names)}')
  return [n for n in ORDER if n in names]


@dataclasses.dataclass(frozen=True)
class RunIdentity:
  """Which run and configuration this is, and where its files go.

  Made once from the benchmark spec (topology.FromSpec) and passed to the
  phases in their Topology, so no phase reads the run's identity from
  flags or thread state.
  """

  run_uri: str  # the pkb.py run's, without --run_processes' suffix
  config_key: str  # resume.ConfigKey of this configuration ('' outside one)
  run_dir: str  # the run's directory on this host (PKB's temp dir)
  # Which Run stage of the configuration this is (--run_stage_iterations),
  # from 0.
  run_number: int = 0


@dataclasses.dataclass(frozen=True)
class Topology:
  """The report's VMs: 3 db nodes with data disks and 1 client."""

  db_vms: tuple[Any, ...]
  client_vm: Any  # None when the benchmark has no client group
  run_metadata: samples_lib.RunMetadata | None  # None in Prepare/Cleanup
  # (phase, index of its db VM) of each side phase on a db VM under
  # overlap (side_lanes.SideDbs); any other phase runs on the first.
  side_dbs: tuple[tuple[str, int], ...] = ()
  overlapped: tuple[str, ...] = ()  # phases run beside another phase
  identity: RunIdentity | None = None  # None: not in a run (some tests)

  @property
  def first_db(self):
    if not self.db_vms:
      raise ValueError('this benchmark has no "db" vm_group')
    return self.db_vms[0]

  def DbIndex(self, phase: str) -> int:
    """The index of the db VM a phase runs on: 0 but under overlap."""
    return dict(self.side_dbs).get(phase, 0)

  def DbFor(self, phase: str):
    """The db VM a phase runs on: cpu and net may use others (overlap)."""
    if self.DbIndex(phase):
      return self.db_vms[self.DbIndex(phase)]
    return self.first_db

  def Placement(self, phase: str) -> dict[str, Any]:
    """The sample metadata saying where a phase ran and if it overlapped.

    phase_vms lists the roles of the VMs the phase ran on (db1..dbN for the
    db VMs in order, client), comma-separated.
    """
    db = f'db{self.DbIndex(phase) + 1}'
    every_db = [f'db{i}' for i in range(1, len(self.db_vms) + 1)]
    client = [CLIENT_GROUP] if self.client_vm is not None else []
    expand = {
        phase_table.DB: [db],
        phase_table.EVERY_DB: every_db,
        phase_table.CLIENT: [CLIENT_GROUP],
        phase_table.CLIENT_IF_ANY: client,
    }
    roles = [r for vm in phase_table.Get(phase).vms for r in expand[vm]]
    return {
        'phase_vms': ','.join(roles),
        'overlapped': phase in self.overlapped,
    }

  def RequireIdentity(self, phase: str) -> RunIdentity:
    """Returns the run's identity, or raises naming the phase that needs it."""
    if self.identity is None:
      raise ValueError(f'phase {phase} needs the run identity of a PKB run')
    return self.identity

  def RequireClient(self, phase: str):
    """Returns the client VM, or raises naming the phase that needs it."""
    if self.client_vm is None:
      raise ValueError(f'phase {phase} needs a "client" vm_group')
    return self.client_vm


@dataclasses.dataclass(frozen=True)
class Schedule:
  """The order phases run in: before, then fill beside side, then after.

  Without overlap, fill and side are empty and `before` holds every phase.
  The side phases run in lanes, each in a thread of its own beside the
  fill's: the phases of a lane share a VM and run in order, the lanes
  share none.
  """

  before: tuple[str, ...]
  fill: tuple[str, ...]  # (FILL_PHASE,) under overlap
  side: tuple[str, ...]  # run beside the fill, in lanes
  after: tuple[str, ...]
  notes: tuple[str, ...]  # why a phase does or does not overlap
  lanes: tuple[tuple[str, ...], ...] = ()  # side, split by the VMs used
  side_dbs: tuple[tuple[str, int], ...] = ()  # side_lanes.SideDbs
  # Run in a thread beside LOAD_PHASE's Setup (side_lanes.BesideLoad); in
  # none of the tuples above.
  beside_load: tuple[str, ...] = ()

  @property
  def overlapped(self) -> tuple[str, ...]:
    return self.fill + self.side + self.beside_load


def MakeSchedule(
    names: Sequence[str],
    db_vms: int,
    has_client: bool,
    overlap: bool,
    idle_client_load: bool = False,
) -> Schedule:
  """Decides which phases run beside the fill, or beside the load (pure).

  Args:
    names: the phases to run, in the report's order.
    db_vms: how many db VMs there are.
    has_client: whether there is a client VM.
    overlap: whether overlap is asked for (--cloud_report_overlap).
    idle_client_load: whether tpcc's load leaves the client idle.

  Returns:
    The schedule. object_storage runs beside tpcc's load where that leaves
    the client idle (side_lanes.BesideLoad). Otherwise a side phase
    overlaps when io is selected and the VMs it needs exist: cpu a second
    db VM, net the client and a second db VM, object_storage the client.
    Any other phase runs in series, in order. Side phases that share no VM
    run at the same time (lanes): cpu takes a third db VM where there is
    one (side_lanes).
  """
  names = tuple(names)
  series = Schedule(names, (), (), (), ())
  if not overlap:
    return series
  beside = side_lanes.BesideLoad(names, has_client, idle_client_load)
  if beside:
    rest = MakeSchedule(
        [n for n in names if n not in beside], db_vms, has_client, overlap
    )
    note = (
        f'overlap: {",".join(beside)} run while {side_lanes.LOAD_PHASE}'
        ' loads its data (--cloud_report_overlap)'
    )
    return dataclasses.replace(
        rest, beside_load=beside, notes=rest.notes + (note,)
    )
  wanted = [n for n in names if n in SIDE_PHASES]
  if not wanted:
    return series
  if FILL_PHASE not in names:
    return dataclasses.replace(
        series,
        notes=(
            (
                f'overlap does not apply: the {FILL_PHASE} phase is not'
                f' selected; {",".join(names)} run in series'
            ),
        ),
    )
  needs = {n: _SideNeeds(n, db_vms, has_client) for n in wanted}
  side = tuple(n for n in wanted if needs[n][0])
  notes = [
      f'overlap does not apply to {n}: it needs {needs[n][1]}; it runs in'
      ' series'
      for n in wanted
      if not needs[n][0]
  ]
  if not side:
    return dataclasses.replace(series, notes=tuple(notes))
  at = names.index(FILL_PHASE)
  rest = [n for n in names if n not in side and n != FILL_PHASE]
  side_dbs = side_lanes.SideDbs(side, db_vms)
  lanes = side_lanes.Lanes(side, side_dbs)
  notes.append(
      f'overlap: {" beside ".join(",".join(lane) for lane in lanes)} run'
      f' while {FILL_PHASE} runs on db1 (--cloud_report_overlap)'
  )
  return Schedule(
      before=tuple(n for n in rest if names.index(n) < at),
      fill=(FILL_PHASE,),
      side=side,
      after=tuple(n for n in rest if names.index(n) > at),
      notes=tuple(notes),
      lanes=lanes,
      side_dbs=tuple(side_dbs.items()),
  )


def _SideNeeds(name: str, db_vms: int, has_client: bool) -> tuple[bool, str]:
  """Whether a side phase's VMs exist beside the fill, and what they are."""
  row = phase_table.Get(name)
  if row.side_db and row.needs_client:
    return db_vms > SIDE_DB and has_client, 'the client and a second db VM'
  if row.side_db:
    return db_vms > SIDE_DB, 'a second db VM'
  return has_client, 'the client VM'


def Arrange(
    topology: Topology, names: Sequence[str], overlap: bool
) -> tuple[Schedule, Topology]:
  """The schedule of names, and the topology with its placement."""
  if not overlap:  # the topology as it is (Cleanup may have none)
    return MakeSchedule(names, 0, False, overlap=False), topology
  load = side_lanes.LOAD_PHASE
  idle = load in names and getattr(Load(load), 'LoadLeavesClientIdle', None)
  schedule = MakeSchedule(
      names,
      len(topology.db_vms),
      topology.client_vm is not None,
      overlap,
      idle_client_load=bool(idle and idle()),
  )
  if not schedule.overlapped:
    return schedule, topology
  return schedule, dataclasses.replace(
      topology, side_dbs=schedule.side_dbs, overlapped=schedule.overlapped
  )
