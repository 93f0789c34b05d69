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
"""Tests for the 2021 Cloud Report's netperf parser on real outputs."""

import os
import unittest

from benchmarks.cloud_report import parsers
from pkb_ext.suite import phase_table
from pkb_ext.suite.net import parser as netperf
from pkb_ext.suite.net import samples as phase_samples
from tests import pkb_common_test_case

_DATA_DIR = os.path.join(os.path.dirname(__file__), os.pardir, 'data')


def _Read(tool, name):
  with open(os.path.join(_DATA_DIR, tool, name), encoding='utf-8') as f:
    return f.read()


class NetperfTest(pkb_common_test_case.PkbCommonTestCase):
  """The net phase's -o netperf outputs, read with PKB's netperf parser."""

  def testRequestResponse(self):
    result = netperf.Parse(_Read('netperf', 'tcp_rr_csv.txt'))
    self.assertEqual(result.style, 'csv')
    self.assertEqual(result.transaction_rate, 51131.017)
    self.assertEqual(result.latency_us.mean, 19.52)
    self.assertEqual(result.warnings, ())

  def testStreamWithConfidence(self):
    result = netperf.Parse(_Read('netperf', 'tcp_stream_csv_confidence.txt'))
    self.assertEqual(result.throughput_mbps, 7064.50)
    self.assertIs(result.confidence.met, False)

  def testMissingColumnOfPkbsParserIsRejected(self):
    with self.assertRaises(parsers.ParseError):
      netperf.Parse(_Read('netperf', 'tcp_rr_csv_confidence.txt'))

  def testConnectionRefusedIsRejected(self):
    with self.assertRaises(parsers.ParseError):
      netperf.Parse(_Read('netperf', 'bad_connection_refused.txt'))

  def testVersion(self):
    self.assertEqual(
        netperf.ParseVersion(_Read('netperf', 'netperf_version.txt')),
        (2, 7, 0),
    )
    self.assertIsNone(netperf.ParseVersion('sh: 1: netperf: not found'))


class SamplesTest(pkb_common_test_case.PkbCommonTestCase):

  def testSamplesAreInThePhasesCatalog(self):
    samples = phase_samples.FromResult(
        netperf.Parse(_Read('netperf', 'tcp_rr_csv_phase.txt'))
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
