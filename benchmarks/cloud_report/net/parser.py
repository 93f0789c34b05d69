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
"""Parses the stdout of one netperf (2.6+) run; pure.

netperf's omni output selectors print in three styles, all handled here:

  -O  human-readable columns (what the 2021 report's script used),
  -o  CSV (a title row and a value row),
  -k  key=value lines,

plus the classic tables netperf prints with no selector, the only style in
which netperf prints its own "!!! WARNING ... Desired confidence was not
achieved" block. The optional banner ("MIGRATED TCP STREAM TEST from ...")
names the test and, with -I, the requested confidence.

Semantics worth knowing (netperf 2.7.0 nettest_omni.c/netlib.c): with -I,
THROUGHPUT is the mean over the confidence iterations, TRANSACTION_RATE is the
last iteration's rate, the latency statistics cover all iterations, and
THROUGHPUT_CONFID is the achieved full width of the interval in percent of the
mean (netperf's target is the -I width, e.g. 5 for +/-2.5%).

A request/response test's rate is TRANSACTION_RATE; output that carries only
THROUGHPUT in Trans/s (e.g. PKB's netperf selectors) gives its rate from
THROUGHPUT. The latency histogram netperf prints with -v 2 and its
"catcher: timer popped" diagnostic are set aside. Latencies, rates,
throughput and the elapsed time are never negative.
"""

import dataclasses
import math
import re
from typing import Sequence

from benchmarks.cloud_report.net import parser_styles as styles
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
_NUMERIC = set(LATENCY_SELECTORS.values()) | {
    'TRANSACTION_RATE',
    'RT_LATENCY',
    'THROUGHPUT',
    'CONFIDENCE_LEVEL',
    'CONFIDENCE_INTERVAL',
    'CONFIDENCE_ITERATION',
    'THROUGHPUT_CONFID',
    'ELAPSED_TIME',
    'REQUEST_SIZE',
    'RESPONSE_SIZE',
    'LOCAL_SEND_SIZE',
    'REMOTE_RECV_SIZE',
    'TRANSPORT_MSS',
    'LOCAL_TRANSPORT_RETRANS',
    'REMOTE_TRANSPORT_RETRANS',
}
# netperf -f units -> Mbit/s (lower case = powers of 10 of bits, upper case =
# powers of 2 of bytes, as netlib.c calc_thruput_interval divides).
UNITS_TO_MBPS = {
    '10^3bits/s': 1e-3,
    '10^6bits/s': 1.0,
    '10^9bits/s': 1e3,
    'KBytes/s': 1024 * 8 / 1e6,
    'MBytes/s': 1024**2 * 8 / 1e6,
    'GBytes/s': 1024**3 * 8 / 1e6,
}
_BANNER_TESTS = {
    'TCP REQUEST/RESPONSE': 'TCP_RR',
    'TCP STREAM': 'TCP_STREAM',
    'TCP MAERTS': 'TCP_MAERTS',
    'TCP Connect/Request/Response': 'TCP_CRR',
    'UDP REQUEST/RESPONSE': 'UDP_RR',
    'UDP STREAM': 'UDP_STREAM',
}
_DIRECTION_TESTS = {'Send|Recv': 'RR', 'Send': 'STREAM', 'Recv': 'MAERTS'}

_BANNER = re.compile(
    r'^(?:MIGRATED )?(?P<name>.+?) TEST from \S+ \(.*?\) port \d+ \S+ to .*'
)
_BANNER_CONFIDENCE = re.compile(
    r': \+/-(?P<half>\d{1,9}(?:\.\d{1,9})?)% @ (?P<level>\d{1,3})% conf\.'
)
_WARNING_WIDTH = re.compile(
    r'Confidence intervals: Throughput\s*:\s*(\d{1,9}(?:\.\d{1,9})?)%'
)
# netperf -v 2 prints a latency histogram after the results.
_HISTOGRAM = re.compile(
    r'^(?:Histogram of .*|(?:UNIT|TEN|HUNDRED)_(?:USEC|MSEC|SEC)\s*:[\s\d:]*'
    r'|>100_SECS:\s*\d+|HIST_TOTAL:\s*\d+)$'
)
# netlib.c's catcher() diagnostic: the timer fired late; the run is valid.
_CATCHER = re.compile(r'^catcher: timer popped with times_up != 0$')
_NOT_ACHIEVED = 'Desired confidence was not achieved'
_FAILURE = re.compile(
    r'establish.control|could not|refused|unable|failed|error|errno|timed out'
    r'|partial response|no response|reset by peer|broken pipe|not found'
    r'|invalid|unknown|usage:',
    re.IGNORECASE,
)
# Values that are never negative (netperf prints -1 only for others, such as
# retransmissions and the confidence width where it measured none).
_NONNEGATIVE = set(LATENCY_SELECTORS.values()) | {
    'TRANSACTION_RATE',
    'RT_LATENCY',
    'THROUGHPUT',
    'ELAPSED_TIME',
}
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
  width_pct: float | None  # achieved; None when the output does not say
  iterations: int | None
  met: bool | None  # None when the output does not say


