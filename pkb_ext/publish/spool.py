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
"""The NDJSON spool: every row is on disk (fsync'd) before any network call.

One line per row, the row's columns plus `publish_batch`, the key of the load
batch the row belongs to. Keys are given when rows are spooled and never
change, so however often a spool is re-published, its batches (and so their
load job ids) are the same. Lines without a key (a hand-made file, PKB's own
JSON output) are batched in file order by the batch size.

Read reports every bad line (up to MAX_REPORTED_LINES of them), each with
its file and line number: not JSON, not a row, or a value BigQuery cannot
hold (NaN, infinity).

AppendSamples (what the publisher uses) converts samples to rows and writes
the lines with orjson when it is installed (a declared dependency; several
times faster than the json module), in one call for all rows where it can,
and with the json module otherwise or for rows orjson refuses (e.g. an
integer beyond 64 bits); its rows hold no NaN or infinity, which orjson
would write as null. Append (rows given as they are) uses the json module,
which refuses them. Both write the same JSON values with sorted keys; Read
parses either and re-encodes each row with the json module, so a load job's
bytes do not depend on which wrote the spool.
"""

import dataclasses
import fcntl
import gc
import hashlib
import json
import math
import os
import re
from typing import Any, Iterable, Mapping, Sequence

from pkb_ext import errors
from pkb_ext import inputs
from pkb_ext import timestamps
from pkb_ext.publish import load_checks
from pkb_ext.publish import schema

try:
  import orjson  # pylint: disable=g-import-not-at-top
except ImportError:  # pragma: no cover - orjson is a declared dependency
  orjson = None

BATCH_KEY = 'publish_batch'
SPOOL_PREFIX = 'cloud_report_samples'
DEFAULT_BATCH_SIZE = 10000
_UNSAFE = re.compile(r'[^A-Za-z0-9_.-]')
MAX_REPORTED_LINES = 20


class SpoolError(errors.Error):
  """A spool cannot be written or read; the message names file and line."""


class _NotASample(SpoolError):
  """A line that is no sample at all: not JSON, not an object, no key."""


# What a line that is not a row must have to become one.
_SAMPLE_KEYS = ('metric', 'timestamp', 'run_uri', 'sample_uri')


@dataclasses.dataclass(frozen=True)
class Batch:
  """One load job's worth of rows."""

  key: str
  run_uri: str
  rows: tuple[dict[str, Any], ...]
  payload: bytes  # the exact NDJSON bytes a load job sends


@dataclasses.dataclass(frozen=True)
class Contents:
  """What a set of spool files holds."""

  batches: tuple[Batch, ...]
  duplicate_lines: int  # identical rows given twice, ignored

  @property
  def rows(self) -> int:
    return sum(len(b.rows) for b in self.batches)


def SpoolPath(directory: str, run_uri: str) -> str:
  """Returns the spool file of a run in `directory`."""
  return os.path.join(
      directory, f'{SPOOL_PREFIX}-{_UNSAFE.sub("_", run_uri)}.ndjson'
  )


_ENCODER = json.JSONEncoder(
    sort_keys=True, separators=(',', ':'), allow_nan=False
)
_DECODER = json.JSONDecoder()
if orjson is not None:
  _ORJSON_OPTIONS = orjson.OPT_SORT_KEYS | orjson.OPT_APPEND_NEWLINE


def _Dumps(obj: Mapping[str, Any]) -> str:
  return _ENCODER.encode(obj)


def Encoder() -> str:
  """Which encoder Append uses: orjson VERSION, or json (stdlib)."""
  return f'orjson {orjson.__version__}' if orjson else 'json (stdlib)'


def _Line(row: Mapping[str, Any]) -> bytes:
  """One NDJSON line: the row, keys sorted."""
  if orjson is not None:
    try:
      return orjson.dumps(row, option=_ORJSON_OPTIONS)
    except orjson.JSONEncodeError:
      pass
  return (_Dumps(row) + '\n').encode()


