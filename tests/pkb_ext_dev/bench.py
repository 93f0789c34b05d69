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
"""pkb-ext bench: the harness's own benchmarks, with their targets.

  pkb-ext bench --out FILE [--only PARTS] [--state-dir DIR]
                [--matrix-out DIR] [--pairs N] [--seconds S] [--samples N]
                [--max-pairs N] [--time-cap S] [--interference-max F]
                [--hog-at-pair K [--hog-cpus N] [--hog-seconds S]]
                [--order-seed N] [--tpcc-edge-types T,...]

PARTS (comma-separated, default all): fio, netperf, coremark (or fidelity
for the three), overhead, stepping, publish, vs_pkb, calibrate, plan,
tpcc_edge. fio, netperf, coremark, overhead and vs_pkb run on the local
cloud of --state-dir (brought up first if it is not up, with --image host:
the parts compare the tools this machine has, with PKB's installs off;
needs root; a cloud up on an OS image is refused before any run);
stepping, publish, calibrate and plan run on this machine (plan reads a
local matrix run's record, --matrix-out, for plan_wall_time_ratio: without
one that figure is not run, and the details say so). tpcc_edge (root)
brings up the cloud of each local machine type of --tpcc-edge-types afresh
on this machine's software, runs TPC-C's linear and probe searches on
PostgreSQL there, and takes it down (pkb_ext_dev.bench_tpcc_edge): its
figure tpcc_search_minutes_ratio is measured; stepping's
tpcc_minutes_ratio_sim is the same ratio on simulated machines.

A paired figure (fidelity, vs_pkb, calibrate) is the 20 % trimmed mean
of its unflagged pair ratios, judged by the 95 % interval of that trimmed
mean (pkb_ext_dev.bench_sitting): PASS when the interval lies inside the
target, MISS when outside, INCONCLUSIVE otherwise; pairs are added until
it is PASS or MISS or --max-pairs / --time-cap is reached, and pairs that
other work disturbed are flagged and left out. Other figures are single
values or exact simulations, judged by their value.

Prints a table (figure, value, target, verdict, evidence) and writes
FILE: a JSON object with exactly the keys of FIGURES (null for a part not
run or that failed) plus `details` (every part's raw measurements, each
pair's interference, targets, verdicts, evidence, errors). Exit status: 1
if a part that was asked for produced no figure, else 3 if a figure is a
MISS, else 4 if one is INCONCLUSIVE, else 0; 2 for a usage error. How each
figure is measured: pkb_ext_dev.bench_fidelity, pkb_ext_dev.bench_overhead,
pkb_ext_dev.bench_stepping, pkb_ext_dev.bench_publish,
pkb_ext_dev.bench_vs_pkb, pkb_ext_dev.bench_calibrate,
pkb_ext_dev.bench_plan, pkb_ext_dev.bench_tpcc_edge, and docs/faults.md.
"""

import argparse
import dataclasses
import io
import json
import os
import platform
import sys
import tempfile
import time
import traceback

from pkb_ext import command
from pkb_ext import errors as pkb_errors
from pkb_ext import paths

PROG = 'pkb-ext bench'
# Figure -> (part, comparison, target); None: no target, just a figure.
FIGURES = {
    'fio_iops_ratio': ('fio', '>=', 0.97),
    'netperf_rr_ratio': ('netperf', '>=', 0.97),
    'coremark_ratio': ('coremark', '>=', 0.97),
    'harness_s_per_run': ('overhead', None, None),
    'harness_pct_at_report': ('overhead', '<=', 10.0),
    'bisect_step_ratio': ('stepping', '<=', 0.5),
    'tpcc_minutes_ratio_sim': ('stepping', '<=', 0.40),
    'tpcc_search_minutes_ratio': ('tpcc_edge', '<=', 0.5),
    'ndjson_samples_per_s': ('publish', '>=', 100_000),
    'bq_publish_100k_s': ('publish', None, None),
    'vs_pkb_coremark_ratio': ('vs_pkb', 'in', (0.97, 1.03)),
    'vs_pkb_fio_iops_ratio': ('vs_pkb', 'in', (0.97, 1.03)),
    'vs_pkb_netperf_rr_ratio': ('vs_pkb', 'in', (0.97, 1.03)),
    'vs_pkb_harness_s_ratio': ('vs_pkb', '<=', 1.0),
    'calibrate_ratio': ('calibrate', 'in', (0.97, 1.03)),
    'plan_wall_time_ratio': ('plan', 'in', (0.85, 1.15)),
    'vm_hours_per_row': ('plan', '<=', 9.0),
    'vm_hours_per_row_report': ('plan', None, None),
}
PARTS = (
    'fio', 'netperf', 'coremark', 'overhead', 'stepping', 'publish', 'vs_pkb',
    'calibrate', 'plan', 'tpcc_edge',
)  # fmt: skip
EXIT_ERROR, EXIT_USAGE, EXIT_MISS, EXIT_INCONCLUSIVE = 1, 2, 3, 4
ALIASES = {'fidelity': ('fio', 'netperf', 'coremark'), 'all': PARTS}
_LOCAL_PARTS = ('fio', 'netperf', 'coremark', 'overhead', 'vs_pkb')
_FIDELITY = {'fio': 'io', 'netperf': 'net', 'coremark': 'cpu'}
# Which tool's measured runs show that a phase ran in the overhead run.
_PHASE_TOOLS = {
    'cpu': 'coremark',
    'io': 'fio',
    'net': 'netperf',
    'object_storage': 'ttfb_worker',
    'tpcc': 'go-tpc',
}


