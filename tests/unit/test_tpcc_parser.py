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
"""Tests of the TPC-C parsers on real outputs (tests/data/tpcc).

The suite's parser (pkb_ext.suite.tpcc.parser) detects the tool and reads
either engine's output: cockroach workload's with the exported parser,
go-tpc's with pkb_ext.tpcc_postgres.parser; each engine's own parser reads
only its tool's.
"""

import contextlib
import io
import json
import pathlib

from absl.testing import absltest
from absl.testing import parameterized

from pkb_ext import cli
from benchmarks.cloud_report.parsers import ParseError
from benchmarks.cloud_report.tpcc import parser as cockroach_parser
from benchmarks.cloud_report.tpcc import pass_rules
from benchmarks.cloud_report.tpcc import samples as tpcc_samples
from pkb_ext.suite.tpcc import parser as tpcc
from pkb_ext.tpcc_postgres import parser as gotpc_parser

DATA = pathlib.Path(__file__).resolve().parents[1] / 'data' / 'tpcc'


def _Read(name):
  return (DATA / name).read_text()


class CockroachTest(parameterized.TestCase):

  @parameterized.parameters(
      # file, elapsed, tpmC, efc, p50, p90, p95, p99, max, implied warehouses
      ('cockroach_v2.1.5_store_demo_run1.txt', 600.0, 12.2, 94.9,
       1073.7, 1744.8, 2281.7, 5637.1, 6442.5, 1),
      ('cockroach_v2.1.5_store_demo_run2.txt', 600.0, 12.3, 95.6,
       838.9, 1208.0, 1610.6, 5905.6, 6710.9, 1),
      ('cockroach_v20.2.3_resinfra_8node_100wh_30m.txt', 1800.0, 1227.4,
       95.4, 402.7, 536.9, 637.5, 872.4, 2952.8, 100),
      ('cockroach_v21.1_pgbouncer_10wh_10m.txt', 599.3, 122.2, 95.1,
       46.1, 65.0, 71.3, 88.1, 302.0, 10),
      ('cockroach_v22.1.2_9node_8vcpu_3500wh_tail.txt', 720.0, 44008.2,
       97.8, 184.5, 352.3, 402.7, 520.1, 1946.2, 3500),
      ('cockroach_v22.1.2_9node_8vcpu_3750wh_tail.txt', 720.0, 46975.0,
       97.4, 285.2, 503.3, 570.4, 738.2, 5368.7, 3750),
      ('cockroach_v22.1.2_9node_8vcpu_4000wh_tail.txt', 720.0, 43960.1,
       85.5, 906.0, 8321.5, 15569.3, 33286.0, 103079.2, 4000),
  )  # fmt: skip
  def testFinalTable(
      self, name, elapsed, tpmc, efc, p50, p90, p95, p99, pmax, warehouses
  ):
    r = tpcc.Parse(_Read(name))
    self.assertEqual(r.tool, cockroach_parser.COCKROACH)
    self.assertEqual(
        (r.elapsed_s, r.tpmc, r.efficiency_pct),
        (elapsed, tpmc, efc),
    )
    self.assertEqual(
        (r.p50_ms, r.p90_ms, r.p95_ms, r.p99_ms, r.max_ms),
        (p50, p90, p95, p99, pmax),
    )
    self.assertAlmostEqual(r.implied_warehouses, warehouses, delta=3)
    self.assertEqual(
        [op.name for op in r.operations],
        ['delivery', 'newOrder', 'orderStatus', 'payment', 'stockLevel'],
    )

  def testPerOperationTotalsOneHeader(self):  # v2.1 layout
    r = tpcc.Parse(_Read('cockroach_v2.1.5_store_demo_run1.txt'))
    new_order = r.operations[1]
    self.assertEqual(
        (new_order.count, new_order.errors, new_order.avg_ms),
        (122, 0, 1261.0),
    )
    self.assertEqual(new_order.avg_ms, r.avg_ms)  # final table is newOrder's
    self.assertEqual(len(r.audit), 7)
    self.assertEqual(r.audit[0], ('9.2.1.7', 'SKIP'))

  def testPerOperationTotalsHeaderEach(self):  # v20.2+ layout
    r = tpcc.Parse(_Read('cockroach_v22.1.2_9node_8vcpu_4000wh_tail.txt'))
    self.assertEqual(r.operations[3].name, 'payment')
    self.assertEqual(r.operations[3].count, 518686)
    self.assertEqual(r.operations[3].p99_ms, 26843.5)
    self.assertIn(('9.2.1.7', 'FAIL'), r.audit)
    self.assertEqual(r.errors, 0)

  def testTheRealSteppingSequence(self):
    """3,500 and 3,750 pass, 4,000 fails, under both rules."""
    verdicts = {}
    for rule in ('report', 'crl_script'):
      for wh in (3500, 3750, 4000):
        r = tpcc.Parse(_Read(f'cockroach_v22.1.2_9node_8vcpu_{wh}wh_tail.txt'))
        verdicts[rule, wh] = pass_rules.RULES[rule].Judge(r.Metrics())
    self.assertTrue(verdicts['report', 3750][0])
    self.assertEqual(
        verdicts['report', 4000],
        (False, 'fail (report): p90 8321.5 ms >= 5000 ms'),
    )
    self.assertTrue(verdicts['crl_script', 3750][0])
    self.assertEqual(
        verdicts['crl_script', 4000],
        (False, 'fail (crl_script): p95 15569.3 ms >= 10000 ms'),
    )

  def testInterruptedRunParsesWithItsShortElapsed(self):
    r = tpcc.Parse(_Read('cockroach_v22.1.2_mr_4000wh_interrupted_tail.txt'))
    self.assertEqual((r.elapsed_s, r.efficiency_pct), (24.5, 4.5))


