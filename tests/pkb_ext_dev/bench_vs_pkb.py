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
"""vs_pkb: our phases side by side with stock PKB's coremark, fio, netperf.

On the bench's local cloud, for each tool, `pairs` pairs of stock `pkb.py`
runs in ABBA order (pkb_ext_dev.fidelity.Abba): our single-phase benchmark
(cloud_report_coremark, cloud_report_fio, cloud_report_netperf) and PKB's
own benchmark (coremark, fio, netperf), on the same hosts (a static VM file
naming only them), with the same settings:

  coremark  db1; all vCPUs, pthreads; PKB's fixed iterations per thread
            (coremark_benchmark.ITERATIONS_PER_CPU, which PKB passes to
            make) for our run too. Both run PKB's RunCoremark (its make
            line) in INSTALL_DIR/coremark-1.01, the v1.01 tree from the
            same verified tarball, staged by pkb_ext.coremark.StageTree
            (here before PKB's run, by --cloud_report_coremark_install=data
            for ours, since PKB's install would wget it); ours through the
            cpu phase (its tracked and bounded remote_command, its samples).
            PKB's make runs the performance run and then CoreMark's
            validation run; both are tool time.
  fio       db1; the report's rd-iops job (the io phase's template, its
            [global] and [rd-iops] sections) with the same runtime and
            ramp, against the same device (a filled loop device over
            /dev/shm, or db1's data disk), checked by the io phase's guard
            before every PKB run (PKB has none); PKB runs it with
            --fio_jobfile and --fio_target_mode=against_device_without_fill,
            we with --cloud_report_fio_jobs=rd-iops and no fill. Both run
            INSTALL_DIR/fio/fio, staged as a link to the hosts' fio.
  netperf   client -> db1; one TCP_RR run of the same length, no
            confidence iterations, no warm-up run, the same control and
            data ports. Both run PKB's netperf and netserver paths, staged
            as links to the hosts' netperf and netserver. PKB's netperf
            Cleanup (`killall netserver`) never runs: its runs stop after
            the run stage, and the netservers it started are then killed
            here by PID (those whose command line is PKB's netserver path
            with PKB's port).

Figures (ours / PKB's; the 20 % trimmed mean of the pair ratios, with its
95 % CI, and the pairs' median and CV, as bench_fidelity.Summary gives
them):

  vs_pkb_coremark_ratio    CoreMark score (iterations/s, all cores);
  vs_pkb_fio_iops_ratio    rd-iops read IOPS;
  vs_pkb_netperf_rr_ratio  TCP_RR transactions/s;
  vs_pkb_harness_s_ratio   harness seconds, summed over the tools run.

Harness seconds, the same on both sides: the wall time of the pkb.py
process (start to exit, measured here) minus the tool's own run time, the
length of the union of the lifetimes of the tool's processes on the hosts
(bench_overhead.ProcessTracer: CoreMark binaries, fio, netperf; netserver
is a server, not a tool run). What is left is everything else a run does:
pkb.py's start, provisioning the static VMs, installs and staging checks,
CoreMark's build, ssh round trips, parsing, publishing, cleanup.

Settings: the pairs, the seconds of each fio and netperf run, fio's ramp,
and which tools (pkb-ext bench --vs-pkb-*). CoreMark runs as long as PKB's
fixed iteration count takes.
"""

import dataclasses
import json
import math
import os
import shlex
import statistics
import subprocess
import sys
import tempfile
import time

TOOLS = ('coremark', 'fio', 'netperf')
RATIO_RANGE = (0.97, 1.03)
HARNESS_TARGET = 1.0
OURS, PKB = 'ours', 'pkb'
BENCHMARKS = {
    OURS: {
        'coremark': 'cloud_report_coremark',
        'fio': 'cloud_report_fio',
        'netperf': 'cloud_report_netperf',
    },
    PKB: {'coremark': 'coremark', 'fio': 'fio', 'netperf': 'netperf'},
}
# Where each side reports its figure: (metric, labels the sample must have).
FIGURE_SAMPLES = {
    (OURS, 'coremark'): ('coremark_score', {'mode': 'all'}),
    (PKB, 'coremark'): ('Coremark Score', {}),
    (OURS, 'fio'): ('fio_iops', {'fio_job': 'rd-iops', 'direction': 'read'}),
    (PKB, 'fio'): ('rd-iops:read:iops', {}),
    (OURS, 'netperf'): ('netperf_transaction_rate', {'netperf_test': 'TCP_RR'}),
    (PKB, 'netperf'): ('TCP_RR_Transaction_Rate', {}),
}
FIO_JOB = 'rd-iops'
NETPERF_CONTROL_PORT = 20000  # PKB's netperf_benchmark.PORT_START
PKB_TIMEOUT_S = 1800