@dataclasses.dataclass(frozen=True)
class Result:
  """One netperf run."""

  style: str  # human (-O), csv (-o), keyval (-k) or classic
  test: str  # e.g. TCP_RR, TCP_STREAM; 'unknown' if the output does not say
  fields: tuple[tuple[str, str], ...]  # selector (or unknown title), raw
  latency_us: Latency | None
  # transactions/s: TRANSACTION_RATE (the last iteration with -I), else
  # THROUGHPUT when its unit is Trans/s (the mean over -I iterations).
  transaction_rate: float | None
  throughput: float | None  # in throughput_units; mean over -I iterations
  throughput_units: str | None
  elapsed_s: float | None
  confidence: Confidence | None  # None when no confidence was requested
  warnings: tuple[str, ...]  # netperf's own "!!!" lines

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


def _FailureLine(lines: Sequence[str]) -> str | None:
  """The first line that reads as a netperf error message, if any.

  Result lines never do: they are KEY=value, padded columns, or carry the
  quoted command line.
  """
  for line in lines:
    if (
        _FAILURE.search(line)
        and not styles.KEYVAL.match(line)
        and '  ' not in line.strip()
        and '"' not in line
    ):
      return line.strip()
  return None


def _Warnings(lines: Sequence[str]) -> tuple[str, ...]:
  """netperf's "!!!" blocks, one message per block, blanks squeezed."""
  blocks, current = [], []
  for line in lines + ['']:
    if line[:3] == '!!!':
      current.append(' '.join(line.lstrip('!').split()))
    elif current:
      blocks.append(current)
      current = []
  messages = []
  for block in blocks:
    if block[0] == 'WARNING' and len(block) > 1:
      block = ['WARNING: ' + block[1]] + block[2:]
    messages.append(' '.join(block))
  return tuple(messages)


def _Test(banner_name: str | None, fields: dict[str, str]) -> str:
  if banner_name:
    return _BANNER_TESTS.get(banner_name, banner_name.replace(' ', '_'))
  kind = _DIRECTION_TESTS.get(fields.get('DIRECTION', ''))
  protocol = fields.get('PROTOCOL')
  if kind and protocol:
    return f'{protocol}_{kind}'
  return 'unknown'


def _Confidence(banner, fields, warnings, style) -> Confidence | None:
  """Reads the -I confidence result, or None when none was requested."""
  level = fields.get('CONFIDENCE_LEVEL')
  requested = banner is not None or (level is not None and float(level) > 0)
  if not requested:
    return None
  target = fields.get('CONFIDENCE_INTERVAL')
  width = fields.get('THROUGHPUT_CONFID')
  iterations = fields.get('CONFIDENCE_ITERATION')
  if level:
    level = float(level)
  elif banner:
    level = float(banner.group('level'))
  else:
    raise ParseError('confidence requested but its level is missing')
  if target:
    target = float(target)
  elif banner:
    target = 2 * float(banner.group('half'))
  else:
    raise ParseError('CONFIDENCE_LEVEL without CONFIDENCE_INTERVAL')
  width = float(width) if width is not None and float(width) >= 0 else None
  not_achieved = any(_NOT_ACHIEVED in w for w in warnings)
  for w in warnings:
    m = _WARNING_WIDTH.search(w)
    if m and width is None:
      width = float(m.group(1))
  if not_achieved:
    met = False
  elif width is not None:
    met = width <= target
  else:
    # Classic output always warns when missing the target; -O/-o/-k do not.
    met = True if style == 'classic' else None
  return Confidence(
      level_pct=level,
      width_target_pct=target,
      width_pct=width,
      iterations=int(float(iterations)) if iterations else None,
      met=met,
  )


