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
"""Each phase's Params defaults are its flags' defaults, stated once.

The phases come from the phase registry; the postgres engine's
PostgresParams is held to the same rules. A Params field is fed by the flag
holder its FromFlags reads (`field=HOLDER.value`); its default must be
written as that holder's default (`HOLDER.default`), and with every flag at
its default the phase's ReadParams must equal Params().
"""

import ast
import inspect
import json
import os
import sys

from absl import flags
from absl.testing import absltest
from absl.testing import flagsaver
from absl.testing import parameterized

from benchmarks.cloud_report import phase_modules
from benchmarks.cloud_report import phases
from pkb_ext.tpcc_postgres import params as pg_params
from pkb_ext_dev import flag_dump

_SNAPSHOT = os.path.join(
    os.path.dirname(__file__), '..', 'data', 'flags', 'cloud_report_flags.json'
)


# Settings read from flags that are not a phase's: the postgres engine's.
_OTHER_PARAMS = {'tpcc_postgres': pg_params.PostgresParams}
_ALL = (*phases.ORDER, *_OTHER_PARAMS)


def _ReadParams(name: str):
  """The settings `name` reads from the flags (a phase's, or another's)."""
  if name in _OTHER_PARAMS:
    return _OTHER_PARAMS[name].FromFlags()
  return phase_modules.BY_PHASE[name].stages.ReadParams()


def _ParamsClass(name: str) -> type:
  with flagsaver.flagsaver():
    flags.FLAGS.mark_as_parsed()
    return type(_ReadParams(name))


def _Holders(node: ast.AST, attr: str) -> set[str]:
  """Names X that `node` reads as X.attr."""
  return {
      n.value.id
      for n in ast.walk(node)
      if isinstance(n, ast.Attribute)
      and n.attr == attr
      and isinstance(n.value, ast.Name)
  }


def _FieldsAndHolders(cls: type):
  """Returns ({field: default expr}, {field: holders FromFlags reads})."""
  tree = ast.parse(inspect.getsource(sys.modules[cls.__module__]))
  (node,) = [
      n
      for n in tree.body
      if isinstance(n, ast.ClassDef) and n.name == cls.__name__
  ]
  defaults = {
      n.target.id: n.value
      for n in node.body
      if isinstance(n, ast.AnnAssign) and n.value is not None
  }
  (from_flags,) = [
      n
      for n in node.body
      if isinstance(n, ast.FunctionDef) and n.name == 'FromFlags'
  ]
  fed = {}
  for call in ast.walk(from_flags):
    if isinstance(call, ast.Call) and getattr(call.func, 'id', '') == 'cls':
      for keyword in call.keywords:
        if keyword.arg:
          fed[keyword.arg] = _Holders(keyword.value, 'value')
  return defaults, fed


class ParamsDefaultsTest(parameterized.TestCase):

  @parameterized.parameters(*_ALL)
  def testReadParamsAtDefaultFlagsIsParams(self, phase):
    with flagsaver.flagsaver():
      flags.FLAGS.mark_as_parsed()
      params = _ReadParams(phase)
    self.assertEqual(params, type(params)())

  @parameterized.parameters(*_ALL)
  def testEveryFlagFedFieldDefaultsToItsFlag(self, phase):
    cls = _ParamsClass(phase)
    module = sys.modules[cls.__module__]
    defaults, fed = _FieldsAndHolders(cls)
    self.assertNotEqual(fed, {}, f'{cls.__module__}.Params.FromFlags')
    wrong = []
    for field, holders in fed.items():
      holders = {
          h
          for h in holders
          if isinstance(getattr(module, h, None), flags.FlagHolder)
      }
      if holders and not holders & _Holders(defaults[field], 'default'):
        wrong.append(
            f'{field} = {ast.unparse(defaults[field])} (flag {holders})'
        )
    self.assertEqual(wrong, [], f'{cls.__module__}.Params')

  @parameterized.parameters(*_ALL)
  def testEveryFlagOfTheModuleFeedsParams(self, phase):
    cls = _ParamsClass(phase)
    module = sys.modules[cls.__module__]
    _, fed = _FieldsAndHolders(cls)
    read = set().union(*fed.values())
    holders = {
        name
        for name, value in vars(module).items()
        if isinstance(value, flags.FlagHolder)
        and value.name.startswith('cloud_report_')
    }
    self.assertNotEqual(holders, set())
    self.assertEqual(holders - read, set(), cls.__module__)


class FlagSetTest(absltest.TestCase):

  def testFlagSetIsTheSnapshots(self):
    # The snapshot is `python -m pkb_ext_dev.flag_dump` output (see the
    # PROVENANCE.md beside it): names, types, defaults, help, bounds and
    # what parser and validators say about fixed probe values.
    flag_dump.LoadUpstreamUnit()
    with open(_SNAPSHOT, encoding='utf-8') as f:
      expected = json.load(f)
    actual = json.loads(json.dumps(flag_dump.Dump()))
    self.assertEqual(sorted(actual), sorted(expected))
    for name in expected:
      self.assertEqual(actual[name], expected[name], name)


if __name__ == '__main__':
  absltest.main()