def _Lines(
    rows: Sequence[Mapping[str, Any]], first_key: str | None = None
) -> list[bytes | memoryview]:
  """The NDJSON lines of rows, _Line of each, as buffers to write in order.

  One orjson call for all rows when every row's first key (keys sorted) is
  the same: the array's row boundaries, '},{"KEY":', become line breaks.
  Only a nested list of objects whose first key is KEY could hold that
  sequence too (inside a string its quote would be escaped). Only the first
  len(rows) - 1 are replaced; if one of them was such a nested list, a row
  boundary is left after the last line break, and then each row is encoded
  on its own. The array's brackets are left out by a memoryview, not a copy.

  Args:
    rows: the rows.
    first_key: every row's first key, if the caller knows that all rows have
      the same keys (then they are not compared).
  """
  if orjson is None or not rows:
    return [_Line(r) for r in rows]
  try:
    if first_key is None:
      firsts = set(map(min, rows))
      if len(firsts) == 1:
        first_key = firsts.pop()
    if first_key is not None:
      key = orjson.dumps(first_key)
      boundary = b'},{' + key + b':'
      array = orjson.dumps(rows, option=orjson.OPT_SORT_KEYS).replace(
          boundary, b'}\n{' + key + b':', len(rows) - 1
      )
      # orjson writes no line breaks of its own (a string's are escaped).
      if array.find(boundary, array.rfind(b'\n') + 1) == -1:
        return [memoryview(array)[1:-1], b'\n']
  except (orjson.JSONEncodeError, TypeError, ValueError):
    pass  # e.g. an integer beyond 64 bits, keys of mixed types
  return [_Line(r) for r in rows]


def _Digest(text: str) -> str:
  return hashlib.sha256(text.encode()).hexdigest()[:10]


def _Batches(
    rows: Sequence[Mapping[str, Any]], batch_size: int
) -> list[tuple[str, Sequence[Mapping[str, Any]]]]:
  """(batch key, its rows) of rows: a segment id, then a batch index.

  The segment id comes from the first row's sample_uri (unique per sample),
  so rows spooled by different calls never share a batch.
  """
  if batch_size < 1:
    raise ValueError(f'batch size must be >= 1, got {batch_size}')
  if not rows:
    return []
  segment = _Digest(str(rows[0]['sample_uri']))
  return [
      (f'{segment}-{start // batch_size:05d}', rows[start : start + batch_size])
      for start in range(0, len(rows), batch_size)
  ]


def KeyRows(
    rows: Sequence[Mapping[str, Any]], batch_size: int
) -> list[dict[str, Any]]:
  """Returns copies of rows with their batch keys (see _Batches)."""
  return [
      {**row, BATCH_KEY: key}
      for key, batch in _Batches(rows, batch_size)
      for row in batch
  ]


def Append(path: str, rows: Sequence[Mapping[str, Any]], batch_size: int):
  """Appends rows to the spool and fsyncs it (and a new file's directory).

  Rows are encoded with the json module, which refuses NaN and infinity.

  Raises:
    SpoolError: if the spool cannot be written.
    ValueError: if a row holds NaN or infinity.
  """
  lines = ''.join(_Dumps(r) + '\n' for r in KeyRows(rows, batch_size))
  _Write(path, [lines.encode()])


def _Write(path: str, lines: Sequence[bytes | memoryview]) -> None:
  """Appends NDJSON lines to the spool; fsyncs it and a new file's directory.

  The file is locked (flock) while it is written, so that lines appended by
  other processes at the same time are not interleaved with these.

  Raises:
    SpoolError: if the spool cannot be written.
  """
  directory = os.path.dirname(os.path.abspath(path))
  try:
    os.makedirs(directory, exist_ok=True)
    is_new = not os.path.exists(path)
    with open(path, 'ab') as f:
      # Processes of one run (--run_processes) append to the same spool.
      fcntl.flock(f.fileno(), fcntl.LOCK_EX)
      if f.tell() and not _EndsWithNewline(path):
        f.write(b'\n')  # a torn last line stays apart, and is reported
      f.writelines(lines)
      f.flush()
      os.fsync(f.fileno())
    if is_new:
      fd = os.open(directory, os.O_RDONLY)
      try:
        os.fsync(fd)
      finally:
        os.close(fd)
  except OSError as e:
    raise SpoolError(f'cannot write spool {path}: {e}') from e


