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
"""Renders the report: report.html and report.md with matplotlib charts.

Everything shown comes from the analysis views (pkb_ext.analysis.runner):
the 12-benchmark ranking table, one bar chart per benchmark (every machine
configuration, best first in the report's direction, CI95 error bars,
flagged results hatched), the TPC-C step curve (tpmC and p90 latency
against active warehouses), and the object storage section
(pkb_ext.analysis.object_storage_report).
"""

import dataclasses
import datetime
import functools
import math
import os
import re
from typing import Any, Iterable, Sequence

import jinja2
import matplotlib

matplotlib.use('Agg')
from matplotlib import pyplot  # pylint: disable=g-import-not-at-top
from matplotlib import ticker  # pylint: disable=g-import-not-at-top

from pkb_ext import errors  # pylint: disable=g-bad-import-order
from pkb_ext.analysis import object_storage_report  # pylint: disable=g-bad-import-order
from pkb_ext.analysis import outdir  # pylint: disable=g-bad-import-order

CLOUD_COLORS = {'AWS': '#ff9900', 'GCP': '#4285f4', 'Azure': '#008ad7'}
OTHER_COLOR = '#7f7f7f'
TPCC_PASS_P90_MS = 5000  # the report's pass rule: p90 < 5 s
PLACES = ('first', 'second', 'third')
_LINE_STYLES = ('-', '--', ':', '-.')


@dataclasses.dataclass(frozen=True)
class Tables:
  """The views a report is made of."""

  ranking: list[dict[str, Any]]
  aggregates: list[dict[str, Any]]
  tpcc_steps: list[dict[str, Any]]
  tpcc_results: list[dict[str, Any]]
  flags: list[dict[str, Any]]
  unpriced: list[str]
  report_version: str | None = None
  object_storage: list[dict[str, Any]] = dataclasses.field(default_factory=list)
  # Configurations that skipped a phase (view skipped_phases).
  skipped: list[dict[str, Any]] = dataclasses.field(default_factory=list)


ALL_CORES_BENCHMARK = 'cpu_16core'
STORAGE_CHART = 'object_storage'  # its key in Charts' result
REPORT_VCPUS = 16


def AllCoresLabel(vcpus: Iterable[int | None]) -> str:
  """The label of the all-cores CoreMark benchmark for machines' vCPUs.

  The report's "16 core CPU" where every machine has 16 vCPUs; otherwise
  "all cores (N vCPUs)" (a range when the machines differ).
  """
  known = sorted({v for v in vcpus if v})
  if known == [REPORT_VCPUS]:
    return '16 core CPU'
  if not known:
    return 'all cores'
  if len(known) == 1:
    return f'all cores ({known[0]} vCPUs)'
  return f'all cores ({known[0]}-{known[-1]} vCPUs)'


def Relabel(rows: list[dict[str, Any]], label: str) -> list[dict[str, Any]]:
  """Rows with the all-cores benchmark's label replaced by `label`."""
  return [
      r | {'label': label} if r.get('benchmark') == ALL_CORES_BENCHMARK else r
      for r in rows
  ]


class ReportError(errors.Error, ValueError):
  """The samples cannot make one report; the message says why."""


def ReportVersion(analysis, description: str) -> str | None:
  """The one report_version of the samples.

  Raises:
    ReportError: no cloud report samples, or samples of several versions
      (which measure different things).
  """
  versions = [r['report_version'] for r in analysis.Query('report_versions')]
  if not versions:
    raise ReportError(
        f'{description} holds no cloud report samples (none with'
        ' metadata.phase): nothing to report'
    )
  if len(versions) > 1:
    raise ReportError(
        f'{description} mixes report versions'
        f' {", ".join(map(str, sorted(versions, key=str)))}; give the'
        ' samples of one version'
    )
  return versions[0]


def Title(version: str | None) -> str:
  """'<version> Cloud Report' ('Cloud Report' without a version)."""
  return f'{version} Cloud Report' if version else 'Cloud Report'


def Collect(analysis, description: str = 'the samples') -> Tables:
  """Runs the views a report needs.

  Raises:
    ReportError: see ReportVersion.
  """
  version = ReportVersion(analysis, description)
  label = AllCoresLabel(r['vcpus'] for r in analysis.Query('machine_vcpus'))
  tables = Tables(
      ranking=Relabel(
          sorted(analysis.Query('ranking_table'), key=lambda r: r['position']),
          label,
      ),
      aggregates=Relabel(analysis.Query('machine_aggregates'), label),
      tpcc_steps=analysis.Query('tpcc_steps'),
      tpcc_results=analysis.Query('tpcc_results'),
      flags=Relabel(analysis.Query('flags'), label),
      unpriced=list(analysis.unpriced),
      report_version=version,
      object_storage=analysis.Query('object_storage_aggregates'),
      skipped=analysis.Query('skipped_phases'),
  )
  return tables


