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
"""Where the analysis SQL runs: DuckDB (local, transpiled) or BigQuery.

Both take BigQuery-dialect SQL from pkb_ext.analysis.runner. DuckDbBackend
loads samples from NDJSON into a table of the BigQuery table's shape (PKB's
columns, a JSON `metadata`, `schema_version`, a top-level `cloud`) and
transpiles each query with sqlglot; BigQueryBackend runs queries as written.
"""

import datetime
import json
import math
import os
import tempfile
from typing import Any, Iterable, Iterator, Mapping

from pkb_ext import labels

# The samples table: PKB's columns, then ours. Mirrors pkb_ext/publish.
SAMPLE_COLUMNS = (
    ('metric', 'VARCHAR'),
    ('value', 'DOUBLE'),
    ('unit', 'VARCHAR'),
    ('timestamp', 'TIMESTAMP'),
    ('test', 'VARCHAR'),
    ('official', 'BOOLEAN'),
    ('owner', 'VARCHAR'),
    ('run_uri', 'VARCHAR'),
    ('sample_uri', 'VARCHAR'),
    ('labels', 'VARCHAR'),
    ('product_name', 'VARCHAR'),
    ('metadata', 'JSON'),
    ('schema_version', 'INTEGER'),
    ('cloud', 'VARCHAR'),
)


class SamplesError(ValueError):
  """An NDJSON line is not a sample."""


def _Timestamp(value: Any) -> str | None:
  """PKB's epoch seconds or the spool's 'YYYY-MM-DD hh:mm:ss UTC' -> UTC."""
  if isinstance(value, bool) or value is None:
    return None
  if isinstance(value, (int, float)):
    if not math.isfinite(value):
      return None
    when = datetime.datetime.fromtimestamp(value, tz=datetime.timezone.utc)
    return when.strftime('%Y-%m-%d %H:%M:%S.%f')
  if isinstance(value, str):
    text = value.strip().removesuffix('UTC').strip().replace('T', ' ')
    try:
      when = datetime.datetime.fromisoformat(text)
    except ValueError:
      return None
    if when.tzinfo is not None:
      when = when.astimezone(datetime.timezone.utc).replace(tzinfo=None)
    return when.strftime('%Y-%m-%d %H:%M:%S.%f')
  return None


def NormalizeSample(row: Mapping[str, Any], where: str) -> dict[str, Any]:
  """Returns a sample row in the table's shape.

  Accepts PKB's JSON sample lines (metadata as an object, plus labels), our
  spool's lines, BigQuery-shaped rows (metadata as a JSON string) and
  `pkb-ext parse` output ({metric, value, unit, metadata}).

  Raises:
    SamplesError: no metric, or a value that is not a number.
  """
  if not isinstance(row, Mapping):
    raise SamplesError(f'{where}: expected a JSON object, got {type(row)}')
  metric = row.get('metric')
  if not isinstance(metric, str) or not metric:
    raise SamplesError(f'{where}: no metric')
  value = row.get('value')
  if isinstance(value, bool) or not isinstance(value, (int, float)):
    raise SamplesError(f'{where}: value of {metric} is not a number: {value!r}')
  metadata = row.get('metadata')
  if isinstance(metadata, str):
    try:
      metadata = json.loads(metadata)
    except json.JSONDecodeError as e:
      raise SamplesError(f'{where}: metadata is not JSON: {e}') from e
  if metadata is None and isinstance(row.get('labels'), str):
    metadata = labels.Decode(row['labels'])
  if not isinstance(metadata, Mapping):
    metadata = {}
  timestamp = _Timestamp(row.get('timestamp'))
  out = {c: row.get(c) for c, _ in SAMPLE_COLUMNS}
  out |= {
      'value': float(value) if math.isfinite(value) else None,
      'timestamp': timestamp,
      'metadata': json.dumps(metadata, sort_keys=True, default=str),
      'cloud': row.get('cloud') or metadata.get('cloud'),
      'labels': (
          row.get('labels') if isinstance(row.get('labels'), str) else None
      ),
  }
  return out


