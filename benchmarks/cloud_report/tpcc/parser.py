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
"""Parses the end of a TPC-C run: `cockroach workload run tpcc` or go-tpc.

The tool is detected from the text.

cockroach workload (CockroachDB v2.1 to v22.1 print the same shape) ends with
per-operation totals, either under one header or one header per operation,

  _elapsed___errors_____ops(total)___ops/sec(cum)__avg(ms)__p50(ms)__p95(ms)__p99(ms)_pMax(ms)__total
    720.0s        0          51980           72.2    287.2    268.4    570.4    704.6   1342.2  delivery

a `__result` line over all operations, the audit checks, and the final table,
whose latencies are the newOrder transaction's and whose efc is
100 * tpmC / (12.86 * active warehouses):

  _elapsed_______tpmC____efc__avg(ms)__p50(ms)__p90(ms)__p95(ms)__p99(ms)_pMax(ms)
    720.0s    44008.2  97.8%    199.5    184.5    352.3    402.7    520.1   1946.2

go-tpc (v1.0.9, plain output) ends with `[Summary]` lines, one per operation
(failed transactions as NAME_ERR), with --wait the keying and thinking times,
and the tpmC line, whose efficiency go-tpc computes with the same formula
over its --warehouses:

  [Summary] NEW_ORDER - Takes(s): 30.0, Count: 6022, TPM: 12051.1, Sum(ms): ...
  tpmC: 12051.0, tpmTotal: 27072.0, efficiency: 23427.3%

Lines before these sections (per-second progress) are ignored, so a tail of
the output parses; a missing or cut final table, a panic, or a garbled row
is a ParseError. Every value is a plain non-negative decimal of at most 18
digits before the point (both tools print them so): NaN, infinity, negative
or exponent notation is a ParseError.
"""

# pylint: enable=line-too-long

import dataclasses
import re

from benchmarks.cloud_report.parsers import ParseError

COCKROACH = 'cockroach'
GO_TPC = 'go-tpc'
TOOLS = (COCKROACH, GO_TPC)
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
_NUM = r'[0-9]{1,18}(?:\.[0-9]{1,18})?'
_INT = r'[0-9]{1,18}'
_NUMBER = re.compile(rf'^{_NUM}$')
_CRDB_FINAL_ROW = re.compile(
    rf'^\s*({_NUM})s\s+({_NUM})\s+({_NUM})%' + rf'\s+({_NUM})' * 6 + r'\s*$'
)
_CRDB_OP_ROW = re.compile(
    rf'^\s*({_NUM})s\s+({_INT})\s+({_INT})\s+({_NUM})'
    + rf'\s+({_NUM})' * 5
    + r'(?:\s+([A-Za-z_]+))?\s*$'
)
_AUDIT = re.compile(r'^Audit check ([0-9.]+): (PASS|FAIL|SKIP)\b')

_GOTPC_SUMMARY = re.compile(r'^\[Summary\] ([A-Z_]+) - (Takes\(s\):.*)$')
_GOTPC_FIELDS = (
    'Takes(s)',
    'Count',
    'TPM',
    'Sum(ms)',
    'Avg(ms)',
    '50th(ms)',
    '90th(ms)',
    '95th(ms)',
    '99th(ms)',
    '99.9th(ms)',
    'Max(ms)',
)
_GOTPC_WAIT = re.compile(
    rf'^\[Summary\] (KEYINGTIME|THINKINGTIME)-([A-Z_]+) - ({_NUM})s$'
)
_GOTPC_TPMC = re.compile(
    rf'^tpmC: ({_NUM}), tpmTotal: ({_NUM}), efficiency: ({_NUM})%$'
)
_GOTPC_NEW_ORDER = 'NEW_ORDER'


@dataclasses.dataclass(frozen=True)
class Operation:
  """Totals of one transaction type over the measured run."""

  name: str  # as the tool prints it: newOrder (cockroach), NEW_ORDER (go-tpc)
  count: int
  errors: int  # failed transactions (go-tpc: the NAME_ERR count)
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
  think_time: bool | None = None  # go-tpc: --wait seen; cockroach: not shown
  tpm_total: float | None = None  # go-tpc: all committed transactions

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


def Detect(text: str) -> str:
  """Returns which tool wrote the output (COCKROACH or GO_TPC)."""
  if not text.strip():
    raise ParseError('empty TPC-C output')
  crdb = any(m in text for m in _CRDB_MARKERS)
  gotpc = '[Summary] ' in text or '\ntpmC: ' in '\n' + text
  if crdb and gotpc:
    raise ParseError(
        'output mixes cockroach workload and go-tpc results; parse one run'
    )
  if crdb:
    return COCKROACH
  if gotpc or '[Current] ' in text:
    return GO_TPC
  panic = _Panic(text)
  if panic:
    raise ParseError(f'the TPC-C tool panicked: {panic}')
  raise ParseError(
      'neither `cockroach workload run tpcc` output (no _elapsed___ table)'
      ' nor go-tpc output (no [Summary] or tpmC: line)'
  )


