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
"""Each phase's Params defines its flags, and reads them all.

The phases come from the phase registry; the postgres engine's
PostgresParams is held to the same rules. Each Params field with a flag is
its flag's one source (benchmarks.cloud_report.settings): with every flag
at its default the phase's ReadParams equals Params(), and every
cloud_report_* flag of the Params' module is one of its fields.
"""

import json
import os

from absl import flags
from absl.testing import absltest
from absl.testing import flagsaver
from absl.testing import parameterized

from pkb_ext.suite import phases
from benchmarks.cloud_report import settings
from pkb_ext.suite import phase_modules
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
  return phases.ReadParams(name)


def _ParamsClass(name: str) -> type:
  with flagsaver.flagsaver():
    flags.FLAGS.mark_as_parsed()
    return type(_ReadParams(name))


class ParamsDefaultsTest(parameterized.TestCase):

  @parameterized.parameters(*_ALL)
  def testReadParamsAtDefaultFlagsIsParams(self, phase):
    with flagsaver.flagsaver():
      flags.FLAGS.mark_as_parsed()
      params = _ReadParams(phase)
    self.assertEqual(params, type(params)())

  @parameterized.parameters(*_ALL)
  def testEveryFlagOfTheModuleIsAField(self, phase):
    cls = _ParamsClass(phase)
    fields = {h.name for h in settings.Holders(cls).values()}
    defined = {
        f.name
        for f in flags.FLAGS.flags_by_module_dict()[cls.__module__]
        if f.name.startswith('cloud_report_')
    }
    self.assertNotEqual(fields, set())
    self.assertEqual(defined, fields, cls.__module__)


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