class GoTpcTest(absltest.TestCase):

  def testThePhasesParserDetectsGoTpc(self):
    text = _Read('gotpc_v1.0.9_pg15_4wh_4threads_30s.txt')
    self.assertEqual(tpcc.Detect(text), gotpc_parser.GO_TPC)
    self.assertEqual(tpcc.Parse(text), gotpc_parser.ParseGoTpc(text))
    self.assertEqual(tpcc.Parse(text), gotpc_parser.Parse(text))

  def testEachEnginesParserRefusesTheOthersOutput(self):
    gotpc = _Read('gotpc_v1.0.9_pg15_4wh_4threads_30s.txt')
    cockroach = _Read('cockroach_v22.1.2_9node_8vcpu_3750wh_tail.txt')
    with self.assertRaisesRegex(
        ParseError, r'^not `cockroach workload run tpcc` output'
    ):
      cockroach_parser.Parse(gotpc)
    with self.assertRaisesRegex(ParseError, r'^not go-tpc output'):
      gotpc_parser.Parse(cockroach)
    self.assertEqual(cockroach_parser.Parse(cockroach), tpcc.Parse(cockroach))

  def testPlain(self):
    r = tpcc.Parse(_Read('gotpc_v1.0.9_pg15_4wh_4threads_30s.txt'))
    self.assertEqual(r.tool, gotpc_parser.GO_TPC)
    self.assertEqual(
        (r.tpmc, r.tpm_total, r.efficiency_pct), (12051.0, 27072.0, 23427.3)
    )
    self.assertEqual(
        (r.elapsed_s, r.avg_ms, r.p50_ms, r.p90_ms, r.p95_ms, r.p99_ms),
        (30.0, 10.2, 7.3, 22.0, 29.4, 50.3),
    )
    self.assertEqual(r.max_ms, 142.6)
    self.assertEqual(r.errors, 2)  # NEW_ORDER_ERR 1 + PAYMENT_ERR 1
    self.assertFalse(r.think_time)
    self.assertAlmostEqual(r.implied_warehouses, 4, delta=0.01)
    names = [op.name for op in r.operations]
    self.assertEqual(
        names,
        ['DELIVERY', 'NEW_ORDER', 'ORDER_STATUS', 'PAYMENT', 'STOCK_LEVEL'],
    )
    self.assertEqual(r.operations[1].errors, 1)

  def testMoreThreadsMoreLatency(self):
    r = tpcc.Parse(_Read('gotpc_v1.0.9_pg15_2wh_20threads_20s.txt'))
    self.assertEqual((r.tpmc, r.p90_ms, r.errors), (9198.5, 113.2, 19))

  def testWaitIsDetected(self):
    r = tpcc.Parse(_Read('gotpc_v1.0.9_pg15_4wh_40threads_wait_30s.txt'))
    self.assertTrue(r.think_time)
    self.assertEqual((r.tpmc, r.efficiency_pct), (21.8, 42.3))
    samples = tpcc_samples.FromResult(r)
    self.assertEqual(
        samples[0].metadata['efficiency_basis'], 'keying_and_think_time'
    )


def _Cut(name, marker, keep_marker=True):
  text = _Read(name)
  i = text.rindex(marker)
  return text[: i + len(marker)] if keep_marker else text[:i]


