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
"""Tests for the 2021 Cloud Report's netperf parser on real outputs."""

import os
import unittest

from benchmarks.cloud_report import parsers
from benchmarks.cloud_report import phase_table
from benchmarks.cloud_report.net import parser as netperf
from benchmarks.cloud_report.net import samples as phase_samples
from tests import pkb_common_test_case

_DATA_DIR = os.path.join(
    os.path.dirname(__file__), os.pardir, 'data', 'cloud_report'
)


def _Read(tool, name):
  with open(os.path.join(_DATA_DIR, tool, name), encoding='utf-8') as f:
    return f.read()


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


class SamplesTest(pkb_common_test_case.PkbCommonTestCase):

  def testSamplesAreInThePhasesCatalog(self):
    samples = phase_samples.FromResult(
        netperf.Parse(_Read('netperf', 'tcp_rr_keyval.txt'))
    )
    self.assertNotEmpty(samples)
    for s in samples:
      self.assertIn(s.metric, phase_samples.METRICS)

  def testTheToolIsThePhasesPackage(self):
    self.assertEqual(
        phase_table.ByTool('netperf').package,
        phase_samples.__name__.rsplit('.', 2)[-2],
    )


if __name__ == '__main__':
  unittest.main()
