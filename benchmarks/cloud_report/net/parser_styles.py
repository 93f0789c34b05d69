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
"""netperf's four output styles, read into (selector, value) pairs (pure).

-k prints KEY=value lines; -o prints CSV (titles, then values); -O prints
columns of titles and values; the classic tables (no output selectors) print
fixed rows. Titles are mapped back to selectors (TITLES).
"""

import csv
import re

from benchmarks.cloud_report.parsers import ParseError

# Column titles (as in -O and -o output) of the selectors we use -> selector.
TITLES = {
    'Minimum Latency Microseconds': 'MIN_LATENCY',
    'Mean Latency Microseconds': 'MEAN_LATENCY',
    '50th Percentile Latency Microseconds': 'P50_LATENCY',
    '90th Percentile Latency Microseconds': 'P90_LATENCY',
    '99th Percentile Latency Microseconds': 'P99_LATENCY',
    'Maximum Latency Microseconds': 'MAX_LATENCY',
    'Stddev Latency Microseconds': 'STDDEV_LATENCY',
    'Transaction Rate Tran/s': 'TRANSACTION_RATE',
    'Round Trip Latency usec/tran': 'RT_LATENCY',
    'Throughput': 'THROUGHPUT',
    'Throughput Units': 'THROUGHPUT_UNITS',
    'Confidence Level Percent': 'CONFIDENCE_LEVEL',
    'Confidence Width Target': 'CONFIDENCE_INTERVAL',
    'Confidence Iterations Run': 'CONFIDENCE_ITERATION',
    'Throughput Confidence Width (%)': 'THROUGHPUT_CONFID',
    'Elapsed Time (sec)': 'ELAPSED_TIME',
    'Protocol': 'PROTOCOL',
    'Direction': 'DIRECTION',
    'Request Size Bytes': 'REQUEST_SIZE',
    'Response Size Bytes': 'RESPONSE_SIZE',
    'Local Send Size': 'LOCAL_SEND_SIZE',
    'Remote Recv Size': 'REMOTE_RECV_SIZE',
    'Transport MSS bytes': 'TRANSPORT_MSS',
    'Local Transport Retransmissions': 'LOCAL_TRANSPORT_RETRANS',
    'Remote Transport Retransmissions': 'REMOTE_TRANSPORT_RETRANS',
    'Command Line': 'COMMAND_LINE',
    'Result Tag': 'RESULT_BRAND',
}

KEYVAL = re.compile(r'^(?P<key>[A-Z][A-Z0-9_]*)=(?P<value>.*)$')
_CLASSIC_STREAM = re.compile(r'^Recv\s+Send\s+Send\b')
_CLASSIC_RR = re.compile(r'^Local /Remote\b')


def _ParseKeyval(body: list[str]) -> list[tuple[str, str]]:
  pairs = []
  for line in body:
    m = KEYVAL.match(line)
    if not m:
      raise ParseError(f'not a KEY=value line in -k output: {line!r}')
    value = m.group('value')
    if len(value) >= 2 and value[0] == value[-1] == '"':
      value = value[1:-1]
    pairs.append((m.group('key'), value))
  return pairs


def _Selector(title: str) -> str:
  return TITLES.get(title, title)


def _ParseCsv(body: list[str]) -> list[tuple[str, str]]:
  if len(body) != 2:
    raise ParseError(
        f'-o output needs a title row and a value row, got {len(body)} rows'
    )
  titles, values = (next(csv.reader([row])) for row in body)
  if len(titles) != len(values):
    raise ParseError(
        f'-o output has {len(titles)} titles but {len(values)} values'
        ' (truncated?)'
    )
  return [(_Selector(t.strip()), v.strip()) for t, v in zip(titles, values)]


def _Columns(rows: list[str]) -> list[tuple[int, int]]:
  """Column spans of -O output: runs of positions not blank in every row."""
  width = max(len(r) for r in rows)
  used = [False] * width
  for row in rows:
    for i, ch in enumerate(row):
      if ch != ' ':
        used[i] = True
  # A quoted value (COMMAND_LINE) may contain blanks: keep it one column.
  for m in re.finditer(r'"[^"]*"', rows[-1]):
    for i in range(m.start(), m.end()):
      used[i] = True
  spans, start = [], None
  for i, u in enumerate(used + [False]):
    if u and start is None:
      start = i
    elif not u and start is not None:
      spans.append((start, i))
      start = None
  return spans


def _ParseHuman(body: list[str]) -> list[tuple[str, str]]:
  """Reads -O output: title rows, then one row of values, into pairs."""
  if len(body) < 2:
    raise ParseError(
        '-O output needs title rows and a value row (truncated output?)'
    )
  *titles, values = body
  pairs = []
  for a, b in _Columns(body):
    title = ' '.join(w for w in (r[a:b].strip() for r in titles) if w)
    value = values[a:b].strip().strip('"')
    if not title:
      raise ParseError(f'-O output has a value with no title: {value!r}')
    pairs.append((_Selector(title), value))
  return pairs


def _ParseClassic(body: list[str]) -> list[tuple[str, str]]:
  """The classic TCP_STREAM and TCP_RR tables (no CPU columns)."""
  rows = [r.split() for r in body if re.match(r'^\s*\d', r)]
  header = [r for r in body if not re.match(r'^\s*\d', r)]
  if _CLASSIC_STREAM.match(body[0]):
    if len(rows) != 1 or len(rows[0]) != 5:
      raise ParseError('classic TCP_STREAM table needs one row of 5 values')
    units = header[-1].split()[-1].replace('/sec', '/s')
    recv, send, message, elapsed, tput = rows[0]
    return [
        ('RSR_SIZE_END', recv),
        ('LSS_SIZE_END', send),
        ('LOCAL_SEND_SIZE', message),
        ('ELAPSED_TIME', elapsed),
        ('THROUGHPUT', tput),
        ('THROUGHPUT_UNITS', units),
    ]
  if len(rows) != 2 or len(rows[0]) != 6 or len(rows[1]) != 2:
    raise ParseError(
        'classic TCP_RR table needs a row of 6 values and a row of 2'
        ' (truncated?)'
    )
  send, recv, request, response, elapsed, rate = rows[0]
  return [
      ('LSS_SIZE_END', send),
      ('LSR_SIZE_END', recv),
      ('REQUEST_SIZE', request),
      ('RESPONSE_SIZE', response),
      ('ELAPSED_TIME', elapsed),
      ('TRANSACTION_RATE', rate),
      ('THROUGHPUT', rate),
      ('THROUGHPUT_UNITS', 'Trans/s'),
      ('RSS_SIZE_END', rows[1][0]),
      ('RSR_SIZE_END', rows[1][1]),
  ]


def Style(body: list[str]) -> str:
  """Tells which output style a test printed: keyval, human, csv or classic."""
  if KEYVAL.match(body[0]):
    return 'keyval'
  if _CLASSIC_STREAM.match(body[0]) or _CLASSIC_RR.match(body[0]):
    return 'classic'
  first = body[0]
  if (
      '  ' not in first
      and not first.endswith(' ')
      and (',' in first or len(body) == 2)
  ):
    return 'csv'
  return 'human'


_READERS = {
    'keyval': _ParseKeyval,
    'csv': _ParseCsv,
    'human': _ParseHuman,
    'classic': _ParseClassic,
}


def Pairs(style: str, body: list[str]) -> list[tuple[str, str]]:
  """The (selector, value) pairs of the body lines in that Style."""
  return _READERS[style](body)
