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
"""Fidelity: a phase's figure against the same tool run raw, one sitting.

Each Measure* function takes phase/raw pairs in ABBA order (even pairs run
the phase first, odd pairs the raw command first), so drift in the machine's
speed falls on both sides alike. "Through the phase" is the phase module's
own code path (command, parser, checks, samples); "raw" is the tool run as
one would type it, its output read with a plain regex or json, never with
the phase's parser.
"""

import dataclasses
import json
import logging
import posixpath
import re
import shlex
import statistics
import subprocess
from typing import Callable

from perfkitbenchmarker import errors
from perfkitbenchmarker.linux_benchmarks import coremark_benchmark

from pkb_ext.suite.disk import guard as storage_guard
from pkb_ext import netperf as os_netperf
from pkb_ext.suite.cpu import samples as cpu_samples
from pkb_ext.suite.cpu import stages as cpu
from pkb_ext.suite.disk import stages as storage
from pkb_ext.suite.net import netserver
from pkb_ext.suite.net import stages as network


@dataclasses.dataclass(frozen=True)
class Pairs:
  """Paired figures of the phase and of raw runs, in the order taken."""

  phase: tuple[float, ...]
  raw: tuple[float, ...]
  # Per pair, what else used the machine (a sitting's notes; else empty).
  interference: tuple[dict, ...] = ()

  @property
  def ratio(self) -> float:
    """Mean phase figure / mean raw figure."""
    return statistics.fmean(self.phase) / statistics.fmean(self.raw)

  @property
  def pair_ratios(self) -> tuple[float, ...]:
    return tuple(p / r for p, r in zip(self.phase, self.raw))

  @property
  def median_pair_ratio(self) -> float:
    """Less sensitive than .ratio to a burst that hits one run of a pair."""
    return statistics.median(self.pair_ratios)


def Abba(
    phase: Callable[[int], float],
    raw: Callable[[int], float],
    pairs: int,
    label: str = 'fidelity',
    sitting=None,
) -> Pairs:
  """Takes `pairs` (phase, raw) pairs, or more.

  Without a sitting odd pairs run raw first; a sitting chooses (RawFirst:
  balanced blocks of two pairs in random order).

  Args:
    phase: takes the pair's index, returns the phase's figure.
    raw: takes the pair's index, returns the raw run's figure.
    pairs: how many pairs at least (exactly, without a sitting).
    label: for the progress log line of each pair.
    sitting: None, or hooks (pkb_ext_dev.bench_sitting.Sitting):
      BeginPair(i), BeforeRun(i, n) before run n (0, 1) of pair i,
      EndPair(i) returning the pair's interference note, More(pairs so
      far), asked after the minimum, whether to take another pair,
      RawFirst(i), whether pair i runs raw first, and End() when the loop
      ends or fails.

  Returns:
    The pairs (with the sitting's notes, if any).
  """
  phase_values, raw_values, notes = [], [], []
  i = 0
  try:
    while i < pairs or (
        sitting is not None
        and sitting.More(
            Pairs(tuple(phase_values), tuple(raw_values), tuple(notes))
        )
    ):
      runs = [(phase, phase_values), (raw, raw_values)]
      if sitting.RawFirst(i) if sitting is not None else i % 2:
        runs.reverse()
      if sitting is not None:
        sitting.BeginPair(i)
      for n, (run, values) in enumerate(runs):
        if sitting is not None:
          sitting.BeforeRun(i, n)
        values.append(run(i))
      if sitting is not None:
        notes.append(sitting.EndPair(i))
      logging.info(
          '%s pair %d (of at least %d): phase %.1f raw %.1f',
          label, i + 1, pairs, phase_values[-1], raw_values[-1],
      )  # fmt: skip
      i += 1
  finally:
    if sitting is not None:
      sitting.End()
  return Pairs(tuple(phase_values), tuple(raw_values), tuple(notes))


# --- cpu: the phase's all-core score vs the same binary run raw. ---

_RAW_SCORE = re.compile(r'^Iterations/Sec\s*:\s*([0-9.]+)\s*$', re.M)
_RAW_CRC_ERROR = re.compile(r'^\[\d+\]ERROR!', re.M)


def SubprocessRunner(command: str) -> str:
  """Runs a command on this machine without a shell; returns stdout."""
  return subprocess.run(
      shlex.split(command), capture_output=True, text=True, check=True
  ).stdout


