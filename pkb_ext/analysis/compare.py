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
"""Compares two sets of samples (or a published baseline and samples).

The comparison is SQL: sql/compare/*.sql, BigQuery standard SQL like the
report's views. A view names its two sides `${a}.<view>` and `${b}.<view>`
(each side's machine_aggregates, benchmark_values, object storage
aggregates and runs, and report_versions),
other comparison views and the report's own views `${dataset}.<view>`, and
the data relation compare_settings (the matching dimensions, the test and
its thresholds). Comparison.Sql(view) compiles one query: each side's
report views as CTEs prefixed a_ and b_ (a side is a samples table, compiled
by pkb_ext.analysis.runner, or a baseline's literal rows), then the
comparison views. It runs on BigQuery as written or on DuckDB transpiled,
as the report does; Comparison.ViewStatements makes persistent views.
"""

import dataclasses
import functools
import importlib.resources
import re
from typing import Any, Iterable, Sequence

from pkb_ext import errors
from pkb_ext.analysis import baseline as baseline_lib
from pkb_ext.analysis import report
from pkb_ext.analysis import runner

DIMENSIONS = ('cloud', 'machine_type', 'disk_type')
TESTS = {
    'welch_t': "Welch's t-test",
    'mann_whitney_u': 'Mann-Whitney U test',
}
# The report views a side provides to the comparison views.
SIDE_VIEWS = (
    'machine_aggregates',
    'benchmark_values',
    'object_storage_aggregates',
    'object_storage_runs',
    'report_versions',
)
SETTINGS_COLUMNS = (
    ('test', 'STRING'),
    ('alpha', 'FLOAT64'),
    ('min_change_pct', 'FLOAT64'),
    ('min_repetitions', 'INT64'),
    ('by_cloud', 'BOOL'),
    ('by_machine_type', 'BOOL'),
    ('by_disk_type', 'BOOL'),
)
AGGREGATE_COLUMNS = (
    ('config_id', 'STRING'),
    ('cloud', 'STRING'),
    ('machine_type', 'STRING'),
    ('disk_type', 'STRING'),
    ('benchmark', 'STRING'),
    ('n', 'INT64'),
    ('mean', 'FLOAT64'),
    ('stddev', 'FLOAT64'),
    ('min_value', 'FLOAT64'),
    ('max_value', 'FLOAT64'),
    ('ci95_half_width', 'FLOAT64'),
    ('cv_pct', 'FLOAT64'),
    ('bimodal', 'BOOL'),
    ('over_limit', 'BOOL'),
)
VALUE_COLUMNS = (
    ('config_id', 'STRING'),
    ('cloud', 'STRING'),
    ('machine_type', 'STRING'),
    ('disk_type', 'STRING'),
    ('benchmark', 'STRING'),
    ('run_uri', 'STRING'),
    ('iteration', 'INT64'),
    ('value', 'FLOAT64'),
)
VERSION_COLUMNS = (('report_version', 'STRING'), ('samples', 'INT64'))
# A baseline states no object storage figures: empty relations of these.
OBJECT_STORAGE_COLUMNS = AGGREGATE_COLUMNS[:-2] + (('detail', 'STRING'),)
OBJECT_STORAGE_RUN_COLUMNS = VALUE_COLUMNS + (('detail', 'STRING'),)

# Beyond these a setting is no threshold: every verdict would be the same.
MAX_CHANGE_PCT = 1e6
MAX_REPETITIONS = 1_000_000
_DATASET_REF = re.compile(r'\$\{dataset\}\.([A-Za-z_][A-Za-z0-9_]*)')
_SIDE_REF = re.compile(r'\$\{(a|b)\}\.([A-Za-z_][A-Za-z0-9_]*)')
_SETTINGS = 'compare_settings'


class CompareError(errors.Error, ValueError):
  """The two sides cannot be compared; the message says why."""


NO_REPETITIONS = (
    'no repetitions: each side has one value of each figure, so no change'
    " can be tested (verdict 'unknown'); measure each side {0} or more times:"
    ' pkb.py --run_stage_iterations={0} (each Run a repetition) or {0} runs'
)


