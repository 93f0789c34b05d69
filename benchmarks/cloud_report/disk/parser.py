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
"""Parses fio's --output-format=json (pure).

Why not PKB's parser (linux_packages/fio.ParseResults): it reads
percentiles (p25, p75) that fio prints only when a job file asks for them,
as PKB's do, so on the report's job file's output it raises KeyError; it
bakes the job and direction into metric names ('rd-iops:read:iops'),
reports bandwidth only in KB/s, stamps PKB's pinned GIT_TAG as the fio
version whatever fio actually ran, and raises KeyError on output cut short
instead of saying what is wrong. The report needs the job and direction as
metadata, MB/s and KiB/s, the version fio printed, and clear errors, so this
module reads the same JSON fields (clat_ns, iops, bw_bytes, percentiles)
into a frozen result.

Accepted input: one fio JSON document, optionally preceded by the warning or
note lines fio prints on stdout before it (e.g. "note: both iodepth >= 1 and
synchronous I/O engine are selected ...") and followed by "fio: ..." lines.
"""

import dataclasses
import json
import math
import os
from typing import Any

from benchmarks.cloud_report.parsers import ParseError

DIRECTIONS = ('read', 'write', 'trim')
_TRAILER_PREFIXES = ('fio:', 'fio ', 'note:')


@dataclasses.dataclass(frozen=True)
class Direction:
  """One data direction of one job; latencies in microseconds."""

  name: str  # read, write or trim
  io_bytes: int
  total_ios: int | None  # None from fio 2.x, which did not print it
  runtime_ms: int
  iops: float
  bw_bytes: float  # bytes per second
  clat_min_us: float
  clat_max_us: float
  clat_mean_us: float
  clat_stddev_us: float
  # (percentile, value in us), ascending; empty if fio printed none.
  clat_percentiles_us: tuple[tuple[float, float], ...]

  @property
  def bw_kib(self) -> float:
    return self.bw_bytes / 1024

  @property
  def bw_mb(self) -> float:
    return self.bw_bytes / 1e6

  def Percentile(self, p: float) -> float | None:
    for pct, value in self.clat_percentiles_us:
      if math.isclose(pct, p):
        return value
    return None


@dataclasses.dataclass(frozen=True)
class LatencyTarget:
  """What fio's latency_target mode settled on (fio's own fields)."""

  depth: int
  target_us: float
  percentile: float
  window_us: float


@dataclasses.dataclass(frozen=True)
class Job:
  """One fio job (numjobs clones merged by group_reporting)."""

  name: str
  # The job's options over the global options, as fio printed them.
  options: tuple[tuple[str, str], ...]
  directions: tuple[Direction, ...]  # only directions that did I/O
  latency_target: LatencyTarget | None

  def Option(self, name: str, default: str | None = None) -> str | None:
    return dict(self.options).get(name, default)


@dataclasses.dataclass(frozen=True)
class Result:
  fio_version: str
  timestamp: int | None  # seconds since the epoch; fio 2.x printed none
  jobs: tuple[Job, ...]
  warnings: tuple[str, ...]  # non-JSON lines around the document

  def Job(self, name: str) -> Job:
    for job in self.jobs:
      if job.name == name:
        return job
    raise KeyError(f'no fio job {name!r} in {[j.name for j in self.jobs]}')


def _Describe(text: str) -> str:
  first = next((l.strip() for l in text.splitlines() if l.strip()), '')
  return repr(first[:120])


