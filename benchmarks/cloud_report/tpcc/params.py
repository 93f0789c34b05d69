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
"""The TPC-C phase's flags, read once into Params.

Each default is the report's (or the CRL repository's script where the
report says nothing): 2,500 active warehouses by +250 up to 3,500 loaded,
30-minute steps after a 1-minute ramp, the report's pass rule. Durations are
written as the tools take them (90s, 30m, 1h); the load and step timeouts
are `auto` (timeouts.Bound of their expected time) unless given.
"""

import dataclasses
import math

from absl import flags

from benchmarks.cloud_report import settings
from benchmarks.cloud_report import timeouts
from benchmarks.cloud_report.tpcc import cockroach
from benchmarks.cloud_report.tpcc import engines
from benchmarks.cloud_report.tpcc import fixtures
from benchmarks.cloud_report.tpcc import pass_rules
from benchmarks.cloud_report.tpcc import stepping

AUTO = 'auto'


def DurationValidator(name, positive=True, auto=False):
  """A validator of a duration flag (auto: also the word AUTO)."""

  def Check(value) -> bool:
    if auto and value == AUTO:
      return True
    try:
      seconds = engines.DurationSeconds(value)
    except ValueError as e:
      raise flags.ValidationError(f'--{name}: {e}') from e
    if positive and seconds <= 0:
      raise flags.ValidationError(f'--{name}={value}: must be longer than 0 s')
    return True

  return Check


# Metrics the tools count in whole numbers.
_INTEGER_METRICS = frozenset({'errors'})


def RuleProblems(rule: pass_rules.PassRule) -> list[str]:
  """Why no measurement could ever pass `rule` (empty if one could).

  Every metric is finite and >= 0 (efficiency_pct has no upper bound: a
  tool without think times reports thousands of %), so `metric < v` needs
  v > 0, and the lower and upper limits of one metric must leave room
  between them (an integer, for error counts).
  """
  problems = []
  lower: dict[str, float] = {}
  upper: dict[str, float] = {}
  for limit in rule.limits:
    if not math.isfinite(limit.value):
      problems.append(f'{limit.Describe()}: the value is not finite')
      continue
    if limit.op == '<':
      upper[limit.metric] = min(upper.get(limit.metric, math.inf), limit.value)
    else:
      lower[limit.metric] = max(lower.get(limit.metric, -math.inf), limit.value)
  for metric, high in upper.items():
    low = lower.get(metric, -math.inf)
    if metric in _INTEGER_METRICS:
      least = 0 if low < 0 else math.floor(low) + 1  # the least whole count
      possible = least < high
    else:
      possible = high > max(low, 0.0)
    if possible:
      continue
    if high <= 0:
      problems.append(f'{metric} < {high:g} can never hold: {metric} >= 0')
    else:
      problems.append(
          f'{metric} > {low:g} and {metric} < {high:g} leave no'
          f' {"whole number" if metric in _INTEGER_METRICS else "value"}'
      )
  return problems


def _CheckBucket(value) -> bool:
  """A bucket name, where one is given."""
  problem = value and fixtures.BucketProblem(value)
  if problem:
    raise flags.ValidationError(
        f'--cloud_report_tpcc_fixtures_bucket: {problem}'
    )
  return True


def _CheckRule(value) -> bool:
  try:
    rule = pass_rules.ParseRule(value)
  except ValueError as e:
    raise flags.ValidationError(f'--cloud_report_tpcc_pass_rule: {e}') from e
  problems = RuleProblems(rule)
  if problems:
    raise flags.ValidationError(
        f'--cloud_report_tpcc_pass_rule={value}: no step could ever pass: '
        + '; '.join(problems)
    )
  return True


def _CheckGrid(values) -> bool:
  start = values['cloud_report_tpcc_start_warehouses']
  maximum = values['cloud_report_tpcc_max_warehouses']
  if start is not None and maximum is not None and maximum < start:
    raise flags.ValidationError(
        f'--cloud_report_tpcc_max_warehouses={maximum} is below'
        f' --cloud_report_tpcc_start_warehouses={start}'
    )
  return True


