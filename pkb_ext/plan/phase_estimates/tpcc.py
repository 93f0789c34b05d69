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
"""The tpcc phase's expected wall time (pure; plan asks for it).

Two parts: loading the warehouses on the db VMs (tpcc_import), generated
at the context's import_warehouses_per_node_hour or, when the context says
fixtures, loaded from a prebuilt fixture at fixture_warehouses_per_node_hour
(generation's time beside it: what it takes when no fixture matches); and
the search, planned at the longest it can take on its grid: found by
running the search's own decisions (stepping.Next) against every possible
capacity, each step its ramp plus its duration (a probe's for probes). The
search's line gives the shortest and longest it can take, and plans the
longest. A search other than linear shows linear's time beside it.
"""

import dataclasses

from benchmarks.cloud_report import timeouts
from benchmarks.cloud_report.tpcc import stepping
from pkb_ext.plan import estimates
from pkb_ext.suite.tpcc import engines as suite_engines

# The largest grid whose search is followed decision by decision (the
# report's has 5 levels).
MAX_SEARCH_LEVELS = 1000


@dataclasses.dataclass(frozen=True)
class Search:
  """The bounds of a search on its grid."""

  fewest: int  # steps
  most: int  # steps
  longest_s: float  # the longest it can take
  shortest_s: float = 0.0  # the shortest it can take
  # (probes, full steps) of the longest and of the shortest search.
  longest_mix: tuple[int, int] = (0, 0)
  shortest_mix: tuple[int, int] = (0, 0)


# Where the fixture load rate comes from, when no measured rate is given.
_RESTORE_SOURCE = (
    ' (a public CockroachDB restore: 600 GB of replicated TPC-C data in'
    ' 20 min on 6 nodes, at 70 MB a warehouse)'
)


def SearchBounds(
    plan: stepping.Plan, step_s: float, probe_step_s: float
) -> Search:
  """Runs the search's own decisions (stepping.Next) against every capacity.

  Args:
    plan: the grid and strategy.
    step_s: one full-length step (ramp + duration).
    probe_step_s: one probe step (ramp + probe duration).

  Returns:
    The fewest and most steps, and the longest time, over every capacity:
    below the first level, between each two levels, above the last.

  Raises:
    estimates.EstimateError: the search does not end, or its grid is larger
      than MAX_SEARCH_LEVELS (linear's bounds need no search: every level
      once).
  """
  levels = plan.levels
  if plan.strategy == stepping.LINEAR:
    # One step at the lowest capacity, every level at the highest
    # (SimulatedSearchBounds finds the same, in time cubic in the levels).
    n = len(levels)
    return Search(1, n, n * step_s, step_s, (0, n), (0, 1))
  if len(levels) > MAX_SEARCH_LEVELS:
    raise estimates.EstimateError(
        f'the {plan.strategy} search has {len(levels):,} levels'
        f' ({plan.start}..{plan.maximum} by {plan.step}); plan follows at'
        f' most {MAX_SEARCH_LEVELS:,} (--cloud_report_tpcc_step_warehouses)'
    )
  return SimulatedSearchBounds(plan, step_s, probe_step_s)


def SimulatedSearchBounds(
    plan: stepping.Plan, step_s: float, probe_step_s: float
) -> Search:
  """SearchBounds by running stepping.Next against every capacity."""
  levels = plan.levels
  counts, runs = [], []  # runs: (seconds, (probes, full steps))
  for capacity in [levels[0] - 1] + list(levels):
    history, seconds = [], 0.0
    while True:
      decision = stepping.Next(plan, history)
      if decision.next_level is None:
        break
      passed = decision.next_level <= capacity
      history.append((decision.next_level, passed, decision.probe))
      seconds += probe_step_s if decision.probe else step_s
      if len(history) > 4 * len(levels) + 4:
        raise estimates.EstimateError(
            f'the {plan.strategy} search does not end on {levels}'
        )
    counts.append(len(history))
    probes = sum(1 for _, _, probe in history if probe)
    runs.append((seconds, (probes, len(history) - probes)))
  longest, shortest = max(runs), min(runs)
  return Search(
      min(counts),
      max(counts),
      longest[0],
      shortest[0],
      longest[1],
      shortest[1],
  )


def SearchSteps(plan: stepping.Plan) -> tuple[int, int]:
  """Returns the fewest and most steps the search can take on its grid."""
  search = SearchBounds(plan, 1, 1)
  return search.fewest, search.most


