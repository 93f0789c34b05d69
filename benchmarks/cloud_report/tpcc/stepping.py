# Copyright 2026 PerfKitBenchmarker Authors. All rights reserved.
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
"""TPC-C stepping: which warehouse count to run next, and whether it passed.

The report's method (`linear`): start at 2,500 active warehouses, run 30
minutes, and while a step "passes" add 250 and run again; the result is the
last passing level before the first failing one. `bisect` finds the same
level on the same grid (start + k * step, up to the maximum) by bisection,
assuming a step that fails at N warehouses also fails above N: it starts in
the middle of the grid, not at its start, and halves the range the edge can
be in. When the search has converged it re-runs the edge unless the edge's
pass was the last run, so the reported level and its tpmC come from a run
made after every failing one. Over the report's grid (2,500 to 5,000 by 250)
it needs 43 steps where linear needs 76 for one machine per edge, but more
than linear when the edge is the start or the start fails.

`probe` saves time rather than steps: it bisects the same grid with short
runs (probes), then confirms the edge N the probes found with full-length
runs: a full pass at N and a full fail at the next level (none needed when
N is the maximum; a full fail at the start when no level passes). A short
run can pass where a full one fails (latency creeping up over a long run)
or fail where it passes (warm-up), so a confirmation that disagrees with
its probe is not an error: the search goes on at full length, one level at
a time, from there, and ends only on a full pass next to a full fail. Its
answer is therefore the one full-length steps give, as long as a full run
that fails at N warehouses also fails above N (bisect's assumption too);
probes only choose where the full-length runs start.

Everything here is pure. Next() decides the next level from
the history of (level, passed); Search() drives a measure callback with it,
judges each measurement with a pass rule (cloud_report.tpcc.pass_rules)
and saves the history in the store it is given (Load, Save) after every
step, so a re-run with the same store resumes without repeating a step.

A run that produced no result (the tool crashed, or printed nothing to
parse) is no verdict on its level at first: judging it a failure at once
would end a linear search early on a transient error. Search() keeps it as a
step (it took the time) and runs the level again, up to a number of
retries. A level still without a result after them is the overload edge's
other face (a workload that dies at the edge, as CockroachDB's own
tpccbench also treats it): the last try is marked given up and counts as a
failure of that level, so the search ends there with the last passing level
as its maximum and the cause in the step's reason. Result.end tells such an
end apart from a latency failure. A resumed search whose saved steps gave up
on the lowest level run (no level passed) tries that level again.

A step that completed no transaction (0 tpmC, or every latency 0: the
summary cockroach workload prints when nothing finished) fails under every
rule: an empty latency distribution is no evidence of low latency.
"""

import dataclasses
from typing import Any, Callable, Mapping, Sequence

from benchmarks.cloud_report.tpcc import pass_rules
from benchmarks.cloud_report import errors as report_errors

LINEAR = 'linear'
BISECT = 'bisect'
PROBE = 'probe'
STRATEGIES = (LINEAR, BISECT, PROBE)


class SearchStateError(report_errors.Error):
  """A saved stepping state cannot be used for this search."""


@dataclasses.dataclass(frozen=True)
class Plan:
  """The levels a search may run: start, start + step, ... <= maximum."""

  strategy: str
  start: int
  step: int
  maximum: int

  def __post_init__(self):
    if self.strategy not in STRATEGIES:
      raise ValueError(
          f'unknown stepping strategy {self.strategy!r}; expected one of'
          f' {", ".join(STRATEGIES)}'
      )
    if self.start < 1 or self.step < 1:
      raise ValueError(
          f'start and step must be >= 1, got {self.start} and {self.step}'
      )
    if self.maximum < self.start:
      raise ValueError(
          f'maximum {self.maximum} is below the start {self.start}'
      )

  @property
  def levels(self) -> tuple[int, ...]:
    return tuple(range(self.start, self.maximum + 1, self.step))


@dataclasses.dataclass(frozen=True)
class Decision:
  """What to do next: run next_level, or stop (next_level None)."""

  next_level: int | None
  max_passing: int | None  # the edge so far (final when next_level is None)
  confirm: bool = False  # next_level is run to confirm the edge
  probe: bool = False  # next_level is run as a short probe


# A history entry: (level, passed) of a full-length run, or
# (level, passed, probe) with probe True for a short probe.
History = Sequence[tuple]


