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
"""The cpu phase: CoreMark 1.0 (v1.01), single-core then all-core.

As the report's scripts (cockroachlabs/cloud-report scripts/gen/cpu.sh) did,
on the first db node: build CoreMark once per mode, run the single-core
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

MeasureFidelity / FidelityRatio compare the phase's all-core score with
runs of the same binary started outside the phase (see there).
"""

import dataclasses
import logging
import re
import shlex
import statistics
import subprocess
from typing import Callable

from absl import flags
from perfkitbenchmarker import errors

from pkb_cloud_report.benchmarks.cloud_report import phases
from pkb_cloud_report.linux_packages import cloud_report_coremark as coremark_pkg
from pkb_cloud_report.benchmarks.cloud_report.parsers import coremark as coremark_parser
from pkb_cloud_report.benchmarks.cloud_report.samples import cpu as cpu_samples

MODES = cpu_samples.MODES
PARALLELISM = tuple(coremark_pkg.PARALLELISM)

_RUNS = flags.DEFINE_integer(
    'cloud_report_coremark_runs',
    10,
    'CoreMark runs per mode (the report ran 10).',
    lower_bound=1,
)
_THREADS = flags.DEFINE_integer(
    'cloud_report_coremark_threads',
    0,
    "Threads of the all-core CoreMark build (-DMULTITHREAD=); 0 = the VM's"
    ' vCPU count, like $(nproc) in the report.',
    lower_bound=0,
)
_PARALLELISM = flags.DEFINE_enum(
    'cloud_report_coremark_parallelism',
    'pthread',
    list(PARALLELISM),
    'How all-core CoreMark runs its contexts: pthread (the report:'
    " -DUSE_PTHREAD, -lpthread), fork or socket (PKB coremark's default).",
)
_ITERATIONS = flags.DEFINE_integer(
    'cloud_report_coremark_iterations',
    0,
    'CoreMark iterations per thread per run; 0 lets CoreMark calibrate each'
    ' run to last at least 10 s (EEMBC run rule), as the report did. Runs'
    ' shorter than 10 s are marked valid_for_reporting False.',
    lower_bound=0,
)
_MODES = flags.DEFINE_list(
    'cloud_report_coremark_modes',
    list(MODES),
    'CoreMark modes to run, in this order: single, all.',
)


def _CheckModes(modes) -> bool:
  if not modes or set(modes) - set(MODES) or len(set(modes)) != len(modes):
    raise flags.ValidationError(
        f'--cloud_report_coremark_modes: got {",".join(modes) or "none"};'
        f' give one or both of {",".join(MODES)}, each once'
    )
  return True


flags.register_validator('cloud_report_coremark_modes', _CheckModes)


@dataclasses.dataclass(frozen=True)
class Params:
  """The cpu phase's settings; defaults are the report's."""

  runs: int = 10
  threads: int = 0  # 0: the VM's vCPU count
  parallelism: str = 'pthread'
  iterations: int = 0  # per thread; 0: CoreMark calibrates to >= 10 s
  modes: tuple[str, ...] = MODES

  @classmethod
  def FromFlags(cls) -> 'Params':
    return cls(
        runs=_RUNS.value,
        threads=_THREADS.value,
        parallelism=_PARALLELISM.value,
        iterations=_ITERATIONS.value,
        modes=tuple(m for m in MODES if m in _MODES.value),
    )


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

  The source goes in directly rather than through vm.Install(), which does
  nothing where install_packages is off (the local cloud, LocalVm): there
  the host's compiler is used.
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
        coremark_pkg.RunCommand(build.name, params.iterations)
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
  """Runs every mode on a prepared VM; returns run and summary samples."""
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


def Prepare(topology: phases.Topology) -> None:
  PrepareVm(topology.first_db, Params.FromFlags())


def Run(topology: phases.Topology) -> list:
  return RunVm(topology.first_db, Params.FromFlags())


def Cleanup(topology: phases.Topology) -> None:
  coremark_pkg.Uninstall(topology.first_db)


