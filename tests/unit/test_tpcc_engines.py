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
"""The suite's TPC-C engines: cockroach (exported) and postgres (pkb_ext).

The exported benchmark runs CockroachEngine; the suite chooses with
--cloud_report_tpcc_engine (pkb_ext.suite.tpcc.engines), whose validator
accepts only the engines it has.
"""

import pathlib
from unittest import mock

from absl import flags
from absl.testing import absltest
from absl.testing import flagsaver

from benchmarks.cloud_report.tpcc import engines
from benchmarks.cloud_report.tpcc import params as tpcc_params
from pkb_ext.suite.tpcc import engines as suite_engines
from pkb_ext.suite.tpcc import stages as tpcc
from pkb_ext.tpcc_postgres import engine as tpcc_postgres


class _FakeEngine:

  def __init__(self, params):
    self.params = params
    self.name = 'fake'


class EngineChoiceTest(absltest.TestCase):

  def testTheReportsEngineComesFirst(self):
    self.assertEqual(suite_engines.EngineNames(), ['cockroach', 'postgres'])
    params = tpcc_params.Params()
    self.assertIsInstance(
        tpcc.SelectEngine('cockroach', params), engines.CockroachEngine
    )

  def testOnlyCockroachsLoadLeavesTheClientIdle(self):
    self.assertTrue(suite_engines.LoadLeavesClientIdle('cockroach'))
    self.assertFalse(suite_engines.LoadLeavesClientIdle('postgres'))
    # The phase asks the engine of the flag (phases.Arrange asks the phase).
    for name, idle in (('cockroach', True), ('postgres', False)):
      with flagsaver.flagsaver(cloud_report_tpcc_engine=name):
        self.assertEqual(tpcc.LoadLeavesClientIdle(), idle, name)

  def testPostgresReadsItsOwnFlagsWhenSelected(self):
    params = tpcc_params.Params()
    with flagsaver.flagsaver(
        cloud_report_tpcc_postgres_port=6001, cloud_report_tpcc_gotpc_wait=True
    ):
      engine = tpcc.SelectEngine('postgres', params)
    self.assertIsInstance(engine, tpcc_postgres.PostgresEngine)
    self.assertIs(engine.params, params)
    self.assertEqual(engine.own.postgres_port, 6001)
    # What go-tpc's efficiency is computed against goes on every sample.
    self.assertEqual(
        engine.SampleMetadata(None),
        {'efficiency_basis': 'keying_and_think_time'},
    )
    with flagsaver.flagsaver(cloud_report_tpcc_gotpc_wait=False):
      engine = tpcc.SelectEngine('postgres', params)
    self.assertEqual(
        engine.SampleMetadata(None), {'efficiency_basis': 'no_think_time'}
    )

  def testAnUnknownEngineIsNamedWithTheChoices(self):
    with self.assertRaisesRegex(
        suite_engines.EngineError,
        "unknown TPC-C engine 'mysql'; expected one of cockroach, postgres",
    ):
      tpcc.SelectEngine('mysql', tpcc_params.Params())

  def testTheFlagAcceptsOnlyTheEngines(self):
    with self.assertRaisesRegex(
        flags.IllegalFlagValueError,
        '--cloud_report_tpcc_engine=mysql: not a TPC-C engine; expected one'
        ' of cockroach, postgres',
    ):
      with flagsaver.flagsaver(cloud_report_tpcc_engine='mysql'):
        pass
    with mock.patch.dict(suite_engines._FACTORIES, {'fake': _FakeEngine}):  # pylint: disable=protected-access
      with flagsaver.flagsaver(cloud_report_tpcc_engine='fake'):
        engine = tpcc.SelectEngine(
            suite_engines.ENGINE.value, tpcc_params.Params()
        )
      self.assertIsInstance(engine, _FakeEngine)
    self.assertNotIn('fake', suite_engines.EngineNames())

  def testEachEngineParsesItsOwnOutput(self):
    params = tpcc_params.Params()
    cockroach = tpcc.SelectEngine('cockroach', params)
    postgres = tpcc.SelectEngine('postgres', params)
    data = pathlib.Path(__file__).resolve().parents[1] / 'data' / 'tpcc'
    gotpc = (data / 'gotpc_v1.0.9_pg15_4wh_4threads_30s.txt').read_text()
    crdb = (data / 'cockroach_v22.1.2_9node_8vcpu_3750wh_tail.txt').read_text()
    self.assertEqual(postgres.Parse(gotpc).tool, 'go-tpc')
    self.assertEqual(cockroach.Parse(crdb).tool, 'cockroach')
    with self.assertRaisesRegex(ValueError, '^not `cockroach workload run'):
      cockroach.Parse(gotpc)
    with self.assertRaisesRegex(ValueError, '^not go-tpc output'):
      postgres.Parse(crdb)


if __name__ == '__main__':
  absltest.main()