def ParseParts(text: str) -> list[str]:
  """Returns the parts named by --only, in PARTS order.

  Raises:
    ValueError: naming an unknown part.
  """
  wanted = set()
  for name in (p.strip() for p in text.split(',')):
    if not name:
      continue
    if name in ALIASES:
      wanted.update(ALIASES[name])
    elif name in PARTS:
      wanted.add(name)
    else:
      raise ValueError(
          f'--only: unknown part {name!r}; choose from'
          f' {", ".join(PARTS + tuple(ALIASES))}'
      )
  if not wanted:
    raise ValueError('--only: name at least one part')
  return [p for p in PARTS if p in wanted]


def Verdict(figure: str, value, evidence: dict | None = None) -> str:
  """PASS, MISS, INCONCLUSIVE, '-' (no target) or 'n/a' (no value).

  A target is `>= t`, `<= t` or `in (low, high)` (both ends included). A
  paired figure, one with evidence ({'ci95': [low, high] or None}), is
  judged by its interval (bench_sitting.IntervalVerdict): INCONCLUSIVE
  without one. Without evidence the value is judged as it is.
  """
  from pkb_ext_dev import bench_sitting  # pylint: disable=g-import-not-at-top

  _, op, target = FIGURES[figure]
  if value is None:
    return 'n/a'
  if op is None:
    return '-'
  low = high = value
  if evidence is not None:
    if evidence.get('ci95') is None:
      return bench_sitting.INCONCLUSIVE
    low, high = evidence['ci95']
  try:
    return bench_sitting.IntervalVerdict(op, target, low, high)
  except ValueError as e:
    raise ValueError(f'{figure}: {e}') from e


def ExitStatus(verdicts: dict, errors: dict) -> int:
  """1 if a part failed, else 3 for a MISS, else 4 for an INCONCLUSIVE."""
  if errors:
    return EXIT_ERROR
  if 'MISS' in verdicts.values():
    return EXIT_MISS
  if 'INCONCLUSIVE' in verdicts.values():
    return EXIT_INCONCLUSIVE
  return 0


def EvidenceOf(summary: dict) -> dict:
  """What a paired figure's verdict rests on, from its summary."""
  sitting = summary.get('sitting') or {}
  return {
      'ci95': summary['pair_ratio_ci95'],
      'pairs': len(summary['pair_ratios']),
      'pairs_used': summary['pairs_used'],
      'flagged_pairs': summary['flagged_pairs'],
      'stop_reason': sitting.get('stop_reason'),
      'hog': sitting.get('hog'),
  }


def EvidenceText(evidence: dict | None) -> str:
  """'CI 0.98..1.01, 6 of 8 pairs (2 flagged)' ('' for a single value)."""
  if evidence is None:
    return ''
  used, pairs = evidence['pairs_used'], evidence['pairs']
  ci = evidence['ci95']
  text = 'no CI' if ci is None else f'CI {ci[0]:.4g}..{ci[1]:.4g}'
  text += f', {used} of {pairs} pairs'
  flagged = len(evidence['flagged_pairs'])
  return text + (f' ({flagged} flagged)' if flagged else '')


def TargetText(op, target) -> str:
  """A target as printed: '>= 0.97', '<= 10', '0.97..1.03' ('' for none)."""
  if op is None:
    return ''
  if op == 'in':
    return f'{target[0]:,.6g}..{target[1]:,.6g}'
  return f'{op} {target:,.6g}'


def Table(
    figures: dict,
    errors: dict,
    evidence: dict | None = None,
    notes: dict | None = None,
) -> str:
  """The printed table: figure, value, target, verdict, evidence or note."""
  evidence, notes = evidence or {}, notes or {}
  lines = [f'{"figure":26} {"value":>14} {"target":>10}  verdict']
  for name, (part, op, target) in FIGURES.items():
    value = figures.get(name)
    text = 'not run' if value is None else f'{value:,.4g}'
    if value is not None and value >= 1000:
      text = f'{value:,.0f}'
    if value is None and part in errors:
      text = 'ERROR'
    goal = TargetText(op, target)
    note = (
        f'  ({errors[part][:70]})' if value is None and part in errors else ''
    )
    if value is not None and name in evidence:
      note = f'  ({EvidenceText(evidence[name])})'
    elif value is not None and name in notes:
      note = f'  ({notes[name]})'
    verdict = Verdict(name, value, evidence.get(name))
    lines.append(f'{name:26} {text:>14} {goal:>10}  {verdict}{note}')
  return '\n'.join(lines)