def _Panic(text: str) -> str | None:
  for line in text.splitlines():
    if line.startswith('panic: '):
      return line[len('panic: ') :].strip()
  return None


def _Float(value: str, what: str) -> float:
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


def _GoTpcFields(name: str, body: str) -> dict[str, float]:
  """Reads the "key: value, ..." fields of one go-tpc summary line."""
  fields = {}
  for part in body.split(', '):
    key, sep, value = part.partition(': ')
    if not sep:
      raise ParseError(f'garbled go-tpc [Summary] {name} field {part!r}')
    fields[key] = _Float(value, f'go-tpc [Summary] {name} {key}')
  if tuple(fields) != _GOTPC_FIELDS:
    raise ParseError(
        f'go-tpc [Summary] {name} has fields {list(fields)}, expected'
        f' {list(_GOTPC_FIELDS)}'
    )
  return fields


def ParseGoTpc(text: str) -> Result:
  """Parses go-tpc `tpcc run` plain output (see module docstring)."""
  panic = _Panic(text)
  if panic:
    raise ParseError(f'go-tpc panicked: {panic}')
  summaries, waits, tpmc_lines = {}, set(), []
  for line in text.splitlines():
    line = line.rstrip()
    if line.startswith('[Summary] '):
      w = _GOTPC_WAIT.match(line)
      if w:
        waits.add(w.group(1))
        continue
      m = _GOTPC_SUMMARY.match(line)
      if not m:
        raise ParseError(f'garbled go-tpc [Summary] line: {line!r}')
      if m.group(1) in summaries:
        raise ParseError(
            f'go-tpc [Summary] {m.group(1)} twice: one run per file, please'
        )
      summaries[m.group(1)] = _GoTpcFields(m.group(1), m.group(2))
    elif line.startswith('tpmC'):
      m = _GOTPC_TPMC.match(line)
      if not m:
        raise ParseError(f'garbled go-tpc tpmC line: {line!r}')
      tpmc_lines.append(m)
  if not summaries:
    raise ParseError(
        'no go-tpc [Summary] lines: the run did not finish (only [Current]'
        ' progress?)'
    )
  if _GOTPC_NEW_ORDER not in summaries:
    raise ParseError(
        f'go-tpc [Summary] lacks NEW_ORDER (have {sorted(summaries)})'
    )
  if not tpmc_lines:
    raise ParseError('no go-tpc tpmC: line (truncated output?)')
  if len(tpmc_lines) > 1:
    raise ParseError('several go-tpc tpmC: lines: one run per file, please')
  tpmc, tpm_total, efficiency = (float(v) for v in tpmc_lines[0].groups())
  ops = []
  for name, f in summaries.items():
    if name.endswith('_ERR'):
      continue
    err = summaries.get(name + '_ERR', {}).get('Count', 0.0)
    ops.append(
        Operation(
            name=name,
            count=int(f['Count']),
            errors=int(err),
            avg_ms=f['Avg(ms)'],
            p50_ms=f['50th(ms)'],
            p90_ms=f['90th(ms)'],
            p95_ms=f['95th(ms)'],
            p99_ms=f['99th(ms)'],
            max_ms=f['Max(ms)'],
        )
    )
  new_order = summaries[_GOTPC_NEW_ORDER]
  return Result(
      tool=GO_TPC,
      elapsed_s=new_order['Takes(s)'],
      tpmc=tpmc,
      efficiency_pct=efficiency,
      avg_ms=new_order['Avg(ms)'],
      p50_ms=new_order['50th(ms)'],
      p90_ms=new_order['90th(ms)'],
      p95_ms=new_order['95th(ms)'],
      p99_ms=new_order['99th(ms)'],
      max_ms=new_order['Max(ms)'],
      errors=sum(
          int(f['Count']) for n, f in summaries.items() if n.endswith('_ERR')
      ),
      operations=tuple(ops),
      think_time=bool(waits),
      tpm_total=tpm_total,
  )


def Parse(text: str) -> Result:
  """Parses one TPC-C run's output, detecting the tool.

  Raises:
    ParseError: empty, unknown, truncated, garbled or failed output.
  """
  if Detect(text) == COCKROACH:
    result = ParseCockroach(text)
  else:
    result = ParseGoTpc(text)
  if result.elapsed_s == 0 and result.tpmc > 0:
    # A step that completed no transaction prints every figure as 0 (and
    # a full elapsed time); new orders in no time at all are no result.
    raise ParseError(
        f'{result.tool} reports {result.tpmc:g} tpmC in an elapsed time of'
        ' 0 s: the output contradicts itself'
    )
  return result
