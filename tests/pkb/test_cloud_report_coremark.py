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
"""cloud_report_coremark through PKB, with mocked VMs (PKB's test style).

The VMs answer the phase's commands with real CoreMark outputs from
tests/data/coremark. Three levels: the install package's commands and
checks; the benchmark module's Prepare/Run/Cleanup on a mocked PKB VM; and
stock PKB's real Main (pkb_ext_dev.stock_pkb, run in a subprocess) on a
fake static VM.
"""

import pathlib
from unittest import mock

from absl.testing import flagsaver
from perfkitbenchmarker import data
from perfkitbenchmarker import errors
from perfkitbenchmarker import linux_benchmarks
from perfkitbenchmarker import linux_virtual_machine

from benchmarks import cloud_report_coremark_benchmark as benchmark
from benchmarks.cloud_report.cpu import parser
from benchmarks.cloud_report.cpu import stages as cpu
from linux_packages import cloud_report_coremark as pkg
from pkb_ext_dev import pkb_tests
from pkb_ext_dev import stock_pkb
from pkb_ext_dev import fidelity as fidelity_lib

pkb_common_test_case = pkb_tests.Import('pkb_common_test_case')

DATA = pathlib.Path(__file__).resolve().parent.parent / 'data' / 'coremark'
SINGLE = (DATA / 'single_core.txt').read_text()
ALL_2 = (DATA / 'all_core_pthread_2.txt').read_text()
ALL_16 = (DATA / 'all_core_pthread_16_short.txt').read_text()
TAR = '/opt/pkb/cloud_report_coremark/coremark-v1.01.tar.gz'


def _Answers(tar_sha=pkg.TARBALL_SHA256, commit=pkg.COMMIT,
             tree=pkg.TREE_SHA256, all_output=ALL_2, threads=2):  # fmt: skip
  """Command fragment -> [(stdout, stderr)] for MockRemoteCommand."""
  return {
      'xargs -0 sha256sum': [(f'{tree}  -\n', '')],
      # One command prints the tarball's sha256 and its pax commit.
      'sha256sum /opt': [(f'{tar_sha}  {TAR}\ncomment={commit}\n', '')],
      'coremark-single 0x0': [(SINGLE, '')],
      f'coremark-all-pthread-{threads} 0x0': [(all_output, '')],
  }


def _Vm(test, answers, cpus=2):
  vm = mock.create_autospec(linux_virtual_machine.BaseLinuxVirtualMachine)
  vm.NumCpusForBenchmark.return_value = cpus
  vm.CLOUD = 'AWS'
  vm.zone = 'us-east-1a'
  vm.machine_type = 'c5a.4xlarge'
  vm.scratch_disks = []
  vm.CheckLsCpu.return_value.data = {'Model name': 'AMD EPYC 7R32'}
  cmd = test.MockRemoteCommand(answers, vm).RemoteCommand.mock_command
  return vm, cmd


