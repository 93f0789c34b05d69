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

import json
import math
import os
import tempfile
from typing import Any, Iterable, Iterator, Mapping

from pkb_ext import errors
from pkb_ext import inputs
from pkb_ext import labels
from pkb_ext import timestamps
from pkb_ext.publish import load_checks

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


# A sample value beyond this is no measurement (a count of bytes of a
# year's I/O is below 1e18); beyond it sums and charts would overflow.
MAX_ABS_VALUE = 1e18
_STRING_COLUMNS = (
    'unit',
    'test',
    'owner',
    'run_uri',
    'sample_uri',
    'labels',
    'product_name',
    'cloud',
)


class QueryError(errors.Error, RuntimeError):
  """A query failed on its backend; the message says where and why."""


class SamplesError(errors.Error, ValueError):
  """An NDJSON line is not a sample; the message names file and line."""


def _Timestamp(value: Any, where: str) -> str | None:
  """A sample's time (pkb_ext.timestamps reads it) as a UTC text for DuckDB.

  Raises:
    SamplesError: a timestamp that is not one, or is out of range.
  """
  if value is None:
    return None
  try:
    when = timestamps.ToUtc(value)
  except ValueError as e:
    raise SamplesError(
        f'{where}: timestamp {inputs.Shorten(value)}: {e}; expected'
        f' {timestamps.READ_FORMS}'
    ) from None
  return when.replace(tzinfo=None).isoformat(sep=' ', timespec='microseconds')


def CheckValue(value: Any, where: str) -> float:
  """Returns a sample value as a float.

  Raises:
    SamplesError: not a number, not finite, or beyond MAX_ABS_VALUE.
  """
  if isinstance(value, bool) or not isinstance(value, (int, float)):
    raise SamplesError(
        f'{where}: value is not a number: {inputs.Shorten(value)}'
    )
  try:
    number = float(value)
  except OverflowError:
    number = math.inf
  if not math.isfinite(number) or abs(number) > MAX_ABS_VALUE:
    raise SamplesError(
        f'{where}: value {inputs.Shorten(value)} is not a finite number of'
        f' magnitude at most {MAX_ABS_VALUE:g}'
    )
  return number


def _Metadata(row: Mapping[str, Any], where: str) -> dict[str, Any]:
  metadata = row.get('metadata')
  if isinstance(metadata, str):
    try:
      metadata = json.loads(metadata)
    except (ValueError, RecursionError):
      raise SamplesError(
          f'{where}: metadata is a string that is not a JSON object'
      ) from None
  if metadata is None:
    if isinstance(row.get('labels'), str):
      return labels.Decode(row['labels'])
    return {}
  if not isinstance(metadata, dict):
    raise SamplesError(
        f'{where}: metadata is a {load_checks.JsonKind(metadata)}, not an'
        ' object'
    )
  if load_checks.JsonDepth(metadata) > load_checks.MAX_JSON_DEPTH:
    raise SamplesError(
        f'{where}: metadata is nested deeper than'
        f' {load_checks.MAX_JSON_DEPTH} levels'
    )
  return metadata


def NormalizeSample(row: Mapping[str, Any], where: str) -> dict[str, Any]:
  """Returns a sample row in the table's shape.

  Accepts PKB's JSON sample lines (metadata as an object, plus labels), our
  spool's lines, BigQuery-shaped rows (metadata as a JSON string) and
  `pkb-ext parse` output ({metric, value, unit, metadata}).

  Raises:
    SamplesError: not an object, no metric, a value that is not a finite
      number (NaN, infinity, beyond MAX_ABS_VALUE), a timestamp that is not
      a time, metadata that is not an object, or a column of the wrong
      JSON type.
  """
  if not isinstance(row, Mapping):
    raise SamplesError(
        f'{where}: expected a JSON object, got a {load_checks.JsonKind(row)}'
    )
  metric = row.get('metric')
  if not isinstance(metric, str) or not metric:
    raise SamplesError(f'{where}: no metric')
  where = f'{where} ({inputs.Shorten(metric, 40)})'
  value = CheckValue(row.get('value'), where)
  for column in _STRING_COLUMNS:
    if row.get(column) is not None and not isinstance(row[column], str):
      raise SamplesError(
          f'{where}: {column} is a {load_checks.JsonKind(row[column])}, not a'
          ' string'
      )
  if row.get('official') is not None and not isinstance(row['official'], bool):
    raise SamplesError(f'{where}: official is not true or false')
  version = row.get('schema_version')
  if version is not None and (
      isinstance(version, bool) or not isinstance(version, int)
  ):
    raise SamplesError(f'{where}: schema_version is not an integer')
  metadata = _Metadata(row, where)
  timestamp = _Timestamp(row.get('timestamp'), where)
  try:
    metadata_text = json.dumps(
        metadata, sort_keys=True, default=str, allow_nan=False
    )
  except ValueError:
    raise SamplesError(f'{where}: metadata holds NaN or infinity') from None
  out = {c: row.get(c) for c, _ in SAMPLE_COLUMNS}
  cloud = row.get('cloud') or metadata.get('cloud')
  out |= {
      'value': value,
      'timestamp': timestamp,
      'metadata': metadata_text,
      'cloud': None if cloud is None else str(cloud),
      'schema_version': None if version is None else int(version),
  }
  return out


