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
"""Tests for pkb_ext's cloud_report_tpcc: the tpcc phase as a benchmark.

It replaces the exported cloud_report_tpcc (same name, same flags) and runs
the same pieces as one of the report's phases: pkb_ext's preflight, samples
stamped with the report's metadata, the search resumed from its state file,
a failure that publishes its samples. The mocked VMs and the captured
outputs they replay are the exported test's
(tests/upstream/linux_benchmarks/cloud_report_tpcc_benchmark_test.py).
"""

import unittest
from unittest import mock

from absl.testing import flagsaver
from perfkitbenchmarker import data
from perfkitbenchmarker import errors
from perfkitbenchmarker import linux_benchmarks
from perfkitbenchmarker import publisher
from benchmarks import cloud_report_tpcc_benchmark as exported_benchmark
from pkb_ext.suite import cloud_report_tpcc_benchmark
from pkb_ext.suite import phases
from pkb_ext.suite import standalone
from pkb_ext_dev import pkb_tests
from tests import pkb_common_test_case

exported = pkb_tests.ExportedTest(
    'linux_benchmarks/cloud_report_tpcc_benchmark_test.py'
)


def _Metric(samples, metric):
  return [s for s in samples if s.metric == metric]


class CloudReportTpccPhaseBenchmarkTest(pkb_common_test_case.PkbCommonTestCase):
  """The tpcc phase run as pkb_ext's cloud_report_tpcc."""

  def setUp(self):
    super().setUp()
    self.enter_context(
        mock.patch.object(data, 'ResourceExists', return_value=True)
    )
    self.enter_context(
        flagsaver.flagsaver(
            **exported.FLAGS,
            cloud_report_tpcc_state_dir=self.create_tempdir().full_path,
            cloud_report_tpcc_engine='cockroach',
        )
    )

  def _Spec(self, outputs=None):
    spec, self.playback = exported.Cluster(outputs)
    return spec

  def testReplacesTheExportedBenchmarkOfItsName(self):
    self.assertIs(
        linux_benchmarks.VALID_BENCHMARKS['cloud_report_tpcc'],
        cloud_report_tpcc_benchmark,
    )
    self.assertNotIn(exported_benchmark, linux_benchmarks.BENCHMARKS)
    groups = cloud_report_tpcc_benchmark.GetConfig({})['vm_groups']
    self.assertEqual(
        {name: group['vm_count'] for name, group in groups.items()},
        {'db': 3, 'client': 1},
    )

  def testCheckPrerequisitesListsEveryProblemOfThePhaseAtOnce(self):
    """The phase's own problems, then why its machines cannot run it."""
    stages = phases.Load('tpcc')
    own = self.enter_context(
        mock.patch.object(stages, 'CheckPrerequisites', return_value=['--a'])
    )
    unrunnable = self.enter_context(
        mock.patch.object(stages, 'Unrunnable', return_value=['x', 'y'])
    )
    check = standalone.Benchmark(
        cloud_report_tpcc_benchmark.BENCHMARK_NAME,
        cloud_report_tpcc_benchmark.BENCHMARK_CONFIG,
    ).CheckPrerequisites
    refused = errors.Setup.InvalidFlagConfigurationError
    with self.assertRaisesRegex(
        refused,
        r'^cloud_report preflight \(nothing was provisioned\):\n  tpcc: --a\n'
        r'  tpcc: x; y$',
    ):
      check('config')
    own.assert_called_with('config')
    unrunnable.return_value = []
    own.side_effect = ValueError('--b is not a number')
    with self.assertRaisesRegex(refused, r'\):\n  tpcc: --b is not a number$'):
      check('config')
    own.side_effect, own.return_value = None, []
    check('config')  # nothing to refuse

  def testRunStampsTheReportsMetadataAndResumesFromItsStateFile(self):
    """The exported search's samples, stamped; a second Run runs nothing."""
    spec = self._Spec()
    samples = cloud_report_tpcc_benchmark.Run(spec)
    self.assertEqual(self.playback.runs, [3500, 3750, 4000])
    (best,) = _Metric(samples, 'tpcc_max_passing_warehouses')
    self.assertEqual(best.value, 3750)
    for s in samples:
      self.assertEqual(s.metadata['phase'], 'tpcc')
      self.assertEqual(s.metadata['cloud'], 'GCP')
      self.assertEqual(s.metadata['engine'], 'cockroach')
    again = cloud_report_tpcc_benchmark.Run(spec)
    self.assertEqual(self.playback.runs, [3500, 3750, 4000])  # none again
    self.assertEqual(
        [s.metadata['resumed'] for s in _Metric(again, 'tpcc_step_passed')],
        [True, True, True],
    )

  def testAWorkloadThatDiesAtTheLowestLevelFailsTheBenchmark(self):
    """Run publishes the failed steps' samples, then raises the failure."""
    spec = self._Spec({3500: (exported.DIED, 1)})
    published = self.enter_context(
        mock.patch.object(publisher, 'PublishRunStageSamples')
    )
    with self.assertRaisesRegex(
        phases.PhaseFailure, r'no result: .*connection reset by peer'
    ):
      cloud_report_tpcc_benchmark.Run(spec)
    self.assertEqual(self.playback.runs, [3500, 3500])  # run, then a retry
    (call,) = published.call_args_list
    self.assertIs(call.args[0], spec)
    self.assertEqual(
        [s.value for s in _Metric(call.args[1], 'tpcc_step_passed')],
        [0.0, 0.0],
    )
    self.assertTrue(spec.always_call_cleanup)  # PKB cleans up all the same
    cloud_report_tpcc_benchmark.Cleanup(spec)  # raises nothing of Run's


if __name__ == '__main__':
  unittest.main()