def _Num(value: Any, digits: int = 0) -> str:
  if value is None or (isinstance(value, float) and not math.isfinite(value)):
    return '-'
  if float(value).is_integer() and digits == 0:
    return f'{int(value):,}'  # counts, warehouses
  if abs(value) < 10 and digits == 0:
    digits = 3
  return f'{value:,.{digits}f}'


def _Machine(row: dict[str, Any], place: str) -> str:
  if not row.get(f'{place}_cloud'):
    return '-'
  ci95 = row.get(f'{place}_ci95')
  spread = f' +- {_Num(ci95)}' if ci95 is not None else ''
  return (
      f'{row[f"{place}_cloud"]} {row[f"{place}_machine"]}'
      f' / {row[f"{place}_disk"]} ({_Num(row[f"{place}_value"])}{spread})'
  )


def _Unit(row: dict[str, Any]) -> str:
  """A row's unit and direction, e.g. 'ops/s (higher is better)'."""
  direction = 'higher' if row['higher_is_better'] else 'lower'
  return f'{row["unit"]} ({direction} is better)'


def _Label(row: dict[str, Any]) -> str:
  return f'{row["machine_type"]} / {row["disk_type"]}'


def BarChart(benchmark: str, rows: Sequence[dict[str, Any]], path: str):
  """Writes one benchmark's bar chart; rows are machine_aggregates rows."""
  higher = rows[0]['higher_is_better']
  rows = sorted(rows, key=lambda r: -r['mean'] if higher else r['mean'])
  fig, ax = pyplot.subplots(figsize=(8, 0.45 * len(rows) + 1.6), dpi=100)
  y = range(len(rows))
  errors = [r['ci95_half_width'] or 0 for r in rows]
  bars = ax.barh(
      list(y),
      [r['mean'] for r in rows],
      xerr=errors,
      color=[CLOUD_COLORS.get(r['cloud'], OTHER_COLOR) for r in rows],
      edgecolor='black',
      linewidth=0.5,
      capsize=3,
  )
  for bar, r in zip(bars, rows):
    if r['over_limit'] or r['bimodal']:
      bar.set_hatch('//')
  ax.set_yticks(list(y))
  ax.set_yticklabels([f'{r["cloud"]} {_Label(r)}' for r in rows], fontsize=8)
  ax.invert_yaxis()
  ax.set_xlabel(
      rows[0]['unit']
      + (' (higher is better)' if higher else ' (lower is better)')
  )
  ax.set_title(rows[0]['label'])
  ax.grid(axis='x', alpha=0.3)
  fig.tight_layout()
  fig.savefig(path)
  pyplot.close(fig)


def TpccChart(steps: Sequence[dict[str, Any]], path: str) -> list[float]:
  """Writes the TPC-C step curve: tpmC and p90 latency vs warehouses.

  Returns:
    the warehouse axis' tick positions (whole numbers).
  """
  fig, (top, bottom) = pyplot.subplots(
      2, 1, figsize=(8, 7), dpi=100, sharex=True
  )
  by_config: dict[tuple[str, str], list[dict[str, Any]]] = {}
  for s in steps:
    by_config.setdefault((s['config_id'], s['run_uri']), []).append(s)
  per_cloud: dict[str, int] = {}
  for _, rows in sorted(by_config.items()):
    rows = sorted(rows, key=lambda r: r['warehouses'])
    first = rows[0]
    color = CLOUD_COLORS.get(first['cloud'], OTHER_COLOR)
    style = _LINE_STYLES[per_cloud.get(first['cloud'], 0) % len(_LINE_STYLES)]
    per_cloud[first['cloud']] = per_cloud.get(first['cloud'], 0) + 1
    label = f'{first["cloud"]} {_Label(first)}'
    x = [r['warehouses'] for r in rows]
    for ax, key in ((top, 'tpmc'), (bottom, 'p90_ms')):
      values = [r[key] for r in rows]
      ax.plot(x, values, color=color, linestyle=style, alpha=0.8, label=label)
      for xi, vi, r in zip(x, values, rows):
        if vi is not None:
          ax.scatter(
              [xi],
              [vi],
              color=color,
              zorder=3,
              facecolors=color if r['passed'] else 'white',
          )
  bottom.axhline(
      TPCC_PASS_P90_MS,
      color='red',
      linestyle='--',
      linewidth=1,
      label='pass: p90 < 5 s',
  )
  top.set_ylabel('tpmC')
  top.set_title('TPC-C steps (filled: passed, hollow: failed)')
  bottom.set_ylabel('p90 latency (ms)')
  bottom.set_xlabel('active warehouses')
  # Warehouses are whole numbers: no 1.5 ticks on a 1..3 warehouse curve.
  bottom.xaxis.set_major_locator(ticker.MaxNLocator(integer=True))
  top.legend(fontsize=7)
  bottom.legend(fontsize=7)
  for ax in (top, bottom):
    ax.grid(alpha=0.3)
  fig.tight_layout()
  ticks = [float(t) for t in bottom.get_xticks()]
  fig.savefig(path)
  pyplot.close(fig)
  return ticks


