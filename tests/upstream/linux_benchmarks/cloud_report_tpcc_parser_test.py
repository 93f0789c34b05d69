# Copyright 2026 PerfKitBenchmarker Authors. All rights reserved.
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
"""Tests for the 2021 Cloud Report's TPC-C parser on real summaries."""

import os
import unittest

from benchmarks.cloud_report import parsers
from benchmarks.cloud_report.tpcc import parser as tpcc
from benchmarks.cloud_report.tpcc import pass_rules
from benchmarks.cloud_report.tpcc import samples as phase_samples
from tests import pkb_common_test_case

_DATA_DIR = os.path.join(
    os.path.dirname(__file__), os.pardir, 'data', 'cloud_report'
)


def _Read(tool, name):
  with open(os.path.join(_DATA_DIR, tool, name), encoding='utf-8') as f:
    return f.read()


class TpccTest(pkb_common_test_case.PkbCommonTestCase):
  """TPC-C summaries of cockroach workload."""

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
        verdicts[rule, wh] = pass_rules.RULES[rule].Judge(r.Metrics())
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

  def testARunThatDiedIsRejected(self):
    # It died before its first progress table: nothing in it is a result.
    with self.assertRaisesRegex(
        parsers.ParseError,
        r'(?:not|neither) `cockroach workload run tpcc` output',
    ):
      tpcc.Parse(_Read('tpcc', 'cockroach_died_connection_reset.txt'))


class SamplesTest(pkb_common_test_case.PkbCommonTestCase):
  """The TPC-C samples of a parsed result."""

  def testSamplesAreInThePhasesCatalog(self):
    samples = phase_samples.FromResult(
        tpcc.Parse(
            _Read('tpcc', 'cockroach_v20.2.3_resinfra_8node_100wh_30m.txt')
        )
    )
    self.assertNotEmpty(samples)
    for s in samples:
      self.assertIn(s.metric, phase_samples.METRICS)


if __name__ == '__main__':
  unittest.main()