def _Decode(line: str, where: str) -> Any:
  try:
    return json.loads(line)
  except RecursionError:
    raise SamplesError(f'{where}: nested too deeply to be a sample') from None
  except ValueError as e:  # JSONDecodeError, or beyond the digit limit
    raise SamplesError(f'{where}: not JSON: {str(e)[:120]}') from None


def _HasMetric(row: Any) -> bool:
  """Whether a decoded line looks like a sample (an object with a metric)."""
  return isinstance(row, Mapping) and isinstance(row.get('metric'), str)


def ReadNdjson(paths: Iterable[str]) -> Iterator[dict[str, Any]]:
  """Yields normalized samples of NDJSON files (blank lines skipped).

  A sample_uri seen before (the same run's spool and PKB's JSON output
  given together) is yielded once. A file whose first line is no sample
  (not JSON, not an object with a metric) is refused naming the files
  that will work.

  Raises:
    inputs.InputError: a file that is not a regular file, too large or not
      UTF-8.
    SamplesError: a line that is not JSON or not a sample.
  """
  seen = set()
  for path in paths:
    first = True
    for number, line in inputs.Lines(path):
      if not line.strip():
        continue
      where = f'{path}:{number}'
      row = None
      try:
        row = _Decode(line, where)
        sample = NormalizeSample(row, where)
      except SamplesError as e:
        if first and not _HasMetric(row):
          raise SamplesError(
              f'{e}; not a samples file report and compare can read, which read'
              f' {inputs.SAMPLE_FILE_KINDS}, or `pkb-ext parse` output'
          ) from None
        raise
      first = False
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
    fd, path = tempfile.mkstemp(suffix='.ndjson')
    try:
      with os.fdopen(fd, 'w', encoding='utf-8') as f:
        for row in rows:
          f.write(json.dumps(row) + '\n')
          count += 1
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
    """Runs a query; rows as dicts.

    Raises:
      QueryError: DuckDB refused or failed the query.
    """
    import duckdb  # pylint: disable=g-import-not-at-top

    try:
      cursor = self.con.execute(self.Transpile(sql))
      names = [d[0] for d in cursor.description]
      return [dict(zip(names, row)) for row in cursor.fetchall()]
    except duckdb.Error as e:
      raise QueryError(f'DuckDB: {_FirstLine(e)}') from e


DEFAULT_TIMEOUT_S = 300.0


def _FirstLine(error: BaseException) -> str:
  text = str(error).strip().splitlines()
  return (text[0] if text else type(error).__name__)[:300]


def _BigQueryErrors() -> tuple[type[BaseException], ...]:
  """What a BigQuery call raises when the service, network or auth fails."""
  import concurrent.futures  # pylint: disable=g-import-not-at-top

  from google.api_core import exceptions as api_exceptions  # pylint: disable=g-import-not-at-top
  from google.auth import exceptions as auth_exceptions  # pylint: disable=g-import-not-at-top
  import requests  # pylint: disable=g-import-not-at-top

  return (
      api_exceptions.GoogleAPIError,
      auth_exceptions.GoogleAuthError,
      requests.exceptions.RequestException,
      concurrent.futures.TimeoutError,
      TimeoutError,
  )


class BigQueryBackend:
  """A BigQuery samples table, through google-cloud-bigquery.

  Every call (with its retries) gives up after `timeout_s` seconds.
  """

  def __init__(
      self, client, table_id: str, timeout_s: float = DEFAULT_TIMEOUT_S
  ):
    """Args: client: a bigquery.Client; table_id: project.dataset.table."""
    parts = table_id.split('.')
    if len(parts) != 3 or not all(parts):
      raise ValueError(f'table must be project.dataset.table, got {table_id!r}')
    self.client = client
    self.table_id = table_id
    self.samples_ref = f'`{table_id}`'
    self.timeout_s = timeout_s

  def _Run(self, sql: str):
    from google.cloud import bigquery  # pylint: disable=g-import-not-at-top

    retry = bigquery.DEFAULT_RETRY.with_timeout(self.timeout_s)
    try:
      job = self.client.query(
          sql, retry=retry, timeout=self.timeout_s, job_retry=None
      )
      return job.result(retry=retry, timeout=self.timeout_s)
    except _BigQueryErrors() as e:
      raise QueryError(
          f'BigQuery {self.table_id} (timeout {self.timeout_s:g} s):'
          f' {type(e).__name__}: {_FirstLine(e)}'
      ) from e

  def Query(self, sql: str) -> list[dict[str, Any]]:
    """Runs a query; rows as dicts.

    Raises:
      QueryError: BigQuery failed, refused or did not answer in time.
    """
    return [dict(row.items()) for row in self._Run(sql)]

  def Execute(self, statements: Iterable[str]) -> None:
    for statement in statements:
      self._Run(statement)
