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
"""TPC-C pass rules: whether one step's measurement passed (pure).

A rule is named (`report`: p90 < 5 s, the report's text; `crl_script`: efc >
85 % and p95 < 10 s, the CRL repository's script) or written as
custom:METRIC<VALUE,METRIC>VALUE,... over METRIC_KEYS; every limit must hold.
A run that completed no transaction (NoThroughput) passes no rule.
"""

import dataclasses
import math
import operator
import re
from typing import Mapping

# Metrics a measurement may carry (all floats); pass rules refer to these.
METRIC_KEYS = (
    'tpmc',
    'efficiency_pct',
    'avg_ms',
    'p50_ms',
    'p90_ms',
    'p95_ms',
    'p99_ms',
    'max_ms',
    'errors',
    'elapsed_s',
)
_UNITS = {'ms': ' ms', 'pct': '%', 's': ' s'}


@dataclasses.dataclass(frozen=True)
class Limit:
  """One condition of a pass rule: metric < value or metric > value."""

  metric: str
  op: str  # '<' or '>'
  value: float

  def __post_init__(self):
    if self.metric not in METRIC_KEYS:
      raise ValueError(
          f'unknown metric {self.metric!r}; expected one of'
          f' {", ".join(METRIC_KEYS)}'
      )
    if self.op not in ('<', '>'):
      raise ValueError(f'limit operator must be < or >, got {self.op!r}')

  def Describe(self, value: float | None = None, negate: bool = False) -> str:
    name, _, unit = self.metric.rpartition('_')
    if not name:
      name, unit = self.metric, ''
    suffix = _UNITS.get(unit, '')
    bound = f'{self.value:g}{suffix}'
    op = {'<': '>=', '>': '<='}[self.op] if negate else self.op
    if value is None:
      return f'{name} {op} {bound}'
    return f'{name} {value:g}{suffix} {op} {bound}'

  def Holds(self, value: float) -> bool:
    compare = operator.lt if self.op == '<' else operator.gt
    return compare(value, self.value)


@dataclasses.dataclass(frozen=True)
class PassRule:
  """A named pass rule: every limit must hold."""

  name: str
  limits: tuple[Limit, ...]
  source: str = ''

  def Judge(self, metrics: Mapping[str, float]) -> tuple[bool, str]:
    """Returns (passed, reason) for one step's metrics."""
    held, broken = [], []
    for limit in self.limits:
      value = metrics.get(limit.metric)
      if value is None or not math.isfinite(value):
        broken.append(f'no {limit.metric} measured')
      elif limit.Holds(value):
        held.append(limit.Describe(value))
      else:
        broken.append(limit.Describe(value, negate=True))
    if broken:
      return False, f'fail ({self.name}): ' + '; '.join(broken)
    return True, f'pass ({self.name}): ' + '; '.join(held)


RULES = {
    rule.name: rule
    for rule in (
        PassRule(
            'report',
            (Limit('p90_ms', '<', 5000.0),),
            'the 2021 Cloud Report text: 90th percentile latency < 5 s',
        ),
        PassRule(
            'crl_script',
            (Limit('efficiency_pct', '>', 85.0), Limit('p95_ms', '<', 10000.0)),
            "cloud-report's scripts/gen/tpcc.sh (Nov 2020): efc > 85 and"
            ' p95 < 10000 ms on the final line',
        ),
    )
}
CUSTOM_PREFIX = 'custom:'
_LIMIT = re.compile(r'^\s*([a-z0-9_]+)\s*([<>])\s*([0-9.eE+-]+)\s*$')


def ParseRule(spec: str) -> PassRule:
  """Returns a named rule, or one written as custom:metric<value,...

  Args:
    spec: 'report', 'crl_script', or e.g. 'custom:p90_ms<250,tpmc>100'.

  Raises:
    ValueError: naming what is wrong with the spec.
  """
  if spec in RULES:
    return RULES[spec]
  if not spec.startswith(CUSTOM_PREFIX):
    raise ValueError(
        f'unknown pass rule {spec!r}; expected one of {", ".join(RULES)} or'
        f' {CUSTOM_PREFIX}METRIC<VALUE,METRIC>VALUE... with METRIC one of'
        f' {", ".join(METRIC_KEYS)}'
    )
  limits = []
  for part in spec[len(CUSTOM_PREFIX) :].split(','):
    m = _LIMIT.match(part)
    if not m:
      raise ValueError(
          f'pass rule {spec!r}: cannot read {part!r}; write METRIC<VALUE or'
          ' METRIC>VALUE'
      )
    try:
      value = float(m.group(3))
    except ValueError as e:
      raise ValueError(f'pass rule {spec!r}: bad number in {part!r}') from e
    limits.append(Limit(m.group(1), m.group(2), value))
  return PassRule(spec, tuple(limits), 'custom')


_LATENCY_KEYS = ('avg_ms', 'p50_ms', 'p90_ms', 'p95_ms', 'p99_ms', 'max_ms')


def NoThroughput(metrics: Mapping[str, float]) -> str | None:
  """Why a run delivered no throughput (None if it did; pure).

  0 tpmC, or every latency measured 0 ms: the summary of a run that completed
  no transaction. Either fails the step under every rule.
  """
  tpmc = metrics.get('tpmc')
  if tpmc is not None and tpmc == 0:
    return 'no throughput: tpmC 0 (no transaction completed)'
  latencies = [metrics[k] for k in _LATENCY_KEYS if k in metrics]
  if latencies and all(v == 0 for v in latencies):
    return 'no throughput: every latency 0 ms (no transaction completed)'
  return None
