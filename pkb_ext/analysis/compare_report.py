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
"""Renders a comparison (pkb_ext.analysis.compare.Result).

Text for the terminal; compare.html and compare.md from the jinja2
templates in templates/, with one chart per benchmark that shows both sides
of every matched configuration: the mean, its CI95 and every repetition.
"""

import os
import re
from typing import Any

from matplotlib import lines
from matplotlib import pyplot

from pkb_ext.analysis import compare
from pkb_ext.analysis import outdir
from pkb_ext.analysis import report

SIDE_COLORS = {'A': '#7f7f7f', 'B': '#1f77b4'}
VERDICT_COLORS = {'better': '#2ca02c', 'worse': '#d62728'}
HEADER = (
    'Match',
    'A',
    'B',
    'Change',
    'A repetitions',
    'B repetitions',
    'Test',
    'p',
    'Verdict',
    'Flags',
)


def _Stats(row: dict[str, Any], side: str, baseline: bool) -> str:
  n = row[f'n_{side}']
  if side == 'a' and baseline:
    return 'none (stated)'
  if not n:
    return '-'
  if n < 2:
    return 'n=1'
  mean, ci = row[f'value_{side}'], row[f'ci95_{side}']
  rel = f' ({ci / abs(mean) * 100:.1f} %)' if mean else ''
  return f'n={n}, CI95 ±{report._Num(ci)}{rel}'  # pylint: disable=protected-access


def _Flags(row: dict[str, Any]) -> str:
  out = []
  for side in ('a', 'b'):
    flags = [f for f in ('bimodal', 'over_limit') if row[f'{f}_{side}']]
    if flags:
      out.append(f'{side.upper()}: {", ".join(flags)}')
  return '; '.join(out) or '-'


def _Change(value: float | None) -> str:
  if value is None:
    return '-'
  return f'{value:+.1f} %'


def _P(value: float | None) -> str:
  if value is None:
    return '-'
  return '<0.001' if value < 0.001 else f'{value:.3f}'


def Key(match_key: str) -> str:
  """A match key without its unmatched ('*') dimensions."""
  return ' / '.join(p for p in match_key.split(' / ') if p != '*')


def Cells(row: dict[str, Any], baseline: bool) -> list[str]:
  """One row of the comparison table, formatted."""
  num = report._Num  # pylint: disable=protected-access
  return [
      Key(row['match_key']),
      num(row['value_a']),
      num(row['value_b']),
      _Change(row['change_pct']),
      _Stats(row, 'a', baseline),
      _Stats(row, 'b', baseline),
      row['test'] or '-',
      _P(row['p_value']),
      row['verdict'],
      _Flags(row),
  ]


def Sections(result: compare.Result) -> list[dict[str, Any]]:
  """Per benchmark, in the report's order: title, rows, counts."""
  sections: dict[str, dict[str, Any]] = {}
  for r in result.rows:
    s = sections.setdefault(
        r['benchmark'],
        {
            'benchmark': r['benchmark'],
            'label': r['label'],
            'unit': r['unit'],
            'direction': (
                'higher is better'
                if r['higher_is_better']
                else 'lower is better'
            ),
            'rows': [],
            'verdicts': [],
        },
    )
    s['rows'].append(Cells(r, result.baseline))
    s['verdicts'].append(r['verdict'])
  return list(sections.values())


def Summary(result: compare.Result) -> dict[str, int]:
  out: dict[str, int] = {}
  for r in result.rows:
    out[r['verdict']] = out.get(r['verdict'], 0) + 1
  return out


def Method(result: compare.Result) -> str:
  s = result.settings
  return (
      f'Matched by {", ".join(s.by)}. Verdict: {compare.TESTS[s.test]}'
      f' ({s.test}) over the repetitions where both sides have at least'
      f' {s.min_repetitions}, significant at p < {s.alpha:g}; otherwise'
      ' whether the CI95 intervals overlap (ci_overlap); better or worse'
      f' needs a significant change of at least {s.min_change_pct:g} %.'
      ' Change = (B - A) / |A|.'
  )


def Text(result: compare.Result) -> str:
  """The comparison as plain text tables."""
  lines = [
      f'A: {result.a}',
      f'B: {result.b}',
      Method(result),
  ]
  lines += [f'note: {n}' for n in result.notes]
  for s in Sections(result):
    rows = [list(HEADER)] + s['rows']
    widths = [max(len(str(r[i])) for r in rows) for i in range(len(HEADER))]
    lines += ['', f'{s["label"]} ({s["unit"]}, {s["direction"]})']
    for r in rows:
      lines.append(
          '  ' + '  '.join(str(c).ljust(w) for c, w in zip(r, widths)).rstrip()
      )
  summary = Summary(result)
  lines += [
      '',
      'verdicts: ' + ', '.join(f'{v} {summary[v]}' for v in sorted(summary)),
  ]
  return '\n'.join(lines)


