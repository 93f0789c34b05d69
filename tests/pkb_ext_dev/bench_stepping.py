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
"""Benchmark: steps and step-minutes of the stepping strategies.

Two sets of simulated machines, over the report's grid (2,500 to 5,000 by
250), searched through benchmarks.cloud_report.tpcc.stepping:

Ideal machines (CapacityCurve): newOrder p90 grows as a queue's does,
p90(w) = base / (1 - w / knee), the same in every run of any length, with
the knee placed so that the machine passes the report's rule (p90 < 5 s) up
to `capacity` warehouses. One machine per level of the grid; linear and
bisect must agree on each. bisect_step_ratio (bisect's steps over linear's)
is 43/76 = 0.566 here, and no search can do much better on this grid:
telling 11 edges apart takes log2(11) = 3.46 runs on average, half of
linear's 6.9, before any confirmation run (tests/unit/test_stepping.py
checks that 43 is the fewest any bisection with the confirmation rule
needs).

Drifting machines (Machine), which make short probes risky: the capacity
during a run is lower just after the start (warm-up, decaying over a few
minutes) and falls steadily over the run (latency creeping up over 30
minutes), and every minute's p90 carries noise. A run's p90 is the 90th
percentile of its minutes' p90s, so a 5-minute probe sees mostly the early,
faster minutes (it can pass where the 30-minute run fails) and fewer,
noisier ones. Several machines per edge, with different warm-up, creep and
noise draws, all built so that a noise-free 30-minute run passes at the edge
and fails at the next level. Each (level, length, nth run at that level and
length) draws its noise from the machine's seed, so two strategies that run
a level at full length see the same run: the figures compare searches, not
lucky runs. linear, bisect and probe run on every machine; the figure
tpcc_search_minutes_ratio (probe's step-minutes over linear's) counts only
if probe found linear's answer on every machine. A full step is the ramp
plus 30 minutes (31); a probe the ramp plus PROBE_MINUTES.

  python -m pkb_ext_dev.bench_stepping
"""

import dataclasses
import math
import random
import sys

from benchmarks.cloud_report.tpcc import pass_rules
from benchmarks.cloud_report.tpcc import stepping

START, STEP, MAXIMUM = 2500, 250, 5000
RAMP_MINUTES = 1
FULL_MINUTES = 30
PROBE_MINUTES = 5  # the default of --cloud_report_tpcc_probe_duration
MINUTES_PER_STEP = RAMP_MINUTES + FULL_MINUTES
MACHINES_PER_EDGE = 4
LIMIT_MS = 5000.0
SATURATED_MS = 60_000.0  # requests time out


@dataclasses.dataclass(frozen=True)
class CapacityCurve:
  """A simulated machine: passes `report` up to `capacity` warehouses."""

  capacity: float
  base_p90_ms: float = 300.0
  limit_ms: float = LIMIT_MS
  peak_efficiency_pct: float = 97.0

  @property
  def knee(self) -> float:
    # p90(capacity + 0.5) == limit: capacity passes, capacity + 1 fails.
    return (self.capacity + 0.5) / (1 - self.base_p90_ms / self.limit_ms)

  def P90Ms(self, warehouses: float) -> float:
    if warehouses >= self.knee:
      return SATURATED_MS
    return self.base_p90_ms / (1 - warehouses / self.knee)

  def Measure(
      self, warehouses: int, iteration: int = 0
  ) -> stepping.Measurement:
    """A stepping measure callback: the simulated run at `warehouses`."""
    del iteration
    p90 = self.P90Ms(warehouses)
    served = min(warehouses, self.capacity) / warehouses
    efficiency = self.peak_efficiency_pct * served
    return stepping.Measurement(metrics=_Metrics(warehouses, p90, efficiency))


