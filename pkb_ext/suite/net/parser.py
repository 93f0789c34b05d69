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
"""A netperf run's -o output through PKB's netperf parser (pure).

The net phase asks netperf for -o output (a banner, a title row and a value
row), the format PKB's netperf_benchmark.ParseNetperfOutput reads; the
throughput (or transaction rate) and the latency percentiles, minimum,
maximum and standard deviation are PKB's. PKB's parser indexes columns it
expects and raises KnownIntermittentError (or KeyError, ValueError) on
output that lacks them, so this module first checks what the phase asked
for and says what is wrong in one ParseError line: a netperf error message,
a missing banner or row, a column without its value (output cut short), a
value that is not a number, a negative or contradicting latency. It also
reads the report's columns PKB's parser leaves out: the mean latency, the
TRANSACTION_RATE column, the confidence level and target, the elapsed time,
the protocol and direction.

Semantics worth knowing (netperf 2.7.0 nettest_omni.c/netlib.c): with -I,
THROUGHPUT is the mean over the confidence iterations, TRANSACTION_RATE is the
last iteration's rate, the latency statistics cover all iterations, and
THROUGHPUT_CONFID is the achieved full width of the interval in percent of the
mean (netperf's target is the -I width, e.g. 5 for +/-2.5%). The latency
histogram netperf prints with -v 2 is set aside, and its "catcher: timer
popped" diagnostic kept as a warning.

ParseVersion reads the version `netperf -V` prints.
"""

import csv
import dataclasses
import math
import re
from typing import Sequence

from perfkitbenchmarker import errors
from perfkitbenchmarker.linux_benchmarks import netperf_benchmark

from benchmarks.cloud_report.parsers import ParseError

LATENCY_SELECTORS = {
    'min': 'MIN_LATENCY',
    'mean': 'MEAN_LATENCY',
    'p50': 'P50_LATENCY',
    'p90': 'P90_LATENCY',
    'p99': 'P99_LATENCY',
    'max': 'MAX_LATENCY',
    'stddev': 'STDDEV_LATENCY',
}
# The -o column titles of the selectors the phase asks for -> selector.
TITLES = {
    'Minimum Latency Microseconds': 'MIN_LATENCY',
    'Mean Latency Microseconds': 'MEAN_LATENCY',
    '50th Percentile Latency Microseconds': 'P50_LATENCY',
    '90th Percentile Latency Microseconds': 'P90_LATENCY',
    '99th Percentile Latency Microseconds': 'P99_LATENCY',
    'Maximum Latency Microseconds': 'MAX_LATENCY',
    'Stddev Latency Microseconds': 'STDDEV_LATENCY',
    'Transaction Rate Tran/s': 'TRANSACTION_RATE',
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
}
_TEXT = {'THROUGHPUT_UNITS', 'PROTOCOL', 'DIRECTION'}
# Values that are never negative (netperf prints -1 for others, such as
# retransmissions and the confidence width where it measured none).
_NONNEGATIVE = set(LATENCY_SELECTORS.values()) | {
    'TRANSACTION_RATE',
    'THROUGHPUT',
    'ELAPSED_TIME',
}
# PKB's sample names of the latency statistics it reads -> ours.
_PKB_LATENCY = {
    'p50': 'p50',
    'p90': 'p90',
    'p99': 'p99',
    'min': 'min',
    'max': 'max',
    'stddev': 'stddev',
}
# netperf -f units -> Mbit/s; the phase asks for -f m (what PKB's parser
# reads as Mbits/sec).
UNITS_TO_MBPS = {'10^6bits/s': 1.0}
_DIRECTION_TESTS = {'Send|Recv': 'RR', 'Send': 'STREAM', 'Recv': 'MAERTS'}
_BANNER = re.compile(
    r'^(?:MIGRATED |OMNI )?(?P<name>.+?) TEST from \S+ \(.*?\) port \d+ \S+'
    r' to .*'
)
_BANNER_TESTS = {
    'TCP REQUEST/RESPONSE': 'TCP_RR',
    'TCP STREAM': 'TCP_STREAM',
}
# netperf -v 2 prints a latency histogram after the results.
_HISTOGRAM = re.compile(
    r'^(?:Histogram of .*|(?:UNIT|TEN|HUNDRED)_(?:USEC|MSEC|SEC)\s*:[\s\d:]*'
    r'|>100_SECS:\s*\d+|HIST_TOTAL:\s*\d+)$'
)
# netlib.c's catcher() diagnostic: the timer fired late; the run is valid.
_CATCHER = re.compile(r'^catcher: timer popped with times_up != 0$')
_VERSION = re.compile(r'Netperf version (\d+)\.(\d+)(?:\.(\d+))?')
_FAILURE = re.compile(
    r'establish.control|could not|refused|unable|failed|error|errno|timed out'
    r'|partial response|no response|reset by peer|broken pipe|not found'
    r'|invalid|unknown|usage:',
    re.IGNORECASE,
)
# How far below MIN_LATENCY (a fraction of it) a percentile read off
# netperf's histogram may lie.
PERCENTILE_SLACK = 0.1


