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
"""Property-based tests: every parser on mutated real outputs.

Each parser gets the outputs captured in tests/data/<tool>/ and hypothesis
mutates them: cut, slices deleted or repeated, lines swapped, numbers
replaced by hostile ones (400 digits, NaN, infinity, negative, exponents),
hostile text inserted, and for JSON outputs a value replaced by one of
another type or by deep nesting. The property: the parser and its samples
module either give samples whose values are finite and not negative, or
raise ParseError; never another exception.

The seed is fixed (derandomize) and the examples bounded, so the run is the
same every time and short.
"""

import json
import math
import pathlib
import re

from hypothesis import HealthCheck
from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st
import pytest

from benchmarks.cloud_report import parsers
from pkb_ext.suite import phase_modules

DATA = pathlib.Path(__file__).resolve().parent.parent / 'data'
# The captured outputs of each tool (scripts, job files and notes excluded).
SEEDS = {
    'coremark': sorted((DATA / 'coremark').glob('*.txt')),
    'fio': sorted((DATA / 'fio').glob('*.json')),
    'netperf': sorted((DATA / 'netperf').glob('*.txt')),
    'tpcc': sorted((DATA / 'tpcc').glob('*.txt')),
    'ttfb': sorted((DATA / 'ttfb').glob('*.jsonl')),
}
JSON_TOOLS = ('fio', 'ttfb')
MAX_EXAMPLES = 120
_NUMBER = re.compile(r'-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?')

HOSTILE_NUMBERS = st.sampled_from([
    '9' * 400, '-1', '-0.5', 'NaN', 'nan', 'inf', '-inf', 'Infinity',
    '1e999', '1e308', '0', '0.0', '4294967296', '2000000000', '1e-320',
    '18446744073709551616', '', '.', '1.2.3', '0x10',
])  # fmt: skip
HOSTILE_TEXT = st.one_of(
    HOSTILE_NUMBERS,
    st.text(max_size=40),
    st.sampled_from([
        '\n',
        '\r\n',
        '\x00',
        '[',
        ']',
        '{',
        '}',
        '"',
        ':',
        ',',
        '=',
        '%',
        '[' * 5000,
        '{"a":' * 3000,
        'ERROR',
        'panic: boom',
        '!!! WARNING',
        'Parallel PThreads : 2000000000\n',
        'tpmC: NaN, tpmTotal: 1.0, efficiency: 1.0%\n',
        'MIN_LATENCY=-5\n',
        '\ufeff',
        '\u2028',
    ]),
)
HOSTILE_JSON = st.recursive(
    st.one_of(
        st.none(),
        st.booleans(),
        st.integers(min_value=-(10**400), max_value=10**400),
        st.floats(allow_nan=True, allow_infinity=True),
        st.text(max_size=10),
    ),
    lambda children: st.lists(children, max_size=3)
    | st.dictionaries(st.text(max_size=5), children, max_size=3),
    max_leaves=8,
)


def _Load(tool):
  return [p.read_text() for p in SEEDS[tool]]


@st.composite
def _TextMutation(draw, text):
  kind = draw(
      st.sampled_from([
          'cut', 'delete', 'repeat', 'insert', 'swap', 'number', 'numbers',
          'tail_number', 'tail_number',
      ])  # fmt: skip
  )
  n = len(text)
  if kind == 'cut':
    return text[: draw(st.integers(0, n))]
  if kind in ('delete', 'repeat', 'insert'):
    a = draw(st.integers(0, n))
    b = draw(st.integers(a, min(n, a + 200)))
    if kind == 'delete':
      return text[:a] + text[b:]
    if kind == 'repeat':
      return text[:b] + text[a:b] + text[b:]
    return text[:a] + draw(HOSTILE_TEXT) + text[a:]
  if kind == 'swap':
    lines = text.split('\n')
    i = draw(st.integers(0, len(lines) - 1))
    j = draw(st.integers(0, len(lines) - 1))
    lines[i], lines[j] = lines[j], lines[i]
    return '\n'.join(lines)
  matches = list(_NUMBER.finditer(text))
  if not matches:
    return text
  if kind == 'tail_number':  # the results are at the end of most outputs
    chosen = [draw(st.sampled_from(matches[-40:]))]
  elif kind == 'number':
    chosen = [draw(st.sampled_from(matches))]
  else:
    chosen = draw(st.lists(st.sampled_from(matches), min_size=1, max_size=6))
  out, last = [], 0
  for m in sorted(set(chosen), key=lambda m: m.start()):
    out.append(text[last : m.start()])
    out.append(draw(HOSTILE_NUMBERS))
    last = m.end()
  out.append(text[last:])
  return ''.join(out)