def PairText(result: dict) -> str:
  """A paired figure's value and statistics, from its summary.

  '1.0020 = 20 % trimmed mean of 12 pair ratios, 95 % CI 0.9950 to
  1.0100; their median 1.0010, mean 1.0030 (95 % CI 0.9960 to 1.0100), CV
  1.2 %' (without the intervals they lack).
  """
  used = result.get('pairs_used', len(result['pair_ratios']))
  text = f'{result["ratio"]:.4f} = 20 % trimmed mean of {used} pair ratios'
  ci = result.get('pair_ratio_ci95')
  if ci:
    text += f', 95 % CI {ci[0]:.4f} to {ci[1]:.4f}'
  mean_ci = result.get('pair_ratio_mean_ci95')
  if mean_ci:
    text += (
        f'; their median {result["pair_ratio_median"]:.4f}, mean'
        f' {result["pair_ratio_mean"]:.4f} (95 % CI {mean_ci[0]:.4f} to'
        f' {mean_ci[1]:.4f}), CV {result["pair_ratio_cv_pct"]:.1f} %'
    )
  return text


def Notes(details: dict, noisy_cv_pct: float = 5.0) -> list[str]:
  """Lines that say how far to trust the figures (noise, load, errors)."""
  notes = []
  cpus = details.get('machine', {}).get('cpus')
  for phase, result in sorted(details.get('fidelity', {}).items()):
    if result.get('pair_ratio_ci95'):
      where = result.get('device_kind') or result.get('device') or ''
      notes.append(
          f'note: {phase} ratio {PairText(result)}'
          + (f' ({where})' if where else '')
      )
    cv = result.get('pair_ratio_cv_pct')
    if cv is not None and cv > noisy_cv_pct:
      notes.append(
          f'note: {phase} pair ratios vary by {cv:.0f} % (CV; load average'
          f' {result.get("loadavg_1m_before", 0):.1f} on {cpus} CPUs): its'
          ' fidelity figure is dominated by noise from other work'
      )
  overhead = details.get('overhead')
  if overhead and 'harness_pct' in overhead:
    notes.append(
        f'note: smoke run {overhead["wall_s"]:.0f} s, measured tool runs'
        f' {overhead["measured_tool_s"]:.0f} s, all tool runs'
        f' {overhead["all_tool_s"]:.0f} s: harness'
        f' {overhead["harness_s"]:.1f} s ({overhead["harness_pct"]:.1f} % of'
        f' the smoke run; overhead_pct {overhead["overhead_pct"]:.1f})'
    )
  fixed = (overhead or {}).get('fixed_costs')
  if fixed:
    parts = [
        f'{name} {e["harness_s"]:.1f} s/{e["ssh_commands"]} ssh'
        for name, e in [*fixed['phases'].items(),
                        ('outside phases', fixed['outside_phases'])]
    ]  # fmt: skip
    notes.append(
        'note: harness seconds/ssh commands per phase: ' + ', '.join(parts)
    )
  vs_pkb = details.get('vs_pkb') or {}
  for tool, result in sorted(vs_pkb.get('tools', {}).items()):
    notes.append(f'note: vs_pkb {tool}: ours/PKB {PairText(result)}')
  harness = vs_pkb.get('harness')
  if harness:
    parts = [
        f'{tool} {v["ours"]:.1f} s vs {v["pkb"]:.1f} s'
        for tool, v in harness['per_tool_median_s'].items()
    ]
    notes.append(
        'note: vs_pkb harness seconds (median per pkb.py run, ours vs PKB): '
        + ', '.join(parts)
    )
  at_report = (overhead or {}).get('at_report')
  if at_report:
    notes.append(
        f"note: at the report's settings the same tool runs take"
        f' {at_report["tool_s"]:,.0f} s: harness'
        f' {at_report["harness_share_pct"]:.2f} % (an upper bound: the'
        " smoke run's step and test counts)"
    )
  return notes + SittingNotes(details.get('evidence', {}))


def SittingNotes(evidence: dict) -> list[str]:
  """Per paired figure: flagged pairs, why its pairs stopped, the hog."""
  notes = []
  for figure, e in evidence.items():
    flagged = e['flagged_pairs']
    if flagged:
      notes.append(
          f'note: {figure}: {len(flagged)} of {e["pairs"]} pairs flagged for'
          ' interference and left out of the verdict (pairs'
          f' {", ".join(map(str, flagged))})'
      )
    if e.get('stop_reason') and e['stop_reason'] != 'decided':
      notes.append(
          f'note: {figure}: no more pairs after {e["pairs"]}: reached the'
          f' {e["stop_reason"]}'
      )
    hog = e.get('hog')
    if hog:
      notes.append(
          f'note: {figure}: CPU hog started in pair {hog["started_in_pair"]},'
          f' stopped after pair {hog.get("stopped_after_pair") or "the last"}:'
          f' {hog.get("summary", "")}'
      )
  return notes


def IsSshTo(comm: str, cmdline: str, ips) -> bool:
  """Whether a process is an ssh client to one of these addresses.

  PKB's ssh ControlMaster processes (ControlPersist) leave the bench's
  process tree when they go to the background (retitled `ssh: CONTROL_PATH
  [mux]`, PKB's control path ending in the host), yet carry every command's
  traffic to the hosts: the sitting counts them as its own.
  """
  import re  # pylint: disable=g-import-not-at-top

  return comm == 'ssh' and any(
      re.search(rf'(?<![\d.]){re.escape(ip)}(?![\d.])', cmdline) for ip in ips
  )


