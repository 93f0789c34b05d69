# Copyright 2026 PerfKitBenchmarker Authors. All rights reserved.
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
(cloud_report.tpcc.engines: cockroach, the report's, or one registered
there) installs its binaries in Install; Setup, which waits for the run
stage in the suite (the data disk is io's until then), mounts the data
disks, starts the database and loads the maximum warehouse count; its flags are
cloud_report.tpcc.params's; Run steps with
cloud_report.tpcc.stepping (linear, the report's; bisect; or probe: short probes
find the edge, full-length runs confirm it) and the pass rule
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

import dataclasses
import logging
import os

from perfkitbenchmarker import errors
from perfkitbenchmarker import flags as pkb_flags  # pylint: disable=unused-import

from benchmarks.cloud_report import phase_table
from benchmarks.cloud_report import phases
from benchmarks.cloud_report.tpcc import engines
from benchmarks.cloud_report.tpcc import params as tpcc_params
from benchmarks.cloud_report.tpcc import parser as tpcc_parser
from benchmarks.cloud_report.tpcc import samples as tpcc_samples
from benchmarks.cloud_report.tpcc import stepping
from benchmarks.cloud_report.tpcc import stepping_state
from linux_packages import cloud_report_cockroachdb as cockroachdb

PHASE = phase_table.TPCC.sample
# The phase's parser and samples modules (phase_modules pairs them).
PARSER = tpcc_parser
SAMPLES = tpcc_samples
Params = tpcc_params.Params
STATE_FILE = 'cloud_report_tpcc_{run_uri}_{config}.json'


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


def StatePath(params: tpcc_params.Params, identity: phases.RunIdentity) -> str:
  """The search's state file: in --cloud_report_tpcc_state_dir, or the run's."""
  directory = params.state_dir or identity.run_dir
  return os.path.join(
      directory,
      STATE_FILE.format(run_uri=identity.run_uri, config=identity.config_key),
  )


def SelectEngine(name: str, params: tpcc_params.Params):
  """Returns the engine named by --cloud_report_tpcc_engine."""
  return engines.NewEngine(name, params)


def _Engine():
  params = tpcc_params.Params.FromFlags()
  return SelectEngine(params.engine, params)


def Install(topology) -> None:
  """Installs the engine's binaries on the db VMs and the client."""
  _Engine().Install(topology)


def Setup(topology) -> None:
  """Mounts the data disks, starts the database, loads the warehouses.

  Idempotent: a resumed run keeps a running database and its load.
  """
  engine = _Engine()
  engines.EndLeftovers(topology)
  logging.info(
      'tpcc: engine %s; loading %d warehouses',
      engine.name,
      engine.params.max_warehouses,
  )
  engine.Setup(topology)


def Search(
    params: tpcc_params.Params, engine, topology, store=None
) -> stepping.Result:
  """Runs (or resumes) the stepping search with an engine."""
  # The same engine with the probe's duration: a probe is a step run shorter.
  probe_params = dataclasses.replace(params, duration=params.probe_duration)
  probe_engine = SelectEngine(engine.name, probe_params)

  def Measurer(run_params: tpcc_params.Params, run_engine, kind: str):
    def Measure(warehouses: int, iteration: int) -> stepping.Measurement:
      logging.info(
          'tpcc: step %d (%s): %d active warehouses for %s (%s ramp)',
          iteration,
          kind,
          warehouses,
          run_params.duration,
          run_params.ramp,
      )
      output, status = run_engine.RunStep(topology, warehouses, iteration)
      return engines.ToMeasurement(
          output,
          status,
          warehouses,
          run_params.duration_s,
          run_engine.StepExtra(warehouses),
          bound_s=run_engine.StepTimeout(),
      )

    return Measure

  def OnStep(iteration: int, step: stepping.Step) -> None:
    logging.info('tpcc: step %d at %d: %s', iteration, step.level, step.reason)

  return stepping.Search(
      params.plan,
      params.rule,
      Measurer(params, engine, 'full length'),
      store,
      OnStep,
      no_result_retries=params.step_retries,
      probe_measure=Measurer(probe_params, probe_engine, 'probe'),
  )


def ToSamples(
    params: tpcc_params.Params, engine, result: stepping.Result, metadata=None
) -> list:
  """Per-step and summary samples of a finished search.

  metadata: the engine's own (engine.SampleMetadata), added to every sample.
  """
  common = {
      'engine': engine.name,
      'tool': engine.tool,
      'warehouses_loaded': params.max_warehouses,
      'duration_s': params.duration_s,
      'ramp_s': params.ramp_s,
      'strategy': params.strategy,
      'pass_rule': result.rule.name,
  } | dict(metadata or {})
  if params.strategy == stepping.PROBE:
    common['probe_duration_s'] = params.probe_duration_s
  out = []
  for i, step in enumerate(result.steps, 1):
    md = common | {
        'resumed': i <= result.resumed_steps,
        'step_kind': step.kind,  # probe, confirmation or full
        'probe_run': step.probe,
    }
    if step.probe:
      md['duration_s'] = params.probe_duration_s
    out.extend(tpcc_samples.StepSamples(step, i, md))
  summary = common | {
      'probes_used': result.probes_used,
      'step_seconds': sum(
          params.ramp_s
          + (params.probe_duration_s if s.probe else params.duration_s)
          for s in result.steps
      ),
  }
  out.extend(tpcc_samples.SummarySamples(result, summary))
  return out


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
  engine = SelectEngine(params.engine, params)
  identity = topology.RequireIdentity(PHASE)
  store = stepping_state.StateStore(
      StatePath(params, identity),
      SearchRunId(identity),
      Fingerprint(params, engine),
  )
  logging.info('tpcc: stepping state %s', store.path)
  # Setup did this too when it ran in this process; the standalone
  # benchmark resumed with --run_stage=run runs no Setup.
  engines.EndLeftovers(topology)
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


def _GroupArchs(benchmark_config):
  """(name, cloud, machine type, arch) of each vm_group whose arch is known.

  The architecture comes from --cloud_report_cockroachdb_arch or the
  group's machine type. Empty for an engine other than cockroach, which has
  no release to check here.
  """
  if tpcc_params.ENGINE.value != engines.COCKROACH:
    return []
  out = []
  for name, group in sorted((benchmark_config.vm_groups or {}).items()):
    cloud = str(getattr(group, 'cloud', None))
    machine_type = getattr(
        getattr(group, 'vm_spec', None), 'machine_type', None
    )
    arch = cockroachdb.DeclaredArch(cloud, machine_type)
    if arch is not None:
      out.append((name, cloud, machine_type, arch))
  return out


def _ReleaseProblems(benchmark_config, arm64: bool) -> list[str]:
  """Groups (arm64 ones, or the others) without a release and a sha256.

  Groups of one machine type with the same problem share one message.
  """
  found = {}
  for name, cloud, machine_type, arch in _GroupArchs(benchmark_config):
    if (arch == 'arm64') != arm64:
      continue
    try:
      cockroachdb.CheckRelease(arch)
    except errors.Setup.InvalidConfigurationError as e:
      what = (f'{cloud} {machine_type or ""}, {arch}', str(e).rstrip('.'))
      found.setdefault(what, []).append(name)
  return [
      f'vm_group{"s" if len(names) > 1 else ""} {", ".join(names)}'
      f' ({where}): {why}'
      for (where, why), names in found.items()
  ]


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
  params = tpcc_params.Params.FromFlags()
  SelectEngine(params.engine, params).Cleanup(topology)