def RawCoreMarkCommand(iterations: int) -> str:
  """The binary PKB's make built, run as make's performance run (run1.log)."""
  binary = posixpath.join(coremark_benchmark.COREMARK_DIR, 'coremark.exe')
  if not iterations:
    return binary
  return f'{binary} 0x0 0x0 0x66 {int(iterations)} 7 1 2000'


def RawCoreMarkScore(stdout: str) -> float:
  """Iterations/Sec of a raw run, read without the phase's parser."""
  m = _RAW_SCORE.search(stdout)
  if not m or _RAW_CRC_ERROR.search(stdout):
    raise errors.Benchmarks.RunError(f'raw CoreMark run failed: {stdout!r}')
  return float(m.group(1))


def MeasureCpu(
    vm,
    pairs: int = 3,
    iterations: int = 0,
    threads: int = 0,
    raw_runner: Callable[[str], str] | None = None,
    sitting=None,
) -> Pairs:
  """The cpu phase's all-core score against raw CoreMark runs.

  The phase's run is PKB's make (build, performance run, validation run);
  the raw run starts the binary that make left in PKB's tree
  (coremark.exe) with the performance run's arguments, or with CoreMark's
  own defaults (no arguments, the same run) when iterations is 0. The tree
  must be installed (cpu.InstallVm's package, or pkb_ext.coremark's).

  Args:
    vm: a VM (a LocalVm, a local-cloud host or a cloud VM).
    pairs: phase/raw pairs.
    iterations: per thread; 0 lets CoreMark calibrate (>= 10 s).
    threads: all-core threads; 0 = the VM's vCPUs.
    raw_runner: runs a command line and returns its stdout; default
      vm.RemoteCommand. Use SubprocessRunner for this machine.
    sitting: Abba's sitting (more pairs, interference), or None.

  Returns:
    The paired scores.
  """
  params = cpu.Params(
      runs=1, threads=threads, iterations=iterations, modes=('all',)
  )
  cpu.InstallVm(vm)
  (build,) = cpu.Builds(vm, params)
  raw_command = RawCoreMarkCommand(iterations)
  run_raw = raw_runner or (lambda cmd: vm.RemoteCommand(cmd)[0])

  def Phase(_):
    (result,) = cpu.RunBuild(vm, build, params)
    return cpu_samples.FromResult(result, mode='all')[0].value

  return Abba(
      Phase,
      lambda _: RawCoreMarkScore(run_raw(raw_command)),
      pairs,
      'cpu fidelity',
      sitting,
  )


# --- io: rd-iops through the phase vs the same job as one fio command. ---


def RawRdIopsCommand(params: storage.Params, target: str, fio: str) -> str:
  """rd-iops as a plain fio command line (no job file, no phase code)."""
  q = shlex.quote
  return (
      f'sudo {fio} --output-format=json --name=rd-iops --filename={q(target)}'
      ' --thread --ioengine=libaio --direct=1 --fadvise_hint=0'
      ' --group_reporting --randrepeat=0 --verify=0 --time_based'
      f' --runtime={params.runtime_s}s --ramp_time={params.ramp_time_s}s'
      f' --size={q(params.size)} --rw=randread --bs={q(params.block_size)}'
      f' --numjobs={params.rd_iops_numjobs} --iodepth={params.iodepth_iops}'
  )


def RawReadIops(stdout: str) -> float:
  doc = json.loads(stdout[stdout.index('{') :])
  return float(sum(job['read']['iops'] for job in doc['jobs']))


def MeasureStorage(
    vm,
    device: str,
    runtime_s: int = 10,
    repeats: int = 3,
    sitting=None,
    **overrides,
) -> Pairs:
  """rd-iops through the phase vs raw fio, on one device.

  "Through the phase" is RunOnVm (guard, rendered job file, --section,
  RobustRemoteCommand, --output file, parser, samples) with only rd-iops.
  Both read what is on the device, so fill it first. Runs are noisy on a
  shared machine: prefer many short pairs and a RAM-backed device.

  Args:
    vm: a VM (or pkb_ext_dev.local_vm.LocalVm) with fio.
    device: the target; the guard checks it as in the phase.
    runtime_s: runtime of each run.
    repeats: number of (phase, raw) pairs.
    sitting: Abba's sitting (more pairs, interference), or None.
    **overrides: other storage.Params fields (e.g. install).

  Returns:
    The paired IOPS.
  """
  params = dataclasses.replace(
      storage.Params(),
      runtime_s=runtime_s,
      jobs=('rd-iops',),
      device=device,
      fill=False,
      unmount=False,
      restore_fs=False,
      install='os',
      **overrides,
  )
  storage_guard.Check(vm, device)
  raw_command = RawRdIopsCommand(params, device, storage.FioPath(params, vm))

  def Phase(_):
    return sum(
        s.value for s in storage.RunOnVm(vm, params) if s.metric == 'fio_iops'
    )

  return Abba(
      Phase,
      lambda _: RawReadIops(vm.RobustRemoteCommand(raw_command)[0]),
      repeats,
      'io fidelity',
      sitting,
  )


