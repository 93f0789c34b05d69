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
"""The Cockroach Labs 2021 Cloud Report suite on one topology.

Provisions the report's topology once (3 db VMs, each with a 2,500 GB
network data disk, and 1 client VM, all in one zone) and runs the report's
phases in its order: cpu (CoreMark), io (fio on the raw data disk), net
(netperf), object_storage (TTFB and throughput) and tpcc (TPC-C stepping).
--cloud_report_phases picks a subset, and only the VMs and data disks it
uses are provisioned (GetConfig). Each phase is shared with its standalone
benchmark module (cloud_report_coremark, ...).

PKB's stages: Prepare installs every selected phase's software; Run sets up
what must wait for the phases before it (tpcc's data disks and cluster),
runs the phases and publishes each one's samples as it ends; a failed phase
fails the benchmark after the others ran, their samples published; Cleanup
cleans up.

A phase a configuration cannot run (preflight.Skips: tpcc on an arm64
machine without a CockroachDB build and checksum for it) is skipped on that
configuration with its reason, in the log and in a
cloud_report_phase_skipped sample; its other phases run, and the other
configurations of a matrix are not refused.
--cloud_report_skip_unrunnable_phases=false refuses it instead.

With --cloud_report_overlap (the default), cpu, net and object_storage run
on the other VMs while io fills and measures the first db VM's disk, and
object_storage runs beside tpcc's load instead where the TPC-C engine's load
leaves the client idle (see phases); --cloud_report_overlap=false runs every
phase in series, as the report did.

Example:
  pkb.py --benchmarks=cloud_report_2021 --cloud=AWS --zone=us-east-1a \
      --machine_type=c5a.4xlarge
"""

import dataclasses
import logging

from absl import flags
from perfkitbenchmarker import configs

from pkb_ext.suite import phases
from pkb_ext.suite import resume
from pkb_ext.suite import standalone
from pkb_ext.suite import topology as topology_lib
from pkb_ext.suite import cockroach_sha256
from pkb_ext.suite import phase_modules
from pkb_ext.suite import preflight
from pkb_ext.suite import provision as provision_lib
from pkb_ext.suite import runner

BENCHMARK_NAME = 'cloud_report_2021'
BENCHMARK_CONFIG = standalone.Config(
    BENCHMARK_NAME,
    'The Cockroach Labs 2021 Cloud Report: CoreMark, fio on the raw disk,'
    ' netperf, object storage TTFB and TPC-C stepping on 3 db nodes + 1'
    ' client.',
    db_vms=3,
    client=True,
    data_disks=True,
    # PKB's flags the phases' PKB modules read (the cpu phase's CoreMark
    # method), at the report's values.
    config_flags=phase_modules.BY_PHASE['cpu'].stages.CONFIG_FLAGS,
)

NO_PHASES = 'none'
_PHASES = flags.DEFINE_list(
    'cloud_report_phases',
    None,
    'Phases of cloud_report_2021 to run, in any order; they run in the '
    f'report\'s order ({",".join(phases.ORDER)}). Default: every phase.'
    f' "{NO_PHASES}" runs none: only provisioning, the run metadata and'
    ' teardown.',
)
_KEEP_GOING = flags.DEFINE_boolean(
    'cloud_report_keep_going',
    True,
    'After a phase fails, run the remaining phases before failing the run.',
)
OVERLAP = flags.DEFINE_boolean(
    'cloud_report_overlap',
    True,
    "While the io phase fills and measures the first db VM's disk, run cpu"
    ' (on the third db VM beside net, else the second), net (client to the'
    ' second db VM) then object_storage (from the client) beside it; then'
    ' tpcc. With the cockroach engine, whose load leaves the client idle,'
    " object_storage runs beside tpcc's load instead."
    ' Samples say phase_vms and overlapped. False: every phase in series,'
    ' each db phase on the first db VM, as the report ran them.',
)
SKIP_UNRUNNABLE = flags.DEFINE_boolean(
    'cloud_report_skip_unrunnable_phases',
    True,
    'Skip, with its reason, a phase this configuration cannot run (tpcc on'
    ' an arm64 machine without a CockroachDB build and checksum for it) and'
    ' run the others. False: refuse the configuration before provisioning,'
    ' as every other preflight problem (all or nothing).',
)


def _CheckPhases(names) -> bool:
  """Validates --cloud_report_phases before anything is provisioned."""
  if names is not None and not names:
    raise flags.ValidationError(
        '--cloud_report_phases is empty: it would provision the VMs and run'
        f' nothing; name one or more of {",".join(phases.ORDER)}, leave the'
        f' flag out for every phase, or say {NO_PHASES} for no phase'
    )
  if names == [NO_PHASES]:
    return True
  if names is not None:
    try:
      phases.Validate(names)
    except ValueError as e:
      raise flags.ValidationError(f'--cloud_report_phases: {e}') from e
  return True


flags.register_validator('cloud_report_phases', _CheckPhases)

# Every phase (phase_modules imported each one's module, defining its flags).
_ALL = phase_modules.LoadAll()


def _Selected() -> list[str]:
  if _PHASES.value is None:
    return list(_ALL)
  if _PHASES.value == [NO_PHASES]:
    return []
  return phases.Validate(_PHASES.value)


def SelectedPhases() -> list[str]:
  """The phases this run would run, in order (--cloud_report_phases)."""
  return _Selected()


def SkippedPhases(benchmark_config) -> dict[str, str]:
  """The selected phases this configuration cannot run, and why.

  Empty with --cloud_report_skip_unrunnable_phases=false, where preflight
  refuses them, and without a config.
  """
  if not SKIP_UNRUNNABLE.value or benchmark_config is None:
    return {}
  return preflight.Skips(_Selected(), benchmark_config)