def _SplitDocument(text: str) -> tuple[Any, tuple[str, ...]]:
  """Returns (the decoded JSON document, the warning lines around it)."""
  if not text.strip():
    raise ParseError('empty fio output')
  lines = text.splitlines(keepends=True)
  start = next(
      (i for i, line in enumerate(lines) if line.lstrip().startswith('{')),
      None,
  )
  if start is None:
    raise ParseError(
        'no fio JSON document found (was --output-format=json given? did fio'
        f' fail?); output starts with {_Describe(text)}'
    )
  leading = tuple(l.strip() for l in lines[:start] if l.strip())
  body = ''.join(lines[start:])
  try:
    doc, end = json.JSONDecoder().raw_decode(body.lstrip())
  except json.JSONDecodeError as e:
    raise ParseError(
        f'truncated or invalid fio JSON ({e.msg} at line {start + e.lineno},'
        f' column {e.colno})'
    ) from e
  except RecursionError as e:
    raise ParseError('fio JSON nested too deeply to be fio output') from e
  except ValueError as e:  # e.g. an integer of more than 4300 digits
    raise ParseError(f'invalid fio JSON: {e}') from e
  trailing = tuple(
      l.strip() for l in body.lstrip()[end:].splitlines() if l.strip()
  )
  bad = [l for l in trailing if not l.startswith(_TRAILER_PREFIXES)]
  if bad:
    raise ParseError(f'unexpected text after the fio JSON: {bad[0][:120]!r}')
  return doc, leading + trailing


def _Get(obj: Any, key: str, kind: type | tuple[type, ...], where: str) -> Any:
  if not isinstance(obj, dict):
    raise ParseError(f'{where}: expected an object, got {type(obj).__name__}')
  if key not in obj:
    raise ParseError(f'{where}: missing "{key}"')
  value = obj[key]
  if not isinstance(value, kind) or isinstance(value, bool):
    kinds = kind if isinstance(kind, tuple) else (kind,)
    expected = ' or '.join(k.__name__ for k in kinds)
    raise ParseError(f'{where}: "{key}" is {value!r}, expected {expected}')
  return value


def _Number(obj: Any, key: str, where: str) -> float:
  raw = _Get(obj, key, (int, float), where)
  try:
    value = float(raw)
  except OverflowError:
    raise ParseError(f'{where}: "{key}" is too large to be a count') from None
  if not math.isfinite(value) or value < 0:
    raise ParseError(f'{where}: "{key}" is {value}, expected >= 0')
  return value


def _ParseDirection(name: str, stats: Any, where: str) -> Direction | None:
  """Returns the direction's stats, or None if it did no I/O."""
  where = f'{where} {name}'
  io_bytes = int(_Number(stats, 'io_bytes', where))
  total_ios = None
  if 'total_ios' in stats:
    total_ios = int(_Number(stats, 'total_ios', where))
  if io_bytes == 0 and not total_ios:
    return None
  if 'clat_ns' in stats:
    clat, scale = _Get(stats, 'clat_ns', dict, where), 1e-3
  else:  # fio < 3.0 printed microseconds under "clat"
    clat, scale = _Get(stats, 'clat', dict, where), 1.0
  percentiles = []
  raw_percentiles = clat.get('percentile') or {}
  if not isinstance(raw_percentiles, dict):
    raise ParseError(
        f'{where}: "percentile" is a {type(raw_percentiles).__name__}, not'
        ' an object'
    )
  for key, value in raw_percentiles.items():
    try:
      pct = float(key)
    except ValueError as e:
      raise ParseError(f'{where}: bad percentile key {key[:40]!r}') from e
    if not 0 <= pct <= 100:
      raise ParseError(f'{where}: percentile key {key[:40]!r} not in 0..100')
    percentiles.append((pct, _Number({key: value}, key, where) * scale))
  if 'bw_bytes' in stats:
    bw_bytes = _Number(stats, 'bw_bytes', where)
  else:  # older fio: KiB/s only
    bw_bytes = _Number(stats, 'bw', where) * 1024
  return Direction(
      name=name,
      io_bytes=io_bytes,
      total_ios=total_ios,
      runtime_ms=int(_Number(stats, 'runtime', where)),
      iops=_Number(stats, 'iops', where),
      bw_bytes=bw_bytes,
      clat_min_us=_Number(clat, 'min', f'{where} clat') * scale,
      clat_max_us=_Number(clat, 'max', f'{where} clat') * scale,
      clat_mean_us=_Number(clat, 'mean', f'{where} clat') * scale,
      clat_stddev_us=_Number(clat, 'stddev', f'{where} clat') * scale,
      clat_percentiles_us=tuple(sorted(percentiles)),
  )


