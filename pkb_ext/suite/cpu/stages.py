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
than 10 s (a fixed count, or a load that fell after the calibration) is kept
and marked valid_for_reporting False.

PKB's functions take the remote_command they run their commands with; the
phase's (RemoteCommands) runs each make tracked, so that a run an earlier
attempt left is ended before the phase starts its own, and bounded
(remote.Bounded: MakeBound, from the run's expected time): a make still
running then is ended on the VM with its process group, and the run fails
with one line. It recognises PKB's make by its shape (MAKE_SHAPE) and
refuses one of another shape rather than run it unbounded.
"""

import dataclasses
import logging
import re
import shlex

from absl import flags
from perfkitbenchmarker import errors
from perfkitbenchmarker import regex_util
from perfkitbenchmarker.linux_benchmarks import coremark_benchmark

from pkb_ext.suite import leftovers
from pkb_ext.suite import phase_table
from pkb_ext.suite import phases
from benchmarks.cloud_report import remote
from benchmarks.cloud_report import settings
from benchmarks.cloud_report import timeouts
from pkb_ext.suite.cpu import bounds
from pkb_ext.suite.cpu import parser as coremark_parser
from pkb_ext.suite.cpu import samples as cpu_samples

PHASE = phase_table.CPU.sample
# The phase's parser and samples modules (phase_modules pairs them).
PARSER = coremark_parser
SAMPLES = cpu_samples
TAG_PREFIX = 'coremark-'  # a run's remote.Bounded tag is its Build.name
MODES = cpu_samples.MODES
VERSION = 'v1.01'  # the tag PKB's coremark package installs
PACKAGE = 'coremark'  # PKB's
# The method the report used; the cloud_report benchmarks' configs set PKB's
# --coremark_parallelism_method to it.
PARALLELISM = coremark_benchmark.PARALLELISM_PTHREAD
CONFIG_FLAGS = {'coremark_parallelism_method': PARALLELISM}
# PKB's make command's iteration count (its ITERATIONS_PER_CPU at the pin).
_ITERATIONS_ARG = re.compile(r'\bITERATIONS=\d+ ')
# PKB's RunCoremark's make at the pin, which RemoteCommands rewrites, bounds
# and tracks: a command naming make that lacks the part _PKB_MAKE matches
# is refused (PKB's command changed shape).
MAKE_SHAPE = (
    'cd <COREMARK_DIR>;make PORT_DIR=linux64 clean; make PORT_DIR=linux64'
    ' ITERATIONS=<n> XCFLAGS="-DMULTITHREAD=<threads> -DUSE_<method>'
    ' -DPERFORMANCE_RUN=1"'
)
_MAKE_WORD = re.compile(r'\bmake\b')
_PKB_MAKE = re.compile(r'(?:^|;)\s*make PORT_DIR=\S+ ITERATIONS=\d+ ')
# What the bounded make prints when its bound ended it, with the status.
_TIMED_OUT = 'cloud_report_cpu_make_timed_out='
_TIMED_OUT_LINE = re.compile(rf'^{_TIMED_OUT}(\d+)$', re.M)


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
  PKB's --coremark_iterations_per_cpu (the series' coremark iterations
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


def MakeBound(vm, build: Build, params: Params) -> int:
  """Seconds one make of build may run: timeouts.Bound of its expected
  time (bounds.CoreMarkSeconds on the VM's vCPUs)."""
  return timeouts.Bound(
      bounds.CoreMarkSeconds(
          params.iterations, build.threads, int(vm.NumCpusForBenchmark())
      )
  )


def _UnknownMake(command: str) -> str:
  return (
      "cloud_report cpu: PKB's CoreMark make has a shape the phase does not"
      ' know, so it cannot set its iterations, bound or track it:'
      f' {command!r}; expected {MAKE_SHAPE} (run the PKB version this suite'
      ' supports)'
  )


class RemoteCommands:
  """The remote_command the phase gives PKB's RunCoremark.

  Runs each command on the VM. CoreMark's make (the one command that names
  make) must have PKB's shape (MAKE_SHAPE); it runs with the phase's
  iteration count, tracked under the build's tag and bounded by bound_s
  (remote.Bounded: its own process group, ended by its bound or by the next
  attempt's leftovers.EndLeftovers). Keeps the last output of `cat`, the run's
  log PKB parses.

  Raises (from a call):
    errors.Benchmarks.RunError: a make of another shape; a log read before
      any make; a make its bound ended.
  """

  def __init__(
      self,
      vm,
      tag: str,
      iterations: int,
      bound_s: int,
      running_dir: str = remote.RUNNING_DIR,
  ):
    self.vm = vm
    self.tag = tag
    self.iterations = iterations
    self.bound_s = bound_s
    self.running_dir = running_dir  # the PID file's (tests)
    self.made = False
    self.output = None

  def __call__(self, command: str, **kwargs):
    if _MAKE_WORD.search(command):
      return self._Make(command, **kwargs)
    if command.startswith('cat ') and not self.made:
      raise errors.Benchmarks.RunError(
          f'cloud_report cpu: PKB read the CoreMark log ({command!r}) before'
          f' any make the phase ran; expected {MAKE_SHAPE} first (the PKB'
          ' version this suite supports)'
      )
    stdout, stderr = self.vm.RemoteCommand(command, **kwargs)
    if command.startswith('cat '):
      self.output = stdout
    return stdout, stderr

  def _Make(self, command: str, **kwargs):
    if not _PKB_MAKE.search(command):
      raise errors.Benchmarks.RunError(_UnknownMake(command))
    command = WithIterations(command, self.iterations)
    bounded = remote.Bounded(
        f'sh -c {shlex.quote(command)}', self.bound_s, self.tag,
        self.running_dir,
    )  # fmt: skip
    ended = '|'.join(str(s) for s in remote.TIMED_OUT)
    kwargs['timeout'] = self.bound_s + remote.SSH_MARGIN_S
    stdout, stderr = self.vm.RemoteCommand(
        f'{bounded}; s=$?; case $s in {ended}) echo {_TIMED_OUT}$s; s=0;;'
        ' esac; exit $s',
        **kwargs,
    )
    m = _TIMED_OUT_LINE.search(stdout)
    if m:
      raise errors.Benchmarks.RunError(
          f'cloud_report cpu: CoreMark make {self.tag} on {self.vm.name} did'
          f' not end within its bound of {self.bound_s} s and was ended with'
          f' its process group (exit status {m.group(1)}): a hung build or'
          ' run, or a CPU under'
          f' {bounds.MIN_ITERATIONS_PER_S:,.0f} iterations/s per'
          ' thread (lower --cloud_report_coremark_iterations)'
      )
    self.made = True
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

  PKB's coremark runs each thread count once per Run stage, and a Run
  stage repeated (--run_stage_iterations) would repeat every phase of the
  suite: the phase calls RunCoremark params.runs times, and keeps the
  sample RunCoremark parsed;
  only a log PKB's parser refuses is read again (coremark_parser.Refused).
  """
  bound_s = MakeBound(vm, build, params)
  results = []
  for run in range(1, params.runs + 1):
    commands = RemoteCommands(vm, build.name, params.iterations, bound_s)
    try:
      pkb_samples = coremark_benchmark.RunCoremark(commands, build.threads)
    except (errors.Benchmarks.RunError, regex_util.NoMatchError) as e:
      if commands.output is None:
        raise
      # PKB's parser refused the log: the missing line named, a short run
      # kept.
      result = coremark_parser.Refused(commands.output, build.threads, e)
    else:
      result = coremark_parser.FromPkb(
          pkb_samples, commands.output, build.threads
      )
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
  leftovers.EndLeftovers([vm], TAG_PREFIX, 'cloud_report cpu')
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
