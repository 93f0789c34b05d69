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
"""Tests for cloud_report_coremark_benchmark on a mocked VM.

The phase runs PKB's coremark functions; the VM answers each run's log with
a real CoreMark 1.0 output.
"""

import os
import unittest
from unittest import mock

from absl.testing import flagsaver
from benchmarks.cloud_report import parsers
from perfkitbenchmarker import linux_benchmarks
from perfkitbenchmarker.linux_benchmarks import coremark_benchmark
from perfkitbenchmarker import linux_virtual_machine
from pkb_ext.suite import cloud_report_coremark_benchmark
from pkb_ext.suite.cpu import stages
from tests import pkb_common_test_case

_DATA_DIR = os.path.join(
    os.path.dirname(__file__), os.pardir, 'data', 'coremark'
)


def _Read(name):
  with open(os.path.join(_DATA_DIR, name), encoding='utf-8') as f:
    return f.read()


SINGLE = _Read('single_core.txt')
ALL_CORE = _Read('all_core_pthread_2.txt')  # 2 threads, pthreads
TREE = coremark_benchmark.COREMARK_DIR


def _Answers(single=SINGLE, all_core=ALL_CORE):
  """Command fragment -> responses, for PkbCommonTestCase.MockRemoteCommand.

  Two runs per mode read the same log file: single, single, all, all.
  """
  return {f'cat {TREE}/run1.log': [(single, '')] * 2 + [(all_core, '')] * 2}