@dataclasses.dataclass(frozen=True)
class Settings:
  """What both sides run with."""

  pairs: int = 3
  seconds: int = 5  # each fio run's runtime and each netperf run's length
  fio_ramp_s: int = 1
  fio_device: str = 'tmpfs'  # or 'disk': db1's data disk
  tools: tuple[str, ...] = TOOLS


def CoreMarkIterations() -> int:
  """PKB's fixed CoreMark iterations per thread (both sides run these)."""
  # pylint: disable=g-import-not-at-top,import-outside-toplevel
  from perfkitbenchmarker.linux_benchmarks import coremark_benchmark

  return coremark_benchmark.ITERATIONS_PER_CPU


# --- flags: the same work on both sides ---


def PkbFlags(tool: str, settings: Settings, job_file: str | None) -> list:
  """PKB's own benchmark's flags for the tool (besides the common ones).

  Args:
    tool: coremark, fio or netperf.
    settings: the settings.
    job_file: the fio job file (rd-iops only); needed for fio.
  """
  if tool == 'coremark':
    return ['--coremark_thread_counts=0',
            '--coremark_parallelism_method=PTHREAD']  # fmt: skip
  if tool == 'fio':
    if not job_file:
      raise ValueError('fio: PKB runs the rd-iops job file; give its path')
    return [f'--fio_jobfile={job_file}',
            '--fio_target_mode=against_device_without_fill',
            # fio's own default generator, which our job file leaves as is
            '--fio_rng=tausworthe',
            # PKB's parser reads fixed clat percentiles that only its own
            # generated job files ask for (percentile_list=1:5:...:99.99);
            # the report's job file does not (KeyError '25.000000').
            '--fio_include_latency_percentiles=false']  # fmt: skip
  if tool == 'netperf':
    return ['--netperf_benchmarks=TCP_RR',
            f'--netperf_test_length={settings.seconds}',
            '--netperf_warmup_test_length=0',
            '--netperf_num_streams=1',
            # PKB parses latency histograms that only its patched netperf
            # prints (-v2: "UNIT_USEC ... >100_SECS"); the hosts' is stock.
            '--netperf_enable_histograms=false',
            # Never PKB's netperf Cleanup (killall netserver).
            '--run_stage=provision,prepare,run']  # fmt: skip
  raise ValueError(f'unknown tool {tool!r}; choose from {TOOLS}')


def OurFlags(tool: str, settings: Settings, iterations: int) -> list:
  """Our single-phase benchmark's flags for the tool.

  Args:
    tool: coremark, fio or netperf.
    settings: the settings.
    iterations: CoreMark iterations per thread (PKB's).
  """
  if tool == 'coremark':
    return ['--cloud_report_coremark_modes=all',
            '--cloud_report_coremark_runs=1',
            '--cloud_report_coremark_threads=0',
            # PKB's flag, as on PKB's side (the benchmark's config says so
            # too); the hosts reach no GitHub: the data path's tarball.
            '--coremark_parallelism_method=PTHREAD',
            '--cloud_report_coremark_install=data',
            f'--cloud_report_coremark_iterations={iterations}']  # fmt: skip
  if tool == 'fio':
    return [f'--cloud_report_fio_jobs={FIO_JOB}',
            f'--cloud_report_fio_runtime_s={settings.seconds}',
            f'--cloud_report_fio_ramp_time_s={settings.fio_ramp_s}',
            '--cloud_report_fio_fill=false',
            '--cloud_report_fio_unmount=false',
            '--cloud_report_fio_restore_fs=false',
            '--cloud_report_fio_install=pkb']  # fmt: skip
  if tool == 'netperf':
    return ['--cloud_report_netperf_tests=TCP_RR',
            f'--cloud_report_netperf_duration_s={settings.seconds}',
            '--cloud_report_netperf_confidence=off',
            '--cloud_report_netperf_repetitions=1',
            '--cloud_report_netperf_streams=1',
            f'--cloud_report_netperf_control_port={NETPERF_CONTROL_PORT}',
            f'--cloud_report_netperf_data_port={NETPERF_CONTROL_PORT + 1}',
            '--cloud_report_netperf_install=pkb']  # fmt: skip
  raise ValueError(f'unknown tool {tool!r}; choose from {TOOLS}')