class LocalCloud:
  """The local cloud the bench runs on: its plan, env and static VM file."""

  def __init__(self, state_dir: str):
    from pkb_ext.local import cloud  # pylint: disable=g-import-not-at-top

    self.state_dir = state_dir
    self.plan = cloud.PlanOf(state_dir)
    self.env = dict(os.environ, PKB_EXT_LOCAL_STATE=state_dir)

  @property
  def namespaces(self) -> dict[str, str]:
    return {h.name: h.netns for h in self.plan.hosts}

  def OurPids(self) -> list[int]:
    """The bench and every process of the cloud's hosts (their trees are
    the sitting's own work)."""
    # pylint: disable=g-import-not-at-top
    from pkb_ext.local import network
    from pkb_ext.local import system

    # pylint: enable=g-import-not-at-top
    pids = [os.getpid()]
    for host in self.plan.hosts:
      pids += network.NetnsPids(host.netns)
    ips = {h.ip for h in self.plan.hosts}
    for pid in (int(p) for p in os.listdir('/proc') if p.isdigit()):
      if IsSshTo(system.Comm(pid), system.CmdLine(pid), ips):
        pids.append(pid)
    return pids

  def Placement(self) -> dict:
    """The CPU affinity of the bench and of each host's sshd (which every
    command of a host inherits)."""
    from pkb_ext.local import cloud  # pylint: disable=g-import-not-at-top

    out = {'bench': sorted(os.sched_getaffinity(0))}
    for name, host in cloud.LoadState(self.plan).get('hosts', {}).items():
      try:
        out[name] = sorted(os.sched_getaffinity(host.get('sshd_pid') or -1))
      except OSError:
        out[name] = None
    return out

  def Healthy(self) -> bool:
    from pkb_ext.local import cloud  # pylint: disable=g-import-not-at-top

    report = cloud.Status(self.plan)
    return (
        report['up']
        and all(h['sshd_alive'] for h in report['hosts'])
        and all(s['alive'] for s in report['services'].values())
        and bool(report['static_vm_file'])
    )

  def EnsureUp(self, log) -> str:
    """Brings the cloud up if it is not; returns its static VM file."""
    import subprocess  # pylint: disable=g-import-not-at-top

    from pkb_ext.local import cloud  # pylint: disable=g-import-not-at-top
    from pkb_ext.local import images  # pylint: disable=g-import-not-at-top

    healthy = self.Healthy()
    if healthy and self.plan.image != images.HOST_IMAGE:
      # Its hosts install tools as a cloud VM does; PKB's build of netperf
      # there retries a GitHub download for its whole timeout.
      raise RuntimeError(
          f'the local cloud at {self.state_dir} is up on image'
          f" {self.plan.image}; the bench compares this machine's tools on"
          f' hosts of image {images.HOST_IMAGE}: run `pkb-ext local down`'
          ' first, or pass --state-dir of another cloud'
      )
    if not healthy:
      if os.geteuid() != 0:
        raise RuntimeError(
            f'the local cloud at {self.state_dir} is not up, and bringing it'
            ' up needs root: run `sudo pkb-ext local up` or bench as root'
        )
      p = self.plan
      argv = [os.path.join(os.path.dirname(sys.executable), 'pkb-ext'),
              'local', 'up', '--prefix', p.prefix, '--subnet', p.subnet,
              '--ssh-port', str(p.ssh_port), '--disk-size', str(p.disk_gib),
              # The parts compare tools this machine has (installs off).
              '--image', images.HOST_IMAGE]  # fmt: skip
      log(f'local cloud {self.state_dir} is not up: {" ".join(argv[1:])}')
      proc = subprocess.run(
          argv, env=self.env, capture_output=True, text=True, check=False
      )
      if proc.returncode:
        raise RuntimeError(f'pkb-ext local up failed: {proc.stderr[-2000:]}')
      self.plan = cloud.PlanOf(self.state_dir)
    return cloud.LoadState(self.plan)['static_vm_file']


def Policy(args):
  """The sittings' bench_sitting.Policy from the command line."""
  from pkb_ext_dev import bench_sitting  # pylint: disable=g-import-not-at-top

  return bench_sitting.Policy(
      max_pairs=args.max_pairs,
      time_cap_s=args.time_cap,
      max_other_share=args.interference_max,
      hog_at_pair=args.hog_at_pair,
      hog_count=args.hog_cpus,
      hog_seconds=args.hog_seconds,
      order_seed=args.order_seed,
  )


def NewSitting(args, log, figure_of: dict, cloud_=None):
  """Returns (name, minimum pairs) -> a Sitting for the figure of name.

  Args:
    args: the command line.
    log: prints a progress line.
    figure_of: a part's names for its measurements -> figure keys.
    cloud_: the LocalCloud the pairs run on, or None (this machine only).
  """
  from pkb_ext_dev import bench_sitting  # pylint: disable=g-import-not-at-top

  policy = Policy(args)

  def New(name: str, min_pairs: int):
    _, op, target = FIGURES[figure_of[name]]
    return bench_sitting.Sitting(
        op,
        target,
        min_pairs,
        policy,
        roots=cloud_.OurPids if cloud_ else None,
        placement=cloud_.Placement if cloud_ else None,
        log=log,
    )

  return New


