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
"""A bench sitting: three verdicts, interference per pair, more pairs.

Verdicts. A ratio measured in pairs is the 20 % trimmed mean of its pair
ratios (TrimmedMean) and gets the 95 % confidence interval of that trimmed
mean (TrimmedInterval, Yuen's), and a verdict from the interval, never from
the point value alone:

  PASS          the whole interval meets the target;
  MISS          none of it does;
  INCONCLUSIVE  it lies across the target, or fewer than 6 unflagged pairs
                are left to make one (MIN_PAIRS).

Trimmed, because on a shared machine a rare pair lies far off with nothing
to see in /proc: one or two such pairs widen the t interval of the mean
enough to leave a figure undecided at the pair cap, while the median's
interval (order statistics) is wider: on normally distributed pairs it
needs about 1.6 times the pairs of the mean's for the same width.

Interference. Each pair records what else used the machine while it ran,
from /proc (pkb_ext.local.system): the 1-minute load average at its start
and end, the machine's busy CPU seconds (user + nice + system), the CPU
seconds of the bench's own processes, of kernel threads, of every other
process, and steal. "Ours" is the bench
process and its descendants plus, on the local cloud, every process of the
cloud's network namespaces and their descendants (a process's own and its
reaped children's CPU seconds); the bench's own CPU hog (below) is not
ours. Then

  other_cpu_s  = busy - ours - kernel_cpu_s (at least 0): the CPU
                 seconds of processes that are neither ours nor kernel
                 threads. (Summing other processes' own times instead
                 would count a long job's whole CPU time in the pair in
                 which its parent reaps it.)
  other_share  = (other_cpu_s + steal) / (wall seconds x CPUs)

Kernel threads (kernel_cpu_s) are reported but do not flag a pair: on a
quiet machine most of their time is the kernel's work for our own runs
(the loop device under fio, softirq threads under netperf's traffic),
which would otherwise flag every fio and netperf pair; other work's own
I/O is still seen through its processes.

and a pair is flagged when other_share exceeds the threshold in either of
its runs (each run is measured on its own as well: work that disturbs one
run skews the ratio, yet over the whole pair its share is about halved;
`runs` in the note), or when its
two runs did not run under the same CPU placement (the CPU affinity of
the processes that start them). Flagged pairs are kept in the JSON and
left out of the interval and the verdict.

More pairs. After the minimum (of unflagged pairs: a flagged pair is
replaced), pairs are added one at a time until the verdict is PASS or MISS,
or a pair cap or a time cap is reached; then the verdict is what the
interval says, INCONCLUSIVE included, and INCONCLUSIVE with fewer unflagged
pairs than the minimum. The run order is drawn (RawFirst). For a range target a PASS means the interval became narrower
than the band and lies in it.

The hog. With hog_at_pair=K the sitting starts CpuHogs (pkb_ext_dev.load)
between the two runs of pair K, each bounded to hog_seconds, and stops them
by PID at the first pair boundary after that bound (or when the sitting
ends): a disturbance that starts mid-sitting, as other work on a shared
machine does.
"""

import dataclasses
import json
import os
import random
import statistics
import time

PASS, MISS, INCONCLUSIVE = 'PASS', 'MISS', 'INCONCLUSIVE'
DEFAULT_MAX_OTHER_SHARE = 0.10


TRIM = 0.2  # the share of pair ratios trimmed from each end


# The fewest pairs with an interval. Of 4 or 5 pairs the trimmed mean keeps
# 2 or 3, whose spread says too little about the pairs': two close by
# chance make a narrow interval, and identical runs under load a MISS.
MIN_PAIRS = 6


def _Trimmed(values, trim: float):
  """(sorted values, g trimmed from each end): floor(trim x n), at least 1
  of 3 or more values."""
  ordered = sorted(values)
  n = len(ordered)
  return ordered, max(int(trim * n), 1 if n >= 3 else 0)


def TrimmedMean(values, trim: float = TRIM) -> float:
  """The mean of values after the lowest and highest `trim` are dropped.

  g = floor(trim x n) values go from each end, and at least one of 3 or
  more (so of 3 or 4 values it is their median): how far a pair far off
  moves it does not grow with how far off it lies, yet it averages the
  middle pairs, so on quiet pairs its interval is about as narrow as the
  mean's.

  Raises:
    ValueError: no values.
  """
  if not values:
    raise ValueError('no values')
  ordered, g = _Trimmed(values, trim)
  return statistics.fmean(ordered[g : len(ordered) - g])


