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
"""The TPC-C stepping search run with an engine, and its samples.

What the cloud_report_tpcc benchmark runs, and any other runner of the same
search (one that keeps the search's history between runs passes a store):
Search measures each step with the engine (engines.ToMeasurement, with the
engine's own parser) and steps with cloud_report.tpcc.stepping; ToSamples
turns the finished search into samples; ReleaseProblems says, before
provisioning, which vm_groups have no CockroachDB release to install.
"""

import dataclasses
import logging

from perfkitbenchmarker import errors

from benchmarks.cloud_report.tpcc import engines
from benchmarks.cloud_report.tpcc import params as tpcc_params
from benchmarks.cloud_report.tpcc import samples as tpcc_samples
from benchmarks.cloud_report.tpcc import stepping
from linux_packages import cloud_report_cockroachdb as cockroachdb


def ProbeParams(params: tpcc_params.Params) -> tpcc_params.Params:
  """The params of a probe: a step run for the probe's duration."""
  return dataclasses.replace(params, duration=params.probe_duration)


def Search(
    params: tpcc_params.Params, engine, probe_engine, cluster, store=None
) -> stepping.Result:
  """Runs the stepping search with an engine on a cluster.

  Args:
    params: the phase's Params.
    engine: runs the full-length steps (CockroachEngine, or any object
      with its methods).
    probe_engine: the same engine for ProbeParams(params), for the probe
      strategy's short steps.
    cluster: the VMs, as the engine takes them (Cluster).
    store: where the search's history is kept between runs (an object with
      Load() -> steps and Save(steps)); None keeps it in memory, so a run
      that dies starts over.
  """
  probe_params = ProbeParams(params)

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
      output, status = run_engine.RunStep(cluster, warehouses, iteration)
      return engines.ToMeasurement(
          output,
          status,
          warehouses,
          run_params.duration_s,
          run_engine.StepExtra(warehouses),
          bound_s=run_engine.StepTimeout(),
          parse=run_engine.Parse,
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


def GroupArchs(benchmark_config):
  """(name, cloud, machine type, arch) of each vm_group whose arch is known.

  The architecture comes from --cloud_report_cockroachdb_arch or the
  group's machine type.
  """
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


def ReleaseProblems(benchmark_config, arm64: bool | None = None) -> list[str]:
  """Groups without a release and a sha256: every group, or with arm64
  given only the arm64 ones (True) or only the others (False).

  Groups of one machine type with the same problem share one message.
  """
  found = {}
  for name, cloud, machine_type, arch in GroupArchs(benchmark_config):
    if arm64 is not None and (arch == 'arm64') != arm64:
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