def AppendSamples(
    path: str, samples: Sequence[Mapping[str, Any]], batch_size: int
) -> int:
  """Converts PKB samples to rows and Appends them; returns the row count.

  The rows are RowFromSample's, which hold no NaN or infinity, so they are
  encoded with orjson where it can (_Lines). Python's cyclic garbage
  collector is paused meanwhile (the rows hold no cycles; a run's hundred
  thousand new dicts would otherwise trigger full collections over every
  object of the process).

  Raises:
    schema.SchemaError: if a sample lacks a required value.
    SpoolError: if the spool cannot be written.
  """
  spec = schema.Load()
  paused = gc.isenabled()
  gc.disable()
  try:
    rows = schema.RowsFromSamples(samples, spec)
    for key, batch in _Batches(rows, batch_size):
      for row in batch:
        row[BATCH_KEY] = key  # the rows are new: keyed in place, not copied
    _Write(path, _Lines(rows, min(spec.names + (BATCH_KEY,))))
  finally:
    if paused:
      gc.enable()
  return len(rows)


def _EndsWithNewline(path: str) -> bool:
  with open(path, 'rb') as f:
    f.seek(-1, os.SEEK_END)
    return f.read(1) == b'\n'


def _Row(obj: Any, where: str) -> tuple[str | None, dict[str, Any]]:
  if not isinstance(obj, dict):
    raise _NotASample(
        f'{where}: expected a JSON object, got {type(obj).__name__}'
    )
  key = obj.pop(BATCH_KEY, None)
  if 'schema_version' not in obj:
    missing = [k for k in _SAMPLE_KEYS if obj.get(k) in (None, '')]
    if missing:
      raise _NotASample(f'{where}: no {", ".join(missing)}')
  try:
    if 'schema_version' in obj:
      row = obj
    else:
      _CheckSample(obj)
      row = schema.RowFromSample(obj)
    bad = _NonFinite(row)
    if bad is None:
      load_checks.ValidateRow(row)
  except (schema.SchemaError, TypeError, ValueError, OverflowError) as e:
    raise SpoolError(f'{where}: {e}') from e
  except RecursionError as e:
    raise SpoolError(f'{where}: nested too deeply to be a row') from e
  if bad is not None:
    column, value = bad
    raise SpoolError(
        f'{where}: {column} is {value}: BigQuery rows hold no NaN or infinity'
    )
  return key, row


def _CheckSample(sample: dict[str, Any]) -> None:
  """Raises SchemaError for a sample value or timestamp no row can hold.

  A NaN or infinite value is kept: its row holds NULL (see schema.json).
  """
  value = sample.get('value')
  if value is not None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
      raise schema.SchemaError(
          f'value is a {load_checks.JsonKind(value)} {inputs.Shorten(value)},'
          ' not a number'
      )
    try:
      float(value)
    except OverflowError:
      raise schema.SchemaError(
          f'value {inputs.Shorten(value)} is beyond a FLOAT64'
      ) from None
  timestamp = sample.get('timestamp')
  if timestamp is None:
    return
  try:
    timestamps.ToUtc(timestamp)
  except ValueError:
    raise schema.SchemaError(
        f'timestamp {inputs.Shorten(timestamp)} is not a time in years 1 to'
        f' 9999 ({timestamps.READ_FORMS})'
    ) from None


def _NonFinite(obj: Any, path: str = '') -> tuple[str, float] | None:
  """The first (column path, value) of a NaN or infinite float in obj."""
  if isinstance(obj, float):
    return None if math.isfinite(obj) else (path, obj)
  if isinstance(obj, dict):
    items = obj.items()
  elif isinstance(obj, list):
    items = enumerate(obj)
  else:
    return None
  for k, v in items:
    found = _NonFinite(v, f'{path}.{k}' if path else str(k))
    if found:
      return found
  return None


