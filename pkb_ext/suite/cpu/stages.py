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
on the first db node (under the suite's overlap, on the second: see
phases): run CoreMark single-core N times, then on every vCPU N times, with
PKB's coremark modules: its package installs the v1.01 tree
(coremark_benchmark.COREMARK_DIR), its PrepareCoremark edits the makefile
for pthreads, and each run is one RunCoremark (`make` builds CoreMark with
-DMULTITHREAD=threads -DUSE_<method>, runs its performance run, then its
validation run) whose output PKB's parser reads (see parser).

PKB's --coremark_parallelism_method picks the method; the cloud_report
benchmarks' configs set it to PTHREAD, the report's (PKB's coremark
benchmark defaults to SOCKET). With --cloud_report_coremark_iterations=0
(the default) CoreMark calibrates every run to last at least 10 s, the EEMBC
run rule, as `./coremark.exe` without arguments did in the report's
scripts; a positive value fixes the iterations per thread. A run shorter
than 10 s is kept and marked valid_for_reporting False.

PKB's functions take the remote_command they run their commands with; the
phase's (RemoteCommands) runs each make tracked (remote.Tracked), so that a
run an earlier attempt left is ended before the phase starts its own.
"""

import dataclasses
import logging
import re
import shlex

from absl import flags
from perfkitbenchmarker import errors
from perfkitbenchmarker import regex_util
from perfkitbenchmarker.linux_benchmarks import coremark_benchmark

from benchmarks.cloud_report import phase_table
from benchmarks.cloud_report import phases
from benchmarks.cloud_report import remote
from benchmarks.cloud_report import settings
from pkb_ext.suite.cpu import parser as coremark_parser
from pkb_ext.suite.cpu import samples as cpu_samples

PHASE = phase_table.CPU.sample
# The phase's parser and samples modules (phase_modules pairs them).
PARSER = coremark_parser
SAMPLES = cpu_samples
TAG_PREFIX = 'coremark-'  # a run's remote.Tracked tag is its Build.name
MODES = cpu_samples.MODES
VERSION = 'v1.01'  # the tag PKB's coremark package installs
PACKAGE = 'coremark'  # PKB's
# The method the report used; the cloud_report benchmarks' configs set PKB's
# --coremark_parallelism_method to it.
PARALLELISM = coremark_benchmark.PARALLELISM_PTHREAD
CONFIG_FLAGS = {'coremark_parallelism_method': PARALLELISM}
# PKB's make command's iteration count (its ITERATIONS_PER_CPU at the pin).
_ITERATIONS_ARG = re.compile(r'\bITERATIONS=\d+ ')


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
  """One mode's CoreMark build on one VM."""

  mode: str
  threads: int

  @property
  def name(self) -> str:
    if self.mode == 'single':
      return 'coremark-single'
    return f'coremark-all-{self.threads}'


def Builds(vm, params: Params) -> list[Build]:
  """The builds a VM runs, in run order."""
  out = []
  for mode in params.modes:
    if mode == 'single':
      out.append(Build('single', 1))
    else:
      out.append(Build('all', params.threads or int(vm.NumCpusForBenchmark())))
  return out


def WithIterations(command: str, iterations: int) -> str:
  """PKB's make command with `iterations` per thread.

  PKB's RunCoremark at the pin builds with its fixed ITERATIONS_PER_CPU.
  Rewriting that one argument of the command the phase's remote_command
  is given changes this phase's runs only: no PKB module constant or flag
  that another benchmark of the same pkb.py run would read. Waits for
  PKB's --coremark_iterations_per_cpu (the series' coremark repetitions
  patch); the phase then sets that flag instead.

  Raises:
    errors.Benchmarks.RunError: the command has no single ITERATIONS=N.
  """
  new, count = _ITERATIONS_ARG.subn(f'ITERATIONS={int(iterations)} ', command)
  if count != 1:
    raise errors.Benchmarks.RunError(
        "PKB's coremark make command has no single ITERATIONS=N argument:"
        f' {command!r}'
    )
  return new


class RemoteCommands:
  """The remote_command the phase gives PKB's coremark functions.

  Runs each command on the VM; CoreMark's make runs tracked under the
  build's tag (remote.Tracked: its own process group, ended by the next
  attempt's remote.EndLeftovers), with the phase's iteration count. Keeps
  the last output of `cat`, the run's log PKB parses.
  """

  def __init__(self, vm, tag: str, iterations: int):
    self.vm = vm
    self.tag = tag
    self.iterations = iterations
    self.output = None

  def __call__(self, command: str, **kwargs):
    is_make = ' make PORT_DIR=' in command and 'ITERATIONS=' in command
    if is_make:
      command = WithIterations(command, self.iterations)
      command = remote.Tracked(f'sh -c {shlex.quote(command)}', self.tag)
    stdout, stderr = self.vm.RemoteCommand(command, **kwargs)
    if command.startswith('cat '):
      self.output = stdout
    return stdout, stderr


def InstallVm(vm) -> None:
  """PKB's coremark package, then PKB's makefile edit for the method.

  vm.Install() does nothing on a host whose install_packages is False: the
  tree must be there already.
  """
  vm.Install(PACKAGE)
  coremark_benchmark.PrepareCoremark(vm.RemoteCommand)


def RunBuild(vm, build: Build, params: Params) -> list:
  """Runs one build params.runs times; returns the parsed results.

  PKB's coremark runs each thread count once (its --coremark_repetitions
  waits for the series' coremark repetitions patch): the phase calls
  RunCoremark params.runs times.
  """
  results = []
  for run in range(1, params.runs + 1):
    commands = RemoteCommands(vm, build.name, params.iterations)
    try:
      coremark_benchmark.RunCoremark(commands, build.threads)
    except (errors.Benchmarks.RunError, regex_util.NoMatchError):
      if commands.output is None:
        raise
    # PKB's parser, with the missing line named and short runs kept.
    result = coremark_parser.Parse(commands.output or '', build.threads)
    logging.info(
        'cloud_report cpu: %s run %d/%d: %s iterations/s%s',
        build.mode, run, params.runs, result.score,
        '' if result.valid_for_reporting
        else f' (not valid: {result.invalid_reason})',
    )  # fmt: skip
    results.append(result)
  return results


def RunVm(vm, params: Params) -> list:
  """Runs every mode on a prepared VM; returns run and summary samples.

  First ends a CoreMark run an earlier attempt of the run left on the VM.
  """
  remote.EndLeftovers([vm], TAG_PREFIX, 'cloud_report cpu')
  metadata = {
      'coremark_version': VERSION,
      'iterations_requested': params.iterations,  # 0: CoreMark calibrated
      # PKB's key: the iterations per thread its make was given.
      'iterations_per_cpu': params.iterations,
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
  """Installs CoreMark on the phase's db VM."""
  InstallVm(topology.DbFor(PHASE))


def Run(topology: phases.Topology) -> list:
  return RunVm(topology.DbFor(PHASE), Params.FromFlags())


def Cleanup(topology: phases.Topology) -> None:
  coremark_benchmark.CleanupCoremark(topology.DbFor(PHASE).RemoteCommand)
