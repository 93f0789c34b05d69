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
"""The checked-in table schema (schema.json) and sample -> row conversion.

Pure: no BigQuery client here. A row is what one NDJSON line of a load job
holds: PKB's columns, the typed metadata as JSON, a top-level `cloud` for
clustering and the schema_version that wrote it. Whether a load job takes
each value of a row is load_checks'.
"""

import dataclasses
import datetime
import functools
import json
import math
import operator
import os
from typing import Any, Callable, Iterable, Mapping, Sequence

from pkb_ext import errors
from pkb_ext import labels as labels_lib
from pkb_ext import timestamps

SCHEMA_PATH = os.path.join(os.path.dirname(__file__), 'schema.json')
# The API reports legacy names; schema.json uses them too.
_TYPE_ALIASES = {
    'FLOAT64': 'FLOAT',
    'INT64': 'INTEGER',
    'BOOL': 'BOOLEAN',
    'STRUCT': 'RECORD',
}
_PLAIN = frozenset({str, int, bool})
_SCALARS = frozenset({str, int, bool, type(None)})
_SCALARS_AND_FLOAT = _SCALARS | {float}
_STR = frozenset({str})
# Sorted keys and labels format per metadata key tuple (see _Shape).
_MetadataShape = tuple[
    tuple[str, ...], str, Callable[[dict[str, Any]], tuple[Any, ...]]
]
_SHAPES: dict[tuple[str, ...], _MetadataShape] = {}
_MAX_SHAPES = 4096


class SchemaError(errors.Error, ValueError):
  """A row or a table does not fit the schema."""


@dataclasses.dataclass(frozen=True)
class Field:
  name: str
  type: str
  mode: str
  description: str
  since: int


@dataclasses.dataclass(frozen=True)
class TableSpec:
  """schema.json, parsed."""

  version: int
  description: str
  fields: tuple[Field, ...]
  partition_type: str
  partition_field: str
  clustering: tuple[str, ...]

  @functools.cached_property
  def names(self) -> tuple[str, ...]:
    return tuple(f.name for f in self.fields)

  @functools.cached_property
  def name_set(self) -> frozenset[str]:
    return frozenset(self.names)

  @functools.cached_property
  def required(self) -> tuple[str, ...]:
    return tuple(f.name for f in self.fields if f.mode == 'REQUIRED')


def NormalType(type_name: str) -> str:
  type_name = type_name.upper()
  return _TYPE_ALIASES.get(type_name, type_name)


@functools.cache
def Load(path: str = SCHEMA_PATH) -> TableSpec:
  """Returns the schema in `path` (the checked-in schema.json by default)."""
  with open(path, encoding='utf-8') as f:
    raw = json.load(f)
  fields = tuple(
      Field(
          name=f['name'],
          type=NormalType(f['type']),
          mode=f.get('mode', 'NULLABLE'),
          description=f.get('description', ''),
          since=int(f.get('since', 1)),
      )
      for f in raw['fields']
  )
  spec = TableSpec(
      version=int(raw['schema_version']),
      description=raw.get('description', ''),
      fields=fields,
      partition_type=raw['time_partitioning']['type'],
      partition_field=raw['time_partitioning']['field'],
      clustering=tuple(raw['clustering']),
  )
  for name in (spec.partition_field,) + spec.clustering:
    if name not in spec.names:
      raise SchemaError(f'{path}: {name!r} is not a column')
  return spec


def FormatTimestamp(epoch_seconds: float) -> str:
  """Returns a TIMESTAMP literal BigQuery loads from JSON (microseconds).

  The form every sample file of pkb_ext holds (timestamps.FORM).

  The same text as datetime.fromtimestamp(t, UTC).strftime('%Y-%m-%d
  %H:%M:%S.%f+00:00'): the microseconds rounded half to even as
  fromtimestamp rounds them, the date and time of the whole second
  formatted once per second (samples come many to a second).
  """
  if type(epoch_seconds) is not float:
    epoch_seconds = float(epoch_seconds)
  fraction, whole = math.modf(epoch_seconds)
  micros = round(fraction * 1e6)
  if 0 <= micros < 1_000_000:
    prefix = _SECONDS.get(whole)  # an integral float hashes as its int
    if prefix is not None:
      return f'{prefix}.{micros:06d}+00:00'
  elif micros >= 1_000_000:
    micros -= 1_000_000
    whole += 1.0
  else:
    micros += 1_000_000
    whole -= 1.0
  second = int(whole)
  prefix = _SECONDS.get(second)
  if prefix is None:
    when = datetime.datetime.fromtimestamp(second, tz=_UTC)
    prefix = when.strftime('%Y-%m-%d %H:%M:%S')
    if len(_SECONDS) >= _MAX_SECONDS:
      _SECONDS.clear()
    _SECONDS[second] = prefix
  return f'{prefix}.{micros:06d}+00:00'