def Charts(tables: Tables, out_dir: str) -> dict[str, str]:
  """Writes every chart; returns {benchmark or 'tpcc_steps': file name}."""
  charts = {}
  by_benchmark: dict[str, list[dict[str, Any]]] = {}
  for r in tables.aggregates:
    if r['mean'] is not None:
      by_benchmark.setdefault(r['benchmark'], []).append(r)
  for benchmark, rows in by_benchmark.items():
    name = f'chart_{benchmark}.png'
    BarChart(benchmark, rows, os.path.join(out_dir, name))
    charts[benchmark] = name
  if any(s['tpmc'] is not None for s in tables.tpcc_steps):
    name = 'chart_tpcc_steps.png'
    TpccChart(tables.tpcc_steps, os.path.join(out_dir, name))
    charts['tpcc_steps'] = name
  name = object_storage_report.CHART
  if object_storage_report.Chart(
      tables.object_storage, os.path.join(out_dir, name)
  ):
    charts[STORAGE_CHART] = name
  return charts


def _Sections(tables: Tables):
  """The report's sections as (title, header, rows) tables."""
  units = {r['benchmark']: r['unit'] for r in tables.aggregates}
  ranking = [
      [r['label']] + [_Machine(r, p) for p in PLACES] + [_Unit(r)]
      for r in tables.ranking
  ]
  yield (
      f'{Title(tables.report_version)} results',
      ['Benchmark', '1st', '2nd', '3rd', 'Unit'],
      ranking,
  )
  tpcc = [
      [
          f'{r["cloud"]} {_Label(r)}',
          _Num(r['max_passing_warehouses']),
          _Num(r['tpmc']),
          _Num(r['usd_month'], 2),
          _Num(r['term_usd']),
          _Num(r['usd_per_tpm'], 3),
      ]
      for r in sorted(tables.tpcc_results, key=lambda r: -(r['tpmc'] or 0))
  ]
  yield (
      'TPC-C: max passing warehouses, tpmC and $/tpm',
      [
          'Machine',
          'Max passing warehouses',
          'tpmC',
          '$/month (1 node)',
          '3-year $ (1 node)',
          '$/tpm',
      ],
      tpcc,
  )
  flags = [
      [
          f'{r["cloud"]} {_Label(r)}',
          r['label'],
          r['flag'],
          _Num(r['mean']),
          _Num(r['published_limit']),
          units.get(r['benchmark'], '-'),
          _Num(r['bimodality_coefficient'], 3),
          _Num(r['n']),
      ]
      for r in sorted(tables.flags, key=lambda r: (r['position'], r['flag']))
  ]
  yield (
      'Flags (over-limit results are left out of the ranking)',
      [
          'Machine',
          'Benchmark',
          'Flag',
          'Mean',
          'Published limit',
          'Unit',
          'Bimodality coefficient',
          'n',
      ],
      flags,
  )


def SkipNote(tables: Tables, title: str) -> str | None:
  """One line naming the configurations a section leaves out, and why.

  The TPC-C table leaves out those that skipped tpcc; the rankings (the
  section titled '... results') those that skipped any phase.
  """
  phase = 'tpcc' if title.startswith('TPC-C') else None
  if phase is None and not title.endswith(' results'):
    return None
  whats = [
      f'{r["cloud"]} {r["machine_type"]} ({r["disk_type"] or "-"}) skipped'
      f' {r["phase"]}: {r["skip_reason"]}'
      for r in tables.skipped
      if phase in (None, r['phase'])
  ]
  return 'Left out: ' + '; '.join(sorted(set(whats))) + '.' if whats else None


