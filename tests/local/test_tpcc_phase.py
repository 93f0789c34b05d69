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
"""The tpcc phase for real: PostgreSQL + go-tpc, stepped with a short preset.

LocalVmTest runs the postgres engine's own commands on this machine through
pkb_ext_dev.local_vm.LocalVm: initdb/pg_ctl as user postgres in a private
directory, on 127.0.0.1 at an unusual port, `go-tpc tpcc prepare` of 3
warehouses, then 3 steps of 1, 2 and 3 active warehouses, each judged, and the probe
strategy on the same database (4 s probes), which must find linear's
maximum. The server is stopped through its data directory (pg_ctl), never by
name.
Through stock pkb.py on a local cloud it runs in
tests/local/test_local_cloud.py (the suite smoke run's tpcc samples).
"""

import dataclasses
import math
import os
import shutil
import subprocess
import tempfile

from absl import flags
from absl.testing import absltest
from absl.testing import flagsaver

from pkb_ext import paths
from pkb_ext.suite import phases
from benchmarks.cloud_report.tpcc import engines as tpcc_engines
from benchmarks.cloud_report.tpcc import params as tpcc_params
from benchmarks.cloud_report.tpcc import pass_rules
from pkb_ext.suite.tpcc import stages as tpcc
from benchmarks.cloud_report.tpcc import stepping
from pkb_ext.suite.tpcc import stepping_state
from pkb_ext_dev import local_vm

FLAGS = flags.FLAGS
PG_BIN = '/usr/lib/postgresql/15/bin'
PG_PORT = 25441  # private to this test
GO_TPC = os.path.join(paths.CacheDir(), 'bin', 'go-tpc')
# PostgreSQL settings that make loading fast on a shared 2-vCPU machine.
FAST_PG = ('fsync=off', 'synchronous_commit=off', 'full_page_writes=off',
           'shared_buffers=128MB')  # fmt: skip


def _Missing() -> str:
  if not os.path.exists(os.path.join(PG_BIN, 'initdb')):
    return f'no PostgreSQL server in {PG_BIN}'
  if not os.access(GO_TPC, os.X_OK):
    return f'no go-tpc at {GO_TPC}: run scripts/setup.sh'
  if os.geteuid() != 0 and not shutil.which('sudo'):
    return 'needs root or sudo to run initdb as user postgres'
  if subprocess.run(['id', 'postgres'], capture_output=True).returncode:
    return 'no postgres user'
  return ''