def _Paired(figure, summary, figures, details) -> None:
  """A paired figure's value and the evidence of its verdict."""
  figures[figure] = summary['ratio']
  details.setdefault('evidence', {})[figure] = EvidenceOf(summary)


_FIDELITY_FIGURES = {
    'io': 'fio_iops_ratio',
    'net': 'netperf_rr_ratio',
    'cpu': 'coremark_ratio',
}


def _Fidelity(cloud_, parts, args, figures, details, errors, log) -> None:
  from pkb_ext_dev import bench_fidelity  # pylint: disable=g-import-not-at-top

  wanted = [_FIDELITY[p] for p in parts if p in _FIDELITY]
  if not wanted:
    return
  static_vm_file = cloud_.EnsureUp(log)
  results = bench_fidelity.Measure(
      static_vm_file,
      wanted,
      args.seconds,
      args.pairs,
      log=log,
      fio_device=args.fio_device,
      fio_pairs=args.fio_pairs,
      fio_seconds=args.fio_seconds,
      new_sitting=NewSitting(args, log, _FIDELITY_FIGURES, cloud_),
  )
  details['fidelity'] = results
  for phase, figure in _FIDELITY_FIGURES.items():
    if phase in results and 'error' not in results[phase]:
      _Paired(figure, results[phase], figures, details)
    elif phase in results:
      errors[FIGURES[figure][0]] = results[phase]['error']


class _PartError(pkb_errors.Error):

  def __init__(self, part, message):
    super().__init__(message)
    self.part = part


def _Overhead(cloud_, args, figures, details, log) -> None:
  from pkb_ext_dev import bench_overhead  # pylint: disable=g-import-not-at-top
  from pkb_ext.suite import phase_modules  # pylint: disable=g-import-not-at-top

  cloud_.EnsureUp(log)
  work = tempfile.mkdtemp(prefix='pkb-ext-bench-overhead-', dir=args.work_dir)
  run_uri = 'bo' + format(int(time.time()) % 10**8, 'x')
  log(f'overhead: cloud_report_2021 smoke run (run_uri {run_uri}, {work})...')
  result = bench_overhead.SmokeRun(
      cloud_.env,
      cloud_.namespaces,
      work,
      run_uri,
      settings=ReportSettings(),
  )
  ran = {r.split(' ')[0] for r in result['tool_runs']}
  landed = phase_modules.LoadAll()
  result['phases_without_tool_runs'] = [
      p for p in landed if _PHASE_TOOLS[p] not in ran
  ]
  details['overhead'] = result
  if result['pkb_returncode']:
    raise _PartError(
        'overhead',
        f'pkb.py exited {result["pkb_returncode"]}; see {result["pkb_log"]}',
    )
  if result['phases_without_tool_runs']:
    raise _PartError(
        'overhead',
        'no tool run seen for phase(s) '
        + ', '.join(result['phases_without_tool_runs']),
    )
  figures['harness_s_per_run'] = result['harness_s']
  if 'at_report' in result:
    figures['harness_pct_at_report'] = result['at_report']['harness_share_pct']


def ReportSettings() -> tuple[dict[str, str], dict[str, str]]:
  """(report, smoke) values of bench_overhead.REPORT_SETTINGS: the flags'
  defaults and the smoke preset's values."""
  from absl import flags  # pylint: disable=g-import-not-at-top

  from pkb_ext.suite import phase_modules  # pylint: disable=g-import-not-at-top
  from pkb_ext.local import presets  # pylint: disable=g-import-not-at-top
  from pkb_ext_dev import bench_overhead  # pylint: disable=g-import-not-at-top

  phase_modules.LoadAll()  # defines the phases' flags
  smoke_flags = dict(f[2:].split('=', 1) for f in presets.PresetFlags('smoke'))
  report, smoke = {}, {}
  for name, flag in bench_overhead.REPORT_SETTINGS.items():
    default = flags.FLAGS[flag].default
    report[name] = str(default)
    smoke[name] = smoke_flags.get(flag, str(default))
  return report, smoke


def _VsPkb(cloud_, args, figures, details, log) -> None:
  from pkb_ext_dev import bench_vs_pkb  # pylint: disable=g-import-not-at-top

  static_vm_file = cloud_.EnsureUp(log)
  settings = bench_vs_pkb.Settings(
      pairs=args.vs_pkb_pairs,
      seconds=args.vs_pkb_seconds,
      fio_device=args.fio_device,
      tools=tuple(t for t in args.vs_pkb_tools.split(',') if t),
  )
  result = bench_vs_pkb.Measure(
      static_vm_file,
      cloud_.env,
      cloud_.namespaces,
      settings,
      log=log,
      work_dir=args.work_dir,
      new_sitting=NewSitting(args, log, _VS_PKB_FIGURES, cloud_),
  )
  details['vs_pkb'] = result
  for tool, figure in _VS_PKB_FIGURES.items():
    if tool in result['tools']:
      _Paired(figure, result['tools'][tool], figures, details)
  if result['errors']:
    raise _PartError(
        'vs_pkb',
        '; '.join(f'{t}: {m}' for t, m in result['errors'].items()),
    )
  _Paired('vs_pkb_harness_s_ratio', result['harness'], figures, details)