def _Grid(plan: Plan) -> dict[int, int]:
  return {level: i for i, level in enumerate(plan.levels)}


def _Bracket(
    plan: Plan, history: Sequence[tuple[int, bool]]
) -> tuple[int, int]:
  """(lo, hi): indexes of the highest pass below the lowest fail.

  lo is -1 when no level below the lowest failing one passed, hi is
  len(levels) when none failed; the edge lies in levels[lo .. hi - 1].
  """
  index = _Grid(plan)
  latest = {}
  for level, passed in history:
    if level not in index:
      raise SearchStateError(
          f'level {level} is not on the grid {plan.start}, {plan.start} +'
          f' {plan.step}, ..., {plan.levels[-1]}'
      )
    latest[index[level]] = passed
  fails = [i for i, passed in latest.items() if not passed]
  hi = min(fails) if fails else len(plan.levels)
  passes = [i for i, passed in latest.items() if passed and i < hi]
  return (max(passes) if passes else -1), hi


def _LinearNext(plan: Plan, history: Sequence[tuple[int, bool]]) -> Decision:
  """The next decision of the report's linear search."""
  levels = plan.levels
  ran = [level for level, _ in history]
  if ran != list(levels[: len(ran)]):
    raise SearchStateError(
        f'linear stepping runs {list(levels[: len(ran) + 1])} in order; the'
        f' history ran {ran}'
    )
  for i, (_, passed) in enumerate(history):
    # Steps after a failure only exist when saved steps were re-judged with
    # a stricter rule; the search ended at the first failure all the same.
    if not passed:
      return Decision(None, ran[i - 1] if i else None)
  best = history[-1][0] if history else None
  if len(history) == len(levels):
    return Decision(None, best)
  return Decision(levels[len(history)], best)


