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
"""Tests for the 2021 Cloud Report's parsers on real captured tool outputs.

The outputs are in tests/data/cloud_report/<tool>/, each described by the
PROVENANCE.md beside it.
"""

import json
import os
import unittest

from pkb_cloud_report.benchmarks.cloud_report import parsers
from pkb_cloud_report.benchmarks.cloud_report import stepping
from pkb_cloud_report.benchmarks.cloud_report.parsers import coremark
from pkb_cloud_report.benchmarks.cloud_report.parsers import fio
from pkb_cloud_report.benchmarks.cloud_report.parsers import netperf
from pkb_cloud_report.benchmarks.cloud_report.parsers import tpcc
from pkb_cloud_report.benchmarks.cloud_report.parsers import ttfb
from tests import pkb_common_test_case

_DATA_DIR = os.path.join(
    os.path.dirname(__file__), os.pardir, 'data', 'cloud_report'
)


def _Read(tool, name):
  with open(os.path.join(_DATA_DIR, tool, name), encoding='utf-8') as f:
    return f.read()


class CoremarkTest(pkb_common_test_case.PkbCommonTestCase):
  """CoreMark 1.0 outputs, single-core and all-core."""

  def testSingleCore(self):
    result = coremark.Parse(_Read('coremark', 'single_core.txt'))
    self.assertEqual(result.threads, 1)
    self.assertEqual(result.run_type, '2K performance')
    self.assertTrue(result.validated)
    self.assertTrue(result.valid_for_reporting)
    self.assertEqual(result.crcfinal, ('0xcc42',))
    self.assertEqual(result.coremark_size, 666)
    self.assertStartsWith(result.summary_line, 'CoreMark 1.0 : 10946.508064 /')
    self.assertEqual(result.score, 10946.508064)

  def testAllCorePthreads(self):
    result = coremark.Parse(_Read('coremark', 'all_core_pthread_2.txt'))
    self.assertEqual((result.threads, result.parallelism), (2, 'pthread'))
    self.assertEqual(result.iterations_per_thread, result.iterations // 2)

  def testUnknownSeedsAreRejected(self):
    with self.assertRaisesRegex(parsers.ParseError, 'not a known CoreMark set'):
      coremark.Parse(_Read('coremark', 'bad_unknown_seeds_short.txt'))

  def testTruncatedOutputIsRejected(self):
    text = _Read('coremark', 'single_core.txt')
    with self.assertRaises(parsers.ParseError):
      coremark.Parse(text[: len(text) // 3])


class FioTest(pkb_common_test_case.PkbCommonTestCase):
  """fio JSON of the report's job file."""

  def testEveryJobOfTheReportsJobFile(self):
    """Every job is parsed, with its own and the global options."""
    text = _Read('fio', 'all_jobs.json')
    doc = json.loads(text)
    result = fio.Parse(text)
    self.assertEqual(result.fio_version, 'fio-3.33')
    self.assertEqual(
        [j.name for j in result.jobs], [j['jobname'] for j in doc['jobs']]
    )
    rd_iops = result.Job('rd-iops')
    self.assertEqual(rd_iops.Option('rw'), 'randread')
    self.assertEqual(rd_iops.Option('numjobs'), '4')
    self.assertEqual(rd_iops.Option('iodepth'), '512')
    self.assertEqual(rd_iops.Option('ioengine'), 'libaio')

  def testLatencyTarget(self):
    target = fio.Parse(_Read('fio', 'job_target.json')).Job('target')
    self.assertEqual(target.latency_target.target_us, 1_000_000)
    self.assertEqual(target.latency_target.window_us, 10_000_000)
    self.assertEqual(target.latency_target.percentile, 95.0)

  def testFioErrorIsRejected(self):
    with self.assertRaises(parsers.ParseError):
      fio.Parse(_Read('fio', 'bad_option.txt'))


class NetperfTest(pkb_common_test_case.PkbCommonTestCase):
  """netperf outputs in each report style."""

  def testHumanRequestResponse(self):
    result = netperf.Parse(_Read('netperf', 'tcp_rr_human.txt'))
    self.assertEqual(result.style, 'human')
    self.assertEqual(result.transaction_rate, 56218.227)
    self.assertEqual(result.warnings, ())

  def testKeyvalWithConfidence(self):
    text = _Read('netperf', 'tcp_rr_keyval_confidence.txt')
    fields = dict(
        line.split('=', 1) for line in text.splitlines() if '=' in line
    )
    result = netperf.Parse(text)
    self.assertEqual(result.style, 'keyval')
    self.assertEqual(result.latency_us.p90, float(fields['P90_LATENCY']))
    self.assertEqual(result.latency_us.p50, float(fields['P50_LATENCY']))

  def testConnectionRefusedIsRejected(self):
    with self.assertRaises(parsers.ParseError):
      netperf.Parse(_Read('netperf', 'bad_connection_refused.txt'))


class TpccTest(pkb_common_test_case.PkbCommonTestCase):
  """TPC-C summaries of cockroach workload and go-tpc."""

  def testCockroachFinalTable(self):
    r = tpcc.Parse(
        _Read('tpcc', 'cockroach_v20.2.3_resinfra_8node_100wh_30m.txt')
    )
    self.assertEqual(r.tool, tpcc.COCKROACH)
    self.assertEqual(
        (r.elapsed_s, r.tpmc, r.efficiency_pct), (1800.0, 1227.4, 95.4)
    )
    self.assertEqual(
        (r.p50_ms, r.p90_ms, r.p95_ms, r.p99_ms, r.max_ms),
        (402.7, 536.9, 637.5, 872.4, 2952.8),
    )

  def testTheRealSteppingSequence(self):
    """3,500 and 3,750 warehouses pass, 4,000 fails, under both rules."""
    verdicts = {}
    for rule in ('report', 'crl_script'):
      for wh in (3500, 3750, 4000):
        r = tpcc.Parse(
            _Read('tpcc', f'cockroach_v22.1.2_9node_8vcpu_{wh}wh_tail.txt')
        )
        verdicts[rule, wh] = stepping.RULES[rule].Judge(r.Metrics())
    self.assertTrue(verdicts['report', 3500][0])
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

  def testGoTpc(self):
    r = tpcc.Parse(_Read('tpcc', 'gotpc_v1.0.9_pg15_4wh_4threads_30s.txt'))
    self.assertEqual(r.tool, tpcc.GO_TPC)
    self.assertEqual((r.tpmc, r.tpm_total), (12051.0, 27072.0))
    self.assertEqual(r.errors, 2)

  def testKilledRunIsRejected(self):
    with self.assertRaises(parsers.ParseError):
      tpcc.Parse(_Read('tpcc', 'gotpc_v1.0.9_bad_killed_mid_run.txt'))


class TtfbTest(pkb_common_test_case.PkbCommonTestCase):
  """The object storage worker's JSON lines."""

  def testCompleteRun(self):
    result = ttfb.Parse(_Read('ttfb', 's3_boto3_complete.jsonl'))
    self.assertEqual(result.header.provider, 's3')
    self.assertEqual(result.problems, ())
    self.assertEqual(sum(e.errors for e in result.errors), 0)

  def testPercentileInterpolatesBetweenRanks(self):
    self.assertEqual(ttfb.Percentile([10, 20], 50), 15)
    self.assertAlmostEqual(ttfb.Percentile(list(range(1, 1001)), 99.9), 999.001)


class ParseTextTest(pkb_common_test_case.PkbCommonTestCase):
  """From a tool's output to PKB samples."""

  def testEveryToolGivesPhaseStampedSamples(self):
    """Each tool's samples name the phase they belong to."""
    files = {
        'coremark': 'single_core.txt',
        'fio': 'all_jobs.json',
        'netperf': 'tcp_rr_keyval.txt',
        'ttfb': 's3_boto3_complete.jsonl',
        'tpcc': 'gotpc_v1.0.9_pg15_4wh_4threads_30s.txt',
    }
    self.assertCountEqual(files, parsers.TOOLS)
    for tool, name in files.items():
      samples = parsers.ParseText(tool, _Read(tool, name))
      self.assertNotEmpty(samples, tool)
      for s in samples:
        self.assertEqual(s.metadata['phase'], parsers.TOOLS[tool].phase)


if __name__ == '__main__':
  unittest.main()