class PackageTest(pkb_common_test_case.PkbCommonTestCase):

  def testCompileFlags(self):
    self.assertEqual(pkg.CompileFlags(1, 'pthread'), ('', '-lrt'))
    self.assertEqual(
        pkg.CompileFlags(16, 'pthread'),
        ('-DMULTITHREAD=16 -DUSE_PTHREAD', '-lrt -lpthread'),
    )
    self.assertEqual(
        pkg.CompileFlags(4, 'fork'), ('-DMULTITHREAD=4 -DUSE_FORK', '-lrt')
    )
    self.assertEqual(
        pkg.CompileFlags(4, 'socket'), ('-DMULTITHREAD=4 -DUSE_SOCKET', '-lrt')
    )
    with self.assertRaisesRegex(ValueError, 'unknown CoreMark parallelism'):
      pkg.CompileFlags(4, 'openmp')
    with self.assertRaisesRegex(ValueError, 'at least one thread'):
      pkg.CompileFlags(0, 'pthread')

  def testBuildAndRunCommands(self):
    build = pkg.BuildCommand('coremark-all-pthread-16', 16, 'pthread')
    self.assertIn('make PORT_DIR=linux64 XCFLAGS="-DMULTITHREAD=16', build)
    self.assertIn('LFLAGS_END="-lrt -lpthread" link', build)
    self.assertIn('/opt/pkb/cloud_report_coremark/bin/coremark-all', build)
    self.assertEqual(
        pkg.RunCommand('coremark-single', 0),
        '/opt/pkb/cloud_report_coremark/bin/coremark-single'
        ' 0x0 0x0 0x66 0 7 1 2000',
    )
    with self.assertRaises(ValueError):
      pkg.RunCommand('coremark-single', -1)

  @mock.patch.object(data, 'ResourceExists', return_value=True)
  def testInstallsTheDataSearchPathTarball(self, _):
    vm, cmd = _Vm(self, _Answers())
    pkg.Install(vm)
    vm.Install.assert_called_once_with('build_tools')
    vm.PushDataFile.assert_called_once_with(pkg.TARBALL, TAR)
    self.assertNotIn('wget', cmd.all_commands)
    self.assertIn('--strip-components=1', cmd.all_commands)

  @mock.patch.object(data, 'ResourceExists', return_value=True)
  def testRefusesAnotherLocalTarball(self, _):
    vm, cmd = _Vm(self, _Answers(tar_sha='0' * 64))
    with self.assertRaisesRegex(
        errors.Setup.BadPreprovisionedDataError,
        'from the data search path: sha256 is 0{64}, expected b49f82',
    ):
      pkg.Install(vm)
    self.assertNotIn('tar -xzf', cmd.all_commands)

  @mock.patch.object(data, 'ResourceExists', return_value=False)
  def testGithubArchiveWithOtherBytesButSameCommitAndTree(self, _):
    vm, cmd = _Vm(self, _Answers(tar_sha='1' * 64))
    self.assertEqual(pkg.InstallSource(vm), pkg.SOURCE_GITHUB)
    vm.Install.assert_called_once_with('wget')
    self.assertIn(f'wget -q -O {TAR} {pkg.GITHUB_URL}', cmd.all_commands)
    vm.PushDataFile.assert_not_called()

  @mock.patch.object(data, 'ResourceExists', return_value=False)
  def testGithubArchiveOfAnotherCommitIsRefused(self, _):
    vm, _ = _Vm(self, _Answers(commit='a' * 40))
    with self.assertRaisesRegex(
        errors.Setup.BadPreprovisionedDataError, 'git commit'
    ):
      pkg.InstallSource(vm)

  @mock.patch.object(data, 'ResourceExists', return_value=False)
  def testGithubArchiveWithOtherFilesIsRefused(self, _):
    vm, _ = _Vm(self, _Answers(tree='f' * 64))
    with self.assertRaisesRegex(
        errors.Setup.BadPreprovisionedDataError, 'file tree sha256 is f{64}'
    ):
      pkg.InstallSource(vm)


