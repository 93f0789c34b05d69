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
"""What a BigQuery load job accepts: each value of a row in its column.

schema.CheckRow checks the columns a row has; ValidateRow also checks each
value against its column's type, as a load job would. JsonKind and
JsonDepth describe decoded JSON for the messages of every reader of rows.
"""

import datetime
from typing import Any, Mapping

from pkb_ext import inputs
from pkb_ext.publish import schema

# What a BigQuery load job accepts in a column of each type.
_INT64_RANGE = (-(2**63), 2**63 - 1)
_MAX_FLOAT64 = 1.7976931348623157e308
# BigQuery refuses JSON nested deeper than this.
MAX_JSON_DEPTH = 500
_TIMESTAMP_SUFFIXES = ('+00:00', ' UTC', 'Z')


def JsonKind(value: Any) -> str:
  """The JSON name of a decoded value's type."""
  if isinstance(value, bool):
    return 'boolean'
  if isinstance(value, (int, float)):
    return 'number'
  if isinstance(value, str):
    return 'string'
  if isinstance(value, list):
    return 'list'
  if value is None:
    return 'null'
  return 'object'


def JsonDepth(value: Any, limit: int = MAX_JSON_DEPTH) -> int:
  """The nesting depth of decoded JSON, counted up to limit + 1."""
  depth, level = 0, [value]
  while depth <= limit:
    nested = []
    for v in level:
      if isinstance(v, dict):
        nested.extend(v.values())
      elif isinstance(v, list):
        nested.extend(v)
    if not nested:
      break
    depth += 1
    level = nested
  return depth


def ParseTimestamp(text: str) -> datetime.datetime:
  """A TIMESTAMP text as rows hold it ('YYYY-MM-DD hh:mm:ss[.ffffff]+00:00').

  Raises:
    ValueError: not such a text.
  """
  body = text
  for suffix in _TIMESTAMP_SUFFIXES:
    if body.endswith(suffix):
      body = body[: -len(suffix)]
      break
  when = datetime.datetime.fromisoformat(body)
  if when.tzinfo is not None:
    raise ValueError('only UTC (+00:00)')
  return when


def _CheckValue(field: schema.Field, value: Any, version: int) -> str | None:
  """Why a load job would refuse `value` in `field`; None if it is fine."""
  kind = field.type
  if kind == 'STRING':
    ok = isinstance(value, str)
  elif kind == 'BOOLEAN':
    ok = isinstance(value, bool)
  elif kind == 'INTEGER':
    ok = isinstance(value, int) and not isinstance(value, bool)
    if ok and not _INT64_RANGE[0] <= value <= _INT64_RANGE[1]:
      return f'{inputs.Shorten(value)} is beyond INT64'
  elif kind == 'FLOAT':
    ok = isinstance(value, (int, float)) and not isinstance(value, bool)
    if ok and not abs(value) <= _MAX_FLOAT64:  # False for NaN too
      return f'{inputs.Shorten(value)} is not a finite FLOAT64'
  elif kind == 'TIMESTAMP':
    ok = isinstance(value, str)
    if ok:
      try:
        ParseTimestamp(value)
      except ValueError:
        return (
            f'{inputs.Shorten(value)} is not a UTC time'
            ' YYYY-MM-DD hh:mm:ss[.ffffff]+00:00'
        )
  elif kind == 'JSON':
    ok = isinstance(value, dict)
    if ok and JsonDepth(value) > MAX_JSON_DEPTH:
      return f'is nested deeper than {MAX_JSON_DEPTH} levels'
  else:
    return None
  if not ok:
    want = {'JSON': 'object', 'FLOAT': 'number', 'INTEGER': 'integer'}.get(
        kind, kind.lower()
    )
    return f'is a {JsonKind(value)} {inputs.Shorten(value)}, not a {want}'
  if field.name == 'schema_version' and not 1 <= value <= version:
    return f'{value} is not a schema version 1..{version} this schema knows'
  return None


def ValidateRow(
    row: Mapping[str, Any], spec: schema.TableSpec | None = None
) -> None:
  """Raises SchemaError unless a load job would take `row` as it is.

  Besides schema.CheckRow: every value has its column's type (a JSON object for
  metadata, nested at most MAX_JSON_DEPTH deep), numbers are finite and in
  their type's range, timestamps are UTC times, and schema_version is one
  this schema knows.
  """
  spec = spec or schema.Load()
  schema.CheckRow(row, spec)
  for field in spec.fields:
    value = row.get(field.name)
    if value is None:
      continue
    problem = _CheckValue(field, value, spec.version)
    if problem:
      raise schema.SchemaError(f'{field.name} {problem}')