def RunnablePhases(spec) -> list[str]:
  """The selected phases this spec's configuration runs, in order."""
  skipped = SkippedPhases(getattr(spec, 'config', None))
  return [n for n in _Selected() if n not in skipped]


def GetConfig(user_config):
  """The report's config, with only what the selected phases use.

  provision.ProvisionFor says what that is: cpu,net provision one db VM
  without a data disk and the client; the second db VM (and a third, for
  cpu beside net) comes with overlap only where io runs beside cpu or net
  on it; no phase selected (none)
  provisions the whole topology; static VMs (--static_vm_file) keep the
  client group, which PKB fills first from their pool. A user config keeps
  what it says except a group or data disk no selected phase uses
  (standalone.Trim). Its flags give the sha256 of the report's CockroachDB
  release (cockroach_sha256.ConfigFlags) unless the user's config gives
  one.
  """
  config = configs.LoadConfig(BENCHMARK_CONFIG, user_config, BENCHMARK_NAME)
  config['flags'] = cockroach_sha256.ConfigFlags() | (config.get('flags') or {})
  selected = _Selected()
  provision = provision_lib.ProvisionFor(selected, OVERLAP.value)
  if 'static_vm_file' in flags.FLAGS and flags.FLAGS.static_vm_file:
    # PKB hands static VMs out in the order of the groups (client, then db):
    # without the client group, db would take the host listed for it.
    provision = dataclasses.replace(provision, client=True)
  if provision != provision_lib.REPORT_TOPOLOGY:
    logging.info(
        '%s: %s use %d db VM(s)%s%s; the rest of the'
        " report's topology is not provisioned",
        BENCHMARK_NAME,
        ','.join(selected),
        provision.db_vms,
        ' with data disks' if provision.data_disks else '',
        ' and the client' if provision.client else '',
    )
  return standalone.Trim(config, user_config, provision)


def CheckPrerequisites(benchmark_config):
  """Fails before provisioning on what would fail after it.

  A bad phase selection, and cloud_report.preflight's checks; a phase the
  configuration cannot run is skipped (SkippedPhases), not refused, unless
  --cloud_report_skip_unrunnable_phases=false.
  """
  preflight.Check(benchmark_config, _Selected(), skip=SKIP_UNRUNNABLE.value)


def _Store(topology) -> resume.PhaseStore:
  return resume.PhaseStore.ForRun(topology.identity)


# The phase stores this process has run a Run for: a second Run of the same
# store is the next of --run_stage_iterations, not a resumed one.
_RUNS_STARTED = set()


def Prepare(spec):
  """Installs every selected phase's software on the VMs it will run on.

  What can be done before any phase runs: packages, CoreMark's builds,
  netperf, fio, the object storage worker and its SDK, the TPC-C engine's
  binaries. The set-up that changes what an earlier phase measures waits
  for Run (phases' Setup: tpcc formats and mounts the data disks io
  measures raw, then starts its cluster). A run that prepares is a new one:
  the phases saved by an earlier run of the same run_uri and configuration
  are forgotten. A phase the configuration cannot run is not installed.
  """
  topology = topology_lib.FromSpec(spec, with_metadata=False)
  store = _Store(topology)
  store.Clear()
  runner.PrepareAll(
      topology,
      RunnablePhases(spec),
      overlap=OVERLAP.value,
      store=store,
      keep_going=_KEEP_GOING.value,
  )


def Run(spec):
  """Runs the phases, publishing each one's samples as soon as it ends.

  Each phase's samples go to PKB's publishers when the phase ends
  (topology_lib.Publish: PKB's PublishRunStageSamples), so a phase that
  fails, or a run that dies, loses no other phase's samples. After the
  remaining phases ran (--cloud_report_keep_going), a failed phase raises
  here: PKB marks the benchmark FAILED with the phases' errors as its status
  detail, and calls Cleanup all the same (always_call_cleanup). Run returns
  no sample: every one was published.

  Each finished phase is saved (cloud_report.resume) before it is
  published: a run resumed with the same run_uri and --run_stage=run,...
  runs only the phases that had not finished, and publishes a saved phase
  only if no earlier attempt began to publish it. The install steps
  Prepare finished are not run again; a phase that lacks one (a resumed run
  whose Prepare did not finish) installs before it runs. A phase the
  configuration cannot run is skipped: one log line and one
  cloud_report_phase_skipped sample with its reason (runner.RunAll).
  """
  spec.always_call_cleanup = True
  topology = topology_lib.FromSpec(spec)
  store = _Store(topology)
  if store.path in _RUNS_STARTED:
    run_number = store.NextRun()
  else:
    _RUNS_STARTED.add(store.path)
    run_number = store.RunNumber()
  if topology.identity is not None:
    topology = dataclasses.replace(
        topology,
        identity=dataclasses.replace(topology.identity, run_number=run_number),
    )
  runner.RunAll(
      topology,
      RunnablePhases(spec),
      on_samples=lambda _, samples: topology_lib.Publish(
          spec, samples, run_number
      ),
      keep_going=_KEEP_GOING.value,
      prepare=True,
      store=store,
      overlap=OVERLAP.value,
      skipped=SkippedPhases(getattr(spec, 'config', None)),
  )
  return []


def Cleanup(spec):
  """Cleans up every phase; raises only what cleaning up failed on.

  The install steps are forgotten: a phase's Cleanup may remove what its
  Install put on the VMs, so a later resumed Run installs again.
  """
  topology = topology_lib.FromSpec(spec, with_metadata=False)
  _Store(topology).ForgetInstalled()
  runner.CleanupAll(
      topology,
      RunnablePhases(spec),
      overlap=OVERLAP.value,
  )
