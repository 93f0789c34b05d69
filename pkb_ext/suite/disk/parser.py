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
"""fio's --output-format=json through PKB's fio parser (pure).

PKB's linux_packages.fio.ParseResults turns each job and data direction
into samples (bandwidth in KiB/s, iops, completion latency statistics and
percentiles in microseconds); this module reads them back into a frozen
result that keeps the job and direction as fields, so the report's samples
carry them as metadata. The job's options are PKB's fio.ParseJobFile
metadata of the job file fio printed (its "global options" and "job
options"). What PKB does not read is read here: the version fio printed (PKB
stamps its pinned GIT_TAG), fio's latency_target results, and fio's error
field; what PKB's parser would raise KeyError on is one ParseError line.

PKB's parser at the pin needs all 19 percentiles of PKB's percentile_list;
the report's job file lists them (fio only reports more of them), so a
phase run takes PKB's whole path. Output without them (fio's default list
lacks p25 and p75) is parsed without PKB's individual latency statistics
and with the percentiles fio printed, as PKB's parser does once the series'
patch 0002 (fio.ParseResults without every percentile) is in.

Accepted input: one fio JSON document, optionally preceded by the warning or
note lines fio prints on stdout before it (e.g. "note: both iodepth >= 1 and
synchronous I/O engine are selected ...") and followed by "fio: ..." lines.
"""

import configparser
import dataclasses
import json
import math
import os
from typing import Any

from perfkitbenchmarker.linux_packages import fio as pkb_fio

from benchmarks.cloud_report.parsers import ParseError

DIRECTIONS = tuple(pkb_fio.DATA_DIRECTION.values())  # read, write, trim
_TRAILER_PREFIXES = ('fio:', 'fio ', 'note:')
# The percentiles PKB's parser reads (its percentile_list), as fio keys them.
PKB_PERCENTILES = (
    1, 5, 10, 20, 25, 30, 40, 50, 60, 70, 75, 80, 90, 95, 99, 99.5, 99.9,
    99.95, 99.99,
)  # fmt: skip
PERCENTILE_LIST = ':'.join(f'{p:g}' for p in PKB_PERCENTILES)
_STATS = ('min', 'max', 'mean', 'stddev')


@dataclasses.dataclass(frozen=True)
class Direction:
  """One data direction of one job; latencies in microseconds."""

  name: str  # read, write or trim
  iops: float
  bw_kib: float  # KiB/s, fio's "bw" (PKB's KB/s)
  clat_min_us: float
  clat_max_us: float
  clat_mean_us: float
  clat_stddev_us: float
  # (percentile, value in us), ascending; empty if fio printed none.
  clat_percentiles_us: tuple[tuple[float, float], ...]

  @property
  def bw_mb(self) -> float:
    return self.bw_kib * 1024 / 1e6

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
  # PKB's job file metadata of the job: its options over the global ones.
  options: tuple[tuple[str, str], ...]
  directions: tuple[Direction, ...]  # only directions that did I/O
  latency_target: LatencyTarget | None

  def Option(self, name: str, default: str | None = None) -> str | None:
    return dict(self.options).get(name, default)


@dataclasses.dataclass(frozen=True)
class Result:
  fio_version: str
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


def _Options(raw: Any, where: str) -> dict[str, str]:
  """fio's printed options, as lines a job file can hold."""
  if not isinstance(raw, dict):
    raise ParseError(f'{where} is not an object')
  out = {}
  for key, value in raw.items():
    key, value = str(key), str(value)
    if not key.isprintable() or not value.isprintable() or '=' in key:
      raise ParseError(f'{where}: option {key[:40]!r} is not a fio option')
    out[key] = value
  return out


def JobFile(doc: dict) -> str:
  """The job file fio ran, from the options its JSON printed.

  Each section holds the global options under its own, and there is no
  [global] section: PKB's ParseJobFile lets [global] override a job's own
  option (the fill job's time_based=0 would read 1).
  """
  global_options = _Options(doc.get('global options') or {}, 'global options')
  lines = []
  for job in doc['jobs']:
    own = _Options(job.get('job options') or {}, f'job {job["jobname"]!r}')
    options = global_options | own
    lines += [f'[{job["jobname"]}]'] + [f'{k}={v}' for k, v in options.items()]
  return '\n'.join(lines) + '\n'


def _CheckJobs(doc: Any) -> None:
  """Refuses what PKB's parser would take for results or fail on."""
  if not isinstance(doc, dict):
    raise ParseError(f'fio JSON is a {type(doc).__name__}, not an object')
  _Get(doc, 'fio version', str, 'fio JSON')
  raw_jobs = _Get(doc, 'jobs', list, 'fio JSON')
  if not raw_jobs:
    raise ParseError('fio JSON has no jobs')
  seen = set()
  for i, raw in enumerate(raw_jobs):
    name = _Get(raw, 'jobname', str, f'jobs[{i}]')
    if not name or not name.isprintable() or set(name) & set('[]'):
      raise ParseError(f'jobs[{i}]: {name[:40]!r} is not a fio job name')
    where = f'job {name!r}'
    error = int(_Number(raw, 'error', where))
    if error:
      reason = os.strerror(error) if error < 1 << 16 else 'unknown'
      raise ParseError(f'fio {where} failed with error {error} ({reason})')
    if name.split('.')[0] in seen:
      # Clones without group_reporting, or two files joined: either way
      # one job's figures would be counted as two.
      raise ParseError(
          f'fio job {name!r} is listed twice (numjobs without'
          ' group_reporting, or two outputs joined?)'
      )
    seen.add(name.split('.')[0])
    for direction in DIRECTIONS:
      stats = _Get(raw, direction, dict, where)
      here = f'{where} {direction}'
      if _Number(stats, 'io_bytes', here):
        for key in ('iops', 'bw'):
          _Number(stats, key, here)
        key = 'clat' if 'clat' in stats else 'clat_ns'
        clat = _Get(stats, key, dict, here)
        for key in _STATS:
          _Number(clat, key, f'{here} clat')


