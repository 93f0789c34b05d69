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
"""Tests for the cpu phase's use of PKB's CoreMark parser on real outputs."""

import os
import unittest

from benchmarks.cloud_report import parsers
from pkb_ext.suite.cpu import parser as coremark
from pkb_ext.suite.cpu import samples as phase_samples
from tests import pkb_common_test_case

_DATA_DIR = os.path.join(
    os.path.dirname(__file__), os.pardir, 'data', 'coremark'
)


def _Read(name):
  with open(os.path.join(_DATA_DIR, name), encoding='utf-8') as f:
    return f.read()


class CoremarkTest(pkb_common_test_case.PkbCommonTestCase):
  """CoreMark 1.0 outputs, single-core and all-core."""

  def testSingleCoreIsPkbsSample(self):
    result = coremark.Parse(_Read('single_core.txt'))
    self.assertEqual((result.threads, result.parallelism), (1, None))
    self.assertEqual(result.score, 10946.508064)
    self.assertTrue(result.valid_for_reporting)
    self.assertEqual(result.metadata['total_time_sec'], 27.406)
    self.assertEqual(result.metadata['iterations'], 300000)

  def testAllCorePthreads(self):
    result = coremark.Parse(_Read('all_core_pthread_2.txt'), threads=2)
    self.assertEqual((result.threads, result.parallelism), (2, 'pthread'))
    self.assertEqual(result.metadata['thread_count'], 2)

  def testOtherContextCountThanBuiltIsRejected(self):
    with self.assertRaisesRegex(parsers.ParseError, 'ran 2 context.*for 16'):
      coremark.Parse(_Read('all_core_pthread_2.txt'), threads=16)

  def testShortRunIsKeptNotReportable(self):
    result = coremark.Parse(_Read('single_core_short.txt'))
    self.assertEqual(result.score, 12634.238787)
    self.assertFalse(result.valid_for_reporting)
    self.assertIn('1.583 s < 10 s', result.invalid_reason)

  def testShortValidationRunIsRejected(self):
    with self.assertRaises(parsers.ParseError):
      coremark.Parse(_Read('single_core_validation_short.txt'))

  def testUnknownSeedsAreRejected(self):
    with self.assertRaisesRegex(parsers.ParseError, "'CoreMark 1.0 :'"):
      coremark.Parse(_Read('bad_unknown_seeds_short.txt'))

  def testTruncatedOutputNamesTheMissingLines(self):
    text = _Read('single_core.txt')
    with self.assertRaisesRegex(
        parsers.ParseError,
        "no 'Correct operation validated' / 'CoreMark 1.0 :' line",
    ):
      coremark.Parse(text[: len(text) // 2])

  def testSamples(self):
    result = coremark.Parse(_Read('all_core_pthread_2.txt'))
    (run,) = phase_samples.FromResult(result, {'runs_requested': 1}, 'all')
    self.assertEqual(run.metric, 'coremark_score')
    self.assertEqual(run.unit, 'iterations/sec')
    self.assertEqual(run.metadata['mode'], 'all')
    self.assertEqual(run.metadata['parallelism'], 'pthread')
    self.assertIs(run.metadata['valid_for_reporting'], True)


if __name__ == '__main__':
  unittest.main()