@dataclasses.dataclass(frozen=True)
class Latency:
  """Request/response latency statistics, microseconds (None: not printed)."""

  min: float | None = None
  mean: float | None = None
  p50: float | None = None
  p90: float | None = None
  p99: float | None = None
  max: float | None = None
  stddev: float | None = None


@dataclasses.dataclass(frozen=True)
class Confidence:
  """The -I confidence interval: requested and achieved.

  Widths are full widths in percent of the mean (-I 99,5 -> target 5).
  """

  level_pct: float
  width_target_pct: float
  width_pct: float | None  # achieved; None when netperf measured none
  iterations: int | None
  met: bool | None  # None when the output does not say


@dataclasses.dataclass(frozen=True)
class Result:
  """One netperf run."""

  style: str  # always csv (-o), the output PKB's parser reads
  test: str  # e.g. TCP_RR, TCP_STREAM; 'unknown' if the output does not say
  fields: tuple[tuple[str, str], ...]  # selector (or unknown title), raw
  latency_us: Latency | None
  # transactions/s: TRANSACTION_RATE (the last iteration with -I), else
  # PKB's rate, THROUGHPUT in Trans/s (the mean over -I iterations).
  transaction_rate: float | None
  throughput: float | None  # in throughput_units; mean over -I iterations
  throughput_units: str | None
  elapsed_s: float | None
  confidence: Confidence | None  # None when no confidence was requested
  warnings: tuple[str, ...]  # netperf's diagnostics that keep the run

  def Field(self, name: str) -> str | None:
    return dict(self.fields).get(name)

  @property
  def throughput_mbps(self) -> float | None:
    """Stream throughput in Mbit/s; None for transaction rates."""
    if self.throughput is None or self.throughput_units == 'Trans/s':
      return None
    return self.throughput * UNITS_TO_MBPS[self.throughput_units]


def _Number(name: str, raw: str) -> float:
  try:
    value = float(raw)
  except ValueError:
    raise ParseError(f'{name} is not a number: {raw!r}') from None
  if not math.isfinite(value):
    raise ParseError(f'{name} is not finite: {raw!r}')
  return value


def _Rows(text: str) -> tuple:
  """(banner, its two rows, titles, values, warnings) of -o output."""
  if not text or not text.strip():
    raise ParseError('empty netperf output')
  lines = [line.strip() for line in text.splitlines() if line.strip()]
  lines = [line for line in lines if not _HISTOGRAM.match(line)]
  warnings = [line for line in lines if _CATCHER.match(line)]
  lines = [line for line in lines if not _CATCHER.match(line)]
  banner = _BANNER.match(lines[0]) if lines else None
  body = lines[1:] if banner else lines
  for line in body:
    if _FAILURE.search(line) and line.count(',') < 2:
      raise ParseError(f'netperf failed: {line}')
  if not banner:
    raise ParseError(
        f'no netperf test banner before the -o rows: {lines[0][:200]!r}'
    )
  if len(body) != 2:
    raise ParseError(
        f'-o output needs a title row and a value row, got {len(body)} rows'
        ' (truncated output?)'
    )
  titles, values = (next(csv.reader([row])) for row in body)
  if len(titles) != len(values):
    raise ParseError(
        f'-o output has {len(titles)} titles but {len(values)} values'
        ' (truncated output?)'
    )
  return banner, body, titles, values, warnings


def _CheckLatencyOrder(latency: Latency) -> None:
  """Raises ParseError for latency statistics that contradict each other.

  Percentiles must not decrease (P50 <= P90 <= P99), and nothing may lie
  above MAX_LATENCY or below MIN_LATENCY. netperf reads percentiles off a
  histogram, so a percentile may lie up to PERCENTILE_SLACK (a fraction of
  the minimum) below MIN_LATENCY; the mean, printed with two decimals, may
  be 0.01 off.
  """
  values = {
      s: getattr(latency, f)
      for f, s in LATENCY_SELECTORS.items()
      if getattr(latency, f) is not None
  }
  percentiles = [
      (s, values[s])
      for s in ('P50_LATENCY', 'P90_LATENCY', 'P99_LATENCY')
      if s in values
  ]
  for (low, a), (high, b) in zip(percentiles, percentiles[1:]):
    if a > b:
      raise ParseError(
          f'{low} {a:g} is above {high} {b:g}: the output contradicts itself'
      )
  lowest, highest = values.get('MIN_LATENCY'), values.get('MAX_LATENCY')
  inside = percentiles + [
      (s, values[s]) for s in ('MEAN_LATENCY',) if s in values
  ]
  for name, value in inside:
    slack = 0.01 if name == 'MEAN_LATENCY' else PERCENTILE_SLACK * (lowest or 0)
    if lowest is not None and value < lowest - slack:
      raise ParseError(
          f'{name} {value:g} is below MIN_LATENCY {lowest:g}: the output'
          ' contradicts itself'
      )
    if highest is not None and value > highest + 0.01:
      raise ParseError(
          f'{name} {value:g} is above MAX_LATENCY {highest:g}: the output'
          ' contradicts itself'
      )
  if lowest is not None and highest is not None and lowest > highest:
    raise ParseError(
        f'MIN_LATENCY {lowest:g} is above MAX_LATENCY {highest:g}: the'
        ' output contradicts itself'
    )


