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
# pylint: disable=line-too-long
"""Parses the end of a TPC-C run of `cockroach workload run tpcc`.

Result is every engine's: another tool's parser returns one too, and
CheckResult applies the rule every result must meet.

cockroach workload (CockroachDB v2.1 to v22.1 print the same shape) ends with
per-operation totals, either under one header or one header per operation,

  _elapsed___errors_____ops(total)___ops/sec(cum)__avg(ms)__p50(ms)__p95(ms)__p99(ms)_pMax(ms)__total
    720.0s        0          51980           72.2    287.2    268.4    570.4    704.6   1342.2  delivery

a `__result` line over all operations, the audit checks, and the final table,
whose latencies are the newOrder transaction's and whose efc is
100 * tpmC / (12.86 * active warehouses):

  _elapsed_______tpmC____efc__avg(ms)__p50(ms)__p90(ms)__p95(ms)__p99(ms)_pMax(ms)
    720.0s    44008.2  97.8%    199.5    184.5    352.3    402.7    520.1   1946.2

Lines before these sections (per-second progress) are ignored, so a tail of
the output parses; a missing or cut final table, a panic, or a garbled row
is a ParseError. Every value is a plain non-negative decimal of at most 18
digits before the point (the tool prints them so): NaN, infinity, negative
or exponent notation is a ParseError.
"""

# pylint: enable=line-too-long

import dataclasses
import re

from benchmarks.cloud_report.parsers import ParseError

COCKROACH = 'cockroach'
# TPC-C's maximum new-order rate per warehouse with keying and think times.
TPMC_PER_WAREHOUSE = 12.86

_CRDB_FINAL = (
    '_elapsed_______tpmC____efc__avg(ms)__p50(ms)__p90(ms)__p95(ms)__p99(ms)'
    '_pMax(ms)'
)
_CRDB_OPS = (
    '_elapsed___errors_____ops(total)___ops/sec(cum)__avg(ms)__p50(ms)'
    '__p95(ms)__p99(ms)_pMax(ms)__'
)
_CRDB_MARKERS = ('_elapsed___', 'tpmC____efc')
NUM = r'[0-9]{1,18}(?:\.[0-9]{1,18})?'  # a value as the tools print them
_INT = r'[0-9]{1,18}'
_NUMBER = re.compile(rf'^{NUM}$')
_CRDB_FINAL_ROW = re.compile(
    rf'^\s*({NUM})s\s+({NUM})\s+({NUM})%' + rf'\s+({NUM})' * 6 + r'\s*$'
)
_CRDB_OP_ROW = re.compile(
    rf'^\s*({NUM})s\s+({_INT})\s+({_INT})\s+({NUM})'
    + rf'\s+({NUM})' * 5
    + r'(?:\s+([A-Za-z_]+))?\s*$'
)
_AUDIT = re.compile(r'^Audit check ([0-9.]+): (PASS|FAIL|SKIP)\b')


@dataclasses.dataclass(frozen=True)
class Operation:
  """Totals of one transaction type over the measured run."""

  name: str  # as the tool prints it, e.g. newOrder (cockroach)
  count: int
  errors: int  # failed transactions
  avg_ms: float
  p50_ms: float
  p90_ms: float | None  # cockroach prints no per-operation p90
  p95_ms: float
  p99_ms: float
  max_ms: float


@dataclasses.dataclass(frozen=True)
class Result:
  """A TPC-C run's result: throughput, efficiency, newOrder latency."""

  tool: str
  elapsed_s: float
  tpmc: float
  efficiency_pct: float  # 100 * tpmC / (12.86 * warehouses), as printed
  avg_ms: float
  p50_ms: float
  p90_ms: float
  p95_ms: float
  p99_ms: float
  max_ms: float
  errors: int
  operations: tuple[Operation, ...] = ()
  audit: tuple[tuple[str, str], ...] = ()  # cockroach: (check, PASS|FAIL|SKIP)
  think_time: bool | None = None  # keying/think times seen (None: not shown)
  tpm_total: float | None = None  # all committed transactions, if printed

  @property
  def implied_warehouses(self) -> float | None:
    """The warehouse count the tool's efficiency was computed over."""
    if not self.efficiency_pct:
      return None
    return self.tpmc / (TPMC_PER_WAREHOUSE * self.efficiency_pct / 100)

  def Metrics(self) -> dict[str, float]:
    """The stepping metrics (cloud_report.tpcc.pass_rules.METRIC_KEYS)."""
    return {
        'tpmc': self.tpmc,
        'efficiency_pct': self.efficiency_pct,
        'avg_ms': self.avg_ms,
        'p50_ms': self.p50_ms,
        'p90_ms': self.p90_ms,
        'p95_ms': self.p95_ms,
        'p99_ms': self.p99_ms,
        'max_ms': self.max_ms,
        'errors': float(self.errors),
        'elapsed_s': self.elapsed_s,
    }


def Panic(text: str) -> str | None:
  """The message of a Go panic in the output, if any."""
  for line in text.splitlines():
    if line.startswith('panic: '):
      return line[len('panic: ') :].strip()
  return None


def Float(value: str, what: str) -> float:
  """A printed value as a float; ParseError naming `what` if it is not a
  plain non-negative decimal."""
  if not _NUMBER.match(value):
    raise ParseError(
        f'{what}: {value[:40]!r} is not a non-negative decimal number'
    )
  return float(value)


