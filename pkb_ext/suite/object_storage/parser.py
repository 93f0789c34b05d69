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
"""Parses and aggregates the object storage worker's JSON lines (pure).

The worker (data file object_storage/ttfb_worker.py, whose docstring defines
what each timing means) writes a header line, one line per request and per
concurrency round, and an end line. Parse() checks every line and aggregates:

  latency workload      per (op, connection): TTFB and request time;
  throughput workload   per (op, object size): TTFB, request time and
                        single-stream throughput (bytes / request time);
  concurrency workload  per (op, level): aggregate throughput per round
                        (bytes of the round's successful requests / wall
                        time from the first start to the last end).

Each distribution has n, min, max, mean and percentiles. Percentiles use
linear interpolation between closest ranks (Hyndman & Fan type 7, numpy's
default method='linear'): for sorted x[0..n-1], h = (n - 1) p / 100 and
P(p) = x[floor h] + (h - floor h) (x[floor h + 1] - x[floor h]). With fewer
than 1,000 values p99.9 is close to the maximum.

What is kept from bad output:
  - a last line without its newline that is not valid JSON (the worker was
    killed mid-write) is dropped and reported in `problems`;
  - no end line (the worker stopped early), or an abort line (the worker gave
    up, its error is kept): the valid lines are aggregated, `partial` is True
    and `problems` says why;
  - failed requests (ok false) are counted as errors, not timed.
Anything else raises ParseError naming the line: empty output, no header, a
foreign format or version, a line that is not a JSON object (except the
truncated last one), an unknown kind, a missing or out-of-range field, TTFB
above the request time, lines after the end, an end line whose counts do not
match, or no successful request at all.
"""

import dataclasses
import json
import math
from typing import Any, Sequence

from benchmarks.cloud_report.parsers import ParseError

FORMAT = 'cloud-report-ttfb'
# The same records, written by object_storage_service's TimeToFirstByte
# scenario (its ttfb.py).
SCENARIO_FORMAT = 'object-storage-ttfb'
VERSION = 1
OPS = ('get', 'put')
WORKLOADS = ('latency', 'throughput', 'concurrency')
CONNECTIONS = ('new', 'reused')
LATENCY_PERCENTILES = (50.0, 90.0, 99.0, 99.9)
# Throughput's low percentiles are its bad tail (the study's "90th" of MB/s).
THROUGHPUT_PERCENTILES = (1.0, 10.0, 50.0, 90.0, 99.0)
_MB = 1e6
# Larger counts, sizes or times (ms) are garbled output: 1e15 bytes is a
# petabyte, 1e15 ms 30,000 years.
_MAX_NUMBER = 1e15


def Percentile(values: Sequence[float], p: float) -> float:
  """Returns the p-th percentile by linear interpolation (numpy's default)."""
  if not values:
    raise ValueError('no values')
  if not 0 <= p <= 100:
    raise ValueError(f'percentile {p} is outside [0, 100]')
  x = sorted(values)
  h = (len(x) - 1) * p / 100.0
  lo = math.floor(h)
  hi = min(lo + 1, len(x) - 1)
  return x[lo] + (h - lo) * (x[hi] - x[lo])


def PercentileLabel(p: float) -> str:
  return 'p' + f'{p:g}'


@dataclasses.dataclass(frozen=True)
class Distribution:
  """n values summarized; percentiles as (label, value) pairs."""

  n: int
  minimum: float
  maximum: float
  mean: float
  percentiles: tuple[tuple[str, float], ...]

  def Stats(self) -> dict[str, float]:
    """Returns statistic name -> value: min, max, mean and p<N>."""
    return {
        'min': self.minimum,
        'max': self.maximum,
        'mean': self.mean,
        **dict(self.percentiles),
    }


def Distribute(values: Sequence[float], ps: Sequence[float]) -> Distribution:
  return Distribution(
      n=len(values),
      minimum=min(values),
      maximum=max(values),
      mean=math.fsum(values) / len(values),
      percentiles=tuple(
          (PercentileLabel(p), Percentile(values, p)) for p in ps
      ),
  )


