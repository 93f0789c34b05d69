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
"""The report's object storage section: percentile tables and their chart.

Rows are the view object_storage_aggregates: per configuration, provider,
op, workload, connection, object size and concurrency, the time to first
byte and the throughput at p50, p90, p99 and p99.9 (a throughput's pX is
the throughput X % of requests reach or beat), as means over repetitions
with their CI95. The chart puts the percentile on the x axis and the value
on a log y axis, a panel per figure and op, one line per provider and
object size (the latency workload's small objects: per connection) of the
workloads that send one request at a time.
"""

import math
from typing import Any, Sequence

import matplotlib

matplotlib.use('Agg')
from matplotlib import pyplot  # pylint: disable=g-import-not-at-top

PERCENTILES = ('p50', 'p90', 'p99', 'p99.9')
# figure -> (title, unit, direction)
FIGURES = {
    'ttfb': ('Time to first byte', 'ms', 'lower is better'),
    'throughput': ('Throughput', 'MB/s', 'higher is better'),
}
# Three hues apart (the clouds' blues of report.CLOUD_COLORS look alike).
PROVIDER_COLORS = {'s3': '#ff9900', 'gcs': '#4285f4', 'azure': '#9c27b0'}
OTHER_COLOR = '#7f7f7f'
CHART = 'chart_object_storage.png'
NONE_NOTE = 'No object storage samples (the object_storage phase did not run).'
_WORKLOADS = ('latency', 'throughput', 'concurrency')
_STYLES = ('-', '--', ':', '-.', (0, (5, 1)), (0, (1, 3)))
_MARKERS = ('o', 's', '^', 'D', 'v', 'P')
_GROUP = (
    'config_id',
    'provider',
    'op',
    'workload',
    'connection',
    'object_size_bytes',
    'concurrency',
)


def Number(value: float | None) -> str:
  """A value with 3 significant digits, whole numbers from 100 up."""
  if value is None or not math.isfinite(value):
    return '-'
  if abs(value) >= 100:
    return f'{value:,.0f}'
  return f'{value:.3g}'


def _Cell(row: dict[str, Any] | None) -> str:
  if row is None:
    return '-'
  if row['ci95_half_width'] is None:
    return Number(row['mean'])
  return f'{Number(row["mean"])} ± {Number(row["ci95_half_width"])}'


def _SortKey(key: tuple) -> tuple:
  config, provider, op, workload, connection, size, concurrency = key
  return (
      str(config),
      str(provider),
      str(op),
      _WORKLOADS.index(workload) if workload in _WORKLOADS else 9,
      str(connection),
      size or 0,
      concurrency or 0,
  )


def _Groups(
    rows: Sequence[dict[str, Any]], figure: str
) -> list[tuple[tuple, dict[str, dict[str, Any]]]]:
  """[(group key, {percentile: row})] of one figure, in table order."""
  groups: dict[tuple, dict[str, dict[str, Any]]] = {}
  for r in rows:
    if r['figure'] == figure:
      groups.setdefault(tuple(r[k] for k in _GROUP), {})[r['percentile']] = r
  return sorted(groups.items(), key=lambda kv: _SortKey(kv[0]))


def _Machine(row: dict[str, Any]) -> str:
  return (
      f'{row["cloud"] or "?"} {row["machine_type"] or "?"} /'
      f' {row["disk_type"] or "?"}'
  )


def Tables(rows: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
  """One table per figure: title, header and formatted rows."""
  tables = []
  for figure, (title, unit, direction) in FIGURES.items():
    body = []
    for _, by_p in _Groups(rows, figure):
      first = next(iter(by_p.values()))
      body.append(
          [
              _Machine(first),
              first['provider'] or '-',
              (first['op'] or '-').upper(),
              first['workload'] or '-',
              first['connection'] or '-',
              first['size_text'] or '-',
              str(first['concurrency']),
          ]
          + [_Cell(by_p.get(p)) for p in PERCENTILES]
          + [str(max(r['n'] for r in by_p.values())), str(first['requests'])]
      )
    if body:
      tables.append({
          'title': f'{title} ({unit}, {direction})',
          'header': (
              [
                  'Machine',
                  'Provider',
                  'Op',
                  'Workload',
                  'Connection',
                  'Object size',
                  'Concurrency',
              ]
              + [f'{p} ({unit})' for p in PERCENTILES]
              + ['Runs', 'Requests per run']
          ),
          'rows': body,
      })
  return tables


def Chart(rows: Sequence[dict[str, Any]], path: str) -> bool:
  """Writes the percentile chart; returns False when it has no line.

  Panels: one per figure (rows) and op (columns). Lines: the groups of
  the latency and throughput workloads (one request at a time), one per
  configuration (when there are several), provider and object size or
  connection; color by provider, line style by size or connection.
  """
  lined = [
      r
      for r in rows
      if r['workload'] in ('latency', 'throughput')
      and r['mean']
      and r['mean'] > 0
  ]
  ops = sorted({r['op'] for r in lined}, key=str)
  if not lined:
    return False
  configs = {r['config_id'] for r in lined}
  kinds = sorted(
      {(r['object_size_bytes'] or 0, str(r['connection'])) for r in lined}
  )
  fig, axes = pyplot.subplots(
      len(FIGURES),
      len(ops),
      figsize=(5.5 * len(ops), 4.5 * len(FIGURES)),
      dpi=100,
      squeeze=False,
  )
  for i, (figure, (title, unit, direction)) in enumerate(FIGURES.items()):
    for j, op in enumerate(ops):
      ax = axes[i][j]
      for key, by_p in _Groups([r for r in lined if r['op'] == op], figure):
        points = [(k, p) for k, p in enumerate(PERCENTILES) if p in by_p]
        first = next(iter(by_p.values()))
        k = kinds.index(
            (first['object_size_bytes'] or 0, str(first['connection']))
        )
        label = f'{first["provider"]} ' + (
            first['size_text'] or f'{first["connection"]} connection'
        )
        if len(configs) > 1:
          label = f'{first["machine_type"]} {label}'
        ax.plot(
            [x for x, _ in points],
            [by_p[p]['mean'] for _, p in points],
            color=PROVIDER_COLORS.get(first['provider'], OTHER_COLOR),
            linestyle=_STYLES[k % len(_STYLES)],
            marker=_MARKERS[k % len(_MARKERS)],
            label=label,
        )
      ax.set_yscale('log')
      ax.set_xticks(range(len(PERCENTILES)))
      ax.set_xticklabels(PERCENTILES)
      ax.set_xlim(-0.3, len(PERCENTILES) - 0.7)
      ax.set_xlabel('percentile')
      ax.set_ylabel(f'{unit} (log; {direction})')
      ax.set_title(f'{title}, {op.upper()}')
      ax.grid(alpha=0.3, which='both')
      if ax.get_lines():
        ax.legend(fontsize=7)
  fig.suptitle('Object storage by percentile (one request at a time)')
  fig.tight_layout()
  fig.savefig(path)
  pyplot.close(fig)
  return True


def Section(rows: Sequence[dict[str, Any]], chart: str | None) -> dict:
  """The section's template context: note, chart and tables."""
  return {
      'note': None if rows else NONE_NOTE,
      'chart': chart,
      'tables': Tables(rows),
  }
