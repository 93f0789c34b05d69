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
"""Fidelity on the local cloud: each phase's figure vs the raw tool.

The local cloud's static VM file is read with stock PKB
(StaticVirtualMachine.ReadStaticVirtualMachineFile), so every command goes
through PKB's own LinuxVirtualMachine (ssh, scp, RobustRemoteCommand) as in
a `pkb.py` run. Then, in one sitting, pkb_ext_dev.fidelity takes each
phase's phase/raw pairs in ABBA order on the same host:

  fio_iops_ratio    rd-iops IOPS through the io phase (job file, command,
                    parser, samples) / a plain `fio --rw=randread ...` line,
                    run on db1 against a loop device over a file in
                    /dev/shm (RAM: no other job's disk I/O reaches it; made
                    and filled here, detached after), or with
                    device='disk' on db1's data disk;
  netperf_rr_ratio  TCP_RR transactions/s through the net phase / the same
                    `netperf -t TCP_RR` typed by hand with the report's
                    latency selectors (-O; percentiles make netperf keep a
                    histogram, which costs transactions), client -> db1;
  coremark_ratio    the all-core CoreMark score through the cpu phase / the
                    same binary started by hand, on db1.

Each figure is the 20 % trimmed mean of the unflagged pair ratios; with
it go the 95 % confidence interval of that trimmed mean
(pkb_ext_dev.bench_sitting.TrimmedInterval), which gives the verdict
(PASS, MISS or INCONCLUSIVE) and says whether a ratio below 1 is a
difference between the two runs or noise, and, for reference, their
median, CV, mean and the mean's 95 % interval (Student's t). With a
sitting, pairs are added until the verdict is decided or capped, and each
pair records what else used the machine.
"""

import contextlib
import logging
import os
import statistics
import subprocess
import tempfile
import time

TARGET = 0.97
FIO_DEVICES = ('tmpfs', 'disk')
FIO_LOOP_BYTES = 512 << 20
# Student's t, 97.5th percentile, by degrees of freedom (then 1.96).
_T975 = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447,
         7: 2.365, 8: 2.306, 9: 2.262, 10: 2.228, 11: 2.201, 12: 2.179,
         13: 2.160, 14: 2.145, 15: 2.131, 16: 2.120, 17: 2.110, 18: 2.101,
         19: 2.093, 20: 2.086, 21: 2.080, 22: 2.074, 23: 2.069, 24: 2.064,
         25: 2.060, 26: 2.056, 27: 2.052, 28: 2.048, 29: 2.045, 30: 2.042,
         40: 2.021, 60: 2.000, 120: 1.980}  # fmt: skip


def T975(df: int) -> float:
  """Student's t quantile 0.975 (the next lower tabulated df above 30)."""
  if df < 1:
    raise ValueError(f'degrees of freedom must be >= 1, got {df}')
  if df > 120:
    return 1.96
  return _T975[max(k for k in _T975 if k <= df)]


def ConfidenceInterval(values) -> tuple[float, float] | None:
  """95 % confidence interval of the mean (Student's t); None below 2."""
  if len(values) < 2:
    return None
  mean = statistics.fmean(values)
  half = T975(len(values) - 1) * statistics.stdev(values) / len(values) ** 0.5
  return mean - half, mean + half


def _ParsePkbFlags(work_dir: str, run_uri: str) -> None:
  # pylint: disable=g-import-not-at-top
  from absl import flags
  from perfkitbenchmarker import pkb  # pylint: disable=unused-import
  from pkb_ext import registry

  # pylint: enable=g-import-not-at-top
  registry.Register()
  if not flags.FLAGS.is_parsed():
    flags.FLAGS([
        'pkb-ext-bench',
        f'--run_uri={run_uri}',
        f'--temp_dir={work_dir}',
        '--ignore_package_requirements',
        '--accept_licenses',
    ])


def LocalCloudVms(static_vm_file: str, work_dir: str, run_uri: str) -> list:
  """Returns PKB static VMs for the hosts of a local cloud, in file order."""
  # pylint: disable=g-import-not-at-top
  from perfkitbenchmarker import static_virtual_machine as svm
  from perfkitbenchmarker import vm_util

  # pylint: enable=g-import-not-at-top
  _ParsePkbFlags(work_dir, run_uri)
  vm_util.GenTempDir()
  pool = svm.StaticVirtualMachine.vm_pool
  pool.clear()
  with open(static_vm_file) as f:
    svm.StaticVirtualMachine.ReadStaticVirtualMachineFile(f)
  vms = []
  while pool:  # as PKB's provisioning does: Create, boot wait, environment
    vm = svm.StaticVirtualMachine.GetStaticVirtualMachine()
    vm.WaitForBootCompletion()
    vm.PrepareVMEnvironment()
    vms.append(vm)
  return vms