def _Metrics(warehouses: float, p90: float, efficiency: float) -> dict:
  return {
      'tpmc': 12.86 * warehouses * efficiency / 100,
      'efficiency_pct': efficiency,
      'p50_ms': p90 / 2,
      'p90_ms': p90,
      'p95_ms': p90 * 1.3,
      'p99_ms': p90 * 2,
      'max_ms': p90 * 4,
  }


@dataclasses.dataclass(frozen=True)
class Machine:
  """A simulated machine whose capacity drifts during a run.

  Attributes:
    knee: warehouses at which the queue saturates, at the start of a run
      once warmed up.
    creep: fraction of the knee lost by the end of a 31-minute step.
    warmup: fraction of the knee missing at the step's start, decaying with
      time constant warmup_minutes.
    noise: sigma of each minute's p90 (log scale).
    seed: the machine's noise seed.
  """

  knee: float
  creep: float = 0.08
  warmup: float = 0.10
  warmup_minutes: float = 2.0
  noise: float = 0.08
  seed: str = '0'
  base_p90_ms: float = 300.0
  peak_efficiency_pct: float = 97.0

  def KneeAt(self, minute: float) -> float:
    drift = 1 - self.creep * minute / MINUTES_PER_STEP
    cold = 1 - self.warmup * math.exp(-minute / self.warmup_minutes)
    return self.knee * drift * cold

  def MinuteP90s(
      self, warehouses: float, minutes: int, draw: random.Random | None
  ) -> list[float]:
    """p90 of each measured minute of a run (after the ramp)."""
    out = []
    for i in range(minutes):
      knee = self.KneeAt(RAMP_MINUTES + i + 0.5)
      if warehouses >= knee:
        p90 = SATURATED_MS
      else:
        p90 = self.base_p90_ms / (1 - warehouses / knee)
        if draw is not None:
          p90 = min(SATURATED_MS, p90 * math.exp(draw.gauss(0, self.noise)))
      out.append(p90)
    return out

  def P90Ms(
      self, warehouses: float, minutes: int, draw: random.Random | None = None
  ) -> float:
    """The run's p90: the 90th percentile (nearest rank) of its minutes."""
    p90s = sorted(self.MinuteP90s(warehouses, minutes, draw))
    return p90s[math.ceil(0.9 * len(p90s)) - 1]

  def Run(
      self, warehouses: int, minutes: int, nth: int = 0
  ) -> stepping.Measurement:
    """The nth simulated run of `minutes` at `warehouses` (seeded)."""
    draw = random.Random(f'{self.seed}:{warehouses}:{minutes}:{nth}')
    p90 = self.P90Ms(warehouses, minutes, draw)
    mean_knee = (
        sum(self.KneeAt(RAMP_MINUTES + i + 0.5) for i in range(minutes))
        / minutes
    )
    efficiency = self.peak_efficiency_pct * min(1.0, mean_knee / warehouses)
    return stepping.Measurement(
        metrics=_Metrics(warehouses, p90, efficiency)
        | {'elapsed_s': minutes * 60.0}
    )

  def Callbacks(self):
    """(measure, probe_measure) for one search; counts repeated runs."""
    runs = {}

    def Make(minutes):
      def Measure(level, iteration):
        del iteration
        nth = runs.get((level, minutes), 0)
        runs[(level, minutes)] = nth + 1
        return self.Run(level, minutes, nth)

      return Measure

    return Make(FULL_MINUTES), Make(PROBE_MINUTES)


def MachineWithEdge(
    capacity: float, creep: float, warmup: float, noise: float, seed: str
) -> Machine:
  """The machine whose noise-free 30-minute p90 reaches the limit at
  `capacity` warehouses."""
  lo, hi = capacity, capacity * 3
  for _ in range(60):
    knee = (lo + hi) / 2
    machine = Machine(knee, creep, warmup, noise=noise, seed=seed)
    if machine.P90Ms(capacity, FULL_MINUTES) >= LIMIT_MS:
      lo = knee
    else:
      hi = knee
  return Machine(hi, creep, warmup, noise=noise, seed=seed)


