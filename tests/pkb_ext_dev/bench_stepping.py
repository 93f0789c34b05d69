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
"""Benchmark: steps used by linear and bisect stepping on simulated machines.

A simulated machine's newOrder p90 latency grows as a queue's does,
p90(w) = base / (1 - w / knee), with the knee placed so that the machine
passes the report's rule (p90 < 5 s) up to `capacity` warehouses and fails
above. For one machine whose edge falls on each level of the report's grid
(2,500 to 5,000 by 250), it runs both strategies through
pkb_cloud_report.benchmarks.cloud_report.stepping.Search, checks they agree on the max passing level, and
prints the steps each used. Each step is a 30-minute run plus a 1-minute ramp,
so a step saved is 31 minutes of three database nodes and a client.

bisect_step_ratio (bisect's total over linear's) is 43/76 = 0.566 here, and
no search can do much better on this grid: telling 11 edges apart takes
log2(11) = 3.46 runs on average, half of linear's 6.9, before any
confirmation run (tests/unit/test_stepping.py checks that 43 is the fewest
any bisection with the confirmation rule needs).

  python -m pkb_ext_dev.bench_stepping
"""

import dataclasses
import sys

from pkb_cloud_report.benchmarks.cloud_report import stepping

START, STEP, MAXIMUM = 2500, 250, 5000
MINUTES_PER_STEP = 31  # 30 min run + 1 min ramp


@dataclasses.dataclass(frozen=True)
class CapacityCurve:
  """A simulated machine: passes `report` up to `capacity` warehouses."""

  capacity: float
  base_p90_ms: float = 300.0
  limit_ms: float = 5000.0
  peak_efficiency_pct: float = 97.0

  @property
  def knee(self) -> float:
    # p90(capacity + 0.5) == limit: capacity passes, capacity + 1 fails.
    return (self.capacity + 0.5) / (1 - self.base_p90_ms / self.limit_ms)

  def P90Ms(self, warehouses: float) -> float:
    if warehouses >= self.knee:
      return 60_000.0  # saturated: requests time out
    return self.base_p90_ms / (1 - warehouses / self.knee)

  def Measure(
      self, warehouses: int, iteration: int = 0
  ) -> stepping.Measurement:
    """A stepping measure callback: the simulated run at `warehouses`."""
    del iteration
    p90 = self.P90Ms(warehouses)
    served = min(warehouses, self.capacity) / warehouses
    efficiency = self.peak_efficiency_pct * served
    return stepping.Measurement(
        metrics={
            'tpmc': 12.86 * warehouses * efficiency / 100,
            'efficiency_pct': efficiency,
            'p50_ms': p90 / 2,
            'p90_ms': p90,
            'p95_ms': p90 * 1.3,
            'p99_ms': p90 * 2,
            'max_ms': p90 * 4,
        }
    )


def StepsUsed(strategy: str, curve: CapacityCurve) -> stepping.Result:
  plan = stepping.Plan(strategy, START, STEP, MAXIMUM)
  return stepping.Search(plan, stepping.RULES['report'], curve.Measure)


def Run(out=sys.stdout) -> dict:
  """Prints the table; returns the totals and bisect_step_ratio."""
  rows = []
  print(
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


if __name__ == '__main__':
  Run()