def RdIopsJobFile(text: str) -> str:
  """The [global] and [rd-iops] sections of a rendered report job file.

  Raises:
    ValueError: a section is missing.
  """
  sections, name = {}, None
  for line in text.splitlines():
    stripped = line.strip()
    if stripped.startswith('[') and stripped.endswith(']'):
      name = stripped[1:-1]
      sections[name] = [line]
    elif name is not None and stripped and not stripped.startswith('#'):
      sections[name].append(line)
  missing = [s for s in ('global', FIO_JOB) if s not in sections]
  if missing:
    raise ValueError(f'job file has no [{"], [".join(missing)}] section')
  return '\n'.join(sections['global'] + [''] + sections[FIO_JOB]) + '\n'


# --- results ---


def Figure(samples, side: str, tool: str) -> float:
  """The side's figure for the tool from its PKB --json_path samples.

  Args:
    samples: decoded lines of PKB's JSON publisher output.
    side: OURS or PKB.
    tool: coremark, fio or netperf.

  Raises:
    ValueError: not exactly one such sample, or not a finite positive value.
  """
  # pylint: disable=g-import-not-at-top,import-outside-toplevel
  from pkb_ext import labels

  metric, want = FIGURE_SAMPLES[(side, tool)]
  found = []
  for s in samples:
    if s.get('metric') != metric:
      continue
    md = labels.Decode(s.get('labels'))
    if all(md.get(k) == v for k, v in want.items()):
      found.append(float(s['value']))
  if len(found) != 1:
    raise ValueError(
        f'{side} {tool}: {len(found)} {metric!r} samples with {want}, want 1'
    )
  value = found[0]
  if not math.isfinite(value) or value <= 0:
    raise ValueError(f'{side} {tool}: {metric} = {value}')
  return value


def HarnessSeconds(wall_s: float, runs, tool: str) -> dict:
  """Wall, tool and harness seconds of one pkb.py run (see module doc).

  Args:
    wall_s: the pkb.py process's wall time.
    runs: bench_overhead.ToolRun of the hosts during the run.
    tool: the tool whose runs are the tool time.

  Raises:
    ValueError: no run of the tool (the run did not do the tool work).
  """
  # pylint: disable=g-import-not-at-top,import-outside-toplevel
  from pkb_ext_dev import bench_overhead

  mine = [r for r in runs if r.tool == tool]
  if not mine:
    seen = sorted({r.tool for r in runs})
    raise ValueError(f'no {tool} process ran on the hosts (saw {seen})')
  tool_s = bench_overhead.UnionSeconds((r.start, r.end) for r in mine)
  return {
      'wall_s': round(wall_s, 3),
      'tool_s': round(tool_s, 3),
      'harness_s': round(wall_s - tool_s, 3),
      'tool_runs': len(mine),
      'tool_commands': sorted({r.cmdline.split(' ')[0] for r in mine}),
  }


def Summarize(
    tool: str, ours, pkb, extra=None, interference=(), min_pairs=0
) -> dict:
  """Pair statistics of one tool: bench_fidelity.Summary, range target."""
  # pylint: disable=g-import-not-at-top,import-outside-toplevel
  from pkb_ext_dev import bench_fidelity

  out = bench_fidelity.Summary(
      ours,
      pkb,
      0.0,
      interference=interference,
      op='in',
      target=RATIO_RANGE,
      min_pairs=min_pairs,
  )
  del out['seconds'], out['phase_module_ratio']
  out['ours'], out['pkb'] = out.pop('phase'), out.pop('raw')
  out['ours_cv_pct'], out['pkb_cv_pct'] = (
      out.pop('phase_cv_pct'), out.pop('raw_cv_pct')
  )  # fmt: skip
  out['tool'] = tool
  out.update(extra or {})
  return out