def DriftingMachines(per_edge: int = MACHINES_PER_EDGE) -> list:
  """(edge, machine) pairs: per_edge machines per level of the grid."""
  out = []
  for edge in range(START, MAXIMUM + 1, STEP):
    for j in range(per_edge):
      draw = random.Random(f'machine:{edge}:{j}')
      # Where the noise-free full run reaches the limit, between the edge
      # and the next level (beyond the grid for the top edge).
      capacity = edge + STEP * draw.uniform(0.15, 0.85)
      out.append((
          edge,
          MachineWithEdge(
              capacity,
              creep=draw.uniform(0.03, 0.15),
              warmup=draw.uniform(0.0, 0.15),
              noise=draw.uniform(0.03, 0.12),
              seed=f'{edge}:{j}',
          ),
      ))
  return out


def Minutes(result: stepping.Result) -> int:
  """Machine-minutes of a search's steps (ramp included)."""
  return sum(
      RAMP_MINUTES + (PROBE_MINUTES if s.probe else FULL_MINUTES)
      for s in result.steps
  )


def SearchMachine(strategy: str, machine: Machine) -> stepping.Result:
  plan = stepping.Plan(strategy, START, STEP, MAXIMUM)
  measure, probe_measure = machine.Callbacks()
  return stepping.Search(
      plan, pass_rules.RULES['report'], measure, probe_measure=probe_measure
  )


def StepsUsed(strategy: str, curve: CapacityCurve) -> stepping.Result:
  plan = stepping.Plan(strategy, START, STEP, MAXIMUM)
  return stepping.Search(
      plan,
      pass_rules.RULES['report'],
      curve.Measure,
      probe_measure=curve.Measure,
  )


def _Ideal(out) -> dict:
  rows = []
  print(
      'ideal machines (no drift, no noise)\n'
      'edge (max passing)  linear steps  bisect steps  bisect levels run',
      file=out,
  )
  for edge in range(START, MAXIMUM + 1, STEP):
    curve = CapacityCurve(capacity=edge + STEP / 2)
    linear = StepsUsed(stepping.LINEAR, curve)
    bisect = StepsUsed(stepping.BISECT, curve)
    if linear.max_passing != bisect.max_passing or linear.max_passing != edge:
      raise AssertionError(
          f'edge {edge}: linear found {linear.max_passing}, bisect'
          f' {bisect.max_passing}'
      )
    rows.append((edge, linear.steps_used, bisect.steps_used))
    levels = ' '.join(str(s.level) for s in bisect.steps)
    print(
        f'{edge:>18}  {linear.steps_used:>12}  {bisect.steps_used:>12} '
        f' {levels}',
        file=out,
    )
  linear_total = sum(r[1] for r in rows)
  bisect_total = sum(r[2] for r in rows)
  fewer = sum(1 for r in rows if r[2] < r[1])
  more_at = [r[0] for r in rows if r[2] > r[1]]
  more = len(more_at)
  ratio = bisect_total / linear_total
  print(
      f'total over {len(rows)} machines: linear {linear_total} steps'
      f' ({linear_total * MINUTES_PER_STEP / 60:.1f} h), bisect'
      f' {bisect_total} ({bisect_total * MINUTES_PER_STEP / 60:.1f} h);'
      f' bisect_step_ratio {ratio:.3f}; bisect used fewer steps on {fewer},'
      f' more on {more} (edges {", ".join(map(str, more_at)) or "none"})',
      file=out,
  )
  return {
      'machines': len(rows),
      'linear_steps': linear_total,
      'bisect_steps': bisect_total,
      'bisect_step_ratio': ratio,
      'bisect_fewer': fewer,
      'bisect_more': more,
      'per_edge': rows,
  }