def Chart(
    rows: list[dict[str, Any]],
    runs: list[dict[str, Any]],
    path: str,
    baseline: bool,
) -> None:
  """Both sides of each matched configuration of one benchmark.

  Per configuration (one line each): side A above, side B below, each as
  its mean with a CI95 error bar and its repetitions as dots; B's mean is
  green when better, red when worse.
  """
  rows = sorted(rows, key=lambda r: r['match_key'])
  fig, ax = pyplot.subplots(figsize=(8, 0.6 * len(rows) + 1.8), dpi=100)
  for i, r in enumerate(rows):
    for side, dy in (('A', -0.18), ('B', 0.18)):
      key = side.lower()
      value = r[f'value_{key}']
      if value is None:
        continue
      color = SIDE_COLORS[side]
      if side == 'B':
        color = VERDICT_COLORS.get(r['verdict'], color)
      points = [
          u['value']
          for u in runs
          if u['match_key'] == r['match_key']
          and u['benchmark'] == r['benchmark']
          and u['side'] == side
      ]
      ax.scatter(
          points,
          [i + dy] * len(points),
          s=10,
          color=SIDE_COLORS[side],
          alpha=0.5,
          zorder=2,
      )
      ax.errorbar(
          [value],
          [i + dy],
          xerr=[[r[f'ci95_{key}'] or 0], [r[f'ci95_{key}'] or 0]],
          fmt='D' if side == 'A' and baseline else 'o',
          color=color,
          capsize=4,
          markersize=7,
          zorder=3,
      )
  ax.set_yticks(list(range(len(rows))))
  ax.set_yticklabels([Key(r['match_key']) for r in rows], fontsize=8)
  ax.set_ylim(len(rows) - 0.5, -0.5)
  first = rows[0]
  ax.set_xlabel(
      f'{first["unit"]} ('
      + ('higher' if first['higher_is_better'] else 'lower')
      + ' is better)'
  )
  handles = [
      lines.Line2D(
          [],
          [],
          color=SIDE_COLORS['A'],
          marker='D' if baseline else 'o',
          linestyle='',
          label='A (baseline, no repetitions)' if baseline else 'A',
      ),
      lines.Line2D(
          [], [], color=SIDE_COLORS['B'], marker='o', linestyle='', label='B'
      ),
  ] + [
      lines.Line2D(
          [], [], color=color, marker='o', linestyle='', label=f'B {verdict}'
      )
      for verdict, color in VERDICT_COLORS.items()
  ]
  ax.legend(
      handles=handles,
      fontsize=7,
      loc='upper center',
      bbox_to_anchor=(0.5, -0.1 - 0.5 / (0.6 * len(rows) + 1.8)),
      ncol=4,
  )
  ax.set_title(f'{first["label"]}: A vs B (mean, CI95, repetitions)')
  ax.grid(axis='x', alpha=0.3)
  fig.tight_layout()
  fig.savefig(path, bbox_inches='tight')
  pyplot.close(fig)


# The files Write puts in its directory (an earlier output may be replaced).
OWN_FILES = re.compile(r'compare\.(html|md)|compare_.+\.png')


def Write(result: compare.Result, out_dir: str) -> dict[str, str]:
  """Writes compare.html, compare.md and the charts; returns their paths.

  The files are written into a fresh directory that then replaces out_dir
  (see outdir.Replace).

  Raises:
    outdir.OutputError: out_dir holds other files (nothing is written).
  """
  return outdir.Replace(out_dir, OWN_FILES, lambda d: _WriteInto(result, d))


def _WriteInto(result: compare.Result, out_dir: str) -> dict[str, str]:
  charts = {}
  by_benchmark: dict[str, list[dict[str, Any]]] = {}
  for r in result.rows:
    by_benchmark.setdefault(r['benchmark'], []).append(r)
  for benchmark, rows in by_benchmark.items():
    name = f'compare_{benchmark}.png'
    Chart(rows, result.runs, os.path.join(out_dir, name), result.baseline)
    charts[benchmark] = name
  context = {
      'title': 'pkb_ext comparison: A vs B',
      'a': result.a,
      'b': result.b,
      'method': Method(result),
      'notes': result.notes,
      'header': HEADER,
      'sections': Sections(result),
      'charts': charts,
      'summary': sorted(Summary(result).items()),
      'generated': report.Now(),
  }
  paths = {
      'html': os.path.join(out_dir, 'compare.html'),
      'md': os.path.join(out_dir, 'compare.md'),
  }
  for kind, template in (('html', 'compare.html.j2'), ('md', 'compare.md.j2')):
    with open(paths[kind], 'w', encoding='utf-8') as f:
      f.write(report.Render(template, context))
  return paths | {k: os.path.join(out_dir, v) for k, v in charts.items()}