def HarnessSummary(per_tool: dict, flagged=None) -> dict:
  """The harness figure: per pair, ours / PKB's harness seconds summed over
  the tools; the 20 % trimmed mean of the unflagged ones is
  vs_pkb_harness_s_ratio, and its 95 % interval gives its verdict.

  Args:
    per_tool: tool -> {'ours': [harness_s by pair], 'pkb': [...]}.
    flagged: tool -> the 1-based numbers of its flagged pairs; a pair
      number flagged for any tool is left out.
  """
  # pylint: disable=g-import-not-at-top,import-outside-toplevel
  from pkb_ext_dev import bench_sitting

  pairs = min(len(v[s]) for v in per_tool.values() for s in (OURS, PKB))
  ours = [sum(v[OURS][i] for v in per_tool.values()) for i in range(pairs)]
  pkb = [sum(v[PKB][i] for v in per_tool.values()) for i in range(pairs)]
  ratios = [o / p for o, p in zip(ours, pkb)]
  out = {n for numbers in (flagged or {}).values() for n in numbers}
  evidence = bench_sitting.Evidence(
      ratios, [{'flagged': i + 1 in out} for i in range(pairs)]
  )
  ci = evidence['ci95']
  return {
      'ratio': bench_sitting.TrimmedMean(evidence['used'] or ratios),
      'target': f'<= {HARNESS_TARGET:g}',
      'verdict': bench_sitting.PairVerdict('<=', HARNESS_TARGET, evidence),
      'pairs_used': len(evidence['used']),
      'flagged_pairs': evidence['flagged_pairs'],
      'pair_ratio_ci95': None if ci is None else list(ci),  # the verdict's
      'ours_harness_s': [round(v, 2) for v in ours],
      'pkb_harness_s': [round(v, 2) for v in pkb],
      'pair_ratios': [round(r, 4) for r in ratios],
      'per_tool_median_s': {
          tool: {
              OURS: round(statistics.median(v[OURS]), 2),
              PKB: round(statistics.median(v[PKB]), 2),
          }
          for tool, v in per_tool.items()
      },
  }


# --- the hosts ---


def _Sh(vm, command: str) -> str:
  return vm.RemoteCommand(command)[0]


def _Describe(vm, path: str, version_cmd: str | None) -> dict:
  """Which binary a staged path is: its target, sha256 and version."""
  q = shlex.quote(path)
  out = _Sh(
      vm,
      f'real=$(readlink -f {q}); echo "real=$real";'
      ' echo "sha256=$(sha256sum "$real" | cut -d" " -f1)"',
  )
  facts = dict(line.split('=', 1) for line in out.splitlines() if '=' in line)
  entry = {'host': vm.ip_address, 'path': path, 'binary': facts.get('real'),
           'sha256': facts.get('sha256')}  # fmt: skip
  if version_cmd:
    v, _ = vm.RemoteCommand(
        f'{version_cmd} 2>&1 | head -1', ignore_failure=True
    )
    entry['version'] = v.strip()
  return entry


def _Link(vm, path: str, command: str) -> None:
  """Makes path a link to the host's `command` (idempotent)."""
  q = shlex.quote(path)
  _Sh(
      vm,
      f'src=$(command -v {shlex.quote(command)}) && sudo mkdir -p'
      f' "$(dirname {q})" && sudo ln -sfn "$src" {q}',
  )


def StageFio(db) -> list[dict]:
  """PKB's fio path on db1 -> the host's fio."""
  # pylint: disable=g-import-not-at-top,import-outside-toplevel
  from perfkitbenchmarker.linux_packages import fio

  _Link(db, fio.FIO_PATH, 'fio')
  return [_Describe(db, fio.FIO_PATH, f'{fio.FIO_PATH} --version')]


def StageNetperf(vms) -> list[dict]:
  """PKB's netperf and netserver paths -> the hosts' binaries."""
  # pylint: disable=g-import-not-at-top,import-outside-toplevel
  from perfkitbenchmarker.linux_packages import netperf

  out = []
  for vm in vms:
    _Link(vm, netperf.NETPERF_PATH, 'netperf')
    _Link(vm, netperf.NETSERVER_PATH, 'netserver')
    out.append(
        _Describe(vm, netperf.NETPERF_PATH, f'{netperf.NETPERF_PATH} -V')
    )
    out.append(_Describe(vm, netperf.NETSERVER_PATH, None))
  return out