def _TextTimestamp(text: str) -> str:
  """A text of epoch seconds or of a date and time (see pkb_ext.timestamps)
  as FormatTimestamp's."""
  try:
    seconds = float(text)
  except ValueError:
    pass
  else:
    return FormatTimestamp(seconds)
  try:
    return timestamps.Format(text)
  except ValueError as e:
    raise SchemaError(
        f'timestamp {text[:60]!r}: {e}; expected {timestamps.READ_FORMS}'
    ) from None


_UTC = datetime.timezone.utc
_SECONDS: dict[int, str] = {}  # whole second -> its date and time
_MAX_SECONDS = 100_000
# The columns in the order RowFromSample builds them.
_ROW_ORDER = (
    'timestamp',
    'test',
    'metric',
    'value',
    'unit',
    'official',
    'owner',
    'run_uri',
    'sample_uri',
    'labels',
    'product_name',
    'metadata',
    'cloud',
    'schema_version',
)


def _Jsonable(value: Any) -> Any:
  """Returns value as strict JSON (no NaN/inf, only JSON types)."""
  kind = type(value)
  if value is None or kind in _PLAIN:
    return value
  if kind is dict:
    return {
        k if type(k) is str else str(k): _Jsonable(v) for k, v in value.items()
    }
  if isinstance(value, (bool, int, str)):
    return value
  if isinstance(value, float):
    return value if math.isfinite(value) else str(value)
  if isinstance(value, Mapping):
    return {str(k): _Jsonable(v) for k, v in value.items()}
  if isinstance(value, (list, tuple, set, frozenset)):
    items = (
        sorted(value, key=str) if isinstance(value, (set, frozenset)) else value
    )
    return [_Jsonable(v) for v in items]
  return str(value)


def _Shape(keys: tuple[Any, ...]) -> _MetadataShape | None:
  """(sorted keys, labels format, values getter) of a metadata dict's keys,
  cached; None unless every key is a str.

  The format is PKB's labels string with a %s per value:
  '|a:%s|,|b:%s|' % (a's value, b's value) == GetLabelsFromDict. The getter
  returns a dict's values in sorted key order, as a tuple. The key types are
  checked when a key tuple is first seen (a later equal tuple is taken to
  hold the same strs).
  """
  shape = _SHAPES.get(keys)
  if shape is None:
    if not set(map(type, keys)) <= _STR:
      return None
    ordered = tuple(sorted(keys))
    labels = ','.join(f'|{k.replace("%", "%%")}:%s|' for k in ordered)
    if len(ordered) > 1:
      values_of = operator.itemgetter(*ordered)
    else:  # itemgetter of one key returns the value, of none is an error
      values_of = functools.partial(_ValuesInOrder, ordered)
    if len(_SHAPES) >= _MAX_SHAPES:
      _SHAPES.clear()
    shape = _SHAPES[keys] = (ordered, labels, values_of)
  return shape


def _ValuesInOrder(
    ordered: tuple[str, ...], metadata: dict[str, Any]
) -> tuple[Any, ...]:
  return tuple(map(metadata.__getitem__, ordered))


def _Labels(metadata: Mapping[str, Any]) -> str:
  """PKB's labels string (publisher.GetLabelsFromDict)."""
  return ','.join([f'|{k!s}:{metadata[k]!s}|' for k in sorted(metadata)])


def _Metadata(sample: Mapping[str, Any]) -> dict[str, Any]:
  return labels_lib.MetadataOf(sample)


def RowFromSample(
    sample: Mapping[str, Any], spec: TableSpec | None = None
) -> dict[str, Any]:
  """Converts a PKB sample dict (as SampleCollector makes them) to a row.

  Args:
    sample: metric, value, unit, timestamp (epoch seconds, or a date and
      time text as pkb_ext.timestamps reads), metadata (or PKB's labels
      string), test, official, owner, run_uri, sample_uri, product_name.
    spec: the schema (default: the checked-in one).

  Returns:
    The row, with every column of the schema.

  Raises:
    SchemaError: if a required value is missing.
  """
  return _Rows((sample,), spec or Load(), True)[0]