_VS_PKB_FIGURES = {
    'coremark': 'vs_pkb_coremark_ratio',
    'fio': 'vs_pkb_fio_iops_ratio',
    'netperf': 'vs_pkb_netperf_rr_ratio',
}


def _Calibrate(args, figures, details, log) -> None:
  from pkb_ext_dev import bench_calibrate  # pylint: disable=g-import-not-at-top

  new = NewSitting(args, log, {'calibrate': 'calibrate_ratio'})
  result = bench_calibrate.Measure(
      args.pairs, args.calibrate_seconds, new('calibrate', args.pairs), log
  )
  details['calibrate'] = result
  _Paired('calibrate_ratio', result, figures, details)


def _Stepping(figures, details, log) -> None:
  from pkb_ext_dev import bench_stepping  # pylint: disable=g-import-not-at-top

  out = io.StringIO()
  result = bench_stepping.Run(out=out)
  log(out.getvalue().rstrip())
  details['stepping'] = result
  figures['bisect_step_ratio'] = result['bisect_step_ratio']
  drifting = result['drifting']
  if not drifting['probe_agrees']:
    raise _PartError(
        'stepping',
        "tpcc_minutes_ratio_sim: probe missed linear's answer on"
        f' {len(drifting["disagreements"]["probe"])} simulated machine(s)',
    )
  figures['tpcc_minutes_ratio_sim'] = result['tpcc_search_minutes_ratio']


def _TpccEdge(args, figures, details, log) -> None:
  from pkb_ext_dev import bench_tpcc_edge  # pylint: disable=g-import-not-at-top

  if os.geteuid() != 0:
    raise _PartError(
        'tpcc_edge',
        "tpcc_edge brings up the local machine types' clouds: run the bench"
        ' as root',
    )
  out = io.StringIO()
  result = bench_tpcc_edge.Run(
      args.tpcc_edge_types.split(','), out=out, log=log, work_dir=args.work_dir
  )
  log(out.getvalue().rstrip())
  details['tpcc_edge'] = result
  if result['problems']:
    raise _PartError('tpcc_edge', '; '.join(result['problems']))
  figures['tpcc_search_minutes_ratio'] = result['tpcc_search_minutes_ratio']
  details.setdefault('figure_notes', {})['tpcc_search_minutes_ratio'] = (
      'measured: '
      + ', '.join(
          f'{t} {r:.3f}' for t, r in result['minutes_ratio_by_type'].items()
      )
  )


def _Publish(args, figures, details, log) -> None:
  from pkb_ext_dev import bench_publish  # pylint: disable=g-import-not-at-top

  out = io.StringIO()
  result = bench_publish.Run(out=out, n=args.samples)
  log(out.getvalue().rstrip())
  details['publish'] = result
  figures['ndjson_samples_per_s'] = result['ndjson_samples_per_s']
  if args.samples == bench_publish.SAMPLES:
    figures['bq_publish_100k_s'] = result['bq_publish_100k_s']


def _Plan(args, figures, details, log) -> None:
  from pkb_ext_dev import bench_plan  # pylint: disable=g-import-not-at-top

  result = bench_plan.VmHoursPerRow()
  details['plan'] = {'vm_hours': result}
  figures['vm_hours_per_row'] = result['vm_hours_per_row']
  figures['vm_hours_per_row_report'] = result['vm_hours_per_row_report']
  log(
      'plan: AWS gp2 matrix, VM-hours per configuration: fixtures + probe'
      f' {result["vm_hours_per_row"]:.2f}; linear + generation (the'
      f' report) {result["vm_hours_per_row_report"]:.2f}'
  )
  try:
    wall = bench_plan.WallTimeRatio(args.matrix_out)
  except FileNotFoundError:
    note = (
        "plan_wall_time_ratio needs a matrix run's record in"
        f' {args.matrix_out} (tests/matrix or make local-matrix)'
    )
    details['plan']['wall_time'] = note
    log(f'plan: {note}')
    return
  details['plan']['wall_time'] = wall
  figures['plan_wall_time_ratio'] = wall['plan_wall_time_ratio']
  log(
      f'plan: local matrix predicted {wall["predicted_s"]:.0f} s, measured'
      f' {wall["measured_s"]:.0f} s ({wall["record"]})'
  )


