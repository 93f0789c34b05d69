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
"""Tests for each phase's estimate module (pkb_ext.plan.phase_estimates)."""

import pathlib

from absl.testing import absltest

from pkb_ext.suite import phase_table
from pkb_ext.suite import phases
from pkb_ext.plan import estimates
from pkb_ext.plan import phase_estimates
from pkb_ext.suite import phase_modules

ROOT = pathlib.Path(__file__).resolve().parents[2]


class PhaseEstimatesTest(absltest.TestCase):

  def testEveryPhaseHasItsEstimateInTheTablesOrder(self):
    self.assertEqual(tuple(phase_estimates.BY_PHASE), phase_table.ORDER)
    for name, module in phase_estimates.BY_PHASE.items():
      # Named for the phase's package of benchmarks/cloud_report.
      self.assertEqual(
          module.__name__,
          f'{phase_estimates.__name__}.{phase_table.Get(name).package}',
      )

  def testEachEstimateAtTheDefaultsIsThePhasesOwnTimedParts(self):
    for name in phases.ORDER:
      parts = phase_estimates.Estimate(name, estimates.Context())
      self.assertTrue(parts, name)
      for part in parts:
        self.assertTrue(part.name.startswith(name), (name, part))
        self.assertGreater(part.seconds, 0, (name, part))

  def testTheEstimateIsTheModulesOnTheFlagsParams(self):
    context = estimates.Context(db_nodes=3)
    self.assertEqual(
        phase_estimates.Estimate('tpcc', context),
        phase_estimates.BY_PHASE['tpcc'].Estimate(
            phases.ReadParams('tpcc'), context
        ),
    )

  def testAnUnknownPhaseIsRefused(self):
    with self.assertRaisesRegex(ValueError, "unknown phase 'gpu'"):
      phase_estimates.Estimate('gpu', estimates.Context())

  def testAnUnknownRateIsRefused(self):
    with self.assertRaisesRegex(KeyError, 'not a rate an estimate knows'):
      estimates.Context().Rate('cpu_run_seconds')

  def testNoEstimateIsLeftInTheExportedCode(self):
    phase_modules.LoadAll()
    for row in phase_table.TABLE:
      stages = phases.Load(row.sample)
      package = pathlib.Path(stages.__file__).parent
      self.assertFalse((package / 'estimate.py').exists(), row.package)
      self.assertFalse(hasattr(stages, 'ESTIMATE'), row.package)
    self.assertFalse(hasattr(phases, 'Estimate'))
    self.assertFalse(
        (ROOT / 'benchmarks' / 'cloud_report' / 'estimates.py').exists()
    )


if __name__ == '__main__':
  absltest.main()