@dataclasses.dataclass(frozen=True)
class Header:
  provider: str
  sdk: str
  sdk_version: str
  python: str
  bucket: str
  prefix: str
  endpoint: str | None
  region: str | None


@dataclasses.dataclass(frozen=True)
class Request:
  """One timed request (ttfb_ms is None when it failed)."""

  line: int
  workload: str
  op: str
  size: int
  want: str
  conn: str
  connects: int
  responses: int
  total_ms: float
  ok: bool
  ttfb_ms: float | None = None
  bytes: int = 0
  src: str | None = None
  error: str | None = None
  concurrency: int | None = None
  round: int | None = None


@dataclasses.dataclass(frozen=True)
class Round:
  op: str
  concurrency: int
  round: int
  size: int
  requests: int
  errors: int
  bytes: int
  wall_ms: float


@dataclasses.dataclass(frozen=True)
class Group:
  """One aggregated distribution and the dimensions it is over."""

  metric: str  # ttfb, request_time, throughput or aggregate_throughput
  unit: str
  workload: str
  op: str
  distribution: Distribution
  connection: str | None = None
  object_size_bytes: int | None = None
  concurrency: int | None = None


@dataclasses.dataclass(frozen=True)
class ErrorCount:
  workload: str
  op: str
  requests: int
  errors: int


@dataclasses.dataclass(frozen=True)
class TtfbResult:
  header: Header
  requests: tuple[Request, ...]
  rounds: tuple[Round, ...]
  groups: tuple[Group, ...]
  errors: tuple[ErrorCount, ...]
  partial: bool
  problems: tuple[str, ...]


def _Field(obj, name, kind, line, minimum=None, choices=None, optional=False):
  """Returns obj[name] checked against a type, a minimum or choices."""
  if name not in obj or obj[name] is None:
    if optional:
      return None
    raise ParseError(f'line {line}: {obj.get("kind")} record lacks {name!r}')
  value = obj[name]
  kinds = (int, float) if kind is float else (kind,)
  if (
      isinstance(value, bool)
      and kind is not bool
      or not isinstance(value, kinds)
  ):
    raise ParseError(
        f'line {line}: {name!r} should be {kind.__name__}, got {value!r}'
    )
  # The range first: an integer too large for a float cannot be tested
  # for finiteness.
  if kind in (int, float) and abs(value) > _MAX_NUMBER:
    raise ParseError(
        f'line {line}: {name!r} is out of range (beyond {_MAX_NUMBER:.0e})'
    )
  if kind is float and not math.isfinite(value):
    raise ParseError(f'line {line}: {name!r} is not finite: {value!r}')
  if minimum is not None and value < minimum:
    raise ParseError(f'line {line}: {name!r} is {value}, below {minimum}')
  if choices is not None and value not in choices:
    raise ParseError(
        f'line {line}: {name!r} is {value!r}, expected one of {choices}'
    )
  return value


def _Header(obj, line) -> Header:
  """Reads the worker's header record (the first line)."""
  if obj.get('kind') != 'header':
    raise ParseError(
        f'line {line}: expected the worker header first, got kind '
        f'{obj.get("kind")!r}'
    )
  formats = (FORMAT, SCENARIO_FORMAT)
  if obj.get('format') not in formats or obj.get('version') != VERSION:
    raise ParseError(
        f'line {line}: not {FORMAT} version {VERSION} output (format '
        f'{obj.get("format")!r}, version {obj.get("version")!r})'
    )

  def Str(key, **kw):
    return _Field(obj, key, str, line, **kw)

  return Header(
      provider=Str('provider', choices=('s3', 'gcs', 'azure')),
      sdk=Str('sdk'),
      sdk_version=Str('sdk_version'),
      python=Str('python'),
      bucket=Str('bucket'),
      prefix=Str('prefix'),
      endpoint=Str('endpoint', optional=True),
      region=Str('region', optional=True),
  )