def TrimmedInterval(values, trim: float = TRIM):
  """The 95 % confidence interval of the trimmed mean (Yuen), or None.

  With n values, g trimmed from each end (TrimmedMean) and h = n - 2g
  left: the trimmed mean +- t(0.975, h - 1) x se, where se^2 =
  (n - 1) s_w^2 / (h (h - 1)) and s_w^2 is the variance of the winsorized
  values (each trimmed one replaced by the nearest kept one) (Tukey and
  McLaughlin 1963; Yuen 1974).

  Returns:
    (low, high), or None below MIN_PAIRS values.
  """
  # pylint: disable=g-import-not-at-top,import-outside-toplevel
  from pkb_ext_dev import bench_fidelity

  if len(values) < MIN_PAIRS:
    return None
  ordered, g = _Trimmed(values, trim)
  n, h = len(ordered), len(ordered) - 2 * g
  kept = ordered[g : n - g]
  winsorized = [kept[0]] * g + kept + [kept[-1]] * g
  se = ((n - 1) * statistics.variance(winsorized) / (h * (h - 1))) ** 0.5
  center, half = statistics.fmean(kept), bench_fidelity.T975(h - 1) * se
  return center - half, center + half


def IntervalVerdict(op: str, target, low: float, high: float) -> str:
  """PASS, MISS or INCONCLUSIVE of an interval [low, high] against a target.

  Args:
    op: '>=', '<=' or 'in' (a range, both ends included).
    target: a number, or (low, high) for 'in'.
    low: the interval's low end.
    high: its high end (a point value: low == high).

  Raises:
    ValueError: an unknown comparison.
  """
  if op == 'in':
    t_low, t_high = target
    inside = t_low <= low and high <= t_high
    outside = high < t_low or low > t_high
  elif op == '>=':
    inside, outside = low >= target, high < target
  elif op == '<=':
    inside, outside = high <= target, low > target
  else:
    raise ValueError(f'unknown comparison {op!r}')
  if inside:
    return PASS
  return MISS if outside else INCONCLUSIVE


def Evidence(pair_ratios, interference=()) -> dict:
  """The unflagged pair ratios and the 95 % interval of their trimmed mean.

  Args:
    pair_ratios: every pair's ratio, in order.
    interference: per pair, a dict with 'flagged' (missing: unflagged).

  Returns:
    {'used': [ratios], 'flagged_pairs': [1-based pair numbers], 'ci95':
    TrimmedInterval of the used (None: fewer than MIN_PAIRS)}.
  """
  notes = list(interference) + [{}] * (len(pair_ratios) - len(interference))
  flagged = [i + 1 for i, n in enumerate(notes) if n.get('flagged')]
  used = [r for r, n in zip(pair_ratios, notes) if not n.get('flagged')]
  return {
      'used': used,
      'flagged_pairs': flagged,
      'ci95': TrimmedInterval(used),
  }


def PairVerdict(op: str, target, evidence: dict, min_pairs: int = 0) -> str:
  """The verdict of a paired figure: its interval's.

  Args:
    op: the figure's comparison ('>=', '<=', 'in').
    target: its target.
    evidence: Evidence() of its pairs.
    min_pairs: the unflagged pairs a verdict needs; with fewer (a sitting
      that reached its time or pair cap while pairs were being flagged), or
      with no interval, it is INCONCLUSIVE.
  """
  ci = evidence['ci95']
  if ci is None or len(evidence['used']) < min_pairs:
    return INCONCLUSIVE
  return IntervalVerdict(op, target, *ci)


# --- interference ---


_PF_KTHREAD = 0x00200000  # /proc/PID/stat flags: a kernel thread


def _ProcessTable() -> dict[int, list[str]]:
  # pylint: disable=g-import-not-at-top,import-outside-toplevel
  from pkb_ext.local import system

  table = {}
  for name in os.listdir('/proc'):
    if name.isdigit():
      fields = system.StatFields(int(name))
      if fields is not None:
        table[int(name)] = fields
  return table


