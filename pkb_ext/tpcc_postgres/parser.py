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
"""Parses the end of a go-tpc `tpcc run` (v1.0.9, plain output).

It ends with `[Summary]` lines, one per operation (failed transactions as
NAME_ERR), with --wait the keying and thinking times, and the tpmC line,
whose efficiency go-tpc computes with the TPC-C phase's formula over its
--warehouses:

  [Summary] NEW_ORDER - Takes(s): 30.0, Count: 6022, TPM: 12051.1, Sum(ms): ...
  tpmC: 12051.0, tpmTotal: 27072.0, efficiency: 23427.3%

Every --interval go-tpc also prints a `[Current]` report of that interval
alone (one line per operation that finished in it, names sorted, then with
--wait its keying and thinking times). go-tpc has no ramp: the engine runs a
ramp and its measured time in one process and puts a WindowHeader line first
in the output; with it, the result is that of the measured window (the
`[Current]` reports after the ramp's) instead of the whole run's summary:
counts, throughput, errors, mean and max latency are exact over the window;
a percentile is the largest of its intervals' (at least the window's own:
go-tpc prints no histogram to merge). The summary's tpmC line still gives
the efficiency's warehouses (its efficiency over its tpmC).

Parse follows the rules of the exported cockroach parser
(cloud_report.tpcc.parser), whose Result it returns: earlier lines are
ignored, and a panic, a missing or garbled line, or a value that is not a
plain non-negative decimal is a ParseError.
"""

import math
import re

from benchmarks.cloud_report.parsers import ParseError
from benchmarks.cloud_report.tpcc import parser as tpcc_parser

GO_TPC = 'go-tpc'
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
_NUM = tpcc_parser.NUM
_GOTPC_WAIT = re.compile(
    rf'^\[Summary\] (KEYINGTIME|THINKINGTIME)-([A-Z_]+) - ({_NUM})s$'
)
_GOTPC_TPMC = re.compile(
    rf'^tpmC: ({_NUM}), tpmTotal: ({_NUM}), efficiency: ({_NUM})%$'
)
_GOTPC_NEW_ORDER = 'NEW_ORDER'
_GOTPC_CURRENT = re.compile(r'^\[Current\] ([A-Z_]+) - (Takes\(s\):.*)$')
_GOTPC_CURRENT_WAIT = re.compile(
    rf'^\[Current\] (?:KEYINGTIME|THINKINGTIME)-([A-Z_]+) - {_NUM}s$'
)
WINDOW = 'cloud_report_gotpc_window:'
_WINDOW = re.compile(
    rf'^{WINDOW} ramp_s=([0-9]+) duration_s=([0-9]+) interval_s=([0-9]+)$'
)
# A window interval's report may come this many intervals late (a missed
# tick) before the window is refused.
_MAX_INTERVAL_STRETCH = 2.0
# go-tpc's [Summary] column of each latency field of Operation and Result.
_LATENCY_COLUMNS = {
    'avg_ms': 'Avg(ms)',
    'p50_ms': '50th(ms)',
    'p90_ms': '90th(ms)',
    'p95_ms': '95th(ms)',
    'p99_ms': '99th(ms)',
    'max_ms': 'Max(ms)',
}


def _GoTpcFields(name: str, body: str) -> dict[str, float]:
  """Reads the "key: value, ..." fields of one go-tpc summary line."""
  fields = {}
  for part in body.split(', '):
    key, sep, value = part.partition(': ')
    if not sep:
      raise ParseError(f'garbled go-tpc [Summary] {name} field {part!r}')
    fields[key] = tpcc_parser.Float(value, f'go-tpc [Summary] {name} {key}')
  if tuple(fields) != _GOTPC_FIELDS:
    raise ParseError(
        f'go-tpc [Summary] {name} has fields {list(fields)}, expected'
        f' {list(_GOTPC_FIELDS)}'
    )
  return fields


def ParseGoTpc(text: str) -> tpcc_parser.Result:
  """Parses go-tpc `tpcc run` plain output (see module docstring)."""
  panic = tpcc_parser.Panic(text)
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
  window = _Window(text)
  if window is not None:
    per_tpmc = efficiency / tpmc if tpmc else 0.0
    return _WindowResult(text, window, per_tpmc, bool(waits))
  ops = []
  for name, f in summaries.items():
    if name.endswith('_ERR'):
      continue
    err = summaries.get(name + '_ERR', {}).get('Count', 0.0)
    ops.append(
        tpcc_parser.Operation(
            name=name,
            count=int(f['Count']),
            errors=int(err),
            **_Latencies(f),
        )
    )
  new_order = summaries[_GOTPC_NEW_ORDER]
  return tpcc_parser.Result(
      tool=GO_TPC,
      elapsed_s=new_order['Takes(s)'],
      tpmc=tpmc,
      efficiency_pct=efficiency,
      **_Latencies(new_order),
      errors=sum(
          int(f['Count']) for n, f in summaries.items() if n.endswith('_ERR')
      ),
      operations=tuple(ops),
      think_time=bool(waits),
      tpm_total=tpm_total,
  )


def WindowInterval(ramp_s: int, duration_s: int, interval_s: int) -> int:
  """The report interval (s) that puts a report at the ramp's end and at
  the measured time's: the greatest common divisor of the three."""
  return math.gcd(ramp_s, duration_s, interval_s) or 1