@dataclasses.dataclass(frozen=True)
class Settings:
  """How rows are matched and what counts as a change."""

  by: tuple[str, ...] = DIMENSIONS
  test: str = 'welch_t'
  alpha: float = 0.05
  min_change_pct: float = 2.0
  min_repetitions: int = 3

  def Validate(self) -> None:
    unknown = [d for d in self.by if d not in DIMENSIONS]
    if not self.by:
      raise CompareError(
          '--by names no dimension; give one or more of'
          f' {", ".join(DIMENSIONS)}'
      )
    if unknown:
      raise CompareError(
          f'--by: {", ".join(unknown)} is not a dimension;'
          f' choose from {", ".join(DIMENSIONS)}'
      )
    if self.test not in TESTS:
      raise CompareError(
          f'--test: {self.test!r} is not one of {", ".join(TESTS)}'
      )
    if not 0 < self.alpha < 1:  # False for NaN too
      raise CompareError(f'--alpha must be in (0, 1), got {self.alpha}')
    if not 0 <= self.min_change_pct <= MAX_CHANGE_PCT:
      raise CompareError(
          f'--min-change must be a number of % in 0..{MAX_CHANGE_PCT:g}, got'
          f' {self.min_change_pct}'
      )
    if not 2 <= self.min_repetitions <= MAX_REPETITIONS:
      raise CompareError(
          f'--min-repetitions must be in 2..{MAX_REPETITIONS:,}, got'
          f' {self.min_repetitions}'
      )

  def Row(self) -> dict[str, Any]:
    return {
        'test': self.test,
        'alpha': self.alpha,
        'min_change_pct': self.min_change_pct,
        'min_repetitions': self.min_repetitions,
    } | {f'by_{d}': d in self.by for d in DIMENSIONS}


def SqlDirectory():
  return importlib.resources.files('pkb_ext.analysis') / 'sql' / 'compare'


@functools.cache
def Views() -> dict[str, str]:
  """Returns {view name: BigQuery SQL} of every sql/compare/*.sql file."""
  return {
      e.name[: -len('.sql')]: e.read_text(encoding='utf-8')
      for e in SqlDirectory().iterdir()
      if e.name.endswith('.sql')
  }


def _Refs(name: str) -> tuple[list[str], list[str]]:
  """(relations of ${dataset}., side views of ${a}./${b}.) a view reads."""
  text = runner._StripComments(Views()[name])  # pylint: disable=protected-access
  return (
      sorted(set(_DATASET_REF.findall(text))),
      sorted({v for _, v in _SIDE_REF.findall(text)}),
  )


def Order(names: Iterable[str]) -> list[str]:
  """Comparison views, report views and settings `names` need, in order."""
  order, done = [], set()

  def Visit(name, path):
    if name in done:
      return
    if name in path[:-1]:
      raise runner.AnalysisError(f'views depend on each other: {path}')
    if name in Views():
      for dep in _Refs(name)[0]:
        Visit(dep, path + [dep])
    elif name != _SETTINGS:
      for dep in runner.Order([name]):
        if dep != name:
          Visit(dep, path + [dep])
      if name not in runner.Views():
        raise runner.AnalysisError(f'no view {name!r}')
    done.add(name)
    order.append(name)

  for name in names:
    Visit(name, [name])
  return order


def _Substitute(text: str, a: str, b: str, dataset: str) -> str:
  """Resolves ${a}.v, ${b}.v (to a+v, b+v) and ${dataset}.v (dataset+v)."""
  text = _SIDE_REF.sub(lambda m: (a if m.group(1) == 'a' else b) + m[2], text)
  return _DATASET_REF.sub(lambda m: dataset + m.group(1), text)


class SamplesSide:
  """A side made of samples: the report's views over a samples table."""

  def __init__(self, analysis: runner.Analysis, description: str):
    self.analysis = analysis
    self.description = description
    self.is_baseline = False

  def Ctes(self, prefix: str) -> list[str]:
    return self.analysis.Ctes(SIDE_VIEWS, prefix)

  def ViewStatements(self, dataset: str, prefix: str) -> list[str]:
    return self.analysis.ViewStatements(dataset, prefix)

  def Configs(self) -> list[dict[str, Any]]:
    return self.analysis.Query('configs')