# --- Fidelity: the phase's all-core score vs the same binary run raw. ---

_RAW_SCORE = re.compile(r'^Iterations/Sec\s*:\s*([0-9.]+)\s*$', re.M)
_RAW_CRC_ERROR = re.compile(r'^\[\d+\]ERROR!', re.M)


def SubprocessRunner(command: str) -> str:
  """Runs a command on this machine without a shell; returns stdout."""
  return subprocess.run(
      shlex.split(command), capture_output=True, text=True, check=True
  ).stdout


@dataclasses.dataclass(frozen=True)
class Fidelity:
  """Paired all-core scores of the phase and of raw runs, one sitting."""

  phase_scores: tuple[float, ...]
  raw_scores: tuple[float, ...]

  @property
  def ratio(self) -> float:
    """Mean phase score / mean raw score."""
    return statistics.fmean(self.phase_scores) / statistics.fmean(
        self.raw_scores
    )

  @property
  def pair_ratios(self) -> tuple[float, ...]:
    return tuple(p / r for p, r in zip(self.phase_scores, self.raw_scores))

  @property
  def median_pair_ratio(self) -> float:
    """Less sensitive than .ratio to load that comes and goes."""
    return statistics.median(self.pair_ratios)


def RawScore(stdout: str) -> float:
  """Iterations/Sec of a raw run, read without the phase's parser."""
  m = _RAW_SCORE.search(stdout)
  if not m or _RAW_CRC_ERROR.search(stdout):
    raise errors.Benchmarks.RunError(f'raw CoreMark run failed: {stdout!r}')
  return float(m.group(1))


def MeasureFidelity(
    vm,
    pairs: int = 3,
    iterations: int = 0,
    threads: int = 0,
    raw_runner: Callable[[str], str] | None = None,
) -> Fidelity:
  """Measures the phase's all-core score against raw CoreMark runs.

  Builds the phase's all-core (pthread) binary on `vm`, then takes `pairs`
  pairs, in ABBA order: one run of the phase (Run's code path: command,
  parser, checks, samples) and one raw run of the same binary, started by
  `raw_runner` with CoreMark's own defaults (no arguments) when iterations
  is 0, and its score read with a plain regex.

  Args:
    vm: a VM (a LocalVm, a local-cloud host or a cloud VM).
    pairs: phase/raw pairs.
    iterations: per thread; 0 lets CoreMark calibrate (>= 10 s).
    threads: all-core threads; 0 = the VM's vCPUs.
    raw_runner: runs a command line and returns its stdout; default
      vm.RemoteCommand. Use SubprocessRunner for this machine.

  Returns:
    The paired scores; .ratio is the issue's fidelity figure.
  """
  params = Params(
      runs=1, threads=threads, iterations=iterations, modes=('all',)
  )
  PrepareVm(vm, params)
  (build,) = Builds(vm, params)
  raw_command = coremark_pkg.BinaryPath(build.name)
  if iterations:
    raw_command = coremark_pkg.RunCommand(build.name, iterations)
  run_raw = raw_runner or (lambda cmd: vm.RemoteCommand(cmd)[0])

  def Phase() -> float:
    (result,) = RunBuild(vm, build, params)
    return cpu_samples.FromResult(result, mode='all')[0].value

  phase_scores, raw_scores = [], []
  for i in range(pairs):
    if i % 2 == 0:
      phase_scores.append(Phase())
      raw_scores.append(RawScore(run_raw(raw_command)))
    else:
      raw_scores.append(RawScore(run_raw(raw_command)))
      phase_scores.append(Phase())
    logging.info(
        'cloud_report cpu fidelity pair %d: phase %.1f raw %.1f',
        i + 1, phase_scores[-1], raw_scores[-1],
    )  # fmt: skip
  return Fidelity(tuple(phase_scores), tuple(raw_scores))


def FidelityRatio(vm, **kwargs) -> float:
  """MeasureFidelity(vm, **kwargs).ratio; the issue requires >= 0.97."""
  return MeasureFidelity(vm, **kwargs).ratio
