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
"""OLTP phase: TPC-C stepped up to the latency limit.

The report: load the warehouses, run 30 minutes (after a 1-minute ramp) at
2,500 active warehouses, and while a step passes add 250 and run again; the
result is the largest passing count and its tpmC. The engine
(--cloud_report_tpcc_engine, pkb_ext.suite.tpcc.engines: cockroach, the
report's, or postgres) installs its binaries in Install; Setup, which waits
for the run stage in the suite (the data disk is io's until then), mounts
the data disks, starts the database and loads the maximum warehouse count;
its flags are cloud_report.tpcc.params's; Run steps with the exported
search (cloud_report.tpcc.runs and stepping: linear, the report's; bisect;
or probe: short probes find the edge, full-length runs confirm it) and the
pass rule
(`report`: p90 < 5 s; `crl_script`: efc > 85 % and p95 < 10 s; or
custom:...).

Each step's verdict is saved (JSON, written atomically) in PKB's run
directory before the next step starts: after a crash, `pkb.py
--run_uri=<same> --run_stage=run` resumes the search without re-running a
recorded step, and still reports every step's samples. The file is named
after the run_uri and the configuration (resume.ConfigKey: a digest of the
benchmark, its config flags and vm_groups), because every configuration of a
flag matrix shares one run_uri and one run directory, in series or in
parallel (--run_processes), and each must resume its own search.
"""

import logging
import os

from absl import flags
from perfkitbenchmarker import background_tasks
from perfkitbenchmarker import errors
from perfkitbenchmarker import flags as pkb_flags  # pylint: disable=unused-import

from benchmarks.cloud_report.tpcc import engines
from benchmarks.cloud_report.tpcc import params as tpcc_params
from benchmarks.cloud_report.tpcc import runs
from benchmarks.cloud_report.tpcc import samples as tpcc_samples
from benchmarks.cloud_report.tpcc import stepping
from linux_packages import cloud_report_cockroachdb as cockroachdb
from pkb_ext.suite import leftovers
from pkb_ext.suite import phase_table
from pkb_ext.suite import phases
from pkb_ext.suite.disk import guard as disk_guard
from pkb_ext.suite.tpcc import engines as suite_engines
from pkb_ext.suite.tpcc import parser as suite_parser
from pkb_ext.suite.tpcc import stepping_state

PHASE = phase_table.TPCC.sample
# The phase's parser and samples modules (phase_modules pairs them).
PARSER = suite_parser
SAMPLES = tpcc_samples
Params = tpcc_params.Params
STATE_FILE = 'cloud_report_tpcc_{run_uri}_{config}.json'
# Where the search's state file goes: only this extension's resume reads
# it, so the flag is not the exported benchmark's.
STATE_DIR = flags.DEFINE_string(
    'cloud_report_tpcc_state_dir',
    None,
    "Directory of the stepping state file (default: PKB's run directory).",
)


def Fingerprint(params: tpcc_params.Params, engine) -> dict:
  """What makes two steps' measurements comparable (saved with the state)."""
  probe = {}
  if params.strategy == stepping.PROBE:
    probe = {'probe_duration': params.probe_duration}
  return (
      {
          'engine': engine.name,
          'warehouses_loaded': params.max_warehouses,
          'duration': params.duration,
          'ramp': params.ramp,
      }
      | probe
      | engine.Fingerprint()
  )


def StatePath(identity: phases.RunIdentity) -> str:
  """The search's state file: in --cloud_report_tpcc_state_dir, or the run's."""
  directory = STATE_DIR.value or identity.run_dir
  return os.path.join(
      directory,
      STATE_FILE.format(run_uri=identity.run_uri, config=identity.config_key),
  )


def SelectEngine(name: str, params: tpcc_params.Params):
  """Returns the engine named by --cloud_report_tpcc_engine."""
  return suite_engines.NewEngine(name, params)


def _Engine():
  params = tpcc_params.Params.FromFlags()
  return SelectEngine(suite_engines.ENGINE.value, params)


def EndLeftovers(topology) -> None:
  """Ends the logged runs (a load, a step) an earlier attempt left running.

  PKB runs them detached on the client; a PKB killed mid-phase leaves them
  running up to their bound, and a resumed run would load or step beside
  them.
  """
  leftovers.EndLeftovers(
      [topology.RequireClient(PHASE)], engines.TAG_PREFIX, 'tpcc'
  )


def LoadLeavesClientIdle() -> bool:
  """Whether Setup's load leaves the client idle, so that a phase on the
  client alone may run beside it (phases.Arrange, with overlap)."""
  return suite_engines.LoadLeavesClientIdle(suite_engines.ENGINE.value)


def Install(topology) -> None:
  """Installs the engine's binaries on the db VMs and the client."""
  _Engine().Install(topology)


def Setup(topology) -> None:
  """Mounts the data disks, starts the database, loads the warehouses.

  Idempotent: a resumed run keeps a running database and its load.
  """
  engine = _Engine()
  EndLeftovers(topology)
  if engine.name == engines.COCKROACH:  # postgres mounts its own, on db1
    background_tasks.RunThreaded(
        lambda vm: disk_guard.MountDataDisk(vm, engines.DATA_MOUNT),
        list(topology.db_vms),
    )
  logging.info(
      'tpcc: engine %s; loading %d warehouses',
      engine.name,
      engine.params.max_warehouses,
  )
  engine.Setup(topology)