def StageCoreMark(db) -> dict:
  """A fresh CoreMark v1.01 tree where PKB's coremark benchmark builds it.

  PKB's Prepare edits the tree's makefile and its Cleanup deletes the tree,
  so each PKB run gets a fresh one, staged as our side's
  --cloud_report_coremark_install=data stages it (pkb_ext.coremark's
  StageTree: the tarball's sha256 and commit, then the extracted tree's
  sha256, checked).
  """
  # pylint: disable=g-import-not-at-top,import-outside-toplevel
  from pkb_ext import coremark as cm

  staged = cm.StageTree(db)
  return {'host': db.ip_address, 'path': staged.tree, 'tarball': cm.TARBALL,
          'tarball_sha256': staged.tarball_sha256,
          'expected_sha256': cm.TARBALL_SHA256, 'commit': staged.commit,
          'tree_sha256': staged.tree_sha256}  # fmt: skip


def PkbNetservers(ps_output: str, path: str, ports) -> list[int]:
  """PIDs of `ps -eo pid=,args=` lines that run `path -p PORT` for a port.

  Args:
    ps_output: the ps output.
    path: PKB's netserver path.
    ports: the control ports PKB's Prepare started netservers on.
  """
  wanted = {f'{path} -p {port}' for port in ports}
  pids = []
  for line in ps_output.splitlines():
    pid, _, args = line.strip().partition(' ')
    if pid.isdigit() and args.strip() in wanted:
      pids.append(int(pid))
  return pids


def StopPkbNetservers(server) -> list[int]:
  """Kills, by PID, the netservers PKB's netperf Prepare started on server."""
  # pylint: disable=g-import-not-at-top,import-outside-toplevel
  from perfkitbenchmarker.linux_packages import netperf

  pids = PkbNetservers(
      _Sh(server, 'ps -eo pid=,args='),
      netperf.NETSERVER_PATH,
      [NETPERF_CONTROL_PORT],
  )
  if pids:
    server.RemoteCommand(f'kill {" ".join(map(str, pids))}')
  return pids


# --- runs ---


def EndLeftovers(pkb_temp: str) -> list[int]:
  """Ends this machine's processes a pkb.py run left (its ssh
  ControlMasters, ControlPersist=30m), told by its own temp dir in their
  command line; returns their PIDs."""
  import signal  # pylint: disable=g-import-not-at-top,import-outside-toplevel

  needle = (pkb_temp.rstrip('/') + '/').encode()
  pids = []
  for pid in (p for p in os.listdir('/proc') if p.isdigit()):
    try:
      with open(f'/proc/{pid}/cmdline', 'rb') as f:
        if needle in f.read():
          os.kill(int(pid), signal.SIGTERM)
          pids.append(int(pid))
    except OSError:
      continue
  return pids


class _Runner:
  """Runs pkb.py on the cloud, one benchmark at a time, under the tracer."""

  def __init__(self, cloud_env, namespaces, work, short_dir, log):
    self.env = cloud_env
    self.namespaces = namespaces
    self.work = work
    self.short_dir = short_dir
    self.log = log
    self.count = 0

  def Run(self, benchmark: str, static_vm_file: str, flags: list) -> dict:
    """One pkb.py run; returns its samples, wall time and tool runs."""
    # pylint: disable=g-import-not-at-top,import-outside-toplevel
    from pkb_ext_dev import bench_overhead

    self.count += 1
    run_uri = (
        'vp' + format(int(time.time() * 10) % 16**6, 'x') + str(self.count % 10)
    )
    work = os.path.join(self.work, f'{self.count:02d}-{benchmark}')
    os.makedirs(work)
    pkb_temp = os.path.join(self.short_dir, f'{self.count:02d}')
    os.symlink(pkb_temp, os.path.join(work, 'pkb'))
    json_path = os.path.join(work, 'samples.json')
    bin_dir = os.path.dirname(sys.executable)
    argv = [sys.executable, os.path.join(bin_dir, 'pkb.py'),
            f'--benchmarks={benchmark}',
            f'--static_vm_file={static_vm_file}',
            f'--temp_dir={pkb_temp}', f'--json_path={json_path}',
            f'--run_uri={run_uri}', *flags]  # fmt: skip
    log_path = os.path.join(work, 'pkb.out')
    tracer = bench_overhead.ProcessTracer(self.namespaces).Start()
    started = time.time()
    with open(log_path, 'w') as out:
      rc = subprocess.run(
          argv, env=self.env, stdout=out, stderr=subprocess.STDOUT,
          timeout=PKB_TIMEOUT_S, check=False,
      ).returncode  # fmt: skip
    wall = time.time() - started
    runs = [r for r in tracer.Stop() if r.start >= started - 1]
    EndLeftovers(pkb_temp)
    samples = []
    if os.path.exists(json_path):
      with open(json_path) as f:
        samples = [json.loads(line) for line in f if line.strip()]
    if rc:
      raise RuntimeError(f'pkb.py {benchmark} exited {rc}; see {log_path}')
    return {'samples': samples, 'wall_s': wall, 'runs': runs,
            'log': log_path, 'argv': argv}  # fmt: skip