def CloseSshMasters(vms) -> None:
  """Ends PKB's ControlMaster connections (ControlPersist would keep them)."""
  # pylint: disable=g-import-not-at-top
  from perfkitbenchmarker import vm_util

  # pylint: enable=g-import-not-at-top
  for vm in vms:
    argv = ['ssh', '-p', str(vm.ssh_port)]
    argv += vm_util.GetSshOptions(vm.ssh_private_key)
    argv += ['-O', 'exit', f'{vm.user_name}@{vm.ip_address}']
    subprocess.run(
        [a.replace('"', '') for a in argv],
        capture_output=True,
        timeout=30,
        check=False,
    )


def Summary(
    phase,
    raw,
    seconds: float,
    phase_ratio: float | None = None,
    interference=(),
    op: str = '>=',
    target=TARGET,
    min_pairs: int = 0,
) -> dict:
  """The fidelity figure of paired runs, its interval and its verdict.

  The figure is the 20 % trimmed mean of the unflagged pair ratios (phase /
  raw of runs taken next to each other, ABBA): on a machine shared with
  other work a burst hits one run of one pair, which moves a ratio of means
  but hardly the trimmed mean. The verdict comes from the 95 % interval of
  that trimmed mean (pkb_ext_dev.bench_sitting): PASS, MISS or
  INCONCLUSIVE. Pairs flagged
  for interference are kept (pair_ratios, interference) but not used.

  Args:
    phase: the phase's figure of each pair.
    raw: the raw run's figure of each pair.
    seconds: how long the pairs took.
    phase_ratio: the phase module's own ratio, kept as is.
    interference: per pair, the sitting's note (empty: none flagged).
    op: the target's comparison ('>=', '<=', 'in').
    target: the target.
    min_pairs: the unflagged pairs a verdict needs (a sitting's minimum);
      with fewer it is INCONCLUSIVE.
  """
  from pkb_ext_dev import bench_sitting  # pylint: disable=g-import-not-at-top

  pairs = [p / r for p, r in zip(phase, raw)]
  evidence = bench_sitting.Evidence(pairs, interference)
  used = evidence['used']
  ci = evidence['ci95']
  return {
      'ratio': bench_sitting.TrimmedMean(used or pairs),
      'target': list(target) if op == 'in' else target,
      'verdict': bench_sitting.PairVerdict(op, target, evidence, min_pairs),
      'ratio_of_means': statistics.fmean(phase) / statistics.fmean(raw),
      'phase_module_ratio': phase_ratio,
      'phase': [round(v, 2) for v in phase],
      'raw': [round(v, 2) for v in raw],
      'pair_ratios': [round(r, 4) for r in pairs],
      'pairs_used': len(used),
      'flagged_pairs': evidence['flagged_pairs'],
      'pair_ratio_median': statistics.median(used) if used else None,
      'pair_ratio_cv_pct': _Cv(used),
      'pair_ratio_mean': statistics.fmean(used) if used else None,
      'pair_ratio_mean_ci95': _List(ConfidenceInterval(used)),
      'pair_ratio_ci95': _List(ci),  # the trimmed mean's: the verdict's
      'phase_cv_pct': _Cv(phase),
      'raw_cv_pct': _Cv(raw),
      'seconds': round(seconds, 1),
      'interference': list(interference),
  }


def MinPairs(sitting) -> int:
  """The unflagged pairs a verdict needs: the sitting's minimum, if any."""
  return 0 if sitting is None else sitting.min_pairs


def _List(interval) -> list[float] | None:
  return None if interval is None else list(interval)


def _Cv(values) -> float | None:
  if len(values) < 2:
    return None
  return round(100 * statistics.stdev(values) / statistics.fmean(values), 2)


def _Summary(f, started: float, sitting) -> dict:
  """Summary of fidelity.Pairs taken since `started`, with the sitting's."""
  out = Summary(
      f.phase,
      f.raw,
      time.time() - started,
      f.ratio,
      f.interference,
      min_pairs=MinPairs(sitting),
  )
  if sitting is not None:
    out['sitting'] = sitting.Details()
  return out


def MeasureIo(db, device: str, seconds: int, pairs: int, sitting=None) -> dict:
  from pkb_ext_dev import fidelity  # pylint: disable=g-import-not-at-top

  started = time.time()
  f = fidelity.MeasureStorage(
      db, device, runtime_s=seconds, repeats=pairs, sitting=sitting
  )
  out = _Summary(f, started, sitting)
  out.update(host=db.ip_address, device=device, unit='IOPS')
  return out


