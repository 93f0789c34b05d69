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
"""Runs the analysis SQL (sql/*.sql) on BigQuery or, transpiled, on DuckDB.

Each sql/<view>.sql is one SELECT in BigQuery standard SQL. It names the
samples table `${samples}` and other views `${dataset}.<view>`. Three more
relations are data, made here from configs/pricing through pkb_ext.pricing:

  machine_costs   one node's $/month and 3-year cost per configuration seen
                  in the samples (view `configs`), priced in Python;
  machine_limits  the machines' published disk IOPS, MB/s and network limits;
  settings        the flag thresholds of configs/pricing/method.yaml.

Analysis.Query(view) compiles the view and everything it depends on into one
BigQuery query (views become CTEs, data relations literal SELECTs) and runs
it on a backend: BigQueryBackend runs it as is, DuckDbBackend transpiles it
with sqlglot first. Both see the same SQL text; there is no second copy.
Analysis.CreateViews makes them persistent views in a BigQuery dataset.
"""

import dataclasses
import functools
import importlib.resources
import math
import re
from typing import Any, Iterable, Mapping, Protocol, Sequence

from pkb_ext import errors
from pkb_ext import pricing

_REF = re.compile(r'\$\{dataset\}\.([A-Za-z_][A-Za-z0-9_]*)')
_SAMPLES = '${samples}'
DATA_RELATIONS = ('machine_costs', 'machine_limits', 'settings')


class AnalysisError(errors.Error, RuntimeError):
  """A view is unknown, its SQL is inconsistent, or a query failed."""


def SqlDirectory():
  return importlib.resources.files('pkb_ext.analysis') / 'sql'


@functools.cache
def Views() -> dict[str, str]:
  """Returns {view name: BigQuery SQL text} of every sql/*.sql file."""
  views = {}
  for entry in SqlDirectory().iterdir():
    if entry.name.endswith('.sql'):
      views[entry.name[: -len('.sql')]] = entry.read_text(encoding='utf-8')
  return views


def Dependencies(name: str) -> list[str]:
  """Returns the relations a view reads, directly."""
  try:
    text = Views()[name]
  except KeyError as e:
    raise AnalysisError(f'no view {name!r}; views: {sorted(Views())}') from e
  return sorted(set(_REF.findall(_StripComments(text))))


def _StripComments(text: str) -> str:
  return '\n'.join(line.split('--', 1)[0] for line in text.splitlines())


def Order(names: Iterable[str]) -> list[str]:
  """Returns the views and data relations `names` need, dependencies first."""
  order, state = [], {}

  def Visit(name, path):
    if state.get(name) == 'done':
      return
    if state.get(name) == 'visiting':
      raise AnalysisError(f'views depend on each other: {" -> ".join(path)}')
    state[name] = 'visiting'
    if name not in DATA_RELATIONS:
      for dep in Dependencies(name):
        Visit(dep, path + [dep])
    state[name] = 'done'
    order.append(name)

  for name in names:
    Visit(name, [name])
  return order


def _Literal(value: Any, sql_type: str) -> str:
  """A typed BigQuery literal."""
  import sqlglot  # pylint: disable=g-import-not-at-top

  if value is None or (isinstance(value, float) and not math.isfinite(value)):
    return f'CAST(NULL AS {sql_type})'
  if sql_type == 'STRING':
    return sqlglot.exp.Literal.string(str(value)).sql('bigquery')
  if sql_type == 'BOOL':
    return 'TRUE' if value else 'FALSE'
  if sql_type == 'INT64':
    return f'CAST({int(value)} AS INT64)'
  return f'CAST({float(value)!r} AS FLOAT64)'


def DataSql(columns: Sequence[tuple[str, str]], rows: Sequence[Mapping]) -> str:
  """A SELECT of literal rows with typed columns (BigQuery dialect)."""
  if not rows:
    cols = ', '.join(f'{_Literal(None, t)} AS {c}' for c, t in columns)
    return f'SELECT {cols} LIMIT 0'
  selects = []
  for row in rows:
    cols = ', '.join(f'{_Literal(row.get(c), t)} AS {c}' for c, t in columns)
    selects.append(f'SELECT {cols}')
  return '\nUNION ALL '.join(selects)


COST_COLUMNS = (
    ('config_id', 'STRING'),
    ('cloud', 'STRING'),
    ('machine_type', 'STRING'),
    ('disk_type', 'STRING'),
    ('vm_usd_month', 'FLOAT64'),
    ('disk_usd_month', 'FLOAT64'),
    ('usd_month', 'FLOAT64'),
    ('term_months', 'INT64'),
    ('term_usd', 'FLOAT64'),
    ('price_as_of', 'STRING'),
)
LIMIT_COLUMNS = (
    ('cloud', 'STRING'),
    ('machine_type', 'STRING'),
    ('disk_iops', 'FLOAT64'),
    ('disk_mbps', 'FLOAT64'),
    ('network_mbps', 'FLOAT64'),
)
SETTINGS_COLUMNS = (
    ('over_limit_tolerance_pct', 'FLOAT64'),
    ('bimodality_threshold', 'FLOAT64'),
    ('bimodality_min_runs', 'INT64'),
)