def Run(args, log=print) -> tuple[dict, dict, dict]:
  """Runs the asked parts; returns (figures, details, errors by part)."""
  parts = ParseParts(args.only)
  figures = dict.fromkeys(FIGURES)
  details = {
      'parts': parts,
      'started': time.strftime('%Y-%m-%dT%H:%M:%S%z'),
      'machine': {
          'cpus': os.cpu_count(),
          'loadavg_before': os.getloadavg(),
          'kernel': platform.release(),
      },
  }
  errors = {}
  cloud_ = None
  if any(p in _LOCAL_PARTS for p in parts):
    details['local_cloud'] = args.state_dir
    try:
      cloud_ = LocalCloud(args.state_dir)
    except (ValueError, OSError) as e:
      for p in _LOCAL_PARTS:
        if p in parts:
          errors[p] = f'local cloud {args.state_dir}: {e}'
      parts = [p for p in parts if p not in _LOCAL_PARTS]
  steps = [
      ('fidelity', lambda: _Fidelity(cloud_, parts, args, figures, details,
                                     errors, log)),
      ('overhead', lambda: _Overhead(cloud_, args, figures, details, log)),
      ('vs_pkb', lambda: _VsPkb(cloud_, args, figures, details, log)),
      ('stepping', lambda: _Stepping(figures, details, log)),
      ('publish', lambda: _Publish(args, figures, details, log)),
      ('calibrate', lambda: _Calibrate(args, figures, details, log)),
      ('plan', lambda: _Plan(args, figures, details, log)),
      ('tpcc_edge', lambda: _TpccEdge(args, figures, details, log)),
  ]  # fmt: skip
  for name, step in steps:
    names = ALIASES.get(name, (name,))
    if not any(p in parts for p in names):
      continue
    started = time.time()
    try:
      step()
    except _PartError as e:
      errors[e.part] = str(e)
    except Exception as e:  # pylint: disable=broad-except
      for p in names:
        if p in parts:
          errors[p] = f'{type(e).__name__}: {e}'
      details.setdefault('tracebacks', {})[name] = traceback.format_exc()
    details.setdefault('seconds', {})[name] = round(time.time() - started, 1)
  details['machine']['loadavg_after'] = os.getloadavg()
  details['targets'] = {
      k: TargetText(op, t) for k, (_, op, t) in FIGURES.items() if op
  }
  evidence = details.get('evidence', {})
  details['verdicts'] = {
      k: Verdict(k, v, evidence.get(k)) for k, v in figures.items()
  }
  details['errors'] = errors
  details['exit_status'] = ExitStatus(details['verdicts'], errors)
  details['sitting'] = dataclasses.asdict(Policy(args))
  return figures, details, errors


def BuildParser() -> argparse.ArgumentParser:
  from pkb_ext.local import layout  # pylint: disable=g-import-not-at-top

  parser = command.ArgumentParser(
      prog=PROG, description=__doc__.splitlines()[0]
  )
  parser.add_argument('--out', required=True, help='JSON file to write')
  parser.add_argument(
      '--only', default='all', help=f'parts: {", ".join(PARTS)}, fidelity'
  )
  parser.add_argument(
      '--state-dir',
      default=layout.DefaultStateDir(),
      help='the local cloud (default %(default)s)',
  )
  parser.add_argument(
      '--matrix-out',
      default=os.path.join(paths.RepoRoot(), 'out', 'plan-check'),
      help=(
          "a local matrix run's record that plan is checked against"
          ' (tests/matrix keeps its own in the default, %(default)s; make'
          ' local-matrix leaves one in out/matrix)'
      ),
  )
  parser.add_argument(
      '--pairs',
      type=int,
      default=5,
      help='phase/raw pairs per tool (at least: see --max-pairs)',
  )
  parser.add_argument(
      '--seconds', type=int, default=10, help='seconds per fio/netperf run'
  )
  parser.add_argument(
      '--fio-device',
      default='tmpfs',
      choices=('tmpfs', 'disk'),
      help=(
          "fio fidelity's device: a loop device over /dev/shm (quiet) or"
          " db1's data disk"
      ),
  )
  parser.add_argument(
      '--fio-pairs',
      type=int,
      default=20,
      help='phase/raw pairs for fio (at least)',
  )
  parser.add_argument(
      '--fio-seconds', type=int, default=3, help='seconds per fio run'
  )
  parser.add_argument(
      '--samples',
      type=int,
      default=100_000,
      help='samples to spool and publish (bq_publish_100k_s needs 100000)',
  )
  parser.add_argument(
      '--vs-pkb-pairs',
      type=int,
      default=3,
      help='ours/PKB pairs per tool (at least)',
  )
  parser.add_argument(
      '--vs-pkb-seconds',
      type=int,
      default=5,
      help='vs_pkb: seconds of each fio and netperf run',
  )
  parser.add_argument(
      '--vs-pkb-tools',
      default='coremark,fio,netperf',
      help='vs_pkb: which of coremark, fio, netperf',
  )
  parser.add_argument(
      '--work-dir',
      default=None,
      help='where the overhead and vs_pkb runs keep their logs',
  )
  parser.add_argument(
      '--max-pairs',
      type=int,
      default=30,
      help=(
          'a paired figure gets pairs added until its verdict is PASS or'
          ' MISS, up to this many (default %(default)s; at least its minimum)'
      ),
  )
  parser.add_argument(
      '--time-cap',
      type=float,
      default=600.0,
      help=(
          'seconds per paired figure after which no pair is added (default'
          ' %(default)s)'
      ),
  )
  parser.add_argument(
      '--interference-max',
      type=float,
      default=0.10,
      help=(
          "flag a pair when other processes' CPU seconds and steal exceed"
          " this share of the machine's CPU time (default %(default)s)"
      ),
  )
  parser.add_argument(
      '--hog-at-pair',
      type=int,
      default=0,
      help=(
          'start a bounded CPU hog between the two runs of this pair (1 ='
          ' the first) of each paired figure; 0: none'
      ),
  )
  parser.add_argument(
      '--hog-cpus',
      type=int,
      default=0,
      help='busy loops of the hog (default: one per CPU)',
  )
  parser.add_argument(
      '--hog-seconds',
      type=float,
      default=30.0,
      help=(
          'the hog ends by itself after this long; the bench stops it at the'
          ' next pair boundary (default %(default)s)'
      ),
  )
  parser.add_argument(
      '--order-seed',
      type=int,
      default=None,
      help=(
          "seed of the pairs' run order (blocks of two pairs, AB BA or BA"
          ' AB, drawn at random); default: a fresh one, kept in the JSON'
      ),
  )
  parser.add_argument(
      '--tpcc-edge-types',
      default='local-s,local-m,local-l',
      help=(
          'tpcc_edge: the local machine types to measure on, comma-separated'
          ' (default %(default)s)'
      ),
  )
  parser.add_argument(
      '--calibrate-seconds',
      type=float,
      default=1.0,
      help='calibrate: about how long each busy-loop run takes',
  )
  return parser