def Fill(path: str, size_bytes: int) -> None:
  """Writes data over the whole device (reads of holes measure nothing)."""
  chunk = os.urandom(1 << 20)
  with open(path, 'wb') as f:
    for _ in range(size_bytes // len(chunk)):
      f.write(chunk)
    f.flush()
    os.fsync(f.fileno())


def MeasureIoOnTmpfs(db, seconds: int, pairs: int, sitting=None) -> dict:
  """MeasureIo on a filled loop device over a file in /dev/shm."""
  from pkb_ext_dev import loop_device  # pylint: disable=g-import-not-at-top

  reason = loop_device.Unavailable()
  if reason:
    raise RuntimeError(f'no tmpfs loop device: {reason}')
  with loop_device.LoopDevice(
      FIO_LOOP_BYTES, prefix='pkb-ext-bench-fio-', directory='/dev/shm'
  ) as loop:
    Fill(loop.image, FIO_LOOP_BYTES)
    out = MeasureIo(db, loop.device, seconds, pairs, sitting)
  out.update(device_kind='tmpfs loop (direct I/O)', device_bytes=FIO_LOOP_BYTES)
  return out


def MeasureNet(client, server, seconds: int, pairs: int, sitting=None):
  from pkb_ext_dev import fidelity  # pylint: disable=g-import-not-at-top

  started = time.time()
  f = fidelity.MeasureNetwork(
      client, server, duration_s=seconds, pairs=pairs, sitting=sitting
  )
  out = _Summary(f, started, sitting)
  out.update(client=client.ip_address, server=server.ip_address, unit='tps')
  return out


def MeasureCpu(db, pairs: int, sitting=None) -> dict:
  from pkb_ext_dev import fidelity  # pylint: disable=g-import-not-at-top

  started = time.time()
  f = fidelity.MeasureCpu(db, pairs=pairs, sitting=sitting)
  out = _Summary(f, started, sitting)
  out.update(host=db.ip_address, unit='iterations/s', threads='all vCPUs')
  return out


def Measure(
    static_vm_file: str,
    only=('io', 'net', 'cpu'),
    seconds: int = 10,
    pairs: int = 3,
    log=print,
    fio_device: str = 'tmpfs',
    fio_pairs: int | None = None,
    fio_seconds: int | None = None,
    new_sitting=None,
) -> dict:
  """Measures the fidelity ratios on a local cloud; returns details.

  Args:
    static_vm_file: the cloud's PKB static VM file (client first, then db1..).
    only: which of io, net, cpu to measure.
    seconds: length of each fio and netperf run (CoreMark picks its own,
      >= 10 s).
    pairs: phase/raw pairs per tool.
    log: prints a progress line.
    fio_device: tmpfs (a loop device over /dev/shm) or disk (db1's data
      disk).
    fio_pairs: pairs for fio (default: pairs).
    fio_seconds: length of each fio run (default: seconds).
    new_sitting: None (exactly the pairs asked for), or takes (phase, its
      minimum pairs) and returns a bench_sitting.Sitting for it.

  Returns:
    {'io': {...}, 'net': {...}, 'cpu': {...}} with 'ratio' each, or 'error'.
  """
  work = tempfile.mkdtemp(prefix='pkb-ext-bench-fidelity-')
  run_uri = 'bf' + format(int(time.time()) % 10**8, 'x')
  vms = LocalCloudVms(static_vm_file, work, run_uri)
  if len(vms) < 2:
    raise ValueError(f'{static_vm_file}: need a client and a db host')
  client, db = vms[0], vms[1]
  if fio_device not in FIO_DEVICES:
    raise ValueError(f'fio device {fio_device!r}: choose from {FIO_DEVICES}')
  device = db.disk_specs[0].device_path if db.disk_specs else None
  io_pairs, io_seconds = fio_pairs or pairs, fio_seconds or seconds
  new_sitting = new_sitting or (lambda phase, n: None)
  jobs = {
      'io': lambda s: (
          MeasureIoOnTmpfs(db, io_seconds, io_pairs, s)
          if fio_device == 'tmpfs'
          else MeasureIo(db, device, io_seconds, io_pairs, s)
      ),
      'net': lambda s: MeasureNet(client, db, seconds, pairs, s),
      'cpu': lambda s: MeasureCpu(db, pairs, s),
  }
  results = {}
  root = logging.getLogger()
  level = root.level
  root.setLevel(logging.ERROR)  # PKB logs every ssh command
  try:
    for name in ('io', 'net', 'cpu'):
      if name not in only:
        continue
      n = io_pairs if name == 'io' else pairs
      log(f'fidelity {name}: {n} phase/raw pairs on the local cloud...')
      load = os.getloadavg()[0]
      try:
        results[name] = jobs[name](new_sitting(name, n))
      except Exception as e:  # pylint: disable=broad-except
        results[name] = {'error': f'{type(e).__name__}: {e}'[:2000]}
      results[name]['loadavg_1m_before'] = load
  finally:
    root.setLevel(level)
    with contextlib.suppress(Exception):
      CloseSshMasters(vms)
  return results
