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
"""Property-based tests: report, compare and publish --dry-run on hostile
NDJSON sample lines.

Real sample lines (tests/data/analysis) get one line changed by hypothesis:
a field (value, timestamp, metadata, metric, a string column) replaced by a
hostile JSON value (non-finite or huge numbers, other types, deep nesting,
long text), or the whole line replaced. The property: the command either
succeeds with every line counted (nothing dropped), the changed line being
one the loader accepts, or fails with exit status 1 and one line of error
naming the file and the changed line when that line is what is wrong;
never a traceback.

The seed is fixed (derandomize) and the examples bounded, so the run is the
same every time and short.
"""

import json
import os
import pathlib
import re
import shutil
import tempfile

from hypothesis import HealthCheck
from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st

from pkb_ext.analysis import backends
from pkb_ext.publish import load_checks
from pkb_ext.publish import schema
from pkb_ext_dev import cli_run

DATA = pathlib.Path(__file__).resolve().parent.parent / 'data'
LINES = (DATA / 'analysis' / 'samples_3x2.ndjson').read_text().splitlines()
SMALL = LINES[:22]  # one configuration's CPU samples: a report of its own
TABLE = 'my-project.pkb.samples'
_SETTINGS = dict(
    derandomize=True,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

HOSTILE_NUMBERS = st.sampled_from([
    'NaN', 'Infinity', '-Infinity', '1e400', '-1e400', '9' * 400,
    '-' + '9' * 400, '1e300', '1e18', '1.0000001e18', '-0.0', '0',
    '1e-320', '18446744073709551616', '4102444800', '253402300800',
    '-62135596801', '1609462801.5',
])  # fmt: skip
JSON_SCALARS = st.one_of(
    st.sampled_from(['null', 'true', 'false']),
    st.integers(min_value=-(2**70), max_value=2**70).map(str),
    st.floats(allow_nan=False, allow_infinity=False).map(repr),
    HOSTILE_NUMBERS,
    st.text(max_size=20).map(json.dumps),
    st.sampled_from([
        '"2021-01-01 00:00:01 UTC"', '"2021-01-01T00:00:01+02:00"',
        '"2021-13-01 00:00:00"', '"yesterday"', '""', '"1e300"',
        json.dumps('x' * 20000),
    ]),
)  # fmt: skip


def _Nested(depth: int, kind: str) -> str:
  if kind == 'list':
    return '[' * depth + '1' + ']' * depth
  return '{"a":' * depth + '1' + '}' * depth


JSON_VALUES = st.one_of(
    JSON_SCALARS,
    st.lists(JSON_SCALARS, max_size=3).map(lambda l: '[' + ','.join(l) + ']'),
    st.dictionaries(
        st.text(max_size=8), JSON_SCALARS, max_size=3
    ).map(
        lambda d: '{' + ','.join(f'{json.dumps(k)}:{v}' for k, v in d.items())
        + '}'
    ),
    st.builds(
        _Nested,
        st.sampled_from([2, 499, 501, 3000]),
        st.sampled_from(['list', 'object']),
    ),
)  # fmt: skip
FIELDS = st.sampled_from([
    'value', 'value', 'timestamp', 'timestamp', 'metadata', 'metric',
    'unit', 'sample_uri', 'run_uri', 'official',
])  # fmt: skip
METADATA_KEYS = st.sampled_from(
    ['iteration', 'vcpus', 'report_version', 'phase', 'cloud', 'x']
)


@st.composite
def HostileLine(draw, lines: list[str]) -> tuple[int, str]:
  """(index, new text) of one line of `lines`, changed."""
  index = draw(st.integers(0, len(lines) - 1))
  how = draw(st.sampled_from(['field', 'field', 'field', 'metadata', 'line']))
  if how == 'line':
    text = draw(
        st.one_of(
            JSON_VALUES,
            st.text(max_size=60),
            st.sampled_from(['{', '{"metric": "m", "value": 1}', '[]']),
        )
    )
    return index, text.replace('\n', ' ').replace('\r', ' ') or 'x'
  marker = '"@@hostile@@"'
  row = json.loads(lines[index])
  if how == 'metadata':
    row['metadata'][draw(METADATA_KEYS)] = '@@hostile@@'
  else:
    row[draw(FIELDS)] = '@@hostile@@'
  return index, json.dumps(row).replace(marker, draw(JSON_VALUES), 1)


def _LoaderRefuses(text: str) -> bool:
  """Whether report and compare's loader refuses a line."""
  try:
    backends.NormalizeSample(json.loads(text), 'line')
  except (ValueError, RecursionError):  # SamplesError, JSON errors
    return True
  return False


def _Samples(lines: list[str]) -> int:
  """How many distinct samples the lines hold (blank lines skipped)."""
  uris, count = set(), 0
  for line in lines:
    if not line.strip():
      continue
    uri = json.loads(line).get('sample_uri')
    if uri and uri in uris:
      continue
    uris.add(uri)
    count += 1
  return count


class _Files:
  """A temporary directory for one example."""

  def __enter__(self):
    self.dir = tempfile.mkdtemp(prefix='pkb-ext-prop-')
    return self

  def __exit__(self, *unused):
    shutil.rmtree(self.dir, ignore_errors=True)

  def Write(self, name: str, lines: list[str]) -> str:
    path = os.path.join(self.dir, name)
    with open(path, 'w', encoding='utf-8') as f:
      f.write(''.join(l + '\n' for l in lines))
    return path


def _AssertOneLine(code: int, out: str, err: str) -> str:
  assert code == 1, (code, out[-500:], err[-500:])
  assert 'Traceback' not in err, err
  lines = err.strip().splitlines()
  assert len(lines) == 1, err[:2000]
  assert len(lines[0]) < 600, err[:2000]
  return lines[0]


@settings(max_examples=40, **_SETTINGS)
@given(HostileLine(SMALL))
def testReportGivesAOneLineErrorOrEveryLineCounted(change):
  index, text = change
  lines = list(SMALL)
  lines[index] = text
  with _Files() as files:
    path = files.Write('samples.ndjson', lines)
    out_dir = os.path.join(files.dir, 'out')
    code, out, err = cli_run.Run(
        ['report', '--samples', path, '--out', out_dir]
    )
    refused = _LoaderRefuses(text)
    if code == 0:
      assert not refused, text[:300]
      assert f'from {_Samples(lines)} samples from' in out, out
      assert os.path.exists(os.path.join(out_dir, 'report.html'))
    else:
      message = _AssertOneLine(code, out, err)
      assert not os.path.exists(out_dir), os.listdir(files.dir)
      if refused:
        assert f'{path}:{index + 1}' in message, message


@settings(max_examples=25, **_SETTINGS)
@given(HostileLine(SMALL))
def testCompareGivesAOneLineErrorOrAComparison(change):
  index, text = change
  lines = list(SMALL)
  lines[index] = text
  with _Files() as files:
    a = files.Write('a.ndjson', SMALL)
    b = files.Write('b.ndjson', lines)
    code, out, err = cli_run.Run(['compare', a, b])
    if code == 0:
      assert not _LoaderRefuses(text), text[:300]
      assert re.search(r'verdicts: ', out), out
      assert f'{_Samples(lines)} samples from {b}' in out, out
    else:
      message = _AssertOneLine(code, out, err)
      if _LoaderRefuses(text):
        assert f'{b}:{index + 1}' in message, message


SPOOL_LINES = [
    json.dumps(schema.RowFromSample(json.loads(l)), sort_keys=True)
    for l in LINES[:4]
]
ROW_FIELDS = st.sampled_from([
    'value', 'timestamp', 'metadata', 'schema_version', 'official',
    'run_uri', 'sample_uri', 'metric', 'labels', 'cloud',
])  # fmt: skip


@st.composite
def HostileSpoolLine(draw) -> tuple[list[str], int, str]:
  """(lines, index, new text): a spool of rows, or of PKB's samples."""
  lines = draw(st.sampled_from([SPOOL_LINES, LINES[:4]]))
  index = draw(st.integers(0, len(lines) - 1))
  if draw(st.integers(0, 5)) == 0:
    return lines, index, draw(JSON_VALUES).replace('\n', ' ') or 'x'
  row = json.loads(lines[index])
  row[draw(ROW_FIELDS)] = '@@hostile@@'
  text = json.dumps(row).replace('"@@hostile@@"', draw(JSON_VALUES), 1)
  return lines, index, text


def _LoadJobTakes(lines: list[str]) -> bool:
  """Whether every line, as the spool makes it a row, fits the schema."""
  for line in lines:
    obj = json.loads(line)
    row = obj if 'schema_version' in obj else schema.RowFromSample(obj)
    load_checks.ValidateRow(row)
    json.dumps(row, allow_nan=False)
  return True


@settings(max_examples=120, **_SETTINGS)
@given(HostileSpoolLine())
def testPublishDryRunGivesAOneLineErrorOrValidRows(change):
  lines, index, text = change
  lines = list(lines)
  lines[index] = text
  with _Files() as files:
    path = files.Write('spool.ndjson', lines)
    code, out, err = cli_run.Run(
        ['publish', path, '--table', TABLE, '--dry-run']
    )
    if code == 0:
      assert _LoadJobTakes(lines), text[:300]
      match = re.search(r'would publish (\d+) rows', out)
      assert match, out
      assert int(match.group(1)) == _Samples(lines), (out, text[:300])
    else:
      message = _AssertOneLine(code, out, err)
      assert f'{path}:{index + 1}: ' in message, message