def _Request(obj, line) -> Request:
  """Reads one request record of the latency or throughput workloads."""

  def Field(key, kind, **kw):
    return _Field(obj, key, kind, line, **kw)

  workload = Field('workload', str, choices=WORKLOADS)
  ok = Field('ok', bool)
  size = Field('size', int, minimum=0)
  request = Request(
      line=line,
      workload=workload,
      op=Field('op', str, choices=OPS),
      size=size,
      want=Field('want', str, choices=CONNECTIONS),
      conn=Field('conn', str, choices=CONNECTIONS),
      connects=Field('connects', int, minimum=0),
      responses=Field('responses', int, minimum=0),
      total_ms=Field('total_ms', float, minimum=0),
      ok=ok,
      ttfb_ms=Field('ttfb_ms', float, minimum=0) if ok else None,
      bytes=Field('bytes', int, minimum=0) if ok else 0,
      src=Field('src', str, choices=('http', 'sdk')) if ok else None,
      error=None if ok else Field('error', str),
      concurrency=Field(
          'concurrency', int, minimum=1, optional=workload != 'concurrency'
      ),
      round=Field('round', int, minimum=0, optional=workload != 'concurrency'),
  )
  if ok and request.ttfb_ms > request.total_ms:
    raise ParseError(
        f'line {line}: ttfb_ms {request.ttfb_ms} exceeds total_ms '
        f'{request.total_ms}'
    )
  if ok and request.bytes != size:
    raise ParseError(
        f'line {line}: {request.bytes} bytes moved for a {size}-byte object'
    )
  return request


def _Round(obj, line) -> Round:
  """Reads one concurrency round record."""

  def Field(key, kind, **kw):
    return _Field(obj, key, kind, line, **kw)

  r = Round(
      op=Field('op', str, choices=OPS),
      concurrency=Field('concurrency', int, minimum=1),
      round=Field('round', int, minimum=0),
      size=Field('size', int, minimum=1),
      requests=Field('requests', int, minimum=1),
      errors=Field('errors', int, minimum=0),
      bytes=Field('bytes', int, minimum=0),
      wall_ms=Field('wall_ms', float, minimum=0),
  )
  if r.errors > r.requests:
    raise ParseError(f'line {line}: {r.errors} errors in {r.requests} requests')
  return r


def _Lines(text: str) -> tuple[list[tuple[int, dict[str, Any]]], list[str]]:
  """Decodes the JSON lines; drops a truncated last line, with a problem."""
  if not text.strip():
    raise ParseError('empty output: the worker wrote nothing')
  raw = text.split('\n')
  complete = text.endswith('\n')
  if complete:
    raw.pop()
  decoded, problems = [], []
  for i, line_text in enumerate(raw, start=1):
    last = i == len(raw)
    if not line_text.strip():
      raise ParseError(f'line {i}: empty line')
    try:
      obj = json.loads(line_text)
    except RecursionError as e:
      raise ParseError(f'line {i}: JSON nested too deeply') from e
    except json.JSONDecodeError as e:
      if last and not complete and i > 1:
        problems.append(
            f'line {i}: truncated last line dropped ({len(line_text)} bytes,'
            ' no newline)'
        )
        break
      raise ParseError(
          f'line {i}: not JSON ({e.msg}): {line_text[:80]!r}'
      ) from e
    except ValueError as e:  # e.g. an integer of more than 4300 digits
      raise ParseError(f'line {i}: invalid JSON: {e}') from e
    if not isinstance(obj, dict):
      raise ParseError(f'line {i}: expected a JSON object, got {obj!r:.80}')
    decoded.append((i, obj))
  return decoded, problems