class LocalVmTest(absltest.TestCase):

  def setUp(self):
    super().setUp()
    if _Missing():
      self.skipTest(_Missing())
    self.dir = tempfile.mkdtemp(prefix='pkb-ext-tpcc-test-')
    os.chmod(self.dir, 0o755)  # user postgres must reach its data dir
    self.addCleanup(shutil.rmtree, self.dir, ignore_errors=True)
    self.enter_context(flagsaver.flagsaver(cloud_report_go_tpc_path=GO_TPC))
    db = local_vm.LocalVm('db1', work_dir=os.path.join(self.dir, 'db1'))
    client = local_vm.LocalVm('client', work_dir=os.path.join(self.dir, 'c'))
    for vm in (db, client):
      os.makedirs(vm.work_dir, exist_ok=True)
    self.db, self.client = db, client
    self.topology = phases.Topology((db,), client, None)
    self.pg_data = os.path.join(self.dir, 'pgdata')
    # The engine's own settings are its flags (pkb_ext.tpcc_postgres.params),
    # read where the phase selects it.
    self.enter_context(
        flagsaver.flagsaver(
            cloud_report_tpcc_postgres_port=PG_PORT,
            cloud_report_tpcc_postgres_bin_dir=PG_BIN,
            cloud_report_tpcc_postgres_data_dir=self.pg_data,
            cloud_report_tpcc_postgres_options=list(FAST_PG),
            cloud_report_tpcc_gotpc_threads_per_warehouse=2,
            cloud_report_tpcc_gotpc_load_threads=3,
            cloud_report_tpcc_gotpc_load_check=False,
            cloud_report_tpcc_gotpc_interval='5s',
        )
    )
    self.params = tpcc_params.Params(
        strategy='linear',
        start=1,
        step=1,
        max_warehouses=3,
        duration='10s',
        ramp='3s',
        pass_rule='report',
    )
    self.engine = tpcc.SelectEngine('postgres', self.params)
    self.addCleanup(self.engine.Cleanup, self.topology)

  def testPreparingAgainKeepsTheServerAndItsData(self):
    self.engine.Install(self.topology)
    self.engine.Setup(self.topology)
    loads = lambda: [c for c in self.client.commands if 'tpcc prepare' in c]
    self.assertLen(loads(), 1)
    count = (
        f'sudo -u postgres {PG_BIN}/psql -h {self.pg_data}'
        f' -p {PG_PORT} -d tpcc -tAc "SELECT count(*) FROM warehouse"'
    )
    self.assertEqual(self.db.RemoteCommand(count)[0].strip(), '3')
    # Running, loaded: a second Setup (a resumed run's) loads nothing.
    self.engine.Install(self.topology)
    self.engine.Setup(self.topology)
    self.assertLen(loads(), 1)
    # Stopped (the VM restarted): it starts again on its data, loads nothing.
    self.db.RemoteCommand(
        f'sudo -u postgres {PG_BIN}/pg_ctl -D {self.pg_data} -m fast -w stop'
    )
    self.engine.Install(self.topology)
    self.engine.Setup(self.topology)
    self.assertLen(loads(), 1)
    self.assertEqual(self.db.RemoteCommand(count)[0].strip(), '3')

  def testThreeRealStepsAndResume(self):
    self.engine.Install(self.topology)
    self.engine.Setup(self.topology)
    store = stepping_state.StateStore(
        os.path.join(self.dir, 'state.json'),
        'localvm1',
        tpcc.Fingerprint(self.params, self.engine),
    )
    result = tpcc.Search(self.params, self.engine, self.topology, store)

    self.assertEqual([s.level for s in result.steps], [1, 2, 3])
    runs = [c for c in self.client.commands if ' tpcc run ' in c]
    # One go-tpc run per step: the 3 s ramp, 10 s measured, half a report
    # interval (1 s: the largest that divides both) more.
    self.assertLen(runs, 3)
    self.assertIn('--warehouses 3 -T 6 --time 13500ms --interval 1s', runs[-1])
    for step in result.steps:
      # A decision, with its reason, on every step.
      self.assertIsInstance(step.passed, bool)
      self.assertRegex(step.reason, r'^(pass|fail) \(report\): p90 ')
      self.assertIsNone(step.error, step.reason)
      self.assertGreater(step.metrics['tpmc'], 0)
      self.assertGreaterEqual(step.metrics['elapsed_s'], 9.0)
      # No keying or think time: beyond TPC-C's 12.86 tpmC per warehouse.
      self.assertGreater(step.metrics['efficiency_pct'], 100)
      self.assertEqual(step.extra['threads'], 2 * step.level)
      self.assertEqual(step.extra['efficiency_basis'], 'no_think_time')
    expected = None
    for step in result.steps:
      if not step.passed:
        break
      expected = step.level
    self.assertEqual(result.max_passing, expected)

    samples = tpcc.ToSamples(self.params, self.engine, result)
    passed = [s for s in samples if s.metric == 'tpcc_step_passed']
    self.assertEqual([s.metadata['iteration'] for s in passed], [1, 2, 3])
    for s in samples:
      self.assertTrue(math.isfinite(s.value), s)

    # Resuming the finished search runs nothing.
    before = len(self.client.commands)
    again = tpcc.Search(self.params, self.engine, self.topology, store)
    self.assertEqual(len(self.client.commands), before)
    self.assertEqual(again.max_passing, result.max_passing)
    self.assertEqual(again.resumed_steps, 3)

    self._ProbeFindsLinearsMaximum(result)

  def _ProbeFindsLinearsMaximum(self, linear):
    """probe on the same database: linear's maximum, with short probes."""
    params = dataclasses.replace(
        self.params, strategy='probe', probe_duration='4s'
    )
    before = len(self.client.commands)
    result = tpcc.Search(params, self.engine, self.topology)
    self.assertEqual(result.max_passing, linear.max_passing)
    self.assertTrue(any(s.probe for s in result.steps))
    runs = [c for c in self.client.commands[before:] if ' tpcc run ' in c]
    self.assertLen(runs, result.steps_used)  # its ramp in each
    for step, command in zip(result.steps, runs):
      self.assertIn(f'--time {7500 if step.probe else 13500}ms', command)
      self.assertEqual(step.kind, 'probe' if step.probe else 'confirmation')
      self.assertIsNone(step.error, step.reason)
    self.assertFalse(result.step_at_max.probe)

    # A rule that every 4 s probe passes and every 10 s run fails: the
    # probes' edge is wrong, the full-length runs overrule it, and the
    # answer is linear's on its full-length steps under the same rule.
    rule = 'custom:elapsed_s<8'
    linear_answer = stepping.Next(
        stepping.Plan('linear', 1, 1, 2),
        stepping.Verdicts(
            [stepping.Rejudge(pass_rules.ParseRule(rule), s)
             for s in linear.steps if s.level <= 2]
        ),
    ).max_passing  # fmt: skip
    self.assertIsNone(linear_answer)
    short = dataclasses.replace(params, pass_rule=rule, max_warehouses=2)
    result = tpcc.Search(short, self.engine, self.topology)
    self.assertEqual(
        [(s.kind, s.level, s.passed) for s in result.steps],
        [('probe', 2, True), ('confirmation', 2, False),
         ('confirmation', 1, False)],
    )  # fmt: skip
    self.assertEqual(result.max_passing, linear_answer)

  def testAStoppedServerGivesNoResultWithItsReason(self):
    self.engine.Install(self.topology)
    self.engine.Setup(self.topology)
    self.engine.Cleanup(self.topology)  # stops PostgreSQL
    output, status = self.engine.RunStep(self.topology, 1, 1)
    measurement = tpcc_engines.ToMeasurement(
        output, status, 1, 10, parse=self.engine.Parse
    )
    self.assertIn('panicked', measurement.error)
    step = stepping.Judge(pass_rules.RULES['report'], 1, measurement)
    self.assertFalse(step.passed)
    self.assertTrue(step.reason.startswith('no result: '), step.reason)
    self.assertEqual(stepping.Verdicts([step]), [])  # retried, not judged


if __name__ == '__main__':
  absltest.main()