@settings.Define
@dataclasses.dataclass(frozen=True)
class Params:
  """The phase's settings, read once from the flags; each default is its
  flag's."""

  strategy: str = settings.Enum(
      'cloud_report_tpcc_strategy',
      stepping.LINEAR,
      stepping.STRATEGIES,
      'linear: the report, +step until the first failing step; bisect: the'
      ' same grid searched by bisection from its middle, then the edge'
      ' confirmed by a run; probe: the grid bisected with short runs'
      ' (--cloud_report_tpcc_probe_duration), then a full-length pass at the'
      ' edge and a full-length fail above it, going on at full length where'
      ' a full run disagrees with its probe.',
  )
  start: int = settings.Integer(
      'cloud_report_tpcc_start_warehouses',
      2500,
      'Active warehouses of the first step (linear); the lowest level of the'
      ' grid (bisect, which starts in its middle).',
      lower_bound=1,
  )
  step: int = settings.Integer(
      'cloud_report_tpcc_step_warehouses',
      250,
      'Active warehouses added per step.',
      lower_bound=1,
  )
  max_warehouses: int = settings.Integer(
      'cloud_report_tpcc_max_warehouses',
      3500,
      'Warehouses loaded, and the last step (default: tpcc.sh -W default in'
      " the CRL repository, the report's 16-vCPU setting).",
      lower_bound=1,
  )
  duration: str = settings.String(
      'cloud_report_tpcc_duration',
      '30m',
      'Measured time per step (90s, 30m).',
      validator=DurationValidator('cloud_report_tpcc_duration'),
  )
  probe_duration: str = settings.String(
      'cloud_report_tpcc_probe_duration',
      '5m',
      'Measured time of a probe step (strategy probe), after the same ramp'
      ' as a full step.',
      validator=DurationValidator('cloud_report_tpcc_probe_duration'),
  )
  ramp: str = settings.String(
      'cloud_report_tpcc_ramp',
      '1m',
      'Ramp before each step (0s for none).',
      validator=DurationValidator('cloud_report_tpcc_ramp', positive=False),
  )
  pass_rule: str = settings.String(
      'cloud_report_tpcc_pass_rule',
      'report',
      'report (p90 < 5 s, the report text), crl_script (efc > 85 % and p95 <'
      ' 10 s, the CRL script), or custom:METRIC<VALUE,METRIC>VALUE,... over'
      f' {", ".join(pass_rules.METRIC_KEYS)}.',
      validator=_CheckRule,
  )
  cockroach_cache: str = settings.String(
      'cloud_report_tpcc_cockroach_cache',
      cockroach.DEFAULT_CACHE,
      'cockroach start --cache (CRL repository: 0.25).',
  )
  cockroach_max_sql_memory: str = settings.String(
      'cloud_report_tpcc_cockroach_max_sql_memory',
      cockroach.DEFAULT_MAX_SQL_MEMORY,
      'cockroach start --max-sql-memory (CRL repository: 0.4).',
  )
  cockroach_import_settings: bool = settings.Boolean(
      'cloud_report_tpcc_cockroach_import_settings',
      True,
      "Set tpcc.sh's bulk-import cluster settings before the fixtures import.",
  )
  load_timeout: str = settings.String(
      'cloud_report_tpcc_load_timeout',
      AUTO,
      'Give up loading the warehouses after this long (e.g. 90m), ending the'
      ' load on the client. auto: the expected import time of the warehouses'
      ' on the db nodes plus a margin (at most an hour past it). An import'
      ' can hang rather than exit when the database fails under it, e.g. on'
      ' a full disk.',
      validator=DurationValidator('cloud_report_tpcc_load_timeout', auto=True),
  )
  fixtures: str = settings.Enum(
      'cloud_report_tpcc_fixtures',
      fixtures.OFF,
      fixtures.MODES,
      'auto: load the warehouses from a prebuilt fixture in'
      ' --cloud_report_tpcc_fixtures_bucket when one matches'
      ' (cockroach: `cockroach workload fixtures load`), else generate'
      ' them; the log says which and why. off: always generate.',
  )
  fixtures_bucket: str = settings.String(
      'cloud_report_tpcc_fixtures_bucket',
      '',
      'With --cloud_report_tpcc_fixtures=auto (which needs it), the bucket of'
      " your own, in the client's cloud, that holds the TPC-C fixtures;"
      " {region} in it becomes the client's region (e.g."
      ' my-tpcc-fixtures-{region}).',
      validator=_CheckBucket,
  )
  fixtures_make: bool = settings.Boolean(
      'cloud_report_tpcc_fixtures_make',
      False,
      'With --cloud_report_tpcc_fixtures=auto, make a missing fixture'
      ' (cockroach: `fixtures make`) and load it, so that later'
      ' configurations in the same cloud and region load it.',
  )
  step_timeout: str = settings.String(
      'cloud_report_tpcc_step_timeout',
      AUTO,
      'End a step that has not finished after this long (e.g. 45m) on the'
      ' client; the step then gave no result. auto: ramp + duration plus a'
      ' margin (at most an hour past them).',
      validator=DurationValidator('cloud_report_tpcc_step_timeout', auto=True),
  )
  step_retries: int = settings.Integer(
      'cloud_report_tpcc_step_retries',
      1,
      'Run a step that produced no result (the tool crashed, or printed'
      ' nothing to parse) again this many times before the level counts as'
      ' failed: the search ends there, its maximum the last passing level'
      ' (when no level passed, the search ends with no result).',
      lower_bound=0,
  )

  @classmethod
  def FromFlags(cls) -> 'Params':
    return settings.FromFlags(cls)

  def LoadTimeout(self, nodes: int) -> int:
    """Seconds the warehouses' load may take on `nodes` database nodes."""
    if self.load_timeout != AUTO:
      return engines.DurationSeconds(self.load_timeout)
    return timeouts.Bound(timeouts.ImportSeconds(self.max_warehouses, nodes))

  def StepTimeout(self, overrun: float = 1.0) -> int:
    """Seconds one step may take; overrun: the tool's duration multiplier
    (a tool with think times may run past its duration)."""
    if self.step_timeout != AUTO:
      return engines.DurationSeconds(self.step_timeout)
    return timeouts.Bound(
        timeouts.StepSeconds(self.ramp_s, self.duration_s * overrun)
    )

  @property
  def duration_s(self) -> int:
    return engines.DurationSeconds(self.duration)

  @property
  def probe_duration_s(self) -> int:
    return engines.DurationSeconds(self.probe_duration)

  @property
  def ramp_s(self) -> int:
    return engines.DurationSeconds(self.ramp)

  @property
  def plan(self) -> stepping.Plan:
    return stepping.Plan(
        self.strategy, self.start, self.step, self.max_warehouses
    )

  @property
  def rule(self) -> pass_rules.PassRule:
    return pass_rules.ParseRule(self.pass_rule)


def _CheckFixtures(values) -> bool:
  """_make and a bucket go with auto; auto needs a bucket."""
  auto = values['cloud_report_tpcc_fixtures'] == fixtures.AUTO
  if values['cloud_report_tpcc_fixtures_make'] and not auto:
    raise flags.ValidationError(
        '--cloud_report_tpcc_fixtures_make needs'
        ' --cloud_report_tpcc_fixtures=auto'
    )
  if auto and not values['cloud_report_tpcc_fixtures_bucket']:
    raise flags.ValidationError(
        '--cloud_report_tpcc_fixtures=auto needs'
        ' --cloud_report_tpcc_fixtures_bucket: a bucket of your own in the'
        " client's cloud (bucket names are global)"
    )
  return True


flags.register_multi_flags_validator(
    ['cloud_report_tpcc_start_warehouses', 'cloud_report_tpcc_max_warehouses'],
    _CheckGrid,
)
flags.register_multi_flags_validator(
    [
        'cloud_report_tpcc_fixtures',
        'cloud_report_tpcc_fixtures_make',
        'cloud_report_tpcc_fixtures_bucket',
    ],
    _CheckFixtures,
)
