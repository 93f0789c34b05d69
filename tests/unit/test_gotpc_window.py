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
"""go-tpc's measured window: one process runs a step's ramp and its
measured time, and only the interval reports after the ramp count.

Ground truth is read off the captured outputs' own lines (tests/data/tpcc,
PROVENANCE.md): the window's result is what those reports add up to.
"""

import pathlib
from unittest import mock

from absl.testing import absltest
from absl.testing import parameterized

from benchmarks.cloud_report.parsers import ParseError
from benchmarks.cloud_report.tpcc import engines
from benchmarks.cloud_report.tpcc import params as tpcc_params
from pkb_ext.suite import phases
from pkb_ext.suite.tpcc import parser as tpcc
from pkb_ext.tpcc_postgres import engine as pg_engine
from pkb_ext.tpcc_postgres import params as pg_params
from pkb_ext.tpcc_postgres import parser as gotpc_parser

DATA = pathlib.Path(__file__).resolve().parents[1] / 'data' / 'tpcc'
# --time 4500ms --interval 1s: 4 reports, then the summary.
FOUR = 'gotpc_v1.0.9_pg15_2wh_4threads_4500ms_interval1s.txt'
# --time 16500ms --interval 1s: 16 reports.
SIXTEEN = 'gotpc_v1.0.9_pg15_1wh_10threads_16500ms_interval1s.txt'
WAIT = 'gotpc_v1.0.9_pg15_2wh_20threads_wait_4500ms_interval1s.txt'


def _Read(name):
  return (DATA / name).read_text()


def _Windowed(name, ramp_s, duration_s, interval_s=1):
  header = gotpc_parser.WindowHeader(ramp_s, duration_s, interval_s)
  return f'{header}\n{_Read(name)}'


class WindowTest(parameterized.TestCase):

  def testTheWindowIsTheReportsAfterTheRamp(self):
    # NEW_ORDER's [Current] reports (count, Sum(ms), 90th, Max): 248 1781.6
    # 13.6 48.2 (the ramp's), then 282 1470.2 10.5 52.4, 382 1757.6 7.9
    # 79.7, 344 1708.1 9.4 35.7.
    r = tpcc.Parse(_Windowed(FOUR, 1, 3))
    self.assertEqual(r.tool, gotpc_parser.GO_TPC)
    self.assertEqual(r.elapsed_s, 3.0)
    self.assertEqual(r.tpmc, (282 + 382 + 344) * 20)
    self.assertAlmostEqual(r.avg_ms, (1470.2 + 1757.6 + 1708.1) / 1008)
    self.assertEqual((r.p90_ms, r.max_ms), (10.5, 79.7))
    # The summary's 4 _ERR transactions were in flight when --time ended:
    # after the window.
    self.assertEqual(r.errors, 0)
    self.assertAlmostEqual(r.implied_warehouses, 2, delta=0.01)
    self.assertFalse(r.think_time)
    names = [op.name for op in r.operations]
    self.assertEqual(
        names,
        ['DELIVERY', 'NEW_ORDER', 'ORDER_STATUS', 'PAYMENT', 'STOCK_LEVEL'],
    )
    # Without the window line: the whole run's summary, as before.
    whole = tpcc.Parse(_Read(FOUR))
    self.assertEqual((whole.tpmc, whole.errors), (19220.7, 4))

  def testALongerWindow(self):
    counts = [230, 286, 283, 263, 300, 276, 299, 316, 317, 337, 346, 333]
    counts += [308, 327, 305, 333]  # NEW_ORDER's 16 reports
    r = tpcc.Parse(_Windowed(SIXTEEN, 1, 15))
    self.assertEqual(r.tpmc, sum(counts[1:]) * 4)
    self.assertEqual(r.elapsed_s, 15.0)
    self.assertAlmostEqual(r.implied_warehouses, 1, delta=0.01)
    # A ramp of 5 s leaves 11 reports; 10 s are measured, the last one is
    # after the window.
    r = tpcc.Parse(_Windowed(SIXTEEN, 5, 10))
    self.assertEqual(r.tpmc, sum(counts[5:15]) * 6)

  def testTooFewReports(self):
    with self.assertRaisesRegex(ParseError, 'printed 4 interval reports'):
      tpcc.Parse(_Windowed(FOUR, 1, 15))

  def testWaitTimesEndAReport(self):
    # A --wait run: DELIVERY and ORDER_STATUS, their keying times, then
    # PAYMENT and its keying time: two reports.
    reports = gotpc_parser._Reports(_Read(WAIT))
    self.assertEqual(
        [sorted(r) for r in reports],
        [['DELIVERY', 'ORDER_STATUS'], ['PAYMENT']],
    )
    with self.assertRaisesRegex(ParseError, 'lacks NEW_ORDER'):
      tpcc.Parse(_Windowed(WAIT, 1, 3))

  def testAMissedReport(self):
    text = _Windowed(FOUR, 1, 3).replace(
        '[Current] NEW_ORDER - Takes(s): 1.0, Count: 382',
        '[Current] NEW_ORDER - Takes(s): 2.5, Count: 382',
    )
    with self.assertRaisesRegex(ParseError, 'a report was missed'):
      tpcc.Parse(text)

  @parameterized.parameters(
      'cloud_report_gotpc_window: ramp_s=1 duration_s=3 interval_s=2',
      'cloud_report_gotpc_window: ramp_s=1 duration_s=3',
  )
  def testBadWindowLine(self, header):
    with self.assertRaises(ParseError):
      tpcc.Parse(header + '\n' + _Read(FOUR))

  @parameterized.parameters(
      ((60, 1800, 10), 10), ((1, 3, 5), 1), ((2, 20, 5), 1), ((4, 8, 10), 2)
  )
  def testInterval(self, args, want):
    self.assertEqual(gotpc_parser.WindowInterval(*args), want)