class BenchmarkModuleTest(pkb_common_test_case.PkbCommonTestCase):

  def setUp(self):
    super().setUp()
    self.enter_context(
        mock.patch.object(data, 'ResourceExists', return_value=True)
    )

  def _Spec(self, vm):
    spec = mock.Mock()
    spec.vm_groups = {'db': [vm]}
    return spec

  def testRegisteredWithPkb(self):
    self.assertIn(benchmark, linux_benchmarks.BENCHMARKS)
    config = benchmark.GetConfig({})
    self.assertEqual(config['vm_groups']['db']['vm_count'], 1)

  @flagsaver.flagsaver(cloud_report_coremark_runs=3)
  def testPrepareRunCleanup(self):
    vm, cmd = _Vm(self, _Answers())
    spec = self._Spec(vm)
    benchmark.Prepare(spec)
    samples = benchmark.Run(spec)
    benchmark.Cleanup(spec)

    commands = cmd.all_commands.splitlines()
    builds = [c for c in commands if ' link ' in c]
    self.assertLen(builds, 2)  # once per mode
    self.assertIn('XCFLAGS=""', builds[0])
    self.assertIn('-DMULTITHREAD=2 -DUSE_PTHREAD', builds[1])
    runs = [c for c in commands if ' 0x0 0x0 0x66 ' in c]
    self.assertLen(runs, 6)
    self.assertTrue(all(c.endswith(' 0x0 0x0 0x66 0 7 1 2000') for c in runs))
    self.assertLess(commands.index(builds[1]), commands.index(runs[0]))
    self.assertEqual(commands[-1], 'rm -rf /opt/pkb/cloud_report_coremark')

    per_run = [s for s in samples if s.metric == 'coremark_score']
    self.assertEqual(
        [(s.metadata['mode'], s.metadata['iteration']) for s in per_run],
        [('single', 1), ('single', 2), ('single', 3),
         ('all', 1), ('all', 2), ('all', 3)],
    )  # fmt: skip
    self.assertEqual(
        [s.value for s in per_run],
        [parser.Parse(SINGLE).score] * 3 + [parser.Parse(ALL_2).score] * 3,
    )
    for s in samples:
      self.assertEqual(s.metadata['phase'], 'cpu')
      self.assertEqual(s.metadata['cloud'], 'AWS')
      self.assertEqual(s.metadata['region'], 'us-east-1')
      self.assertEqual(s.metadata['cpu_platform'], 'AMD EPYC 7R32')
      self.assertEqual(s.metadata['coremark_version'], 'v1.01')
    summary = {
        (s.metric, s.metadata['mode']) for s in samples if s not in per_run
    }
    self.assertIn(('coremark_score_mean', 'single'), summary)
    self.assertIn(('coremark_score_per_vcpu', 'all'), summary)
    self.assertNotIn(('coremark_score_per_vcpu', 'single'), summary)

  @flagsaver.flagsaver(
      cloud_report_coremark_runs=1, cloud_report_coremark_modes=['all']
  )
  def testWrongThreadCountIsAnError(self):
    # The VM reports 16 vCPUs, so the phase builds 16 threads, but the binary
    # printed 2 contexts.
    vm, _ = _Vm(self, _Answers(threads=16), cpus=16)
    spec = self._Spec(vm)
    benchmark.Prepare(spec)
    with self.assertRaisesRegex(
        errors.Benchmarks.RunError, 'ran 2 context.*expected 16'
    ):
      benchmark.Run(spec)

  @flagsaver.flagsaver(
      cloud_report_coremark_runs=1,
      cloud_report_coremark_modes=['all'],
      cloud_report_coremark_parallelism='socket',
      cloud_report_coremark_threads=8,
  )
  def testFlagsReachTheBuild(self):
    self.assertEqual(
        cpu.Params.FromFlags(),
        cpu.Params(runs=1, threads=8, parallelism='socket', modes=('all',)),
    )
    vm, cmd = _Vm(self, _Answers())
    benchmark.Prepare(self._Spec(vm))
    self.assertIn('-DMULTITHREAD=8 -DUSE_SOCKET', cmd.all_commands)
    self.assertIn('bin/coremark-all-socket-8', cmd.all_commands)

  def testFlagValidation(self):
    with self.assertRaisesRegex(Exception, 'cloud_report_coremark_modes'):
      with flagsaver.flagsaver(cloud_report_coremark_modes=['multi']):
        pass
    with self.assertRaisesRegex(Exception, 'cloud_report_coremark_runs'):
      with flagsaver.flagsaver(cloud_report_coremark_runs=0):
        pass