def _ReadLines(path: str) -> Iterable[tuple[str, Any, SpoolError | None]]:
  """Yields (where, decoded line, None) or (where, None, the error).

  Raises:
    SpoolError: the file is not a regular file, too large, unreadable or
      not UTF-8 (see inputs.Lines).
  """
  try:
    for number, line in inputs.Lines(path, what='a spool'):
      if not line.strip():
        continue
      where = f'{path}:{number}'
      try:
        yield where, _DECODER.decode(line), None
      except (ValueError, RecursionError) as e:
        torn = '' if line.endswith('\n') else ' (truncated last line?)'
        yield where, None, _NotASample(
            f'{where}: not JSON{torn}: {str(e)[:120]}'
        )
  except inputs.InputError as e:
    raise SpoolError(f'cannot read spool {e}') from e


def _Raise(problems: list[SpoolError]) -> None:
  if len(problems) == 1:
    raise problems[0]  # one line: file:line: the problem
  shown = problems[:MAX_REPORTED_LINES]
  more = len(problems) - len(shown)
  raise SpoolError(
      f'{len(problems)} bad line(s):\n'
      + '\n'.join(f'  {e}' for e in shown)
      + (f'\n  ... and {more} more' if more else '')
  )


def _NotASamplesFile(first: SpoolError) -> SpoolError:
  """The refusal of a file whose first line is no sample at all."""
  older = ''
  if str(first).endswith(': no sample_uri'):
    older = (
        ' (a samples file of an older `pkb-ext local results`? write it'
        ' again from its spool or PKB JSON)'
    )
  return SpoolError(
      f'{first}{older}; not a samples file publish can take, which takes'
      f' {inputs.SAMPLE_FILE_KINDS}'
  )


def Read(paths: Sequence[str], batch_size: int) -> Contents:
  """Reads spool files into batches, in order of first appearance.

  Each line is a row of the spool or a sample: of PKB's JSON results
  (epoch seconds) or of `pkb-ext local results` (timestamps.FORM). A row
  whose sample_uri was already seen is ignored if identical (the same
  file given twice, or a spool and a samples file made from it) and an
  error otherwise.

  Raises:
    SpoolError: naming the file and line of every bad line; a file whose
      first line is no sample at all (not JSON, not an object, without a
      sample's keys) is refused at once, naming the files that will work.
  """
  if batch_size < 1:
    raise ValueError(f'batch size must be >= 1, got {batch_size}')
  keyed: dict[str, list[tuple[dict[str, Any], str]]] = {}
  seen: dict[str, str] = {}
  duplicates = 0
  problems: list[SpoolError] = []
  for path in paths:
    unkeyed = []
    first = True
    for where, obj, error in _ReadLines(path):
      try:
        if error is not None:
          raise error
        key, row = _Row(obj, where)
        text = _Dumps(row)
      except _NotASample as e:
        if first:
          raise _NotASamplesFile(e) from e
        problems.append(e)
        continue
      except SpoolError as e:
        problems.append(e)
        continue
      finally:
        first = False
      previous = seen.get(row['sample_uri'])
      if previous is not None:
        if previous != text:
          problems.append(
              SpoolError(
                  f'{where}: sample_uri {row["sample_uri"]} appears twice'
                  ' with different values'
              )
          )
        else:
          duplicates += 1
        continue
      seen[row['sample_uri']] = text
      if key is None:
        unkeyed.append((row, text))
      else:
        keyed.setdefault(str(key), []).append((row, text))
    for start in range(0, len(unkeyed), batch_size):
      chunk = unkeyed[start : start + batch_size]
      first = chunk[0][0]['sample_uri']
      key = f'auto-{_Digest(first)}-{start // batch_size:05d}'
      keyed.setdefault(key, []).extend(chunk)
  if problems:
    _Raise(problems)
  batches = tuple(
      Batch(
          key=key,
          run_uri=str(pairs[0][0]['run_uri']),
          rows=tuple(row for row, _ in pairs),
          payload=''.join(text + '\n' for _, text in pairs).encode(),
      )
      for key, pairs in keyed.items()
  )
  return Contents(batches=batches, duplicate_lines=duplicates)