def _Range(search: Search, mixes: bool = False) -> str:
  """'0h43m to 1h20m' ('1h20m' when both are the same); with mixes, each
  followed by its probes and full steps: '0h43m (2 probes + 1 full step)'."""
  low, high = estimates.Hms(search.shortest_s), estimates.Hms(search.longest_s)
  if mixes:
    low += f' ({_Mix(search.shortest_mix)})'
    high += f' ({_Mix(search.longest_mix)})'
  return high if low == high else f'{low} to {high}'


def _Mix(mix: tuple[int, int]) -> str:
  """'2 probes + 1 full step'."""
  probes, full = mix
  parts = [f'{probes} probe{"s" * (probes != 1)}'] if probes else []
  parts.append(f'{full} full step{"s" * (full != 1)}')
  return ' + '.join(parts)


def SearchPhase(params) -> estimates.Phase:
  """The TPC-C search, with linear's time beside a search that is not."""
  step_s = timeouts.StepSeconds(params.ramp_s, params.duration_s)
  probe_s = timeouts.StepSeconds(params.ramp_s, params.probe_duration_s)
  search = SearchBounds(params.plan, step_s, probe_s)
  steps = f'{search.fewest} to {search.most} steps'
  if search.fewest == search.most:
    steps = f'{search.most} steps'
  how = (
      f'{params.strategy} search over {len(params.plan.levels)} levels'
      f' ({params.start}..{params.max_warehouses} by {params.step}):'
      f' {steps}'
  )
  if params.strategy == stepping.PROBE:
    how += (
        f' (probes of {probe_s / 60:g} min, full steps of {step_s / 60:g} min)'
    )
  else:
    how += f' of {step_s / 60:g} min'
  probing = params.strategy == stepping.PROBE
  how += (
      f', {_Range(search, mixes=probing)}; planned at the longest,'
      f' {estimates.Hms(search.longest_s)}'
  )
  linear_s = None
  if params.strategy != stepping.LINEAR:
    linear_plan = stepping.Plan(
        stepping.LINEAR, params.start, params.step, params.max_warehouses
    )
    linear = SearchBounds(linear_plan, step_s, probe_s)
    linear_s = linear.longest_s
    how += f'; linear: {linear.fewest} to {linear.most} steps, {_Range(linear)}'
  return estimates.Phase('tpcc', search.longest_s, how, linear_s)


def ImportPhase(params, context: estimates.Context) -> estimates.Phase:
  """Loading the warehouses: from a fixture (context.fixtures) or generated.

  At the context's rates; the phase runs once however many Run stages.
  """
  nodes = context.db_nodes
  generate_rate = context.Rate('import_warehouses_per_node_hour')
  generate_s = timeouts.ImportSeconds(
      params.max_warehouses, nodes, generate_rate
  )
  what = f'{params.max_warehouses:,} warehouses on {nodes} db node(s)'
  generated = f'generated at {generate_rate:,.0f} warehouses per node-hour' + (
      context.Measured('import_warehouses_per_node_hour')
      or ' (a public CockroachDB import: 20,000 warehouses in 2.5 h on 6 nodes)'
  )
  same_rate = ''
  measured = context.Measured(
      'import_warehouses_per_node_hour', 'fixture_warehouses_per_node_hour'
  )
  engine = suite_engines.ENGINE.value
  if engine != suite_engines.COCKROACH and not measured:
    same_rate = f'; {engine} is planned at the same rates'
  if not context.fixtures:
    return estimates.Phase(
        'tpcc_import',
        generate_s,
        f'{what} {generated}{same_rate}',
        once_s=generate_s,
    )
  fixture_rate = context.Rate('fixture_warehouses_per_node_hour')
  fixture_s = timeouts.ImportSeconds(params.max_warehouses, nodes, fixture_rate)
  return estimates.Phase(
      'tpcc_import',
      fixture_s,
      f'{what} loaded from a fixture in the bucket at {fixture_rate:,.0f}'
      ' warehouses per node-hour'
      + (
          context.Measured('fixture_warehouses_per_node_hour')
          or _RESTORE_SOURCE
      )
      + f'; without a matching fixture {estimates.Hms(generate_s)},'
      f' {generated}{same_rate}',
      once_s=fixture_s,
      generate_s=generate_s,
  )


def Estimate(params, context: estimates.Context) -> list[estimates.Phase]:
  """The import, then the search."""
  return [ImportPhase(params, context), SearchPhase(params)]