def _Ticks(fields: list[str]) -> int:
  """utime + stime + cutime + cstime of one /proc/PID/stat."""
  return sum(int(v) for v in fields[11:15])


def _Tree(table, roots, exclude=()) -> set[int]:
  """The PIDs of `roots` and their descendants, `exclude` subtrees left out."""
  children = {}
  for pid, fields in table.items():
    children.setdefault(int(fields[1]), []).append(pid)
  skip = set(exclude)
  seen, todo = set(), [p for p in roots if p in table]
  while todo:
    pid = todo.pop()
    if pid in seen or pid in skip:
      continue
    seen.add(pid)
    todo.extend(children.get(pid, ()))
  return seen


def _IsKernelThread(pid: int, fields: list[str]) -> bool:
  return pid == 2 or int(fields[1]) == 2 or bool(int(fields[6]) & _PF_KTHREAD)


def Accounts(roots, exclude=()) -> dict:
  """One /proc snapshot: our ticks and each kernel thread's.

  Returns:
    {'ours': ticks of our trees (own and reaped children's), 'kernel':
    {pid: (start time, own ticks)} of every kernel thread (the kernel's
    work, much of it on our behalf: loop devices, network softirq
    threads)}.
  """
  table = _ProcessTable()
  ours = _Tree(table, roots, exclude)
  kernel = {
      pid: (fields[19], sum(int(v) for v in fields[11:13]))
      for pid, fields in table.items()
      if pid not in ours and _IsKernelThread(pid, fields)
  }
  return {'ours': sum(_Ticks(table[p]) for p in ours), 'kernel': kernel}


def GrowthTicks(before: dict, after: dict) -> int:
  """Ticks the processes of two {pid: (start time, ticks)} used in between.

  A process in both counts its growth; one that started in between counts
  all of its ticks; a recycled PID (another start time) counts as new. One
  that ended in between is not seen (for kernel threads: a short-lived
  worker's time then counts as others').
  """
  total = 0
  for pid, (start, ticks) in after.items():
    was = before.get(pid)
    total += ticks - was[1] if was and was[0] == start else ticks
  return max(total, 0)