def _Drifting(out, per_edge: int) -> dict:
  strategies = (stepping.LINEAR, stepping.BISECT, stepping.PROBE)
  steps = dict.fromkeys(strategies, 0)
  minutes = dict.fromkeys(strategies, 0)
  probes = 0
  disagree = {s: [] for s in strategies[1:]}
  off_edge = []
  probe_passed_full_failed = 0
  print(
      '\ndrifting machines (warm-up, creep, noise; probe ='
      f' {RAMP_MINUTES}+{PROBE_MINUTES} min, full step ='
      f' {MINUTES_PER_STEP} min)\n'
      'edge  machine  creep  warmup  noise  linear    bisect    probe'
      '     answer  probe levels (p: probe, F: full; + pass, - fail)',
      file=out,
  )
  machines = DriftingMachines(per_edge)
  for n, (edge, machine) in enumerate(machines):
    results = {s: SearchMachine(s, machine) for s in strategies}
    answer = results[stepping.LINEAR].max_passing
    if answer != edge:
      off_edge.append((edge, n, answer))
    for s, result in results.items():
      steps[s] += result.steps_used
      minutes[s] += Minutes(result)
      if s != stepping.LINEAR and result.max_passing != answer:
        disagree[s].append((edge, n, result.max_passing))
    probe = results[stepping.PROBE]
    probes += probe.probes_used
    full = {x.level: x.passed for x in probe.steps if not x.probe}
    probe_passed_full_failed += sum(
        1
        for x in probe.steps
        if x.probe and x.passed and full.get(x.level) is False
    )
    cells = '  '.join(
        f'{results[s].steps_used:>2}/{Minutes(results[s]):>4}m'
        for s in strategies
    )
    trail = ' '.join(
        f'{"p" if x.probe else "F"}{x.level}{"+" if x.passed else "-"}'
        for x in probe.steps
    )
    print(
        f'{edge:>4}  {n:>7}  {machine.creep:5.3f}  {machine.warmup:6.3f} '
        f' {machine.noise:5.3f}  {cells}  {answer!s:>6}  {trail}',
        file=out,
    )
  valid = not disagree[stepping.PROBE]
  ratio = minutes[stepping.PROBE] / minutes[stepping.LINEAR]
  print(
      f'total over {len(machines)} machines: linear {steps["linear"]} steps'
      f' {minutes["linear"]} min; bisect {steps["bisect"]} steps'
      f' {minutes["bisect"]} min; probe {steps["probe"]} steps ({probes}'
      f' probes) {minutes["probe"]} min; tpcc_search_minutes_ratio'
      f' {ratio:.3f}{"" if valid else " (INVALID: probe disagreed)"};'
      f' probe passed where the full run failed {probe_passed_full_failed}'
      ' times; probe disagreed with linear on'
      f' {len(disagree["probe"])}, bisect on {len(disagree["bisect"])};'
      f' linear off the noise-free edge on {len(off_edge)}',
      file=out,
  )
  return {
      'machines': len(machines),
      'probe_minutes': PROBE_MINUTES,
      'full_step_minutes': MINUTES_PER_STEP,
      'steps': steps,
      'minutes': minutes,
      'probes': probes,
      'probe_passed_full_failed': probe_passed_full_failed,
      'disagreements': disagree,
      'linear_off_noise_free_edge': off_edge,
      'probe_agrees': valid,
      'minutes_ratio': ratio,
      'bisect_minutes_ratio': minutes[stepping.BISECT] / minutes['linear'],
  }


def Run(out=sys.stdout, per_edge: int = MACHINES_PER_EDGE) -> dict:
  """Prints both tables; returns the totals and the ratios.

  tpcc_search_minutes_ratio is None when probe missed linear's answer on a
  drifting machine.
  """
  ideal = _Ideal(out)
  drifting = _Drifting(out, per_edge)
  return ideal | {
      'drifting': drifting,
      'tpcc_search_minutes_ratio': (
          drifting['minutes_ratio'] if drifting['probe_agrees'] else None
      ),
  }


if __name__ == '__main__':
  Run()
