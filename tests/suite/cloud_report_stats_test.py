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
"""Tests for the 2021 Cloud Report's repetition statistics."""

import math
import unittest

import numpy as np

from pkb_ext.suite import stats
from tests import pkb_common_test_case


class SummarizeTest(pkb_common_test_case.PkbCommonTestCase):
  """Mean, spread and confidence interval of repetitions."""

  def testAgainstNumpy(self):
    """The summary agrees with numpy's figures."""
    values = [308852.0, 301200.5, 310004.2, 299876.1, 305432.9]
    s = stats.Summarize(values)
    self.assertEqual(s.n, 5)
    self.assertAlmostEqual(s.mean, np.mean(values))
    self.assertAlmostEqual(s.stddev, np.std(values, ddof=1))
    self.assertEqual(s.minimum, min(values))
    self.assertEqual(s.maximum, max(values))
    self.assertAlmostEqual(
        s.cv_pct, np.std(values, ddof=1) / np.mean(values) * 100
    )
    # t(0.975, 4) = 2.7764451
    self.assertAlmostEqual(
        s.ci95_half_width,
        2.7764451052 * np.std(values, ddof=1) / math.sqrt(5),
        places=4,
    )

  def testSingleValue(self):
    s = stats.Summarize([7])
    self.assertEqual((s.n, s.mean, s.stddev), (1, 7.0, 0.0))
    self.assertTrue(math.isnan(s.ci95_half_width))

  def testZeroMeanCvIsNan(self):
    self.assertTrue(math.isnan(stats.Summarize([-1, 1]).cv_pct))

  def testRejectsEmptyAndNonFinite(self):
    with self.assertRaisesRegex(ValueError, 'no values'):
      stats.Summarize([])
    with self.assertRaisesRegex(ValueError, 'finite'):
      stats.Summarize([1.0, float('nan')])
    with self.assertRaisesRegex(ValueError, 'finite'):
      stats.Summarize([1.0, float('inf')])


class BimodalityTest(pkb_common_test_case.PkbCommonTestCase):
  """Repetitions that fall in two clusters are flagged."""

  def testTwoClustersLookBimodal(self):
    # The report's AWS network: about 5 vs 10 Gbps, over 20 repetitions.
    values = [4.9, 5.0, 5.1, 5.0, 4.95] * 2 + [9.8, 10.0, 10.1, 9.9, 10.05] * 2
    self.assertGreater(stats.BimodalityCoefficient(values), 5 / 9)
    self.assertTrue(stats.LooksBimodal(values))

  def testFewRepetitionsAreNotEnoughEvidence(self):
    # The small-sample correction keeps 8 values of two clusters below 5/9.
    values = [4.9, 5.0, 5.1, 5.0, 9.8, 10.0, 10.1, 9.9]
    self.assertLess(stats.BimodalityCoefficient(values), 5 / 9)

  def testOneClusterDoesNot(self):
    rng = np.random.default_rng(7)
    values = list(rng.normal(10.0, 0.2, size=200))
    self.assertLess(stats.BimodalityCoefficient(values), 5 / 9)
    self.assertFalse(stats.LooksBimodal(values))

  def testTooFewOrIdentical(self):
    with self.assertRaisesRegex(ValueError, 'at least 4'):
      stats.BimodalityCoefficient([1, 2, 3])
    with self.assertRaisesRegex(ValueError, 'identical'):
      stats.BimodalityCoefficient([2, 2, 2, 2])
    self.assertFalse(stats.LooksBimodal([1, 2, 3]))
    self.assertFalse(stats.LooksBimodal([2, 2, 2, 2]))


if __name__ == '__main__':
  unittest.main()