def RowsFromSamples(
    samples: Sequence[Mapping[str, Any]], spec: TableSpec | None = None
) -> list[dict[str, Any]]:
  """RowFromSample of each sample, for encoding them at once.

  The rows are equal to RowFromSample's, but a row's metadata may be its
  sample's own dict (a flat one, not copied): encode the rows before the
  samples change.

  Raises:
    SchemaError: if a required value is missing.
  """
  return _Rows(samples, spec or Load(), False)


def _Rows(
    samples: Iterable[Mapping[str, Any]], spec: TableSpec, copy: bool
) -> list[dict[str, Any]]:
  """RowFromSample of each sample, in one loop (the per-row work inline).

  A flat metadata dict (str keys, JSON scalars, no NaN or infinity) is the
  row's metadata as it is (copied if `copy`), its labels formatted from the
  cached shape (_Shape); any other goes through _Jsonable and _Labels.
  """
  version = spec.version
  reorder = spec.names != _ROW_ORDER
  shapes = _SHAPES
  scalars, scalars_and_float = _SCALARS, _SCALARS_AND_FLOAT
  isfinite = math.isfinite
  rows = []
  append = rows.append
  for sample in samples:
    get = sample.get
    metadata = get('metadata')
    labels = None
    if type(metadata) is dict:
      keys = tuple(metadata)
      shape = shapes.get(keys) or _Shape(keys)
      if shape is not None:
        values = shape[2](metadata)
        kinds = set(map(type, values))
        if kinds <= scalars or (
            kinds <= scalars_and_float
            and all(map(isfinite, [v for v in values if type(v) is float]))
        ):
          labels = shape[1] % values
          if copy:
            metadata = dict(metadata)
    if labels is None:  # _Jsonable writes NaN and infinity as strings
      metadata = _Jsonable(_Metadata(sample))
      labels = _Labels(metadata)
    required = (
        get('metric'),
        get('timestamp'),
        get('run_uri'),
        get('sample_uri'),
    )
    if None in required or '' in required:
      for name in ('metric', 'timestamp', 'run_uri', 'sample_uri'):
        if get(name) in (None, ''):
          raise SchemaError(f'sample has no {name}: {dict(sample)!r:.200}')
    metric, timestamp, run_uri, sample_uri = required
    if type(timestamp) is str:
      timestamp = _TextTimestamp(timestamp)
    else:
      timestamp = FormatTimestamp(timestamp)
    value = get('value')
    if value is not None:
      value = float(value)
      if not isfinite(value):
        value = None
    official = get('official')
    cloud = metadata.get('cloud')
    row = {
        'timestamp': timestamp,
        'test': get('test'),
        'metric': str(metric),
        'value': value,
        'unit': get('unit'),
        'official': None if official is None else bool(official),
        'owner': get('owner'),
        'run_uri': str(run_uri),
        'sample_uri': str(sample_uri),
        'labels': labels,
        'product_name': get('product_name'),
        'metadata': metadata,
        'cloud': None if cloud is None else str(cloud),
        'schema_version': version,
    }
    append({name: row.get(name) for name in spec.names} if reorder else row)
  return rows


def CheckRow(row: Mapping[str, Any], spec: TableSpec | None = None) -> None:
  """Raises SchemaError unless `row` has only known columns and every
  required one."""
  spec = spec or Load()
  if not spec.name_set.issuperset(row):
    unknown = sorted(set(row) - spec.name_set)
    raise SchemaError(f'unknown column(s) {", ".join(unknown)}')
  missing = [n for n in spec.required if row.get(n) in (None, '')]
  if missing:
    raise SchemaError(f'missing required column(s) {", ".join(missing)}')


def PlanMigration(
    existing: Iterable[tuple[str, str]], spec: TableSpec | None = None
) -> list[Field]:
  """Returns the columns to add to a table so that it fits the schema.

  Columns are only ever added, as NULLABLE (BigQuery cannot add REQUIRED
  columns to a table with rows); columns the schema lacks are kept.

  Args:
    existing: (name, type) of the table's columns.
    spec: the wanted schema.

  Returns:
    The fields to add, in schema order.

  Raises:
    SchemaError: if a column exists with another type.
  """
  spec = spec or Load()
  have = {name.lower(): NormalType(type_name) for name, type_name in existing}
  added = []
  for field in spec.fields:
    kind = have.get(field.name.lower())
    if kind is None:
      added.append(dataclasses.replace(field, mode='NULLABLE'))
    elif kind != field.type:
      raise SchemaError(
          f'column {field.name} is {kind} in the table but {field.type} in'
          ' schema.json; columns are never retyped, so publish to another'
          ' table'
      )
  return added