def Search(
    params: tpcc_params.Params, engine, topology, store=None
) -> stepping.Result:
  """runs.Search, its probes run by the same engine for the probe's params."""
  probe_engine = SelectEngine(engine.name, runs.ProbeParams(params))
  return runs.Search(params, engine, probe_engine, topology, store)


ToSamples = runs.ToSamples


def SearchRunId(identity) -> str:
  """The run a saved search belongs to: the run_uri, and from the second
  Run stage on (--run_stage_iterations) its number, so each Run searches
  again (on the warehouses already loaded) rather than finding the first
  Run's search finished."""
  if identity.run_number:
    return f'{identity.run_uri}/run{identity.run_number}'
  return identity.run_uri


def Run(topology) -> list:
  """Runs (or resumes) the TPC-C search; returns its samples."""
  params = tpcc_params.Params.FromFlags()
  engine = SelectEngine(suite_engines.ENGINE.value, params)
  identity = topology.RequireIdentity(PHASE)
  store = stepping_state.StateStore(
      StatePath(identity),
      SearchRunId(identity),
      Fingerprint(params, engine),
  )
  logging.info('tpcc: stepping state %s', store.path)
  # Setup did this too when it ran in this process; the standalone
  # benchmark resumed with --run_stage=run runs no Setup.
  EndLeftovers(topology)
  result = Search(params, engine, topology, store)
  edge = result.edge_step
  logging.info(
      'tpcc: max passing warehouses %s after %d steps (%d resumed); the'
      ' search ended: %s%s',
      result.max_passing,
      result.steps_used,
      result.resumed_steps,
      result.end,
      f' at {edge.level}: {edge.reason}' if edge else '',
  )
  samples = ToSamples(params, engine, result, engine.SampleMetadata(topology))
  if result.failed_without_result:
    raise phases.PhaseFailure(
        f'tpcc: {edge.reason} at {edge.level} active warehouses, the lowest'
        f' level run, after {params.step_retries + 1} run(s)'
        f' (--cloud_report_tpcc_step_retries={params.step_retries}); the'
        f' {len(samples)} samples of its steps are kept. The steps are saved'
        f' in {store.path}; fix the cause and re-run with'
        f' --run_uri={identity.run_uri}'
        ' --run_stage=run,cleanup,teardown to try that level again.',
        samples,
    )
  return samples


def CheckPrerequisites(benchmark_config) -> list[str]:
  """Problems knowable before provisioning that no machine type causes.

  With the cockroach engine, every vm_group whose architecture is known
  and is not arm64 needs a CockroachDB release built for it and a sha256
  to check the tarball against: what is missing there is missing on every
  machine of a matrix. The arm64 groups' are Unrunnable's.
  """
  return _ReleaseProblems(benchmark_config, arm64=False)


def Unrunnable(benchmark_config) -> list[str]:
  """Why this configuration's machines cannot run the phase (empty: they can).

  With the cockroach engine, an arm64 vm_group whose release
  (cockroachdb.VersionFor) has no linux-arm64 build, or no sha256 given or
  opted into from the vendor's .sha256sum.
  """
  return _ReleaseProblems(benchmark_config, arm64=True)


def _GroupArchs(benchmark_config):
  """runs.GroupArchs with the cockroach engine; empty for another engine,
  which has no release to check here."""
  if suite_engines.ENGINE.value != engines.COCKROACH:
    return []
  return runs.GroupArchs(benchmark_config)


def _ReleaseProblems(benchmark_config, arm64: bool) -> list[str]:
  if suite_engines.ENGINE.value != engines.COCKROACH:
    return []
  return runs.ReleaseProblems(benchmark_config, arm64)


# How Notes names where a tarball's sha256 comes from.
_SHA_SOURCES = {
    cockroachdb.SHA_FLAG: 'given with --cloud_report_cockroachdb_sha256',
    cockroachdb.SHA_VENDOR: "from the vendor's .sha256sum over HTTPS",
}


def Notes(benchmark_config) -> list[str]:
  """What the phase runs differently on this configuration's arm64 machines."""
  names = [n for n, _, _, arch in _GroupArchs(benchmark_config)
           if arch == 'arm64']  # fmt: skip
  try:
    source = cockroachdb.CheckRelease('arm64')
  except errors.Setup.InvalidConfigurationError:
    return []  # Unrunnable says why
  if not names:
    return []
  return [
      f'vm_group{"s" if len(names) > 1 else ""} {", ".join(names)} (arm64)'
      f' run{"" if len(names) > 1 else "s"} CockroachDB'
      f' {cockroachdb.VersionFor("arm64")} (amd64:'
      f' {cockroachdb.VersionFor("amd64")}), its sha256'
      f' {_SHA_SOURCES.get(source, source)}; samples'
      ' comparable_with_report=false'
  ]


def Cleanup(topology) -> None:
  """Stops and removes the database; unmounts what Setup mounted."""
  params = tpcc_params.Params.FromFlags()
  engine = SelectEngine(suite_engines.ENGINE.value, params)
  engine.Cleanup(topology)
  if engine.name == engines.COCKROACH:
    background_tasks.RunThreaded(
        lambda vm: disk_guard.UnmountDataDisk(vm, engines.DATA_MOUNT),
        list(topology.db_vms),
    )