def _BisectNext(plan: Plan, history: Sequence[tuple[int, bool]]) -> Decision:
  """The next decision of bisection over the grid (see module docstring)."""
  levels = plan.levels
  # lo: highest level known to pass (-1: none); hi: lowest known to fail
  # (len(levels): none). The edge lies in [lo, hi - 1]; halve that range,
  # rounding up: with the confirmation rule below this is, over the report's
  # grid, the fewest steps any bisection needs (43 for its 11 edges).
  lo, hi = _Bracket(plan, history)
  best = levels[lo] if lo >= 0 else None
  if hi - lo > 1:
    return Decision(levels[(lo + hi + 1) // 2], best)
  if lo < 0:  # the lowest level failed
    return Decision(None, None)
  last_level, last_passed = history[-1]
  if last_level == levels[lo] and last_passed:
    return Decision(None, best)
  return Decision(levels[lo], best, confirm=True)


def _ProbeNext(
    plan: Plan, history: Sequence[tuple[int, bool, bool]]
) -> Decision:
  """The next decision of the probe search: short probes, then full runs."""
  levels = plan.levels
  full = [(level, passed) for level, passed, probe in history if not probe]
  probes = [(level, passed) for level, passed, probe in history if probe]
  lo, hi = _Bracket(plan, full)
  best = levels[lo] if lo >= 0 else None
  # Done: a full pass next to a full fail, a full pass at the maximum, or a
  # full fail at the start.
  if hi - lo == 1 and (lo >= 0 or hi == 0):
    return Decision(None, best)
  if not full:
    # Probe phase: bisect the grid with probes until they bracket the edge.
    p_lo, p_hi = _Bracket(plan, probes)
    if p_hi - p_lo > 1:
      return Decision(levels[(p_lo + p_hi + 1) // 2], None, probe=True)
    # Confirm the probes' edge (the start when every probe failed).
    return Decision(levels[max(p_lo, 0)], None, confirm=True)
  # Full length from here: up from the highest full pass, else down from
  # the lowest full fail, one level at a time.
  if lo >= 0:
    return Decision(levels[lo + 1], best, confirm=True)
  return Decision(levels[hi - 1], best, confirm=True)


def _History(history: History) -> list[tuple[int, bool, bool]]:
  out = []
  for entry in history:
    level, passed, *rest = entry
    out.append((int(level), bool(passed), bool(rest[0]) if rest else False))
  return out


def Next(plan: Plan, history: History) -> Decision:
  """Returns the next level to run, or that the search is over.

  Args:
    plan: the grid and strategy.
    history: (level, passed) or (level, passed, probe) of every step run so
      far, in order; probe is True for a short probe.

  Raises:
    SearchStateError: the history cannot come from this plan.
  """
  history = _History(history)
  if plan.strategy == PROBE:
    return _ProbeNext(plan, history)
  probed = sorted({level for level, _, probe in history if probe})
  if probed:
    raise SearchStateError(
        f'{plan.strategy} stepping runs no probes; the history has probes at'
        f' {probed} (strategy {PROBE})'
    )
  full = [(level, passed) for level, passed, _ in history]
  if plan.strategy == LINEAR:
    return _LinearNext(plan, full)
  return _BisectNext(plan, full)


@dataclasses.dataclass(frozen=True)
class Measurement:
  """What one run at one level measured; error set when it produced none."""

  metrics: Mapping[str, float]
  error: str | None = None
  extra: Mapping[str, Any] = dataclasses.field(default_factory=dict)


@dataclasses.dataclass(frozen=True)
class Step:
  """One run of the search: its level, measurement and verdict."""

  level: int
  passed: bool
  reason: str
  metrics: Mapping[str, float]
  error: str | None = None
  confirm: bool = False
  extra: Mapping[str, Any] = dataclasses.field(default_factory=dict)
  probe: bool = False  # a short probe, not a full-length run
  gave_up: bool = False  # the last try of a level without a result

  @property
  def verdict(self) -> bool:
    """Whether the step judges its level: it has a result, or was given up."""
    return not self.error or self.gave_up

  @property
  def kind(self) -> str:
    """probe, confirmation (a full run confirming an edge) or full."""
    if self.probe:
      return 'probe'
    return 'confirmation' if self.confirm else 'full'

  def ToJson(self) -> dict[str, Any]:
    return dataclasses.asdict(self) | {
        'metrics': dict(self.metrics),
        'extra': dict(self.extra),
    }

  @classmethod
  def FromJson(cls, d: Mapping[str, Any]) -> 'Step':
    return cls(
        level=int(d['level']),
        passed=bool(d['passed']),
        reason=str(d['reason']),
        metrics={k: float(v) for k, v in d.get('metrics', {}).items()},
        error=d.get('error'),
        confirm=bool(d.get('confirm', False)),
        extra=dict(d.get('extra', {})),
        probe=bool(d.get('probe', False)),
        gave_up=bool(d.get('gave_up', False)) and bool(d.get('error')),
    )


def Judge(
    rule: pass_rules.PassRule,
    level: int,
    measurement: Measurement,
    confirm: bool = False,
    probe: bool = False,
    gave_up: bool = False,
) -> Step:
  """Returns the verdict of one run under a rule."""
  empty = (
      None
      if measurement.error
      else pass_rules.NoThroughput(measurement.metrics)
  )
  if measurement.error:
    passed, reason = False, f'no result: {measurement.error}'
    if gave_up:
      reason += ' (given up after its retries: the level fails)'
  elif empty:
    passed, reason = False, f'fail ({rule.name}): {empty}'
  else:
    passed, reason = rule.Judge(measurement.metrics)
  return Step(
      level=level,
      passed=passed,
      reason=reason,
      metrics=dict(measurement.metrics),
      error=measurement.error,
      confirm=confirm,
      extra=dict(measurement.extra),
      probe=probe,
      gave_up=gave_up and bool(measurement.error),
  )


def Rejudge(
    rule: pass_rules.PassRule, step: Step, gave_up: bool | None = None
) -> Step:
  """Re-applies a (possibly different) rule to a saved step."""
  return Judge(
      rule,
      step.level,
      Measurement(step.metrics, step.error, step.extra),
      step.confirm,
      step.probe,
      step.gave_up if gave_up is None else gave_up,
  )


END_MAX_LEVEL = 'max_level'  # passed up to the grid's last level
END_FAIL = 'fail'  # a level failed its pass rule
END_NO_RESULT = 'no_result'  # a level gave no result after its retries


@dataclasses.dataclass(frozen=True)
class Result:
  """A finished (or resumed and finished) search."""

  plan: Plan
  rule: pass_rules.PassRule
  steps: tuple[Step, ...]
  max_passing: int | None
  resumed_steps: int = 0  # steps read from the saved state, not run now

  @property
  def steps_used(self) -> int:
    return len(self.steps)

  @property
  def probes_used(self) -> int:
    return sum(1 for s in self.steps if s.probe)

  @property
  def edge_step(self) -> Step | None:
    """The latest step that judged the level above the maximum (a failure)."""
    above = [s for s in self.steps if s.verdict and not s.passed]
    if self.max_passing is not None:
      above = [s for s in above if s.level > self.max_passing]
    if not above:
      return None
    lowest = min(s.level for s in above)
    return [s for s in above if s.level == lowest][-1]

  @property
  def end(self) -> str:
    """Why the search ended: END_MAX_LEVEL, END_FAIL or END_NO_RESULT."""
    edge = self.edge_step
    if edge is None:
      return END_MAX_LEVEL
    return END_NO_RESULT if edge.gave_up else END_FAIL

  @property
  def failed_without_result(self) -> bool:
    """No level passed and the lowest gave no result: the phase fails."""
    return self.max_passing is None and self.end == END_NO_RESULT

  @property
  def step_at_max(self) -> Step | None:
    """The latest full-length passing step at the max passing level."""
    for step in reversed(self.steps):
      if step.level == self.max_passing and step.passed and not step.probe:
        return step
    return None


def Verdicts(steps: Sequence[Step]) -> list[tuple[int, bool, bool]]:
  """The (level, passed, probe) history of the steps that judge a level."""
  return [(s.level, s.passed, s.probe) for s in steps if s.verdict]


def _Resumable(plan: Plan, steps: list[Step]) -> list[Step]:
  """Saved steps, with a no-result give-up at the bottom made retryable.

  A saved search that ended because its lowest level run gave no result
  (no level passed) failed the phase; a resume tries that level again.
  """
  decision = Next(plan, Verdicts(steps))
  if decision.next_level is not None or decision.max_passing is not None:
    return steps
  if not any(s.gave_up for s in steps):
    return steps
  return [dataclasses.replace(s, gave_up=False) if s.gave_up else s
          for s in steps]  # fmt: skip


def Search(
    plan: Plan,
    rule: pass_rules.PassRule,
    measure: Callable[[int, int], Measurement],
    store: Any = None,
    on_step: Callable[[int, Step], None] | None = None,
    no_result_retries: int = 0,
    probe_measure: Callable[[int, int], Measurement] | None = None,
) -> Result:
  """Runs the search to its end, resuming from the store's history.

  Args:
    plan: grid and strategy.
    rule: the pass rule (saved steps are re-judged with it).
    measure: measure(level, iteration) runs one full-length step (iteration
      is 1-based).
    store: where the history is kept (a stepping_state.StateStore); None
      keeps it in memory only.
    on_step: called with (iteration, step) after each new step is saved.
    no_result_retries: how many times a level that produced no result is run
      again (in this call) before it is given up as failed.
    probe_measure: like measure, for a short probe; required by the probe
      strategy.

  Returns:
    The Result. Its steps include the runs without a result; a level that
    produced none no_result_retries + 1 times in a row is given up (its last
    step's gave_up) and counts as failed, so the search ends there as at any
    failure (Result.end says which kind).
  """
  if no_result_retries < 0:
    raise ValueError(f'no_result_retries {no_result_retries} is negative')
  if plan.strategy == PROBE and probe_measure is None:
    raise ValueError(f'the {PROBE} strategy needs a probe_measure callback')
  steps = [Rejudge(rule, s) for s in (store.Load() if store else [])]
  steps = _Resumable(plan, steps)
  resumed = len(steps)
  tries = 0
  while True:
    decision = Next(plan, Verdicts(steps))
    if decision.next_level is None:
      return Result(plan, rule, tuple(steps), decision.max_passing, resumed)
    iteration = len(steps) + 1
    run = probe_measure if decision.probe else measure
    measurement = run(decision.next_level, iteration)
    step = Judge(
        rule,
        decision.next_level,
        measurement,
        decision.confirm,
        decision.probe,
    )
    tries = tries + 1 if step.error else 0
    if tries > no_result_retries:
      step = Rejudge(rule, step, gave_up=True)
      tries = 0
    steps.append(step)
    if store:
      store.Save(steps)
    if on_step:
      on_step(iteration, step)