class BadInputTest(parameterized.TestCase):

  @parameterized.named_parameters(
      ('empty', '', 'empty TPC-C output'),
      ('blank', '\n  \n', 'empty TPC-C output'),
      (
          'not_tpcc',
          'fio-3.33\nREAD: bw=1MiB/s\n',
          'neither `cockroach workload run tpcc` output',
      ),
      (
          'gotpc_killed_mid_run',  # real: SIGKILL after 15 s
          _Read('gotpc_v1.0.9_bad_killed_mid_run.txt'),
          r'no go-tpc \[Summary\] lines',
      ),
      (
          'gotpc_panic',  # real: connection refused
          _Read('gotpc_v1.0.9_bad_connection_refused_panic.txt'),
          'panicked: failed to connect to database',
      ),
      (
          'crdb_no_final_row',
          _Cut('cockroach_v22.1.2_9node_8vcpu_3500wh_tail.txt', '_pMax(ms)\n'),
          'final table has no row',
      ),
      (
          'crdb_cut_in_final_row',
          _Cut('cockroach_v22.1.2_9node_8vcpu_3500wh_tail.txt', '44008.2  9'),
          'garbled cockroach final row',
      ),
      (
          'crdb_cut_before_final_table',
          _Cut(
              'cockroach_v22.1.2_9node_8vcpu_3500wh_tail.txt',
              'Audit check 9.2.2.5.5',
          ),
          'no cockroach final table',
      ),
      (
          'crdb_garbled_number',
          _Read('cockroach_v21.1_pgbouncer_10wh_10m.txt').replace(
              '122.2  95.1%', '122.2  9x.1%'
          ),
          'garbled cockroach final row',
      ),
      (
          'crdb_garbled_total_row',
          _Read('cockroach_v20.2.3_resinfra_8node_100wh_30m.txt').replace(
              '36821', '36,821'
          ),
          'garbled cockroach total row',
      ),
      (
          'crdb_two_runs',
          _Read('cockroach_v2.1.5_store_demo_run1.txt')
          + _Read('cockroach_v2.1.5_store_demo_run2.txt'),
          '2 cockroach final tables',
      ),
      (
          'gotpc_no_tpmc_line',
          _Cut('gotpc_v1.0.9_pg15_4wh_4threads_30s.txt', 'tpmC:', False),
          'no go-tpc tpmC: line',
      ),
      (
          'gotpc_garbled_summary',
          _Read('gotpc_v1.0.9_pg15_4wh_4threads_30s.txt').replace(
              'Count: 6022', 'Count: six'
          ),
          'NEW_ORDER Count',
      ),
      (
          'gotpc_no_new_order',
          '\n'.join(
              l
              for l in _Read('gotpc_v1.0.9_pg15_4wh_4threads_30s.txt').split(
                  '\n'
              )
              if not l.startswith('[Summary] NEW_ORDER ')
          ),
          'lacks NEW_ORDER',
      ),
      (
          'mixed_tools',
          _Read('cockroach_v2.1.5_store_demo_run1.txt')
          + _Read('gotpc_v1.0.9_pg15_4wh_4threads_30s.txt'),
          'output mixes cockroach and go-tpc results',
      ),
  )
  def testRejected(self, text, message):
    with self.assertRaisesRegex(ParseError, message):
      tpcc.Parse(text)


class CliTest(absltest.TestCase):

  def testParseTpccFile(self):
    out = io.StringIO()
    path = DATA / 'cockroach_v22.1.2_9node_8vcpu_3750wh_tail.txt'
    with contextlib.redirect_stdout(out):
      self.assertEqual(cli.main(['parse', 'tpcc', str(path)]), 0)
    rows = [json.loads(l) for l in out.getvalue().splitlines()]
    by_stat = {
        r['metadata'].get('stat'): r['value']
        for r in rows
        if r['metric'] == 'tpcc_latency'
    }
    self.assertEqual(by_stat['p90'], 503.3)
    tpmc = [r for r in rows if r['metric'] == 'tpcc_tpmc']
    self.assertEqual(tpmc[0]['value'], 46975.0)
    self.assertEqual(tpmc[0]['metadata']['phase'], 'tpcc')

  def testParseBadFileFails(self):
    err = io.StringIO()
    path = DATA / 'gotpc_v1.0.9_bad_killed_mid_run.txt'
    with contextlib.redirect_stderr(err):
      self.assertEqual(cli.main(['parse', 'tpcc', str(path)]), 1)
    self.assertIn('did not finish', err.getvalue())


if __name__ == '__main__':
  absltest.main()