class BaselineSide:
  """A side made of a baseline's figures: literal rows, no repetitions.

  A figure without a disk type stands for every disk type `other` has for
  its machine type (so that it matches by machine type and disk type).
  """

  def __init__(self, baseline: baseline_lib.Baseline, other: SamplesSide):
    self.baseline = baseline
    self.description = baseline.Describe()
    self.is_baseline = True
    disks: dict[str, set[str]] = {}
    for c in other.Configs():
      disks.setdefault(c['machine_type'], set()).add(c['disk_type'])
    rows = []
    for f in baseline.figures:
      for disk in (
          [f.disk_type]
          if f.disk_type
          else sorted(disks.get(f.machine_type, ()), key=str) or ['-']
      ):
        rows.append({
            'config_id': (
                f'{f.cloud}/{f.machine_type}/{disk}/report {baseline.name}'
            ),
            'cloud': f.cloud,
            'machine_type': f.machine_type,
            'disk_type': disk,
            'benchmark': f.benchmark,
            'n': None,
            'mean': f.value,
            'bimodal': 'bimodal' in f.flags,
            'over_limit': 'over_limit' in f.flags,
        })
    self.rows = rows
    self._data = {
        'machine_aggregates': runner.DataSql(AGGREGATE_COLUMNS, rows),
        'benchmark_values': runner.DataSql(VALUE_COLUMNS, []),
        'object_storage_aggregates': runner.DataSql(OBJECT_STORAGE_COLUMNS, []),
        'object_storage_runs': runner.DataSql(OBJECT_STORAGE_RUN_COLUMNS, []),
        'report_versions': runner.DataSql(
            VERSION_COLUMNS, [{'report_version': baseline.report_version}]
        ),
    }

  def Ctes(self, prefix: str) -> list[str]:
    return [f'{prefix}{v} AS (\n{self._data[v]}\n)' for v in SIDE_VIEWS]

  def ViewStatements(self, dataset: str, prefix: str) -> list[str]:
    return [
        f'CREATE OR REPLACE TABLE `{dataset}.{prefix}{v}` AS\n{self._data[v]}'
        for v in SIDE_VIEWS
    ]


@dataclasses.dataclass
class Result:
  """A comparison's rows, ready to render."""

  settings: Settings
  a: str
  b: str
  baseline: bool
  rows: list[dict[str, Any]]
  runs: list[dict[str, Any]]
  matches: list[dict[str, Any]]
  notes: list[str]