def WindowHeader(ramp_s: int, duration_s: int, interval_s: int) -> str:
  """The line that tells ParseGoTpc a run's measured window."""
  return (
      f'{WINDOW} ramp_s={ramp_s} duration_s={duration_s}'
      f' interval_s={interval_s}'
  )


def _Window(text: str) -> tuple[int, int, int] | None:
  """(ramp_s, duration_s, interval_s) of a WindowHeader line, if any."""
  for line in text.splitlines():
    if line.startswith(WINDOW):
      m = _WINDOW.match(line.rstrip())
      if not m:
        raise ParseError(f'garbled window line: {line!r}')
      ramp_s, duration_s, interval_s = (int(v) for v in m.groups())
      if not interval_s or ramp_s % interval_s or duration_s % interval_s:
        raise ParseError(
            f'window {line!r}: the ramp and the duration must be multiples of'
            ' the interval'
        )
      return ramp_s, duration_s, interval_s
  return None


def _Reports(text: str) -> list[dict[str, dict[str, float]]]:
  """go-tpc's [Current] reports, in order: {operation: fields} each.

  One report is printed at a time, its operations in sorted order, then its
  wait times: a report starts at an operation that follows a wait time or
  does not sort after the one before it. An interval in which nothing
  finished prints nothing (no report).
  """
  reports, last, waited = [], None, False
  for line in text.splitlines():
    line = line.rstrip()
    if not line.startswith('[Current] '):
      continue
    w = _GOTPC_CURRENT_WAIT.match(line)
    if w:
      waited = True
      continue
    m = _GOTPC_CURRENT.match(line)
    if not m:
      raise ParseError(f'garbled go-tpc [Current] line: {line!r}')
    name = m.group(1)
    if not reports or waited or name.lower() <= last.lower():
      reports.append({})
    reports[-1][name] = _GoTpcFields(name, m.group(2))
    last, waited = name, False
  return reports


def _WindowResult(
    text: str,
    window: tuple[int, int, int],
    efficiency_per_tpmc: float,
    think_time: bool,
) -> tpcc_parser.Result:
  """The Result of the reports of a run's measured window (module doc)."""
  ramp_s, duration_s, interval_s = window
  skip, take = ramp_s // interval_s, duration_s // interval_s
  reports = _Reports(text)
  if len(reports) < skip + take:
    raise ParseError(
        f'go-tpc printed {len(reports)} interval reports, the window needs'
        f' {skip + take} ({ramp_s} s ramp, {duration_s} s measured, every'
        f' {interval_s} s): an interval without a finished transaction, or'
        ' the run ended early'
    )
  window_reports = reports[skip : skip + take]
  totals = {}
  for report in window_reports:
    for name, f in report.items():
      took = f['Takes(s)']
      if took > _MAX_INTERVAL_STRETCH * interval_s:
        raise ParseError(
            f'go-tpc [Current] {name} covers {took:g} s, more than'
            f' {_MAX_INTERVAL_STRETCH:g} intervals of {interval_s} s: a'
            ' report was missed'
        )
      t = totals.setdefault(name, {'Count': 0.0, 'Sum(ms)': 0.0})
      t['Count'] += f['Count']
      t['Sum(ms)'] += f['Sum(ms)']
      for column in _LATENCY_COLUMNS.values():
        if column != 'Avg(ms)':
          t[column] = max(t.get(column, 0.0), f[column])
  for t in totals.values():
    t['Avg(ms)'] = t['Sum(ms)'] / t['Count'] if t['Count'] else 0.0
  if _GOTPC_NEW_ORDER not in totals:
    raise ParseError(
        f'no NEW_ORDER in the measured window (have {sorted(totals)})'
    )
  minutes = duration_s / 60
  ops = [
      tpcc_parser.Operation(
          name=name,
          count=int(t['Count']),
          errors=int(totals.get(name + '_ERR', {}).get('Count', 0.0)),
          **_Latencies(t),
      )
      for name, t in totals.items()
      if not name.endswith('_ERR')
  ]
  tpmc = totals[_GOTPC_NEW_ORDER]['Count'] / minutes
  return tpcc_parser.Result(
      tool=GO_TPC,
      elapsed_s=float(duration_s),
      tpmc=tpmc,
      efficiency_pct=tpmc * efficiency_per_tpmc,
      **_Latencies(totals[_GOTPC_NEW_ORDER]),
      errors=sum(
          int(t['Count']) for n, t in totals.items() if n.endswith('_ERR')
      ),
      operations=tuple(ops),
      think_time=think_time,
      tpm_total=sum(op.count for op in ops) / minutes,
  )


def _Latencies(summary: dict[str, float]) -> dict[str, float]:
  """The latency fields of a go-tpc [Summary] line, by their Result names."""
  return {field: summary[column] for field, column in _LATENCY_COLUMNS.items()}


def IsGoTpc(text: str) -> bool:
  """Whether the text is go-tpc's output (progress lines alone count)."""
  return (
      '[Summary] ' in text or '\ntpmC: ' in '\n' + text or '[Current] ' in text
  )


# What Parse looks for, for its error when the text is another tool's.
WANTED = 'go-tpc output (no [Summary] or tpmC: line)'


def Parse(text: str) -> tpcc_parser.Result:
  """Parses one go-tpc `tpcc run`'s output (the postgres engine's).

  Raises:
    ParseError: empty, another tool's, truncated, garbled or failed output.
  """
  if not IsGoTpc(text):
    tpcc_parser.Refuse(text, f'not {WANTED}')
  return tpcc_parser.CheckResult(ParseGoTpc(text))
