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
"""The cpu phase: CoreMark 1.0 (v1.01), single-core then all-core.

As the report's scripts (cockroachlabs/cloud-report scripts/gen/cpu.sh) did,
on the first db node (under the suite's overlap, on the second: see
phases): build CoreMark once per mode, run the single-core
binary N times, then the all-core one N times. All-core is built with
`-DMULTITHREAD=$(nproc) -DUSE_PTHREAD` and linked with -lpthread; PKB's own
coremark benchmark defaults to the fork + socket method instead
(--cloud_report_coremark_parallelism picks either).

Each run is CoreMark's performance run (the Makefile's run1.log arguments).
With --cloud_report_coremark_iterations=0 (the default) CoreMark calibrates
every run to last at least 10 s, the EEMBC run rule, as `./coremark.exe`
without arguments did in the report's scripts; a positive value fixes the
iterations per thread (PKB's coremark uses 1,000,000). A run shorter than
10 s is kept and marked valid_for_reporting False.
"""

import dataclasses
import logging

from absl import flags
from perfkitbenchmarker import errors

from benchmarks.cloud_report import phase_table
from benchmarks.cloud_report import phases
from benchmarks.cloud_report import remote
from benchmarks.cloud_report import settings
from benchmarks.cloud_report.cpu import parser as coremark_parser
from benchmarks.cloud_report.cpu import samples as cpu_samples
from linux_packages import cloud_report_coremark as coremark_pkg

PHASE = phase_table.CPU.sample
# The phase's parser and samples modules (phase_modules pairs them).
PARSER = coremark_parser
SAMPLES = cpu_samples
TAG_PREFIX = 'coremark-'  # a run's remote.Tracked tag is its Build.name
MODES = cpu_samples.MODES
PARALLELISM = tuple(coremark_pkg.PARALLELISM)


def _CheckModes(modes) -> bool:
  if not modes or set(modes) - set(MODES) or len(set(modes)) != len(modes):
    raise flags.ValidationError(
        f'--cloud_report_coremark_modes: got {",".join(modes) or "none"};'
        f' give one or both of {",".join(MODES)}, each once'
    )
  return True


@settings.Define
@dataclasses.dataclass(frozen=True)
class Params:
  """The cpu phase's settings; each default is its flag's (the report's)."""

  runs: int = settings.Integer(
      'cloud_report_coremark_runs',
      10,
      'CoreMark runs per mode (the report ran 10).',
      lower_bound=1,
  )
  threads: int = settings.Integer(
      'cloud_report_coremark_threads',
      0,
      "Threads of the all-core CoreMark build (-DMULTITHREAD=); 0 = the VM's"
      ' vCPU count, like $(nproc) in the report.',
      lower_bound=0,
  )
  parallelism: str = settings.Enum(
      'cloud_report_coremark_parallelism',
      'pthread',
      PARALLELISM,
      'How all-core CoreMark runs its contexts: pthread (the report:'
      " -DUSE_PTHREAD, -lpthread), fork or socket (PKB coremark's default).",
  )
  iterations: int = settings.Integer(
      'cloud_report_coremark_iterations',
      0,
      'CoreMark iterations per thread per run; 0 lets CoreMark calibrate each'
      ' run to last at least 10 s (EEMBC run rule), as the report did. Runs'
      ' shorter than 10 s are marked valid_for_reporting False.',
      lower_bound=0,
  )
  # Run in MODES' order, whatever the flag's.
  modes: tuple[str, ...] = settings.List(
      'cloud_report_coremark_modes',
      list(MODES),
      'CoreMark modes to run, in this order: single, all.',
      convert=settings.InOrderOf(MODES),
      validator=_CheckModes,
  )

  @classmethod
  def FromFlags(cls) -> 'Params':
    return settings.FromFlags(cls)


