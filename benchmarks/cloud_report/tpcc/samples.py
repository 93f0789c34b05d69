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
"""TPC-C samples: one set per step, and the search's summary.

Per step (iteration = the step's 1-based index, active_warehouses = its
level): tpcc_tpmc, tpcc_efficiency, tpcc_latency once per `stat` (avg, p50,
p90, p95, p99, max; the newOrder transaction's, as both tools report),
tpcc_errors, and tpcc_step_passed (1 or 0) with the pass rule's reason.
Summary: tpcc_max_passing_warehouses (0 when even the first step failed),
tpcc_max_passing_tpmc (the tpmC of the latest passing run at that level) and
tpcc_steps_used, with search_end saying why the search stopped (max_level,
fail: a level failed its rule, no_result: a level gave no result after its
retries) and, unless max_level, the level and reason. A step without a
result carries step_error, and step_gave_up when it was the last try.

Efficiency is 100 * tpmC / (12.86 * warehouses) for every tool. With
cockroach workload's default --wait (TPC-C keying and think times) it cannot
much exceed 100 %. A tool run without keying or think time issues
transactions back to back, and the figure is then only a load indicator,
often far above 100 %; the samples say which with efficiency_basis.
"""

from typing import Any, Mapping

from perfkitbenchmarker import sample

from benchmarks.cloud_report.tpcc import parser as tpcc_parser
from benchmarks.cloud_report.tpcc import stepping

METRICS = {
    'tpcc_tpmc': 'tpmC',
    'tpcc_efficiency': '%',
    'tpcc_latency': 'ms',
    'tpcc_errors': 'count',
    'tpcc_step_passed': 'bool',
    'tpcc_max_passing_warehouses': 'warehouses',
    'tpcc_max_passing_tpmc': 'tpmC',
    'tpcc_steps_used': 'count',
}
LATENCY_STATS = (
    ('avg', 'avg_ms'),
    ('p50', 'p50_ms'),
    ('p90', 'p90_ms'),
    ('p95', 'p95_ms'),
    ('p99', 'p99_ms'),
    ('max', 'max_ms'),
)
TRANSACTION = 'newOrder'
BASIS_THINK_TIME = 'keying_and_think_time'
BASIS_NO_THINK_TIME = 'no_think_time'


def _Make(metric, value, metadata) -> sample.Sample:
  """A sample of one of METRICS, in its unit (KeyError for another)."""
  return sample.Sample(metric, float(value), METRICS[metric], dict(metadata))


def EfficiencyBasis(think_time: bool | None) -> str:
  return BASIS_NO_THINK_TIME if think_time is False else BASIS_THINK_TIME


def MetricSamples(
    metrics: Mapping[str, float], metadata: Mapping[str, Any]
) -> list:
  """Samples of one run's metrics (keys of pass_rules.METRIC_KEYS)."""
  md = dict(metadata)
  out = []
  if 'tpmc' in metrics:
    out.append(_Make('tpcc_tpmc', metrics['tpmc'], md))
  if 'efficiency_pct' in metrics:
    out.append(_Make('tpcc_efficiency', metrics['efficiency_pct'], md))
  for stat, key in LATENCY_STATS:
    if key in metrics:
      out.append(
          _Make(
              'tpcc_latency',
              metrics[key],
              md | {'stat': stat, 'transaction': TRANSACTION},
          )
      )
  if 'errors' in metrics:
    out.append(_Make('tpcc_errors', metrics['errors'], md))
  return out


def FromResult(result: tpcc_parser.Result) -> list:
  """Samples of one parsed run (for an archived output parsed again)."""
  md = {
      'tool': result.tool,
      'elapsed_s': result.elapsed_s,
      'efficiency_basis': EfficiencyBasis(result.think_time),
  }
  if result.implied_warehouses is not None:
    md['implied_warehouses'] = round(result.implied_warehouses, 1)
  return MetricSamples(result.Metrics(), md)


def StepSamples(
    step: stepping.Step, iteration: int, metadata: Mapping[str, Any]
) -> list:
  """Samples of one step of the search."""
  md = dict(metadata) | {
      'iteration': iteration,
      'active_warehouses': step.level,
      'passed': step.passed,
      'pass_reason': step.reason,
      'confirm_run': step.confirm,
  }
  md |= {k: v for k, v in step.extra.items() if k not in md}
  if step.error:
    md['step_error'] = step.error
    md['step_gave_up'] = step.gave_up
  out = MetricSamples(step.metrics, md)
  out.append(_Make('tpcc_step_passed', 1.0 if step.passed else 0.0, md))
  return out


def SummarySamples(
    result: stepping.Result, metadata: Mapping[str, Any]
) -> list:
  """The search's result: max passing warehouses, tpmC there, steps."""
  md = dict(metadata) | {
      'strategy': result.plan.strategy,
      'pass_rule': result.rule.name,
      'start_warehouses': result.plan.start,
      'step_warehouses': result.plan.step,
      'max_warehouses': result.plan.maximum,
      'steps_resumed': result.resumed_steps,
      'levels_run': ','.join(str(s.level) for s in result.steps),
      'search_end': result.end,
  }
  edge = result.edge_step
  if edge is not None:
    md |= {'search_end_level': edge.level, 'search_end_reason': edge.reason}
  out = [
      _Make(
          'tpcc_max_passing_warehouses',
          result.max_passing or 0,
          md | {'start_passed': result.max_passing is not None},
      ),
      _Make('tpcc_steps_used', result.steps_used, md),
  ]
  at_max = result.step_at_max
  if at_max is not None and 'tpmc' in at_max.metrics:
    iteration = next(i for i, s in enumerate(result.steps, 1) if s is at_max)
    out.append(
        _Make(
            'tpcc_max_passing_tpmc',
            at_max.metrics['tpmc'],
            md
            | {
                'active_warehouses': at_max.level,
                'iteration': iteration,
            },
        )
    )
  return out
