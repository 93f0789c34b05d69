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
"""Tests for the 2021 Cloud Report's CoreMark parser on real outputs."""

import os
import unittest

from benchmarks.cloud_report import parsers
from benchmarks.cloud_report import phase_table
from benchmarks.cloud_report.cpu import parser as coremark
from benchmarks.cloud_report.cpu import samples as phase_samples
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


class SamplesTest(pkb_common_test_case.PkbCommonTestCase):

  def testSamplesAreInThePhasesCatalog(self):
    samples = phase_samples.FromResult(
        coremark.Parse(_Read('coremark', 'single_core.txt'))
    )
    self.assertNotEmpty(samples)
    for s in samples:
      self.assertIn(s.metric, phase_samples.METRICS)

  def testTheToolIsThePhasesPackage(self):
    self.assertEqual(
        phase_table.ByTool('coremark').package,
        phase_samples.__name__.rsplit('.', 2)[-2],
    )


if __name__ == '__main__':
  unittest.main()