def _StaticVmFile(path: str, entries) -> str:
  with open(path, 'w') as f:
    json.dump(list(entries), f, indent=1)
  return path


def _FioJobFile(db, device: str, settings: Settings, path: str) -> str:
  """Renders the io phase's job file for the device; keeps rd-iops."""
  # pylint: disable=g-import-not-at-top,import-outside-toplevel
  from pkb_ext.suite.disk import stages as storage

  params = dataclasses.replace(
      storage.Params(), runtime_s=settings.seconds,
      ramp_time_s=settings.fio_ramp_s,
  )  # fmt: skip
  size = int(_Sh(db, f'sudo blockdev --getsize64 {shlex.quote(device)}'))
  text = RdIopsJobFile(
      storage.RenderJobFile(storage.JobFileContext(params, size))
  )
  with open(path, 'w') as f:
    f.write(text)
  return path


def _MeasureTool(tool, ctx, settings, log) -> dict:
  """ABBA pairs of one tool; returns its summary with each run's details."""
  # pylint: disable=g-import-not-at-top,import-outside-toplevel
  from pkb_ext.suite.disk import guard as storage_guard
  from pkb_ext_dev import bench_fidelity
  from pkb_ext_dev import fidelity

  runner, files, db = ctx['runner'], ctx['files'], ctx['db']
  harness = {OURS: [], PKB: []}
  runs = {OURS: [], PKB: []}

  def One(side, pair):
    benchmark = BENCHMARKS[side][tool]
    if side == OURS:
      flags = OurFlags(tool, settings, ctx['iterations'])
    else:
      flags = PkbFlags(tool, settings, ctx.get('job_file'))
      if tool == 'coremark':
        ctx['staged'].setdefault('coremark_tree', []).append(StageCoreMark(db))
      if tool == 'fio':
        storage_guard.Check(db, ctx['device'])
    log(f'vs_pkb {tool} pair {pair + 1}/{settings.pairs}: {side} ({benchmark})')
    try:
      result = runner.Run(benchmark, files[tool], flags)
    finally:
      if side == PKB and tool == 'netperf':
        ctx.setdefault('killed_pkb_netservers', []).append(
            StopPkbNetservers(db)
        )
    value = Figure(result['samples'], side, tool)
    h = HarnessSeconds(result['wall_s'], result['runs'], tool)
    harness[side].append(h['harness_s'])
    runs[side].append(dict(h, value=value, log=result['log'],
                           samples=len(result['samples'])))  # fmt: skip
    return value

  started = time.time()
  sitting = ctx['new_sitting'](tool, settings.pairs)
  pairs = fidelity.Abba(
      lambda i: One(OURS, i), lambda i: One(PKB, i), settings.pairs,
      f'vs_pkb {tool}', sitting,
  )  # fmt: skip
  out = Summarize(
      tool,
      pairs.phase,
      pairs.raw,
      interference=pairs.interference,
      min_pairs=bench_fidelity.MinPairs(sitting),
  )
  out.update(
      runs=runs, harness_s=harness, seconds=round(time.time() - started, 1)
  )
  if sitting is not None:
    out['sitting'] = sitting.Details()
  return out