def _ParseLatencyTarget(job: dict, clat_ns: bool) -> LatencyTarget | None:
  """fio prints latency_target in ns (fio >= 3) and the window in us."""
  if not job.get('latency_target') and not job.get('latency_target_ns'):
    return None
  where = f'job {job["jobname"]!r}'
  if 'latency_target_ns' in job:
    target_us = _Number(job, 'latency_target_ns', where) / 1000
  else:
    target_us = _Number(job, 'latency_target', where) / (1000 if clat_ns else 1)
  window_key = (
      'latency_window_us' if 'latency_window_us' in job else ('latency_window')
  )
  return LatencyTarget(
      depth=int(_Number(job, 'latency_depth', where)),
      target_us=target_us,
      percentile=_Number(job, 'latency_percentile', where),
      window_us=_Number(job, window_key, where),
  )


def _ParseJob(raw: Any, index: int, global_options: dict) -> Job:
  """Reads one entry of fio's "jobs" list."""
  name = _Get(raw, 'jobname', str, f'jobs[{index}]')
  where = f'job {name!r}'
  error = int(_Number(raw, 'error', where))
  if error:
    reason = os.strerror(error)
    raise ParseError(f'fio {where} failed with error {error} ({reason})')
  own = raw.get('job options') or {}
  if not isinstance(own, dict):
    raise ParseError(f'{where}: "job options" is not an object')
  options = {str(k): str(v) for k, v in (global_options | own).items()}
  directions = []
  clat_ns = False
  for name_ in DIRECTIONS:
    if name_ not in raw and name_ == 'trim':
      continue
    stats = _Get(raw, name_, dict, where)
    clat_ns = clat_ns or 'clat_ns' in stats
    direction = _ParseDirection(name_, stats, where)
    if direction:
      directions.append(direction)
  if not directions:
    raise ParseError(f'fio {where} did no I/O (io_bytes and total_ios are 0)')
  return Job(
      name=name,
      options=tuple(sorted(options.items())),
      directions=tuple(directions),
      latency_target=_ParseLatencyTarget(raw, clat_ns),
  )


def Parse(text: str) -> Result:
  """Parses fio's JSON output.

  Args:
    text: what fio printed with --output-format=json (json+ also works),
      possibly with warning lines before the JSON document.

  Returns:
    A Result with one Job per job fio reported, in fio's order.

  Raises:
    ParseError: the output is empty, not JSON, truncated, lacks jobs or
      fields, or a job reports an error or did no I/O.
  """
  doc, warnings = _SplitDocument(text)
  if not isinstance(doc, dict):
    raise ParseError(f'fio JSON is a {type(doc).__name__}, not an object')
  version = _Get(doc, 'fio version', str, 'fio JSON')
  raw_jobs = _Get(doc, 'jobs', list, 'fio JSON')
  if not raw_jobs:
    raise ParseError('fio JSON has no jobs')
  global_options = doc.get('global options') or {}
  if not isinstance(global_options, dict):
    raise ParseError('fio JSON: "global options" is not an object')
  jobs = tuple(
      _ParseJob(raw, i, global_options) for i, raw in enumerate(raw_jobs)
  )
  seen = set()
  for job in jobs:
    if job.name in seen:
      # Clones without group_reporting, or two files joined: either way
      # one job's figures would be counted as two.
      raise ParseError(
          f'fio job {job.name!r} is listed twice (numjobs without'
          ' group_reporting, or two outputs joined?)'
      )
    seen.add(job.name)
  return Result(
      fio_version=version,
      timestamp=(
          int(_Number(doc, 'timestamp', 'fio JSON'))
          if 'timestamp' in doc
          else None
      ),
      jobs=jobs,
      warnings=warnings,
  )