def _ParseCockroachOps(lines: list[str]) -> tuple[list[Operation], int | None]:
  """Returns the per-operation totals and the __result error count."""
  ops, result_errors = [], None
  i = 0
  while i < len(lines):
    line = lines[i].strip()
    if not line.startswith(_CRDB_OPS):
      i += 1
      continue
    kind = line[len(_CRDB_OPS) :]
    if kind not in ('total', 'result'):
      raise ParseError(f'unknown cockroach summary header {line!r}')
    rows = []
    i += 1
    while i < len(lines) and lines[i].strip():
      if lines[i].startswith(('_elapsed', 'Audit check')):
        break
      m = _CRDB_OP_ROW.match(lines[i])
      if not m:
        raise ParseError(
            f'garbled cockroach {kind} row after {line[:30]}...: {lines[i]!r}'
        )
      rows.append(m)
      i += 1
    if not rows:
      raise ParseError(f'cockroach {kind} header with no row (truncated?)')
    if kind == 'result':
      if len(rows) != 1 or rows[0].group(10):
        raise ParseError('the cockroach __result section must be one row')
      result_errors = int(rows[0].group(2))
      continue
    for m in rows:
      if not m.group(10):
        raise ParseError('cockroach __total row without operation name')
      ops.append(
          Operation(
              name=m.group(10),
              count=int(m.group(3)),
              errors=int(m.group(2)),
              avg_ms=float(m.group(5)),
              p50_ms=float(m.group(6)),
              p90_ms=None,
              p95_ms=float(m.group(7)),
              p99_ms=float(m.group(8)),
              max_ms=float(m.group(9)),
          )
      )
  return ops, result_errors


def ParseCockroach(text: str) -> Result:
  """Parses `cockroach workload run tpcc` output (see module docstring)."""
  lines = text.splitlines()
  finals = [i for i, l in enumerate(lines) if l.strip() == _CRDB_FINAL]
  if not finals:
    if any('tpmC____efc' in l for l in lines):
      raise ParseError('garbled cockroach final table header')
    raise ParseError(
        'no cockroach final table (_elapsed_______tpmC____efc...): the run'
        ' did not finish, or this is not `workload run tpcc` output'
    )
  if len(finals) > 1:
    raise ParseError(
        f'{len(finals)} cockroach final tables: one run per file, please'
    )
  rest = [l for l in lines[finals[0] + 1 :] if l.strip()]
  if not rest:
    raise ParseError('cockroach final table has no row (truncated output)')
  m = _CRDB_FINAL_ROW.match(rest[0])
  if not m:
    raise ParseError(f'garbled cockroach final row: {rest[0]!r}')
  values = [float(v) for v in m.groups()]
  ops, result_errors = _ParseCockroachOps(lines[: finals[0]])
  names = [op.name for op in ops]
  if ops and 'newOrder' not in names:
    raise ParseError(f'cockroach totals lack newOrder (have {names})')
  if len(set(names)) != len(names):
    raise ParseError(f'cockroach totals list an operation twice: {names}')
  audit = tuple(
      (a.group(1), a.group(2))
      for a in (_AUDIT.match(l) for l in lines[: finals[0]])
      if a
  )
  errors = (
      result_errors
      if result_errors is not None
      else sum(op.errors for op in ops)
  )
  return Result(
      tool=COCKROACH,
      elapsed_s=values[0],
      tpmc=values[1],
      efficiency_pct=values[2],
      avg_ms=values[3],
      p50_ms=values[4],
      p90_ms=values[5],
      p95_ms=values[6],
      p99_ms=values[7],
      max_ms=values[8],
      errors=errors,
      operations=tuple(ops),
      audit=audit,
  )


# What Parse looks for, for its error when the text is another tool's.
WANTED = '`cockroach workload run tpcc` output (no _elapsed___ table)'


def IsCockroach(text: str) -> bool:
  """Whether the text is `cockroach workload run tpcc` output."""
  return any(m in text for m in _CRDB_MARKERS)


def Refuse(text: str, what: str) -> None:
  """Raises ParseError for a text that is not the tool's output.

  An empty text and a Go panic get their own words; else `what` (e.g.
  f'not {WANTED}') says what the text is not.
  """
  if not text.strip():
    raise ParseError('empty TPC-C output')
  panic = Panic(text)
  if panic:
    raise ParseError(f'the TPC-C tool panicked: {panic}')
  raise ParseError(what)


def CheckResult(result: Result) -> Result:
  """Returns a parsed result, or raises ParseError where it contradicts
  itself (any tool's)."""
  if result.elapsed_s == 0 and result.tpmc > 0:
    # A step that completed no transaction prints every figure as 0 (and
    # a full elapsed time); new orders in no time at all are no result.
    raise ParseError(
        f'{result.tool} reports {result.tpmc:g} tpmC in an elapsed time of'
        ' 0 s: the output contradicts itself'
    )
  return result


def Parse(text: str) -> Result:
  """Parses one `cockroach workload run tpcc` run's output.

  Raises:
    ParseError: empty, another tool's, truncated, garbled or failed output.
  """
  if not IsCockroach(text):
    Refuse(text, f'not {WANTED}')
  return CheckResult(ParseCockroach(text))
