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
"""The results summary a run ends with: headline figures and what to do next.

Format (pure) takes the rows of a run's spool (or PKB sample dicts: metric,
value, unit, metadata) and returns the block the publisher logs when the
process exits: per configuration (cloud, machine type, zone and data disk
type), the mean of each headline figure present, then the samples file and
the commands that build the report from it and publish it. ReadRows reads a
spool for it.
"""

import dataclasses
import json
import math
import shlex
import statistics
from typing import Any, Iterable, Mapping, Sequence

TITLE = 'cloud_report results'
REPORT_COMMAND = 'pkb-ext report --samples {path} --out DIR'
PUBLISH_COMMAND = 'pkb-ext publish {path} --table PROJECT.DATASET.TABLE'


@dataclasses.dataclass(frozen=True)
class Figure:
  """A headline figure: the samples of one metric with some metadata."""

  label: str
  metric: str
  where: tuple[tuple[str, str], ...] = ()
  # A metadata key whose every value is a figure of its own (the provider).
  per: str | None = None

  def Matches(self, metric: str, metadata: Mapping[str, Any]) -> bool:
    return metric == self.metric and all(
        str(metadata.get(key)) == value for key, value in self.where
    )


# The report's headline figures, in the order they are shown.
FIGURES = (
    Figure('CoreMark single-core', 'coremark_score', (('mode', 'single'),)),
    Figure('CoreMark all-core', 'coremark_score', (('mode', 'all'),)),
    Figure(
        'fio read IOPS',
        'fio_iops',
        (('fio_job', 'rd-iops'), ('direction', 'read')),
    ),
    Figure(
        'fio write IOPS',
        'fio_iops',
        (('fio_job', 'wr-iops'), ('direction', 'write')),
    ),
    Figure(
        'netperf TCP_RR p50',
        'netperf_latency_p50',
        (('netperf_test', 'TCP_RR'),),
    ),
    Figure(
        'netperf TCP_RR p99',
        'netperf_latency_p99',
        (('netperf_test', 'TCP_RR'),),
    ),
    Figure(
        'netperf TCP_STREAM 1 stream',
        'netperf_throughput',
        (('netperf_test', 'TCP_STREAM'), ('streams', '1')),
    ),
    Figure(
        'object storage TTFB p50 GET',
        'object_storage_ttfb',
        (
            ('workload', 'latency'),
            ('op', 'get'),
            ('connection', 'reused'),
            ('statistic', 'p50'),
        ),
        per='provider',
    ),
    Figure('TPC-C max passing warehouses', 'tpcc_max_passing_warehouses'),
    Figure('TPC-C tpmC at max warehouses', 'tpcc_max_passing_tpmc'),
)
_LABEL_WIDTH = max(len(f.label) for f in FIGURES) + 8


@dataclasses.dataclass(frozen=True)
class Value:
  """A figure of one configuration: its samples' mean, count and unit."""

  label: str
  mean: float
  n: int
  unit: str


def _Metadata(row: Mapping[str, Any]) -> Mapping[str, Any]:
  metadata = row.get('metadata')
  if isinstance(metadata, str):
    try:
      metadata = json.loads(metadata)
    except ValueError:
      return {}
  return metadata if isinstance(metadata, dict) else {}


def _Number(value: Any) -> float | None:
  if isinstance(value, bool) or not isinstance(value, (int, float)):
    return None
  value = float(value)
  return value if math.isfinite(value) else None


def ConfigOf(metadata: Mapping[str, Any]) -> tuple[str, str, str, str]:
  """(cloud, machine type, zone, data disk type) of a sample.

  '?' stands for a missing cloud, machine type or zone, '' for a missing
  disk type (a phase that used no data disk).
  """
  cloud, machine_type, zone = (
      str(metadata.get(key) or '?') for key in ('cloud', 'machine_type', 'zone')
  )
  return cloud, machine_type, zone, str(metadata.get('disk_type') or '')


def Headlines(
    rows: Iterable[Mapping[str, Any]],
) -> dict[tuple[str, str, str, str], list[Value]]:
  """The headline figures present in rows, per configuration (ConfigOf).

  Only a phase's samples count (metadata names a phase); a sample_uri seen
  before is skipped, and a value that is no finite number is ignored.
  Configurations are sorted; figures are in FIGURES' order, a per-provider
  figure once per provider, sorted.
  """
  values: dict[tuple, dict[tuple[int, str], list[float]]] = {}
  units: dict[tuple[int, str], str] = {}
  seen = set()
  for row in rows:
    uri = row.get('sample_uri')
    if uri is not None:
      if uri in seen:
        continue
      seen.add(uri)
    metadata = _Metadata(row)
    value = _Number(row.get('value'))
    if 'phase' not in metadata or value is None:
      continue
    metric = row.get('metric')
    for index, figure in enumerate(FIGURES):
      if figure.Matches(metric, metadata):
        part = str(metadata.get(figure.per, '?')) if figure.per else ''
        key = (index, part)
        config = values.setdefault(ConfigOf(metadata), {})
        config.setdefault(key, []).append(value)
        units.setdefault(key, str(row.get('unit') or ''))
        break
  out = {}
  for config in sorted(values):
    figures = []
    for key in sorted(values[config]):
      index, part = key
      label = FIGURES[index].label + (f' {part}' if part else '')
      found = values[config][key]
      figures.append(
          Value(label, statistics.fmean(found), len(found), units[key])
      )
    out[config] = figures
  return out


def _Amount(value: float) -> str:
  if abs(value) >= 100:
    return f'{value:,.0f}'
  return f'{value:.3g}'


def Format(rows: Iterable[Mapping[str, Any]], path: str) -> str:
  """The results summary of a run's rows, whose samples file is path.

  Args:
    rows: spool rows or PKB sample dicts (metric, value, unit, metadata,
      sample_uri).
    path: the NDJSON file holding them, named in the commands shown.

  Returns:
    Lines without a trailing newline: a title, each configuration with its
    figures (the mean, and of how many samples when more than one), the
    samples file and the report and publish commands.
  """
  headlines = Headlines(rows)
  lines = [f'{"-" * 25}{TITLE}{"-" * 25}']
  for config, figures in headlines.items():
    lines.append(' '.join(part for part in config if part) + ':')
    for v in figures:
      of = f' (mean of {v.n})' if v.n > 1 else ''
      lines.append(
          f'  {v.label:{_LABEL_WIDTH}} {_Amount(v.mean):>12} {v.unit}{of}'
      )
  if not headlines:
    lines.append('No headline figure of the report among these samples.')
  quoted = shlex.quote(path)
  lines += [
      f'Samples (NDJSON): {path}',
      f'Build the report: {REPORT_COMMAND.format(path=quoted)}',
      f'Publish them:     {PUBLISH_COMMAND.format(path=quoted)}',
  ]
  return '\n'.join(lines)


def ReadRows(paths: Sequence[str]) -> list[dict[str, Any]]:
  """The JSON objects of NDJSON files, in order; other lines are skipped.

  Raises:
    OSError: a file cannot be read.
  """
  rows = []
  for path in paths:
    with open(path, encoding='utf-8', errors='replace') as f:
      for line in f:
        try:
          row = json.loads(line)
        except (ValueError, RecursionError):
          continue
        if isinstance(row, dict):
          rows.append(row)
  return rows