# --- net: the phase's TCP_RR rate vs raw netperf. ---


def RawRrCommand(netperf: str, server_ip: str, params: network.Params) -> str:
  """The same TCP_RR measurement typed by hand: -O columns, no harness.

  It asks for the report's selectors, as the phase does: netperf keeps a
  latency histogram only when percentiles are asked for, and that costs
  transactions, so a plain TCP_RR would not be the same measurement.
  """
  return (
      f'{netperf} -H {server_ip} -p {params.control_port} -t TCP_RR'
      f' -l {params.duration_s} -- -P ,{params.data_port}'
      f' -O {",".join(network.REPORT_RR_SELECTORS)}'
  )


def RawRrRate(stdout: str) -> float:
  """transaction_rate from RawRrCommand's output: its last row of values."""
  width = len(network.REPORT_RR_SELECTORS)
  column = network.REPORT_RR_SELECTORS.index('transaction_rate')
  for line in reversed(stdout.splitlines()):
    fields = line.split()
    if len(fields) == width:
      try:
        return float(fields[column])
      except ValueError:
        break
  raise errors.Benchmarks.RunError(f'raw netperf TCP_RR failed: {stdout!r}')


def MeasureNetwork(
    client,
    server,
    duration_s: int = 5,
    pairs: int = 10,
    params: network.Params | None = None,
    raw_runner: Callable[[str], str] | None = None,
    sitting=None,
) -> Pairs:
  """The net phase's TCP_RR transaction rate against raw netperf.

  Links the OS's netperf and netserver at PKB's paths on both VMs
  (pkb_ext.netperf), then starts the phase's netserver on `server`; no
  confidence intervals (one iteration each), so both runs last `duration_s`. On a busy machine single
  pairs scatter widely, so use many pairs and look at median_pair_ratio.

  Args:
    client: the VM that runs netperf.
    server: the VM that runs netserver.
    duration_s: seconds per run.
    pairs: phase/raw pairs.
    params: the ports (default: network.Params()).
    raw_runner: runs a command line on the client, returns stdout; default
      client.RemoteCommand.
    sitting: Abba's sitting (more pairs, interference), or None.

  Returns:
    The paired rates.
  """
  params = dataclasses.replace(
      params or network.Params(),
      duration_s=duration_s,
      confidence='off',
      repetitions=1,
      tests=('TCP_RR',),
      streams=(1,),
  )
  # Both run the OS's netperf, linked at PKB's paths as the local cloud's
  # --cloud_report_netperf_install=distro does.
  for vm in (client, server):
    os_netperf.LinkOsNetperf(vm)
  client_bin = network.Locate(client)
  server_bin = network.Locate(server)
  run_raw = raw_runner or (lambda cmd: client.RemoteCommand(cmd)[0])
  raw_command = RawRrCommand(client_bin.netperf, server.internal_ip, params)

  def Phase(_):
    (rate,) = [
        s.value
        for s in network.RunTest(
            client, server, client_bin, params, 'TCP_RR', 1, 1
        )
        if s.metric == 'netperf_transaction_rate'
    ]
    return rate

  network.StartNetserver(server, server_bin, params.control_port)
  try:
    return Abba(
        Phase,
        lambda _: RawRrRate(run_raw(raw_command)),
        pairs,
        'net fidelity',
        sitting,
    )
  finally:
    network.StopNetserver(server, params.control_port)
    server.RemoteCommand(
        f'rm -f {netserver.WORK_DIR}/netserver-{params.control_port}.log;'
        f' rmdir {netserver.WORK_DIR} 2>/dev/null || true',
        ignore_failure=True,
    )
