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

Parse follows the rules of the exported cockroach parser
(cloud_report.tpcc.parser), whose Result it returns: earlier lines are
ignored, and a panic, a missing or garbled line, or a value that is not a
plain non-negative decimal is a ParseError.
"""

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
    tpcc_parser.Refuse(text, WANTED)
  return tpcc_parser.CheckResult(ParseGoTpc(text))