def _CheckArgs(args) -> None:
  """Refuses options the bench cannot use.

  Raises:
    pkb_errors.UsageError: an option is out of range or cannot be used.
  """
  try:
    ParseParts(args.only)
  except ValueError as e:
    raise pkb_errors.UsageError(str(e)) from e
  if min(args.pairs, args.seconds, args.samples, args.fio_seconds,
         args.vs_pkb_pairs, args.vs_pkb_seconds) < 1:  # fmt: skip
    raise pkb_errors.UsageError(
        '--pairs, --seconds, --fio-seconds, --samples, --vs-pkb-pairs and'
        ' --vs-pkb-seconds must be >= 1'
    )
  if args.fio_pairs < _IntervalPairs():
    raise pkb_errors.UsageError(
        f'--fio-pairs must be >= {_IntervalPairs()} (the interval of a'
        f' trimmed mean needs {_IntervalPairs()} pairs)'
    )
  problem = SittingArgsProblem(args) or TpccEdgeTypesProblem(args)
  if problem:
    raise pkb_errors.UsageError(problem)
  if args.work_dir:
    try:
      os.makedirs(args.work_dir, exist_ok=True)
    except OSError as e:
      raise pkb_errors.UsageError(f'--work-dir: {e}') from e


def _Bench(argv: list[str]) -> int:
  args = BuildParser().parse_args(argv)
  _CheckArgs(args)

  def Log(line):
    print(line, file=sys.stderr, flush=True)

  figures, details, errors = Run(args, log=Log)
  with open(args.out + '.tmp', 'w') as f:
    json.dump(figures | {'details': details}, f, indent=1, default=str)
  os.replace(args.out + '.tmp', args.out)
  print(
      Table(
          figures,
          errors,
          details.get('evidence'),
          details.get('figure_notes'),
      )
  )
  for line in Notes(details):
    print(line)
  for part, message in errors.items():
    print(f'{part}: {message}', file=sys.stderr)
  print(f'wrote {args.out}')
  return details['exit_status']


def Main(argv: list[str]) -> int:
  return command.Run(PROG, _Bench, argv)


def _IntervalPairs() -> int:
  """The fewest unflagged pairs whose figure has an interval."""
  from pkb_ext_dev import bench_sitting  # pylint: disable=g-import-not-at-top

  return bench_sitting.MIN_PAIRS


def TpccEdgeTypesProblem(args) -> str | None:
  """What is wrong with --tpcc-edge-types, or None."""
  from pkb_ext.local import machine_types  # pylint: disable=g-import-not-at-top

  names = args.tpcc_edge_types.split(',')
  unknown = [n for n in names if n not in machine_types.NAMES]
  if unknown or len(set(names)) != len(names):
    return (
        f'--tpcc-edge-types {args.tpcc_edge_types}: name each of'
        f' {", ".join(machine_types.NAMES)} at most once, comma-separated'
    )
  return None


def SittingArgsProblem(args) -> str | None:
  """What is wrong with the sitting's options, or None."""
  import math  # pylint: disable=g-import-not-at-top

  numbers = (args.time_cap, args.interference_max, args.hog_seconds,
             args.calibrate_seconds)  # fmt: skip
  if not all(math.isfinite(v) for v in numbers):
    return ('--time-cap, --interference-max, --hog-seconds and'
            ' --calibrate-seconds must be finite numbers')  # fmt: skip
  if args.max_pairs < _IntervalPairs():
    return (
        f'--max-pairs must be >= {_IntervalPairs()} (the interval of a'
        f' trimmed mean needs {_IntervalPairs()} pairs)'
    )
  if args.time_cap < 0 or args.interference_max <= 0:
    return '--time-cap must be >= 0 and --interference-max > 0'
  if args.hog_at_pair < 0 or args.hog_cpus < 0:
    return '--hog-at-pair and --hog-cpus must be >= 0'
  if args.hog_seconds <= 0 or args.calibrate_seconds <= 0:
    return '--hog-seconds and --calibrate-seconds must be > 0'
  return None


if __name__ == '__main__':
  sys.exit(Main(sys.argv[1:]))