def CostRows(
    catalog: pricing.Catalog, configs: Iterable[Mapping[str, Any]]
) -> tuple[list[dict], list[str]]:
  """Prices configurations (rows of the `configs` view).

  Returns:
    (machine_costs rows, messages for the configurations with no price).
  """
  rows, missing = [], []
  for c in configs:
    try:
      cost = catalog.MonthlyCost(
          c['cloud'] or '',
          c['machine_type'] or '',
          c['disk_type'] or '',
          c['disk_size_gb'] or 0,
          c.get('provisioned_iops'),
          c.get('provisioned_mbps'),
      )
    except pricing.PricingError as e:
      missing.append(f'{c["config_id"]}: {e}')
      continue
    rows.append({
        'config_id': c['config_id'],
        'cloud': c['cloud'],
        'machine_type': c['machine_type'],
        'disk_type': c['disk_type'],
        'vm_usd_month': cost.vm_usd,
        'disk_usd_month': cost.disk_usd,
        'usd_month': cost.total_usd,
        'term_months': catalog.method.term_months,
        'term_usd': catalog.TermCost(cost),
        'price_as_of': cost.as_of,
    })
  return rows, missing


def LimitRows(catalog: pricing.Catalog) -> list[dict]:
  rows = []
  for table in catalog.tables.values():
    for m in table.machines.values():
      gbps = m.limits.network_gbps
      rows.append({
          'cloud': table.cloud,
          'machine_type': m.machine_type,
          'disk_iops': m.limits.disk_iops,
          'disk_mbps': m.limits.disk_mbps,
          'network_mbps': None if gbps is None else gbps * 1000,
      })
  return rows


def SettingsRows(catalog: pricing.Catalog) -> list[dict]:
  m = catalog.method
  return [{
      'over_limit_tolerance_pct': m.over_limit_tolerance_pct,
      'bimodality_threshold': m.bimodality_threshold,
      'bimodality_min_runs': m.bimodality_min_runs,
  }]


class Backend(Protocol):
  """Runs BigQuery-dialect SQL and returns rows as dicts."""

  samples_ref: str  # the samples table, as BigQuery SQL names it

  def Query(self, sql: str) -> list[dict[str, Any]]:
    ...


class Analysis:
  """The report's views over one backend's samples."""

  def __init__(
      self,
      backend: Backend,
      catalog: pricing.Catalog | None = None,
      samples_ref: str | None = None,
  ):
    """Args: samples_ref: the samples table (default: the backend's)."""
    self.backend = backend
    self.catalog = catalog or pricing.Load()
    self.samples_ref = samples_ref or backend.samples_ref
    self._data: dict[str, str] = {}
    self.unpriced: list[str] = []

  def _DataSql(self, name: str) -> str:
    if name not in self._data:
      if name == 'machine_costs':
        configs = self.Query('configs')
        rows, self.unpriced = CostRows(self.catalog, configs)
        self._data[name] = DataSql(COST_COLUMNS, rows)
      elif name == 'machine_limits':
        self._data[name] = DataSql(LIMIT_COLUMNS, LimitRows(self.catalog))
      else:
        self._data[name] = DataSql(SETTINGS_COLUMNS, SettingsRows(self.catalog))
    return self._data[name]

  def Ctes(self, views: Iterable[str], prefix: str = '') -> list[str]:
    """Returns `name AS (...)` CTEs computing `views` and what they need.

    Args:
      views: view names.
      prefix: prepended to every CTE name (and to the references to them),
        so that two sets of samples can be side by side in one query.
    """
    ctes = []
    for name in Order(views):
      if name in DATA_RELATIONS:
        body = self._DataSql(name)
      else:
        body = _Substitute(Views()[name], self.samples_ref, '', prefix)
      ctes.append(f'{prefix}{name} AS (\n{body}\n)')
    return ctes

  def Sql(self, view: str) -> str:
    """Returns one BigQuery query computing `view` from the samples."""
    return 'WITH ' + ',\n'.join(self.Ctes([view])) + f'\nSELECT * FROM {view}'

  def Query(self, view: str) -> list[dict[str, Any]]:
    """Runs a view; rows as dicts."""
    return self.backend.Query(self.Sql(view))

  def ViewStatements(self, dataset: str, prefix: str = '') -> list[str]:
    """Returns DDL creating every view (and data table) in `dataset`.

    Args:
      dataset: `project.dataset` of BigQuery.
      prefix: prepended to every view and table name.
    """
    statements = []
    for name in Order(sorted(Views())):
      target = f'`{dataset}.{prefix}{name}`'
      if name in DATA_RELATIONS:
        statements.append(
            f'CREATE OR REPLACE TABLE {target} AS\n{self._DataSql(name)}'
        )
      else:
        body = _Substitute(
            Views()[name], self.samples_ref, f'{dataset}.{prefix}'
        )
        statements.append(f'CREATE OR REPLACE VIEW {target} AS\n{body}')
    return statements


def _Substitute(
    text: str, samples_ref: str, qualifier: str, prefix: str = ''
) -> str:
  """Resolves ${samples} and ${dataset}.name in a view's text.

  Args:
    text: a view's SQL.
    samples_ref: the samples table.
    qualifier: `project.dataset.prefix` of persistent views, or '' for CTEs.
    prefix: with CTEs, prepended to the names of the views referenced.
  """
  if qualifier:
    text = _REF.sub(lambda m: f'`{qualifier}{m.group(1)}`', text)
  else:
    text = _REF.sub(lambda m: prefix + m.group(1), text)
  return text.replace(_SAMPLES, samples_ref)