class FidelityTest(pkb_common_test_case.PkbCommonTestCase):

  @mock.patch.object(data, 'ResourceExists', return_value=True)
  def testPairsInAbbaOrder(self, _):
    vm, cmd = _Vm(self, _Answers())
    order = []
    phase_score = parser.Parse(ALL_2).score
    raw_16 = ALL_2.replace(parser.Parse(ALL_2).score_text, '16000.000000')

    def Raw(command):
      order.append(('raw', command))
      return raw_16

    real_run = cpu.RunBuild

    def Phase(*args):
      order.append(('phase', None))
      return real_run(*args)

    with mock.patch.object(cpu, 'RunBuild', side_effect=Phase):
      fidelity = fidelity_lib.MeasureCpu(vm, pairs=3, raw_runner=Raw)
    self.assertEqual(
        [o[0] for o in order], ['phase', 'raw', 'raw', 'phase', 'phase', 'raw']
    )
    # With iterations 0 the raw run is the bare binary, CoreMark's defaults.
    self.assertEqual(order[1][1], pkg.BinaryPath('coremark-all-pthread-2'))
    self.assertEqual(fidelity.phase, (phase_score,) * 3)
    self.assertEqual(fidelity.raw, (16000.0,) * 3)
    self.assertAlmostEqual(fidelity.ratio, phase_score / 16000)
    self.assertAlmostEqual(fidelity.median_pair_ratio, fidelity.ratio)
    self.assertNotIn('coremark-single', cmd.all_commands)  # all-core only

  def testRawRunWithCrcErrorsIsRefused(self):
    bad = ALL_2.replace('[1]crcfinal', '[1]ERROR! list crc 0x1 - should be'
                        ' 0x2\n[1]crcfinal')  # fmt: skip
    with self.assertRaisesRegex(errors.Benchmarks.RunError, 'raw CoreMark'):
      fidelity_lib.RawCoreMarkScore(bad)
    self.assertEqual(
        fidelity_lib.RawCoreMarkScore(ALL_2), parser.Parse(ALL_2).score
    )


class StockPkbMainTest(pkb_common_test_case.PkbCommonTestCase):
  """pkb.py --benchmarks=cloud_report_coremark on a fake 16-vCPU VM."""

  def testSamplesThroughPkb(self):
    playback = _Answers(all_output=ALL_16, threads=16)
    answers = [(frag, out) for frag, ((out, _),) in playback.items()]
    result = stock_pkb.RunMain(
        self.create_tempdir().full_path,
        'cloud_report_coremark',
        stock_pkb.StaticVms(1),
        answers=answers,
        flags={'cloud_report_coremark_runs': 2},
        run_uri='cmfake1',
    )
    self.assertEqual(result.proc.returncode, 0, result.proc.stderr[-3000:])
    commands, samples = result.command_texts, result.samples

    self.assertTrue(any('-DMULTITHREAD=16 -DUSE_PTHREAD' in c
                        for c in commands))  # fmt: skip
    self.assertIn('rm -rf /opt/pkb/cloud_report_coremark', commands)
    per_run = [s for s in samples if s['metric'] == 'coremark_score']
    self.assertEqual(
        [
            (stock_pkb.Labels(s)['mode'], stock_pkb.Labels(s)['iteration'])
            for s in per_run
        ],
        [('single', '1'), ('single', '2'), ('all', '1'), ('all', '2')],
    )
    self.assertEqual(
        [s['value'] for s in per_run],
        [parser.Parse(SINGLE).score] * 2 + [parser.Parse(ALL_16).score] * 2,
    )
    all_labels = stock_pkb.Labels(per_run[-1])
    self.assertEqual(all_labels['threads'], '16')
    self.assertEqual(all_labels['valid_for_reporting'], 'False')
    self.assertEqual(all_labels['phase'], 'cpu')
    self.assertEqual(all_labels['vcpus'], '16')
    per_vcpu = [s for s in samples if s['metric'] == 'coremark_score_per_vcpu']
    self.assertLen(per_vcpu, 1)
    self.assertAlmostEqual(
        per_vcpu[0]['value'], parser.Parse(ALL_16).score / 16, places=4
    )


if __name__ == '__main__':
  pkb_common_test_case.absltest.main()
