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
"""Tests for cloud_report_coremark_benchmark on a mocked VM.

The VM answers CoreMark's runs with real CoreMark 1.0 outputs.
"""

import os
import unittest
from unittest import mock

from absl.testing import flagsaver
from perfkitbenchmarker import data
from perfkitbenchmarker import errors
from perfkitbenchmarker import linux_benchmarks
from perfkitbenchmarker import linux_virtual_machine
from benchmarks import cloud_report_coremark_benchmark
from benchmarks.cloud_report import parsers
from benchmarks.cloud_report.cpu import parser
from linux_packages import cloud_report_coremark as coremark
from tests import pkb_common_test_case

_DATA_DIR = os.path.join(
    os.path.dirname(__file__), os.pardir, 'data', 'cloud_report', 'coremark'
)


def _Read(name):
  with open(os.path.join(_DATA_DIR, name), encoding='utf-8') as f:
    return f.read()


SINGLE = _Read('single_core.txt')
ALL_CORE = _Read('all_core_pthread_2.txt')  # 2 threads, pthreads
ROOT = '/opt/pkb/cloud_report_coremark'
TARBALL = f'{ROOT}/coremark-v1.01.tar.gz'


def _Answers(single=SINGLE, all_core=ALL_CORE, threads=2):
  """Command fragment -> responses, for PkbCommonTestCase.MockRemoteCommand."""
  return {
      # The tarball's sha256 and the commit of its pax header, in one.
      'sha256sum /opt': [(
          f'{coremark.TARBALL_SHA256}  {TARBALL}\ncomment={coremark.COMMIT}\n',
          '',
      )],
      'xargs -0 sha256sum': [(f'{coremark.TREE_SHA256}  -\n', '')],
      'coremark-single 0x0': [(single, '')],
      f'coremark-all-pthread-{threads} 0x0': [(all_core, '')],
  }


class CloudReportCoremarkBenchmarkTest(pkb_common_test_case.PkbCommonTestCase):
  """Prepare, Run and Cleanup of the cpu phase on one mocked db VM."""

  def setUp(self):
    super().setUp()
    self.enter_context(
        mock.patch.object(data, 'ResourceExists', return_value=True)
    )
    self.enter_context(flagsaver.flagsaver(cloud_report_coremark_runs=2))

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

  def testRegisteredWithOneDbVm(self):
    self.assertIn(cloud_report_coremark_benchmark, linux_benchmarks.BENCHMARKS)
    config = cloud_report_coremark_benchmark.GetConfig({})
    self.assertEqual(list(config['vm_groups']), ['db'])
    self.assertEqual(config['vm_groups']['db']['vm_count'], 1)

  def testPrepareInstallsVerifiedSourceAndBuildsEachModeOnce(self):
    cloud_report_coremark_benchmark.Prepare(self._Spec(_Answers()))
    self.vm.Install.assert_called_once_with('build_tools')
    self.vm.PushDataFile.assert_called_once_with(coremark.TARBALL, TARBALL)
    builds = self._Commands(' link ')
    self.assertLen(builds, 2)
    self.assertIn('XCFLAGS="" LFLAGS_END="-lrt"', builds[0])
    self.assertIn('-DMULTITHREAD=2 -DUSE_PTHREAD', builds[1])
    self.assertIn('-lrt -lpthread', builds[1])
    self.assertEmpty(self._Commands(' 0x0 0x0 0x66 '))  # nothing run yet

  def testPrepareRefusesATarballOfOtherBytes(self):
    answers = _Answers()
    answers['sha256sum /opt'] = [('0' * 64 + f'  {TARBALL}\n', '')]
    with self.assertRaisesRegex(
        errors.Setup.BadPreprovisionedDataError, 'sha256 is 0{64}'
    ):
      cloud_report_coremark_benchmark.Prepare(self._Spec(answers))
    self.assertEmpty(self._Commands('tar -xzf'))

  def testRunTurnsEachOutputIntoSamples(self):
    """Each run is one sample of its output; the means follow."""
    spec = self._Spec(_Answers())
    samples = cloud_report_coremark_benchmark.Run(spec)
    runs = self._Commands(' 0x0 0x0 0x66 ')
    # First, a run an earlier attempt left is ended.
    self.assertLess(
        self.cmd.all_commands.index('/tmp/cloud_report_running.coremark-*.pid'),
        self.cmd.all_commands.index(runs[0]),
    )
    # Each run is tracked (a PID file while it runs) under its build's tag.
    for run, build in zip(runs, ['single'] * 2 + ['all-pthread-2'] * 2):
      self.assertStartsWith(run, "sh -c '")
      self.assertIn(' setsid "$@" & ', run)
      self.assertIn(f'/tmp/cloud_report_running.coremark-{build}.pid', run)
    self.assertEqual(
        [run[run.index(f' sh {ROOT}/') + 4 :] for run in runs],
        [f'{ROOT}/bin/coremark-single 0x0 0x0 0x66 0 7 1 2000'] * 2
        + [f'{ROOT}/bin/coremark-all-pthread-2 0x0 0x0 0x66 0 7 1 2000'] * 2,
    )
    per_run = [s for s in samples if s.metric == 'coremark_score']
    self.assertEqual(
        [(s.metadata['mode'], s.metadata['iteration'], s.value)
         for s in per_run],
        [('single', 1, 10946.508064), ('single', 2, 10946.508064),
         ('all', 1, parser.Parse(ALL_CORE).score),
         ('all', 2, parser.Parse(ALL_CORE).score)],
    )  # fmt: skip
    (mean,) = [
        s for s in samples
        if s.metric == 'coremark_score_mean' and s.metadata['mode'] == 'all'
    ]  # fmt: skip
    self.assertEqual(mean.value, parser.Parse(ALL_CORE).score)
    for s in samples:
      self.assertEqual(s.metadata['phase'], 'cpu')
      self.assertEqual(s.metadata['cloud'], 'AWS')
      self.assertEqual(s.metadata['region'], 'us-east-1')
      self.assertEqual(s.metadata['machine_type'], 'c5a.4xlarge')
      self.assertEqual(s.metadata['cpu_platform'], 'AMD EPYC 7R32')
      self.assertEqual(s.metadata['coremark_version'], 'v1.01')

  def testAnotherThreadCountThanBuiltIsARunError(self):
    # 16 vCPUs build 16 threads; the captured run has 2.
    spec = self._Spec(_Answers(threads=16), cpus=16)
    with flagsaver.flagsaver(cloud_report_coremark_modes=['all']):
      with self.assertRaisesRegex(
          errors.Benchmarks.RunError, r'ran 2 context.*expected 16'
      ):
        cloud_report_coremark_benchmark.Run(spec)

  def testTruncatedOutputIsAParseError(self):
    spec = self._Spec(_Answers(single=SINGLE[: len(SINGLE) // 3]))
    with self.assertRaises(parsers.ParseError):
      cloud_report_coremark_benchmark.Run(spec)

  def testCleanupRemovesTheInstall(self):
    cloud_report_coremark_benchmark.Cleanup(self._Spec(_Answers()))
    self.assertEqual(self.cmd.all_commands.splitlines(), [f'rm -rf {ROOT}'])


if __name__ == '__main__':
  unittest.main()