class Comparison:
  """The comparison views over two sides, run on one backend."""

  def __init__(self, backend, a, b, settings: Settings):
    settings.Validate()
    self.backend = backend
    self.a = a
    self.b = b
    self.settings = settings

  def Sql(self, view: str) -> str:
    """Returns one BigQuery query computing comparison view `view`."""
    if view not in Views():
      raise runner.AnalysisError(
          f'no comparison view {view!r}; views: {sorted(Views())}'
      )
    ctes = self.a.Ctes('a_') + self.b.Ctes('b_')
    settings = runner.DataSql(SETTINGS_COLUMNS, [self.settings.Row()])
    for name in Order([view]):
      if name == _SETTINGS:
        body = settings
      elif name in Views():
        body = _Substitute(Views()[name], 'a_', 'b_', '')
      else:
        body = runner._Substitute(  # pylint: disable=protected-access
            runner.Views()[name], '${samples}', ''
        )
      ctes.append(f'{name} AS (\n{body}\n)')
    return 'WITH ' + ',\n'.join(ctes) + f'\nSELECT * FROM {view}'

  def Query(self, view: str) -> list[dict[str, Any]]:
    return self.backend.Query(self.Sql(view))

  def ViewStatements(self, dataset: str, prefix: str = '') -> list[str]:
    """DDL for both sides' views and the comparison views in `dataset`.

    Side A's report views are named prefix + 'a_' + view, side B's
    prefix + 'b_' + view, the comparison views prefix + view.
    """
    statements = self.a.ViewStatements(dataset, f'{prefix}a_')
    statements += self.b.ViewStatements(dataset, f'{prefix}b_')
    settings = runner.DataSql(SETTINGS_COLUMNS, [self.settings.Row()])
    qualified = f'{dataset}.{prefix}'
    for name in Order(sorted(Views())):
      target = f'`{qualified}{name}`'
      if name == _SETTINGS:
        statements.append(f'CREATE OR REPLACE TABLE {target} AS\n{settings}')
        continue
      if name in Views():
        text = Views()[name]
        text = _SIDE_REF.sub(
            lambda m: f'`{qualified}{m.group(1)}_{m.group(2)}`', text
        )
        body = _DATASET_REF.sub(lambda m: f'`{qualified}{m.group(1)}`', text)
      else:
        body = runner._Substitute(  # pylint: disable=protected-access
            runner.Views()[name], '${samples}', qualified
        )
      statements.append(f'CREATE OR REPLACE VIEW {target} AS\n{body}')
    return statements

  def _CheckVersions(self) -> None:
    versions: dict[str, list] = {'A': [], 'B': []}
    for r in self.Query('compare_report_versions'):
      versions[r['side']].append(r['report_version'])
    for side, desc in (('A', self.a.description), ('B', self.b.description)):
      if not versions[side]:
        raise CompareError(
            f'side {side} ({desc}) holds no cloud report samples (none with'
            ' metadata.phase): nothing to compare'
        )
      if len(versions[side]) > 1:
        raise CompareError(
            f'side {side} ({desc}) mixes report versions'
            f' {", ".join(map(str, sorted(versions[side], key=str)))};'
            ' compare the samples of one version'
        )
    if versions['A'] != versions['B']:
      raise CompareError(
          f'side A is report_version {versions["A"][0]}, side B is'
          f' {versions["B"][0]}: the versions measure different things;'
          ' compare samples of one report version'
      )

  def _CheckMatches(self, matches: Sequence[dict[str, Any]]) -> list[str]:
    by = ', '.join(self.settings.by)
    for side, desc, column in (
        ('A', self.a.description, 'configs_a'),
        ('B', self.b.description, 'configs_b'),
    ):
      if not any(m[column] for m in matches):
        raise CompareError(
            f'side {side} ({desc}) has cloud report samples but no value of'
            " any of the report's benchmarks (CPU, network, storage, TPC-C,"
            ' object storage): nothing to compare'
        )
    ambiguous = [m for m in matches if m['status'] == 'ambiguous']
    if ambiguous:
      lines = [
          f'  {m["match_key"]}: A has {m["configs_a"]} ({m["config_ids_a"]}),'
          f' B has {m["configs_b"]} ({m["config_ids_b"]})'
          for m in ambiguous
      ]
      raise CompareError(
          f'matching by {by} puts several configurations of one side on'
          ' one key:\n'
          + '\n'.join(lines)
          + '\nadd a dimension to --by (cloud, machine_type, disk_type)'
      )
    matched = [m for m in matches if m['status'] == 'matched']
    only_a = sorted(m['match_key'] for m in matches if m['status'] == 'only A')
    only_b = sorted(m['match_key'] for m in matches if m['status'] == 'only B')
    if not matched:
      if self.a.is_baseline:
        raise CompareError(
            'no machine of B is in the baseline (matched by machine type,'
            ' and disk type where the baseline names one).\n  B has:'
            f' {"; ".join(only_b) or "nothing"}\n  the baseline has:'
            f' {"; ".join(sorted(set(only_a)))}'
        )
      raise CompareError(
          f'no configuration of A matches one of B by {by}.\n  A has:'
          f' {"; ".join(only_a) or "nothing"}\n  B has:'
          f' {"; ".join(only_b) or "nothing"}\n  match by fewer dimensions'
          ' (--by) or compare runs of the same machines'
      )
    notes = []
    if only_a and not self.a.is_baseline:
      notes.append(f'only in A (not compared): {"; ".join(only_a)}')
    if only_a and self.a.is_baseline:
      notes.append(
          f'{len(only_a)} baseline machine(s) have no run in B (not shown)'
      )
    if only_b:
      notes.append(f'only in B (not compared): {"; ".join(only_b)}')
    return notes

  def Run(self) -> Result:
    """Checks the two sides and returns the comparison.

    Raises:
      CompareError: a side has no samples, the report versions differ, a
        key is ambiguous, or no configuration matches.
    """
    self._CheckVersions()
    matches = self.Query('compare_matches')
    notes = self._CheckMatches(matches)
    if self.a.is_baseline:
      notes.insert(
          0,
          'the baseline has no repetitions: its values are means the report'
          " states, so a verdict tests whether B's CI95 holds the baseline"
          ' value (ci_overlap), and needs B to have repetitions',
      )
    matched = {m['match_key'] for m in matches if m['status'] == 'matched'}
    rows = [
        r
        for r in self.Query('compare_benchmarks')
        if r['match_key'] in matched
        # A baseline states a few figures per machine: show those.
        and not (self.a.is_baseline and r['value_a'] is None)
    ]
    rows.sort(key=lambda r: (r['position'], r['match_key']))
    vcpus = []
    for side in (self.a, self.b):
      if not side.is_baseline:
        vcpus += [r['vcpus'] for r in side.analysis.Query('machine_vcpus')]
    rows = report.Relabel(rows, report.AllCoresLabel(vcpus))
    runs = [r for r in self.Query('compare_runs') if r['match_key'] in matched]
    if rows and all(r['test'] in (None, 'none') for r in rows):
      notes.insert(0, NO_REPETITIONS.format(self.settings.min_repetitions))
    for side in (self.a, self.b):
      analysis = getattr(side, 'analysis', None)
      for message in getattr(analysis, 'unpriced', []):
        if f'no price: {message}' not in notes:
          notes.append(f'no price: {message}')
    return Result(
        settings=self.settings,
        a=self.a.description,
        b=self.b.description,
        baseline=self.a.is_baseline,
        rows=rows,
        runs=runs,
        matches=matches,
        notes=notes,
    )
