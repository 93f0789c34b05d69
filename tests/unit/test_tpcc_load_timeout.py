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
"""The go-tpc load gives up after --cloud_report_tpcc_load_timeout.

go-tpc prepare was seen to hang, not exit, when PostgreSQL stopped under it
on a full data disk; the load now runs under coreutils timeout.
"""

from unittest import mock

from absl.testing import absltest
from perfkitbenchmarker import errors

from pkb_ext.suite import phases
from benchmarks.cloud_report.tpcc import engines as tpcc_engines
from benchmarks.cloud_report.tpcc import params as tpcc_params
from pkb_ext.tpcc_postgres import engine as tpcc_postgres
from pkb_ext.tpcc_postgres import params as pg_params


def _Db():
  db = mock.Mock(name='db1', install_packages=False, internal_ip='10.0.0.1')

  def Remote(command, **kwargs):
    del kwargs
    if 'MemTotal' in command:
      return 'bin_dir=/usr/lib/postgresql/15/bin\nmem_kb=16000000\n', ''
    return '', ''

  db.RemoteCommand.side_effect = Remote
  return db


class LoadTimeoutTest(absltest.TestCase):

  def _Prepare(self, status, load_timeout='10m', client=None):
    client = client or mock.Mock(name='client', internal_ip='10.0.0.9')
    client.RobustRemoteCommand.return_value = (
        f'load tail\ncloud_report_tpcc_exit_status={status}\n',
        '',
    )
    params = tpcc_params.Params(
        start=1,
        step=1,
        max_warehouses=3,
        load_timeout=load_timeout,
    )
    engine = tpcc_postgres.PostgresEngine(
        params, pg_params.PostgresParams(postgres_data_dir='/srv/pg')
    )
    topology = phases.Topology(
        db_vms=(_Db(),), client_vm=client, run_metadata=None
    )
    with mock.patch.object(
        tpcc_postgres.go_tpc, 'Path', return_value='/b/go-tpc'
    ):
      engine.Install(topology)
      engine.Setup(topology)
    return client

  def testHungLoadIsKilledAndNamed(self):
    with self.assertRaisesRegex(
        errors.Benchmarks.RunError,
        r'did not finish in 600 s and was ended'
        r' \(--cloud_report_tpcc_load_timeout\).*disk'
        r' full',
    ):
      self._Prepare(124)

  def testLoadRunsUnderTimeout(self):
    client = mock.Mock(name='client', internal_ip='10.0.0.9')
    with self.assertRaisesRegex(errors.Benchmarks.RunError, 'exited 0'):
      # Exit 0 without go-tpc's "Finished" line is still a failed load.
      self._Prepare(0, load_timeout='2h', client=client)
    (command,) = [
        c.args[0]
        for c in client.RobustRemoteCommand.call_args_list
        if 'tpcc prepare' in c.args[0]
    ]
    self.assertIn('timeout -k 30 7200 /b/go-tpc tpcc prepare', command)

  def testCommandCarriesTheLimit(self):
    client = mock.Mock()
    client.RobustRemoteCommand.return_value = (
        'cloud_report_tpcc_exit_status=0\n',
        '',
    )
    tail, status = tpcc_engines.RunLogged(
        client, '/b/go-tpc tpcc prepare', '/w/p.txt', 600
    )
    self.assertEqual(status, 0)
    command = client.RobustRemoteCommand.call_args[0][0]
    self.assertIn('timeout -k 30 600 /b/go-tpc', command)
    self.assertEqual(client.RobustRemoteCommand.call_args[1]['timeout'], 750)
    del tail

  def testTheDefaultBoundFollowsTheWarehouses(self):
    # auto: the expected load plus its margin, never an hour past it.
    small = tpcc_params.Params(max_warehouses=10).LoadTimeout(3)
    report = tpcc_params.Params(max_warehouses=3500).LoadTimeout(3)
    self.assertEqual(small, 609)  # 9 s expected, the least margin
    expected = 3500 / (20000 / 2.5 / 6 * 3) * 3600  # 52.5 minutes
    self.assertGreater(report, expected)
    self.assertLessEqual(report, expected + 3600)
    self.assertEqual(
        tpcc_params.Params(max_warehouses=3500, load_timeout='90m').LoadTimeout(
            3
        ),
        5400,
    )
    self.assertLess(report, 48 * 3600)  # the old default

  def testTheStepBound(self):
    params = tpcc_params.Params(duration='30m', ramp='1m')
    self.assertEqual(params.StepTimeout(), 31 * 60 + 600)
    self.assertEqual(tpcc_params.Params(step_timeout='40m').StepTimeout(), 2400)
    self.assertEqual(
        tpcc_params.Params(duration='4h', ramp='0s').StepTimeout(),
        4 * 3600 + 3600,
    )


if __name__ == '__main__':
  absltest.main()