def ReadNdjson(paths: Iterable[str]) -> Iterator[dict[str, Any]]:
  """Yields normalized samples of NDJSON files (blank lines skipped).

  A sample_uri seen before (the same run's spool and PKB's JSON output
  given together) is yielded once.
  """
  seen = set()
  for path in paths:
    with open(path, encoding='utf-8') as f:
      for number, line in enumerate(f, 1):
        if not line.strip():
          continue
        where = f'{path}:{number}'
        try:
          row = json.loads(line)
        except json.JSONDecodeError as e:
          raise SamplesError(f'{where}: not JSON: {e}') from e
        sample = NormalizeSample(row, where)
        uri = sample.get('sample_uri')
        if uri:
          if uri in seen:
            continue
          seen.add(uri)
        yield sample


class DuckDbBackend:
  """DuckDB in memory (or a file), samples in table `samples`."""

  samples_ref = 'samples'

  def __init__(self, database: str = ':memory:'):
    import duckdb  # pylint: disable=g-import-not-at-top

    self.con = duckdb.connect(database)
    self.AddTable('samples')

  def AddTable(self, table: str) -> str:
    """Creates (if new) another samples table; returns its name."""
    if not table.isidentifier():
      raise ValueError(f'not a table name: {table!r}')
    cols = ', '.join(f'"{c}" {t}' for c, t in SAMPLE_COLUMNS)
    self.con.execute(f'CREATE TABLE IF NOT EXISTS {table} ({cols})')
    return table

  def LoadRows(
      self, rows: Iterable[Mapping[str, Any]], table: str = 'samples'
  ) -> int:
    """Appends normalized sample rows to `table`; returns how many."""
    count = 0
    with tempfile.NamedTemporaryFile(
        'w', suffix='.ndjson', encoding='utf-8', delete=False
    ) as f:
      for row in rows:
        f.write(json.dumps(row) + '\n')
        count += 1
      path = f.name
    try:
      if count:
        columns = ', '.join(
            f"'{c}': '{'VARCHAR' if t == 'JSON' else t}'"
            for c, t in SAMPLE_COLUMNS
        )
        self.con.execute(
            f'INSERT INTO {self.AddTable(table)} SELECT * REPLACE'
            ' (CAST(metadata AS JSON) AS'
            f" metadata) FROM read_json(?, format = 'newline_delimited',"
            f' columns = {{{columns}}})',
            [path],
        )
    finally:
      os.unlink(path)
    return count

  def LoadNdjson(self, paths: Iterable[str], table: str = 'samples') -> int:
    return self.LoadRows(ReadNdjson(paths), table)

  @staticmethod
  def Transpile(sql: str) -> str:
    import sqlglot  # pylint: disable=g-import-not-at-top

    return sqlglot.transpile(sql, read='bigquery', write='duckdb')[0]

  def Query(self, sql: str) -> list[dict[str, Any]]:
    cursor = self.con.execute(self.Transpile(sql))
    names = [d[0] for d in cursor.description]
    return [dict(zip(names, row)) for row in cursor.fetchall()]


class BigQueryBackend:
  """A BigQuery samples table, through google-cloud-bigquery."""

  def __init__(self, client, table_id: str):
    """Args: client: a bigquery.Client; table_id: project.dataset.table."""
    parts = table_id.split('.')
    if len(parts) != 3 or not all(parts):
      raise ValueError(f'table must be project.dataset.table, got {table_id!r}')
    self.client = client
    self.table_id = table_id
    self.samples_ref = f'`{table_id}`'

  def Query(self, sql: str) -> list[dict[str, Any]]:
    rows = self.client.query(sql).result()
    return [dict(row.items()) for row in rows]

  def Execute(self, statements: Iterable[str]) -> None:
    for statement in statements:
      self.client.query(statement).result()