class _Vm:
  """A client or db VM that records commands and answers a step's run."""

  def __init__(self, output='', tail_lines=3):
    self.name, self.internal_ip, self.commands = 'vm', '10.0.0.9', []
    self.output, self.tail_lines = output, tail_lines

  def RobustRemoteCommand(self, command, timeout=None):
    del timeout
    self.commands.append(command)
    tail = '\n'.join(self.output.splitlines()[-self.tail_lines :])
    return f'{tail}\ncloud_report_tpcc_exit_status=0\n', ''

  def RemoteCommand(self, command, **_):
    self.commands.append(command)
    return self.output, ''


class RunStepTest(absltest.TestCase):

  def _Step(self, vm, **kwargs):
    params = tpcc_params.Params(**kwargs)
    engine = pg_engine.PostgresEngine(
        params, pg_params.PostgresParams(gotpc_interval='5s')
    )
    topology = phases.Topology((_Vm(),), vm, None)
    return engine.RunStep(topology, 3, 2)

  def testOneProcessWithTheWindow(self):
    vm = _Vm(_Read(FOUR), tail_lines=engines.OUTPUT_TAIL_LINES)
    out, status = self._Step(vm, ramp='1s', duration='3s')
    self.assertEqual(status, 0)
    self.assertLen(vm.commands, 1)  # no ramp run of its own
    self.assertIn('--time 4500ms --interval 1s', vm.commands[0])
    self.assertIn('step-02-3wh.txt', vm.commands[0])
    self.assertEqual(tpcc.Parse(out), tpcc.Parse(_Windowed(FOUR, 1, 3)))

  def testALongLogIsReadWhole(self):
    # The client prints the log's last 40 lines; the log has 89.
    vm = _Vm(_Read(SIXTEEN), tail_lines=40)
    self.assertGreater(len(_Read(SIXTEEN).splitlines()), vm.tail_lines)
    with mock.patch.object(engines, 'OUTPUT_TAIL_LINES', 40):
      out, _ = self._Step(vm, ramp='1s', duration='15s')
    self.assertLen(vm.commands, 2)
    self.assertRegex(vm.commands[1], r'^cat .*step-02-3wh\.txt$')
    self.assertEqual(tpcc.Parse(out), tpcc.Parse(_Windowed(SIXTEEN, 1, 15)))

  def testTheSamplesSayWhatThePercentilesAre(self):
    for ramp, basis in (('1s', 'max_of_interval_reports'), ('0s', 'whole_run')):
      params = tpcc_params.Params(ramp=ramp, duration='3s')
      engine = pg_engine.PostgresEngine(params, pg_params.PostgresParams())
      self.assertEqual(
          engine.StepExtra(3)['latency_percentile_basis'], basis, ramp
      )

  def testNoRampNoWindow(self):
    vm = _Vm(_Read(FOUR), tail_lines=engines.OUTPUT_TAIL_LINES)
    out, _ = self._Step(vm, ramp='0s', duration='3s')
    self.assertIn('--time 3s --interval 5s', vm.commands[0])
    self.assertEqual(tpcc.Parse(out), tpcc.Parse(_Read(FOUR)))


if __name__ == '__main__':
  absltest.main()