def _Clat(stats: dict) -> tuple[dict, float]:
  """(latencies, their unit in us): fio >= 3 prints ns under clat_ns, older
  fio us under clat."""
  if 'clat' in stats:
    return stats['clat'], 1.0
  return stats.get('clat_ns') or {}, 1e3


def _HasPkbPercentiles(doc: dict) -> bool:
  for job in doc['jobs']:
    for direction in DIRECTIONS:
      if job[direction]['io_bytes']:
        printed = _Clat(job[direction])[0].get('percentile')
        if not isinstance(printed, dict) or any(
            f'{p:f}' not in printed for p in PKB_PERCENTILES
        ):
          return False
  return True


def _PrintedPercentiles(stats: dict, where: str) -> tuple:
  """The percentiles fio printed (until patch 0002 lets PKB's parser)."""
  clat, scale = _Clat(stats)
  raw = clat.get('percentile') or {}
  if not isinstance(raw, dict):
    raise ParseError(
        f'{where}: "percentile" is a {type(raw).__name__}, not an object'
    )
  out = []
  for key in raw:
    try:
      pct = float(key)
    except ValueError as e:
      raise ParseError(f'{where}: bad percentile key {key[:40]!r}') from e
    if not 0 <= pct <= 100:
      raise ParseError(f'{where}: percentile key {key[:40]!r} not in 0..100')
    out.append((pct, _Number(raw, key, where) / scale))
  return tuple(sorted(out))


def _LatencyTarget(job: dict, clat_ns: bool) -> LatencyTarget | None:
  """fio prints latency_target in ns (fio >= 3) and the window in us."""
  if not job.get('latency_target') and not job.get('latency_target_ns'):
    return None
  where = f'job {job["jobname"]!r}'
  if 'latency_target_ns' in job:
    target_us = _Number(job, 'latency_target_ns', where) / 1000
  else:
    target_us = _Number(job, 'latency_target', where) / (1000 if clat_ns else 1)
  window_key = (
      'latency_window_us' if 'latency_window_us' in job else 'latency_window'
  )
  return LatencyTarget(
      depth=int(_Number(job, 'latency_depth', where)),
      target_us=target_us,
      percentile=_Number(job, 'latency_percentile', where),
      window_us=_Number(job, window_key, where),
  )


def _PkbSamples(doc: dict, job_file: str, full: bool) -> list:
  try:
    return pkb_fio.ParseResults(
        job_file, doc, skip_latency_individual_stats=not full
    )
  except KeyError as e:
    raise ParseError(f'fio JSON lacks {e} (truncated output?)') from e
  except (TypeError, ValueError, AttributeError, configparser.Error) as e:
    raise ParseError(f'fio JSON is not fio output: {e}') from e


def _Value(values: dict, key: str, where: str) -> float:
  if key not in values:
    raise ParseError(f"{where}: PKB's fio parser gave no {key}")
  return _Number(values, key, where)


def Parse(text: str) -> Result:
  """Parses fio's JSON output with PKB's fio parser.

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
  _CheckJobs(doc)
  full = _HasPkbPercentiles(doc)
  # PKB's metric names: <job>:<direction>:<stat>.
  values: dict[tuple[str, str], dict[str, Any]] = {}
  options: dict[str, dict] = {}
  for s in _PkbSamples(doc, JobFile(doc), full):
    job, direction, stat = s.metric.split(':', 2)
    values.setdefault((job, direction), {})[stat] = s.value
    options[job] = s.metadata
  jobs = []
  for raw in doc['jobs']:
    name = raw['jobname'].split('.')[0]
    where = f'job {name!r}'
    directions = []
    for d in DIRECTIONS:
      if (name, d) not in values:
        continue
      v, here = values[name, d], f'{where} {d}'
      if full:
        percentiles = tuple(
            (float(p), _Value(v, f'latency:p{p:g}', here))
            for p in PKB_PERCENTILES
        )
      else:
        percentiles = _PrintedPercentiles(raw[d], here)
      directions.append(
          Direction(
              d,
              iops=_Value(v, 'iops', here),
              bw_kib=_Value(v, 'bandwidth', here),
              clat_percentiles_us=percentiles,
              **{f'clat_{k}_us': _Value(v, f'latency:{k}', here)
                 for k in _STATS},
          )
      )  # fmt: skip
    if not directions:
      raise ParseError(f'fio {where} did no I/O (io_bytes are 0)')
    job_options = {
        k: str(v)
        for k, v in options[name].items()
        if k not in ('fio_job', 'fio_version')
    }
    jobs.append(
        Job(
            name=name,
            options=tuple(sorted(job_options.items())),
            directions=tuple(directions),
            latency_target=_LatencyTarget(raw, 'clat' not in raw['read']),
        )
    )
  return Result(doc['fio version'], tuple(jobs), warnings)