class CloudReportCoremarkBenchmarkTest(pkb_common_test_case.PkbCommonTestCase):
  """Prepare, Run and Cleanup of the cpu phase on one mocked db VM."""

  def setUp(self):
    super().setUp()
    self.enter_context(
        flagsaver.flagsaver(
            cloud_report_coremark_runs=2,
            coremark_parallelism_method='PTHREAD',
        )
    )

  def _Spec(self, answers, cpus=2):
    """Returns a spec whose db VM answers with answers."""
    vm = mock.create_autospec(linux_virtual_machine.BaseLinuxVirtualMachine)
    vm.name = 'db-0'
    vm.CLOUD = 'AWS'
    vm.zone = 'us-east-1a'
    vm.machine_type = 'c5a.4xlarge'
    vm.scratch_disks = []
    vm.NumCpusForBenchmark.return_value = cpus
    vm.CheckLsCpu.return_value.data = {'Model name': 'AMD EPYC 7R32'}
    self.vm = vm
    self.cmd = self.MockRemoteCommand(answers, vm).RemoteCommand.mock_command
    spec = mock.Mock()
    spec.vm_groups = {'db': [vm]}
    return spec

  def _Commands(self, fragment):
    return [c for c in self.cmd.all_commands.splitlines() if fragment in c]

  def testRegisteredWithOneDbVmAndPthreads(self):
    self.assertIn(cloud_report_coremark_benchmark, linux_benchmarks.BENCHMARKS)
    config = cloud_report_coremark_benchmark.GetConfig({})
    self.assertEqual(list(config['vm_groups']), ['db'])
    self.assertEqual(config['vm_groups']['db']['vm_count'], 1)
    self.assertEqual(
        config['flags'], {'coremark_parallelism_method': 'PTHREAD'}
    )

  def testPrepareInstallsPkbsPackageAndLinksPthreads(self):
    cloud_report_coremark_benchmark.Prepare(self._Spec(_Answers()))
    self.vm.Install.assert_called_once_with('coremark')
    (sed,) = self._Commands('sed -i')
    self.assertIn('-lrt -lpthread', sed)
    self.assertIn(f'{TREE}/linux64/core_portme.mak', sed)
    self.assertEmpty(self._Commands('make'))  # nothing run yet

  def testRunTracksPkbsMakeAndTurnsEachLogIntoSamples(self):
    """Each run is PKB's make, tracked; each log it leaves is one sample."""
    spec = self._Spec(_Answers())
    samples = cloud_report_coremark_benchmark.Run(spec)
    makes = self._Commands(' make PORT_DIR=linux64 ITERATIONS=')
    self.assertLen(makes, 4)
    # First, a run an earlier attempt left is ended.
    self.assertLess(
        self.cmd.all_commands.index('/tmp/cloud_report_running.coremark-*.pid'),
        self.cmd.all_commands.index(makes[0]),
    )
    # Each make is tracked under its build's tag and bounded (GNU timeout:
    # 2 calibrated runs of at most 12 + 22 s and 120 s of builds, plus 600
    # s), with CoreMark calibrating its iterations (ITERATIONS=0) instead of
    # PKB's fixed count.
    for make, (tag, threads) in zip(
        makes, [('single', 1)] * 2 + [('all-2', 2)] * 2
    ):
      self.assertStartsWith(make, "sh -c '")
      self.assertIn(' timeout -k 30 788 sh -c ', make)
      self.assertIn(f'/tmp/cloud_report_running.coremark-{tag}.pid', make)
      self.assertIn(' ITERATIONS=0 ', make)
      self.assertIn(f'-DMULTITHREAD={threads} -DUSE_PTHREAD', make)
    per_run = [s for s in samples if s.metric == 'coremark_score']
    self.assertEqual(
        [(s.metadata['mode'], s.metadata['iteration'], s.value)
         for s in per_run],
        [('single', 1, 10946.508064), ('single', 2, 10946.508064),
         ('all', 1, 13380.367352), ('all', 2, 13380.367352)],
    )  # fmt: skip
    self.assertEqual(per_run[-1].metadata['parallelism'], 'pthread')
    self.assertEqual(per_run[-1].metadata['iterations_per_cpu'], 0)
    (mean,) = [
        s for s in samples
        if s.metric == 'coremark_score_mean' and s.metadata['mode'] == 'all'
    ]  # fmt: skip
    self.assertEqual(mean.value, 13380.367352)
    for s in samples:
      self.assertEqual(s.metadata['phase'], 'cpu')
      self.assertEqual(s.metadata['cloud'], 'AWS')
      self.assertEqual(s.metadata['machine_type'], 'c5a.4xlarge')
      self.assertEqual(s.metadata['coremark_version'], 'v1.01')

  @flagsaver.flagsaver(cloud_report_coremark_iterations=20000)
  def testFixedIterations(self):
    cloud_report_coremark_benchmark.Run(self._Spec(_Answers()))
    for make in self._Commands(' make PORT_DIR=linux64 '):
      self.assertIn(' ITERATIONS=20000 ', make)

  def testAnotherThreadCountThanBuiltIsAParseError(self):
    # 16 vCPUs build 16 threads; the captured run has 2.
    spec = self._Spec({f'cat {TREE}/run1.log': [(ALL_CORE, '')]}, cpus=16)
    with flagsaver.flagsaver(cloud_report_coremark_modes=['all']):
      with self.assertRaisesRegex(parsers.ParseError, r'ran 2 context.*16'):
        cloud_report_coremark_benchmark.Run(spec)

  def testTruncatedOutputIsAParseErrorNamingTheLine(self):
    spec = self._Spec(_Answers(single=SINGLE[: len(SINGLE) // 3]))
    with self.assertRaisesRegex(
        parsers.ParseError, 'no .Correct operation validated.'
    ):
      cloud_report_coremark_benchmark.Run(spec)

  def testCleanupRemovesTheTree(self):
    cloud_report_coremark_benchmark.Cleanup(self._Spec(_Answers()))
    self.assertIn(f'rm -rf {TREE}', self.cmd.all_commands.splitlines())

  def testWithIterationsNeedsOneArgument(self):
    self.assertEqual(
        stages.WithIterations('make ITERATIONS=1000000 XCFLAGS=""', 0),
        'make ITERATIONS=0 XCFLAGS=""',
    )
    with self.assertRaisesRegex(Exception, 'no single ITERATIONS'):
      stages.WithIterations('make XCFLAGS=""', 0)


if __name__ == '__main__':
  unittest.main()