class Monitor:
  """Takes /proc snapshots and says what else ran between two of them."""

  def __init__(
      self,
      roots=None,
      exclude=None,
      placement=None,
      max_other_share: float = DEFAULT_MAX_OTHER_SHARE,
      cpus: int | None = None,
  ):
    """Args:

    roots: returns the PIDs whose trees are ours (default: this process).
    exclude: returns PIDs that are not ours even inside those trees.
    placement: returns the CPU placement a run starts under (default: this
      process's CPU affinity).
    max_other_share: flag a pair above this share of the machine's CPU
      time used by others (and steal).
    cpus: the machine's CPUs (default os.cpu_count()).
    """
    self._roots = roots or (lambda: [os.getpid()])
    self._exclude = exclude or (lambda: ())
    self.placement = placement or (lambda: sorted(os.sched_getaffinity(0)))
    self.max_other_share = max_other_share
    self.cpus = cpus or os.cpu_count()
    self._ticks = os.sysconf('SC_CLK_TCK')

  def Take(self) -> dict:
    # pylint: disable=g-import-not-at-top,import-outside-toplevel
    from pkb_ext.local import system

    accounts = Accounts(self._roots(), self._exclude())
    return {
        'at': time.monotonic(),
        'machine': system.MachineCpuTicks(),
        'ours': accounts['ours'],
        'kernel': accounts['kernel'],
        'loadavg_1m': os.getloadavg()[0],
    }

  def _Used(self, before: dict, after: dict) -> dict:
    """The CPU seconds each kind of process used from before to after."""
    wall = max(after['at'] - before['at'], 1e-9)
    busy = (after['machine']['busy'] - before['machine']['busy']) / self._ticks
    steal = (
        after['machine']['steal'] - before['machine']['steal']
    ) / self._ticks
    ours = (after['ours'] - before['ours']) / self._ticks
    kernel = GrowthTicks(before['kernel'], after['kernel']) / self._ticks
    other = max(busy - ours - kernel, 0.0)
    return {
        'wall_s': wall,
        'busy_cpu_s': busy,
        'ours_cpu_s': ours,
        'other_cpu_s': other,
        'kernel_cpu_s': kernel,
        'steal_s': steal,
        'other_share': (other + steal) / (wall * self.cpus),
    }

  def Between(
      self, before: dict, after: dict, placements=(), mid: dict | None = None
  ) -> dict:
    """What else used the machine from `before` to `after`.

    Args:
      before: a Take().
      after: a later Take().
      placements: the CPU placement of each run of the pair.
      mid: a Take() between the pair's two runs, or None. With it each run
        is held to the threshold on its own: work that disturbs one run
        skews the pair's ratio, yet over the whole pair its share is about
        halved.
    """
    used = self._Used(before, after)
    parts = [('', used)]
    runs = []
    if mid is not None:
      runs = [self._Used(before, mid), self._Used(mid, after)]
      parts = [(f' during run {n + 1}', r) for n, r in enumerate(runs)]
    reasons = [
        f'others used {r["other_share"]:.0%} of the CPU time{where}'
        f' (threshold {self.max_other_share:.0%})'
        for where, r in parts
        if r['other_share'] > self.max_other_share
    ]
    if len({json.dumps(p, sort_keys=True) for p in placements}) > 1:
      reasons.append('its runs had different CPU placements')
    note = {
        'wall_s': round(used['wall_s'], 3),
        'loadavg_1m': [before['loadavg_1m'], after['loadavg_1m']],
        'busy_cpu_s': round(used['busy_cpu_s'], 2),
        'ours_cpu_s': round(used['ours_cpu_s'], 2),
        'other_cpu_s': round(used['other_cpu_s'], 2),
        'kernel_cpu_s': round(used['kernel_cpu_s'], 2),
        'steal_s': round(used['steal_s'], 2),
        'other_share': round(used['other_share'], 4),
        'placement': list(placements),
        'flagged': bool(reasons),
        'reasons': reasons,
    }
    if runs:
      note['runs'] = [
          {
              'wall_s': round(r['wall_s'], 3),
              'other_cpu_s': round(r['other_cpu_s'], 2),
              'steal_s': round(r['steal_s'], 2),
              'other_share': round(r['other_share'], 4),
          }
          for r in runs
      ]
    return note


# --- the sitting ---


@dataclasses.dataclass(frozen=True)
class Policy:
  """How many pairs, the interference threshold and the hog."""

  max_pairs: int = 30
  time_cap_s: float = 600.0
  max_other_share: float = DEFAULT_MAX_OTHER_SHARE
  hog_at_pair: int = 0  # 1-based; 0: no hog
  hog_count: int = 0  # 0: one per CPU
  hog_seconds: float = 30.0
  # Seed of the run order: each block of two pairs runs AB then BA or BA
  # then AB, at random (None: a fresh seed, recorded in Details).
  order_seed: int | None = None