def _Paths(obj, prefix=()):
  yield prefix
  if isinstance(obj, dict):
    for k, v in obj.items():
      yield from _Paths(v, prefix + (k,))
  elif isinstance(obj, list):
    for i, v in enumerate(obj):
      yield from _Paths(v, prefix + (i,))


def _Replace(obj, path, value):
  if not path:
    return value
  head, rest = path[0], path[1:]
  if isinstance(obj, dict):
    return {k: (_Replace(v, rest, value) if k == head else v)
            for k, v in obj.items()}  # fmt: skip
  return [_Replace(v, rest, value) if i == head else v
          for i, v in enumerate(obj)]  # fmt: skip


_DEEP = '@@deeply nested@@'


def _Dumps(obj):
  """JSON with NaN/Infinity allowed and _DEEP as 3000 nested lists."""
  return json.dumps(obj, allow_nan=True).replace(
      json.dumps(_DEEP), '[' * 3000 + ']' * 3000
  )


@st.composite
def _JsonMutation(draw, text, tool):
  """Replaces one value of one JSON document (fio) or line (ttfb)."""
  if tool == 'fio':
    start = text.index('{')
    head, doc = text[:start], json.loads(text[start:])
    paths = list(_Paths(doc))
    path = draw(st.sampled_from(paths))
    value = draw(HOSTILE_JSON | st.just(_DEEP))
    return head + _Dumps(_Replace(doc, path, value))
  lines = text.split('\n')
  i = draw(st.integers(0, len(lines) - 2))
  obj = json.loads(lines[i])
  path = draw(st.sampled_from(list(_Paths(obj))))
  lines[i] = _Dumps(_Replace(obj, path, draw(HOSTILE_JSON | st.just(_DEEP))))
  return '\n'.join(lines)


def _Mutated(tool):
  seeds = st.sampled_from(_Load(tool))
  if tool in JSON_TOOLS:
    return seeds.flatmap(
        lambda t: st.one_of(_TextMutation(t), _JsonMutation(t, tool))
    )
  return seeds.flatmap(_TextMutation)


def CheckProperty(tool, text):
  """Parses `text`; ParseError is fine, other exceptions fail the test."""
  try:
    samples = phase_modules.ParseText(tool, text)
  except parsers.ParseError:
    return
  for s in samples:
    assert isinstance(s.value, (int, float)), s
    assert math.isfinite(s.value), (s.metric, s.value)
    assert s.value >= 0, (s.metric, s.value)
    json.dumps(s.metadata, allow_nan=False, default=str)


_SETTINGS = settings(
    derandomize=True,
    max_examples=MAX_EXAMPLES,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


@pytest.mark.parametrize('tool', sorted(SEEDS))
def test_seeds_parse(tool):
  """The unmutated outputs the property starts from are real and good."""
  assert SEEDS[tool], f'no captured {tool} outputs in {DATA / tool}'
  ok = 0
  for path in SEEDS[tool]:
    try:
      CheckProperty(tool, path.read_text())
      phase_modules.ParseText(tool, path.read_text())
      ok += 1
    except parsers.ParseError:
      pass  # the captures of failures (bad_*) are seeds too
  assert ok, f'no {tool} capture parses'


@pytest.mark.parametrize('tool', sorted(SEEDS))
def test_mutations_parse_or_raise_parse_error(tool):
  @_SETTINGS
  @given(_Mutated(tool))
  def Property(text):
    CheckProperty(tool, text)

  Property()