def _Test(banner_name: str, fields: dict[str, str]) -> str:
  kind = _DIRECTION_TESTS.get(fields.get('DIRECTION', ''))
  protocol = fields.get('PROTOCOL')
  if kind and protocol:
    return f'{protocol}_{kind}'
  return _BANNER_TESTS.get(banner_name, 'unknown')


def _Pkb(text: str, test: str):
  """PKB's ParseNetperfOutput: (rate or throughput, {stat: latency}).

  Args:
    text: the banner, the title row and the value row (no diagnostics).
    test: the netperf test, e.g. TCP_RR.
  """
  try:
    throughput, latencies, _ = netperf_benchmark.ParseNetperfOutput(
        text, {}, test, enable_latency_histograms=False
    )
  except (errors.Benchmarks.KnownIntermittentError, KeyError, ValueError) as e:
    raise ParseError(
        f"PKB's netperf parser refused the output: {str(e)[:300]}"
    ) from None
  prefix = f'{test}_Latency_'
  stats = {s.metric[len(prefix) :]: s.value for s in latencies}
  return throughput.value, stats


def _Confidence(numbers: dict[str, float]) -> Confidence | None:
  """The -I confidence result, or None when none was requested."""
  level = numbers.get('CONFIDENCE_LEVEL')
  if not level or level <= 0:
    return None
  target = numbers.get('CONFIDENCE_INTERVAL')
  if target is None or target <= 0:
    raise ParseError('CONFIDENCE_LEVEL without CONFIDENCE_INTERVAL')
  width = numbers.get('THROUGHPUT_CONFID')
  width = width if width is not None and width >= 0 else None
  iterations = numbers.get('CONFIDENCE_ITERATION')
  return Confidence(
      level_pct=level,
      width_target_pct=target,
      width_pct=width,
      iterations=int(iterations) if iterations is not None else None,
      met=None if width is None else width <= target,
  )


def Parse(text: str, required: Sequence[str] = ()) -> Result:
  """Parses one netperf run's -o stdout.

  Args:
    text: netperf's stdout: a banner, a title row and a value row.
    required: selectors that must be present (the ones the caller asked
      for), which catches output truncated at a column.

  Returns:
    A Result.

  Raises:
    ParseError: empty, truncated, garbled or failed output.
  """
  banner, rows, titles, values, warnings = _Rows(text)
  pairs = [(TITLES.get(t.strip(), t.strip()), v.strip()) for t, v in
           zip(titles, values)]  # fmt: skip
  fields = dict(pairs)
  if len(fields) != len(pairs):
    raise ParseError(f'a selector appears twice in {[k for k, _ in pairs]}')
  for name in required:
    if name.upper() not in fields:
      raise ParseError(f'{name.upper()} missing from netperf output')
  numbers = {}
  for name, raw in fields.items():
    if name in TITLES.values() and name not in _TEXT:
      if not raw:
        raise ParseError(f'{name} has no value (truncated output?)')
      numbers[name] = _Number(name, raw)
      if name in _NONNEGATIVE and numbers[name] < 0:
        raise ParseError(f'{name} is negative: {raw!r}')
  if 'THROUGHPUT' not in numbers:
    raise ParseError('THROUGHPUT missing from netperf output')
  units = fields.get('THROUGHPUT_UNITS')
  if units != 'Trans/s' and units not in UNITS_TO_MBPS:
    raise ParseError(f'unknown THROUGHPUT_UNITS {units!r} (not -f m?)')
  test = _Test(banner.group('name'), fields)
  pkb_value, pkb_latency = _Pkb('\n'.join([banner.group(0)] + rows), test)
  latency = None
  if any(s in numbers for s in LATENCY_SELECTORS.values()):
    stats = {k: numbers.get(s) for k, s in LATENCY_SELECTORS.items()}
    stats |= {ours: pkb_latency[pkb] for pkb, ours in _PKB_LATENCY.items()
              if pkb in pkb_latency}  # fmt: skip
    latency = Latency(**stats)
    _CheckLatencyOrder(latency)
  rate = numbers.get('TRANSACTION_RATE')
  if rate is None and units == 'Trans/s':
    rate = pkb_value
  return Result(
      style='csv',
      test=test,
      fields=tuple(pairs),
      latency_us=latency,
      transaction_rate=rate,
      throughput=pkb_value,
      throughput_units=units,
      elapsed_s=numbers.get('ELAPSED_TIME'),
      confidence=_Confidence(numbers),
      warnings=tuple(warnings),
  )


def ParseVersion(text: str) -> tuple[int, int, int] | None:
  """(major, minor, patch) from `netperf -V` output, or None if it has none."""
  m = _VERSION.search(text or '')
  if not m:
    return None
  return tuple(int(g or 0) for g in m.groups())