def Parse(text: str) -> TtfbResult:
  """Parses the worker's output; see the module docstring for what is kept."""
  lines, problems = _Lines(text)
  first_line, first = lines[0]
  header = _Header(first, first_line)
  requests, rounds, end = [], [], None
  for line, obj in lines[1:]:
    kind = obj.get('kind')
    if end is not None:
      raise ParseError(f'line {line}: {kind!r} record after the end record')
    if kind == 'request':
      requests.append(_Request(obj, line))
    elif kind == 'round':
      rounds.append(_Round(obj, line))
    elif kind == 'abort':
      problems.append(
          f'line {line}: the worker aborted: {obj.get("error", "no reason")}'
      )
      end = obj
    elif kind == 'end':
      end = obj
      _CheckEnd(obj, line, requests, rounds)
    else:
      raise ParseError(f'line {line}: unknown record kind {kind!r}')
  if end is None:
    problems.append('no end record: the worker stopped before finishing')
  if not any(r.ok for r in requests):
    raise ParseError(
        f'no successful request in {len(requests)} request record(s)'
        + (f' ({"; ".join(problems)})' if problems else '')
    )
  return TtfbResult(
      header=header,
      requests=tuple(requests),
      rounds=tuple(rounds),
      groups=tuple(_Groups(requests, rounds)),
      errors=tuple(_Errors(requests)),
      partial=bool(problems),
      problems=tuple(problems),
  )


def _CheckEnd(obj, line, requests, rounds):
  want = {
      'requests': len(requests),
      'errors': sum(not r.ok for r in requests),
      'rounds': len(rounds),
  }
  for name, count in want.items():
    value = _Field(obj, name, int, line, minimum=0)
    if value != count:
      raise ParseError(
          f'line {line}: the end record counts {value} {name}, the output '
          f'has {count}'
      )


def _Groups(requests: list[Request], rounds: list[Round]) -> list[Group]:
  """Aggregates the successful requests and rounds; see module docstring."""
  buckets: dict[tuple[Any, ...], list[Request]] = {}
  for r in requests:
    if not r.ok or r.workload == 'concurrency':
      continue
    if r.workload == 'latency':
      key = (r.workload, r.op, r.conn, None)
    else:
      key = (r.workload, r.op, None, r.size)
    buckets.setdefault(key, []).append(r)
  groups = []
  for (workload, op, conn, size), rs in sorted(
      buckets.items(), key=lambda kv: tuple(str(k) for k in kv[0])
  ):
    dims = {
        'workload': workload,
        'op': op,
        'connection': conn,
        'object_size_bytes': size,
    }
    ttfb = [r.ttfb_ms for r in rs]
    total = [r.total_ms for r in rs]
    groups.append(
        Group(
            'ttfb',
            'ms',
            distribution=Distribute(ttfb, LATENCY_PERCENTILES),
            **dims,
        )
    )
    groups.append(
        Group(
            'request_time',
            'ms',
            distribution=Distribute(total, LATENCY_PERCENTILES),
            **dims,
        )
    )
    if workload == 'throughput' and all(t > 0 for t in total):
      mbps = [r.bytes / _MB / (r.total_ms / 1000.0) for r in rs]
      groups.append(
          Group(
              'throughput',
              'MB/s',
              distribution=Distribute(mbps, THROUGHPUT_PERCENTILES),
              **dims,
          )
      )
  by_level: dict[tuple[str, int, int], list[float]] = {}
  for r in rounds:
    if r.errors == 0 and r.wall_ms > 0:
      by_level.setdefault((r.op, r.concurrency, r.size), []).append(
          r.bytes / _MB / (r.wall_ms / 1000.0)
      )
  for (op, level, size), mbps in sorted(by_level.items()):
    groups.append(
        Group(
            'aggregate_throughput',
            'MB/s',
            workload='concurrency',
            op=op,
            object_size_bytes=size,
            concurrency=level,
            distribution=Distribute(mbps, THROUGHPUT_PERCENTILES),
        )
    )
  return groups


def _Errors(requests: list[Request]) -> list[ErrorCount]:
  counts: dict[tuple[str, str], list[int]] = {}
  for r in requests:
    c = counts.setdefault((r.workload, r.op), [0, 0])
    c[0] += 1
    c[1] += not r.ok
  return [ErrorCount(w, op, n, e) for (w, op), (n, e) in sorted(counts.items())]