def _Aggregates(tables: Tables, benchmark: str):
  rows = [r for r in tables.aggregates if r['benchmark'] == benchmark]
  higher = rows[0]['higher_is_better'] if rows else True
  rows.sort(key=lambda r: -r['mean'] if higher else r['mean'])
  unit = rows[0]['unit'] if rows else ''
  return (
      [
          'Machine',
          f'Mean ({unit})',
          f'CI95 +- ({unit})',
          'CV %',
          'n',
          'Flags',
      ],
      [
          [
              f'{r["cloud"]} {_Label(r)}',
              _Num(r['mean']),
              _Num(r['ci95_half_width']),
              _Num(r['cv_pct'], 2),
              _Num(r['n']),
              ', '.join(f for f in ('over_limit', 'bimodal') if r[f]) or '-',
          ]
          for r in rows
      ],
  )


def _BenchmarkOrder(tables: Tables) -> list[tuple[str, str]]:
  seen = {}
  for r in sorted(tables.aggregates, key=lambda r: r['position']):
    seen.setdefault(r['benchmark'], r['label'])
  return list(seen.items())


@functools.cache
def _Environment(kind: str) -> jinja2.Environment:
  env = jinja2.Environment(
      loader=jinja2.PackageLoader('pkb_ext.analysis', 'templates'),
      autoescape=kind == 'html',
      undefined=jinja2.StrictUndefined,
      keep_trailing_newline=True,
  )
  env.filters['md'] = lambda v: str(v).replace('|', '\\|').replace('*', '\\*')
  return env


def Render(template: str, context: dict[str, Any]) -> str:
  """Renders templates/<template> (HTML autoescaped, Markdown not)."""
  kind = 'html' if template.endswith('.html.j2') else 'md'
  return _Environment(kind).get_template(template).render(**context)


def _Context(tables: Tables, charts: dict[str, str], source: str) -> dict:
  benchmarks = []
  for benchmark, label in _BenchmarkOrder(tables):
    header, rows = _Aggregates(tables, benchmark)
    benchmarks.append({
        'benchmark': benchmark,
        'label': label,
        'chart': charts.get(benchmark),
        'header': header,
        'rows': rows,
    })
  return {
      'title': f'{Title(tables.report_version)}, rebuilt by pkb_ext',
      'source': source,
      'generated': Now(),
      'sections': [
          {'title': t, 'header': h, 'rows': r, 'note': SkipNote(tables, t)}
          for t, h, r in _Sections(tables)
      ],
      'benchmarks': benchmarks,
      'tpcc_chart': charts.get('tpcc_steps'),
      'storage': object_storage_report.Section(
          tables.object_storage, charts.get(STORAGE_CHART)
      ),
      'unpriced': tables.unpriced,
  }


def Markdown(tables: Tables, charts: dict[str, str], source: str) -> str:
  return Render('report.md.j2', _Context(tables, charts, source))


def Html(tables: Tables, charts: dict[str, str], source: str) -> str:
  return Render('report.html.j2', _Context(tables, charts, source))


def Now() -> str:
  return datetime.datetime.now(datetime.timezone.utc).strftime(
      '%Y-%m-%d %H:%M UTC'
  )


# The files Write puts in its directory (an earlier report's may be replaced).
OWN_FILES = re.compile(r'report\.(html|md)|chart_.+\.png')


def Write(analysis, out_dir: str, source: str) -> dict[str, str]:
  """Writes report.html, report.md and the charts; returns their paths.

  The views run first; the files are written into a fresh directory that
  then replaces out_dir (see outdir.Replace).

  Raises:
    ReportError: the samples cannot make one report (nothing is written).
    outdir.OutputError: out_dir holds other files (nothing is written).
  """
  tables = Collect(analysis, source)

  def WriteInto(directory: str) -> dict[str, str]:
    charts = Charts(tables, directory)
    paths = {
        'html': os.path.join(directory, 'report.html'),
        'md': os.path.join(directory, 'report.md'),
    }
    with open(paths['html'], 'w', encoding='utf-8') as f:
      f.write(Html(tables, charts, source))
    with open(paths['md'], 'w', encoding='utf-8') as f:
      f.write(Markdown(tables, charts, source))
    return paths | {k: os.path.join(directory, v) for k, v in charts.items()}

  return outdir.Replace(out_dir, OWN_FILES, WriteInto)