def _CheckLatencyOrder(latency: Latency) -> None:
  """Raises ParseError for latency statistics that contradict each other.

  Percentiles must not decrease (P50 <= P90 <= P99), and nothing may lie
  above MAX_LATENCY or below MIN_LATENCY. netperf reads percentiles off a
  histogram, so a percentile may lie up to PERCENTILE_SLACK (a fraction of
  the minimum) below MIN_LATENCY; the mean, printed with two decimals, may
  be 0.01 off.
  """
  named = [
      (selector, getattr(latency, field))
      for field, selector in LATENCY_SELECTORS.items()
  ]
  values = {s: v for s, v in named if v is not None}
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


def Parse(text: str, required: Sequence[str] = ()) -> Result:
  """Parses one netperf run's stdout.

  Args:
    text: netperf's stdout (any of -O, -o, -k or classic output).
    required: selectors that must be present (the ones the caller asked
      for), which catches output truncated at a line boundary.

  Returns:
    A Result.

  Raises:
    ParseError: empty, truncated, garbled or failed output.
  """
  if not text or not text.strip():
    raise ParseError('empty netperf output')
  lines = [line.rstrip('\n') for line in text.splitlines()]
  lines = [line for line in lines if line.strip()]
  banner = banner_name = None
  if lines and _BANNER.match(lines[0]):
    banner_name = _BANNER.match(lines[0]).group('name')
    banner = _BANNER_CONFIDENCE.search(lines[0])
    lines = lines[1:]
  lines = [line for line in lines if not _HISTOGRAM.match(line.strip())]
  catcher = [line.strip() for line in lines if _CATCHER.match(line.strip())]
  lines = [line for line in lines if not _CATCHER.match(line.strip())]
  warnings = _Warnings(lines) + tuple(catcher)
  body = [line for line in lines if line[:3] != '!!!']
  failure = _FailureLine(body)
  if failure:
    raise ParseError(f'netperf failed: {failure}')
  if not body:
    raise ParseError('no results after the banner (truncated output?)')
  style = styles.Style(body)
  pairs = styles.Pairs(style, body)
  fields = dict(pairs)
  if len(fields) != len(pairs):
    raise ParseError(f'a selector appears twice in {[k for k, _ in pairs]}')
  for name in required:
    if name.upper() not in fields:
      raise ParseError(f'{name.upper()} missing from netperf output')
  numbers = {}
  for name, raw in fields.items():
    if name in _NUMERIC:
      if not raw:
        raise ParseError(f'{name} has no value (truncated output?)')
      numbers[name] = _Number(name, raw)
      if name in _NONNEGATIVE and numbers[name] < 0:
        raise ParseError(f'{name} is negative: {raw!r}')
  units = fields.get('THROUGHPUT_UNITS')
  if units is not None and units != 'Trans/s' and units not in UNITS_TO_MBPS:
    raise ParseError(f'unknown THROUGHPUT_UNITS {units!r}')
  if 'THROUGHPUT' in numbers and units is None:
    raise ParseError('THROUGHPUT without THROUGHPUT_UNITS')
  latency = None
  if any(s in numbers for s in LATENCY_SELECTORS.values()):
    latency = Latency(
        **{k: numbers.get(s) for k, s in LATENCY_SELECTORS.items()}
    )
  if latency is not None:
    _CheckLatencyOrder(latency)
  rate = numbers.get('TRANSACTION_RATE')
  if rate is None and units == 'Trans/s' and 'THROUGHPUT' in numbers:
    rate = numbers['THROUGHPUT']  # e.g. PKB's selectors: no TRANSACTION_RATE
  if rate is None and latency is None and 'THROUGHPUT' not in numbers:
    raise ParseError(
        'no result in netperf output: none of TRANSACTION_RATE, THROUGHPUT or'
        ' latency'
    )
  return Result(
      style=style,
      test=_Test(banner_name, fields),
      fields=tuple(pairs),
      latency_us=latency,
      transaction_rate=rate,
      throughput=numbers.get('THROUGHPUT'),
      throughput_units=units if 'THROUGHPUT' in numbers else None,
      elapsed_s=numbers.get('ELAPSED_TIME'),
      confidence=_Confidence(banner, fields, warnings, style),
      warnings=warnings,
  )