def Measure(
    static_vm_file: str,
    cloud_env: dict,
    namespaces: dict,
    settings: Settings = Settings(),
    log=print,
    work_dir: str | None = None,
    new_sitting=None,
) -> dict:
  """Stages PKB's files, runs the pairs; returns the figures' details.

  Args:
    static_vm_file: the local cloud's static VM file (client, db1, ...).
    cloud_env: the environment that names the cloud (PKB_EXT_LOCAL_STATE).
    namespaces: host name -> network namespace (for the process tracer).
    settings: the settings.
    log: prints a progress line.
    work_dir: where the runs' files go (default: a new temporary directory).
    new_sitting: None (exactly settings.pairs pairs), or takes (tool, its
      minimum pairs) and returns a bench_sitting.Sitting for it.

  Returns:
    {'tools': {tool: summary}, 'errors': {tool: message}, 'harness': ...
    (only when every tool ran), 'staged': ..., 'settings': ...}.
  """
  # pylint: disable=g-import-not-at-top,import-outside-toplevel
  import contextlib
  import logging

  from pkb_ext_dev import bench_fidelity
  from pkb_ext_dev import loop_device

  unknown = set(settings.tools) - set(TOOLS)
  if unknown or not settings.tools:
    raise ValueError(f'tools: choose from {TOOLS}, got {settings.tools}')
  if settings.fio_device not in bench_fidelity.FIO_DEVICES:
    raise ValueError(f'fio device {settings.fio_device!r}')
  work = tempfile.mkdtemp(prefix='pkb-ext-bench-vs-pkb-', dir=work_dir)
  with open(static_vm_file) as f:
    entries = json.load(f)
  if len(entries) < 2:
    raise ValueError(f'{static_vm_file}: need a client and a db host')
  client_entry, db_entry = entries[0], entries[1]
  # PKB's temp dirs (ssh ControlPath sockets: at most 107 bytes) go here.
  short_dir = tempfile.mkdtemp(prefix='vp', dir='/tmp')
  vms = bench_fidelity.LocalCloudVms(static_vm_file, short_dir, 'vpstage')
  client, db = vms[0], vms[1]
  ctx = {
      'runner': _Runner(cloud_env, namespaces, work, short_dir, log),
      'client': client, 'db': db, 'staged': {},
      'iterations': CoreMarkIterations(),
      'new_sitting': new_sitting or (lambda tool, n: None),
  }  # fmt: skip
  details = {
      'work_dir': work,
      'settings': (
          dataclasses.asdict(settings)
          | {'coremark_iterations_per_thread': ctx['iterations']}
      ),
      'hosts': {'client': client.ip_address, 'db': db.ip_address},
      'tools': {},
      'errors': {},
  }
  root = logging.getLogger()
  level = root.level
  root.setLevel(logging.ERROR)  # PKB logs every ssh command
  try:
    with contextlib.ExitStack() as stack:
      device = db_entry.get('local_disks', [None])[0]
      if 'fio' in settings.tools and settings.fio_device == 'tmpfs':
        reason = loop_device.Unavailable()
        if reason:
          raise RuntimeError(f'no tmpfs loop device: {reason}')
        loop = stack.enter_context(
            loop_device.LoopDevice(
                bench_fidelity.FIO_LOOP_BYTES,
                prefix='pkb-ext-bench-vs-pkb-',
                directory='/dev/shm',
            )
        )
        bench_fidelity.Fill(loop.image, bench_fidelity.FIO_LOOP_BYTES)
        device = loop.device
      ctx['device'] = device
      db_fio = dict(db_entry, local_disks=[device]) if device else db_entry
      ctx['files'] = {
          'coremark': _StaticVmFile(f'{work}/vms-db1.json', [db_entry]),
          'fio': _StaticVmFile(f'{work}/vms-db1-fio.json', [db_fio]),
          'netperf': _StaticVmFile(
              f'{work}/vms-client-db1.json', [client_entry, db_entry]
          ),
      }
      staged = ctx['staged']
      if 'fio' in settings.tools:
        if not device:
          raise ValueError('fio: db1 has no data disk')
        staged['fio'] = StageFio(db)
        ctx['job_file'] = _FioJobFile(
            db, device, settings, f'{work}/rd-iops.fio'
        )
        details['fio_device'] = {'path': device, 'kind': settings.fio_device}
      if 'netperf' in settings.tools:
        staged['netperf'] = StageNetperf([client, db])
      for tool in (t for t in TOOLS if t in settings.tools):
        log(f'vs_pkb {tool}: {settings.pairs} ours/PKB pairs...')
        try:
          details['tools'][tool] = _MeasureTool(tool, ctx, settings, log)
        except Exception as e:  # pylint: disable=broad-except
          details['errors'][tool] = f'{type(e).__name__}: {e}'[:2000]
      details['staged'] = staged
      details['killed_pkb_netservers'] = ctx.get('killed_pkb_netservers', [])
      if not details['errors']:  # the same tool work on both sides
        details['harness'] = HarnessSummary(
            {t: r['harness_s'] for t, r in details['tools'].items()},
            {t: r['flagged_pairs'] for t, r in details['tools'].items()},
        )
  finally:
    root.setLevel(level)
    with contextlib.suppress(Exception):
      bench_fidelity.CloseSshMasters(vms)
  return details