class Sitting:
  """The pair loop's hooks for one figure (pkb_ext_dev.fidelity.Abba)."""

  def __init__(
      self,
      op: str,
      target,
      min_pairs: int,
      policy: Policy = Policy(),
      roots=None,
      placement=None,
      log=None,
      clock=time.monotonic,
  ):
    """Args:

    op: the figure's comparison ('>=', '<=', 'in').
    target: its target.
    min_pairs: pairs always taken.
    policy: caps, threshold, hog.
    roots: returns the PIDs whose trees are ours (Monitor).
    placement: returns the CPU placement a run starts under (Monitor).
    log: prints a progress line.
    clock: monotonic seconds (for the time cap).
    """
    self.op, self.target = op, target
    self.min_pairs = min_pairs
    self.max_pairs = max(policy.max_pairs, min_pairs)
    self.policy = policy
    self.monitor = Monitor(
        roots=roots,
        exclude=lambda: self._hog.pids if self._hog else (),
        placement=placement,
        max_other_share=policy.max_other_share,
    )
    self._log = log or (lambda line: None)
    self._clock = clock
    self._started = None
    self._before = None
    self._mid = None  # a Take() between the two runs of the pair
    self._placements = []
    self._hog = None
    self._hog_started = None
    self.hog = None  # what the hog did, once started
    self.stop_reason = None
    self.order_seed = (
        policy.order_seed
        if policy.order_seed is not None
        else random.SystemRandom().randrange(2**32)
    )
    self._order = random.Random(self.order_seed)
    self._raw_first = []

  def RawFirst(self, i: int) -> bool:
    """Whether pair i runs raw first: balanced blocks in random order.

    Strict alternation (AB, BA, AB, ...) lines up with a machine whose speed
    swings with a period of four runs: such a swing then favours one side in
    every pair (it was seen: identical busy loops, 11 quiet pairs, all
    A/B > 1). Each block of two pairs still runs one AB and one BA, so an
    effect of running first cancels, but which comes first is drawn, so a
    periodic swing becomes noise in the interval instead of a bias.
    """
    while len(self._raw_first) <= i:
      if len(self._raw_first) % 2 == 0:
        self._raw_first.append(self._order.random() < 0.5)
      else:
        self._raw_first.append(not self._raw_first[-1])
    return self._raw_first[i]

  def BeginPair(self, i: int) -> None:
    del i
    if self._started is None:
      self._started = self._clock()
    self._placements = []
    self._mid = None
    self._before = self.monitor.Take()

  def BeforeRun(self, i: int, n: int) -> None:
    """Before run n (0 or 1) of pair i: the hog starts before run 1."""
    from pkb_ext_dev import load  # pylint: disable=g-import-not-at-top

    if n == 1:
      self._mid = self.monitor.Take()
    if n == 1 and i + 1 == self.policy.hog_at_pair and self._hog is None:
      count = self.policy.hog_count or self.monitor.cpus
      self._hog = load.CpuHogs(count, self.policy.hog_seconds).Start()
      self._hog_started = time.monotonic()
      self.hog = {'started_in_pair': i + 1, 'pids': list(self._hog.pids)}
      self._log(
          f'  hog: {count} CPU hog(s) {list(self._hog.pids)} started in pair'
          f' {i + 1}, bounded to {self.policy.hog_seconds:g} s'
      )
    self._placements.append(self.monitor.placement())

  def EndPair(self, i: int) -> dict:
    note = self.monitor.Between(
        self._before, self.monitor.Take(), self._placements, mid=self._mid
    )
    note['pair'] = i + 1
    note['raw_first'] = self.RawFirst(i)
    if (
        self._hog is not None
        and self._hog.report is None
        and time.monotonic() - self._hog_started >= self.policy.hog_seconds
    ):
      self.StopHog(i + 1)
    if note['flagged']:
      self._log(f'  pair {i + 1} flagged: {"; ".join(note["reasons"])}')
    return note

  def End(self) -> None:
    """The pair loop ended (or failed): the hog, if running, is stopped."""
    self.StopHog()

  def StopHog(self, after_pair: int | None = None) -> None:
    if self._hog is None or self._hog.report is not None:
      return
    report = self._hog.Stop(check=False)
    self.hog.update(
        stopped_after_pair=after_pair,
        wall_s=round(report.wall_s, 1),
        cpu_s=[round(c, 1) for c in report.cpu_s],
        summary=report.Summary(),
    )

  def More(self, pairs) -> bool:
    """Whether to take another pair (called once the minimum is taken)."""
    n = len(pairs.phase)
    evidence = Evidence(pairs.pair_ratios, pairs.interference)
    # A flagged pair does not count towards the minimum: it is replaced.
    if PairVerdict(self.op, self.target, evidence, self.min_pairs) in (
        PASS,
        MISS,
    ):
      self.stop_reason = 'decided'
    elif n >= self.max_pairs:
      self.stop_reason = f'pair cap ({self.max_pairs})'
    elif self._clock() - self._started >= self.policy.time_cap_s:
      self.stop_reason = f'time cap ({self.policy.time_cap_s:g} s)'
    else:
      return True
    return False

  def Details(self) -> dict:
    return {
        'min_pairs': self.min_pairs,
        'max_pairs': self.max_pairs,
        'time_cap_s': self.policy.time_cap_s,
        'max_other_share': self.policy.max_other_share,
        'stop_reason': self.stop_reason,
        'hog': self.hog,
        'order_seed': self.order_seed,
    }