@dataclasses.dataclass(frozen=True)
class Build:
  """One CoreMark binary: a mode's build on one VM."""

  mode: str
  threads: int
  parallelism: str | None  # None for the single-core build

  @property
  def name(self) -> str:
    if self.mode == 'single':
      return 'coremark-single'
    return f'coremark-all-{self.parallelism}-{self.threads}'


def Builds(vm, params: Params) -> list[Build]:
  """The builds a VM needs, in run order."""
  out = []
  for mode in params.modes:
    if mode == 'single':
      out.append(Build('single', 1, None))
    else:
      threads = params.threads or int(vm.NumCpusForBenchmark())
      out.append(Build('all', threads, params.parallelism))
  return out


def PrepareVm(vm, params: Params) -> None:
  """Installs CoreMark on a VM and builds each mode's binary once.

  The verified source goes in directly rather than through vm.Install(), so
  it is there even with PKB's --install_packages=false (hosts whose packages
  are managed elsewhere, which then bring their own compiler).
  """
  vm.Install('build_tools')
  coremark_pkg.InstallSource(vm)
  for build in Builds(vm, params):
    logging.info('cloud_report cpu: building %s', build.name)
    vm.RemoteCommand(
        coremark_pkg.BuildCommand(build.name, build.threads, build.parallelism)
    )


def _CheckRun(result, build: Build, params: Params) -> None:
  expected = build.parallelism if build.threads > 1 else None
  if (result.threads, result.parallelism) != (build.threads, expected):
    raise errors.Benchmarks.RunError(
        f'CoreMark {build.name} ran {result.threads} context(s) with'
        f' {result.parallelism}, expected {build.threads} with {expected}'
    )
  if params.iterations and result.iterations_per_thread != params.iterations:
    raise errors.Benchmarks.RunError(
        f'CoreMark {build.name} ran {result.iterations_per_thread} iterations'
        f' per thread, expected {params.iterations}'
    )


def RunBuild(vm, build: Build, params: Params) -> list:
  """Runs one build params.runs times; returns the parsed results."""
  results = []
  for run in range(1, params.runs + 1):
    stdout, _ = vm.RemoteCommand(
        remote.Tracked(
            coremark_pkg.RunCommand(build.name, params.iterations),
            build.name,
        )
    )
    result = coremark_parser.Parse(stdout)
    _CheckRun(result, build, params)
    logging.info(
        'cloud_report cpu: %s run %d/%d: %s iterations/s in %g s%s',
        build.mode, run, params.runs, result.score_text,
        result.total_time_sec,
        '' if result.valid_for_reporting
        else ' (not valid: ' + '; '.join(result.invalid_reasons) + ')',
    )  # fmt: skip
    results.append(result)
  return results


def RunVm(vm, params: Params) -> list:
  """Runs every mode on a prepared VM; returns run and summary samples.

  First ends a CoreMark run an earlier attempt of the run left on the VM.
  """
  remote.EndLeftovers([vm], TAG_PREFIX, 'cloud_report cpu')
  metadata = {
      'coremark_version': coremark_pkg.VERSION,
      'coremark_commit': coremark_pkg.COMMIT,
      'iterations_requested': params.iterations,  # 0: CoreMark calibrated
      'runs_requested': params.runs,
  }
  out = []
  for build in Builds(vm, params):
    results = RunBuild(vm, build, params)
    for run, result in enumerate(results, 1):
      out.extend(cpu_samples.FromResult(result, metadata, build.mode, run))
    out.extend(cpu_samples.Summary(results, build.mode, metadata))
  return out


def Install(topology: phases.Topology) -> None:
  """Installs CoreMark on the phase's db VM and builds its binaries."""
  PrepareVm(topology.DbFor(PHASE), Params.FromFlags())


def Run(topology: phases.Topology) -> list:
  return RunVm(topology.DbFor(PHASE), Params.FromFlags())


def Cleanup(topology: phases.Topology) -> None:
  coremark_pkg.Uninstall(topology.DbFor(PHASE))
