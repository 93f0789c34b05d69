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

The VMs answer the log PKB's RunCoremark reads with real CoreMark outputs
from tests/data/coremark. Three levels: pkb_ext's offline install of PKB's
tree (its checks); the benchmark module's Prepare/Run/Cleanup on a mocked
PKB VM; and stock PKB's real Main (pkb_ext_dev.stock_pkb, run in a
subprocess) on a fake static VM.
"""

import pathlib
from unittest import mock

from absl.testing import flagsaver
from perfkitbenchmarker import data
from perfkitbenchmarker import errors
from perfkitbenchmarker import linux_benchmarks
from perfkitbenchmarker import linux_virtual_machine
from perfkitbenchmarker import stages as pkb_stages
from perfkitbenchmarker.linux_benchmarks import coremark_benchmark

from benchmarks.cloud_report import parsers
from pkb_ext import coremark as offline
from pkb_ext.suite import cloud_report_coremark_benchmark as benchmark
from pkb_ext.suite.cpu import parser
from pkb_ext.suite.cpu import stages as cpu
from pkb_ext_dev import coremark_playback
from pkb_ext_dev import fidelity as fidelity_lib
from pkb_ext_dev import pkb_tests
from pkb_ext_dev import stock_pkb

pkb_common_test_case = pkb_tests.Import('pkb_common_test_case')

DATA = pathlib.Path(__file__).resolve().parent.parent / 'data' / 'coremark'
SINGLE = (DATA / 'single_core.txt').read_text()
ALL_2 = (DATA / 'all_core_pthread_2.txt').read_text()
TREE = coremark_benchmark.COREMARK_DIR
TAR = f'/opt/pkb/{offline.TARBALL}'
LOG = coremark_playback.LOG


def _Checks(tar_sha=offline.TARBALL_SHA256, commit=offline.COMMIT,
            tree=offline.TREE_SHA256):  # fmt: skip
  """The offline install's two check commands -> [(stdout, stderr)]."""
  return {
      'xargs -0 sha256sum': [(f'{tree}  -\n', '')],
      # One command prints the tarball's sha256 and its pax commit.
      'sha256sum /opt': [(f'{tar_sha}  {TAR}\ncomment={commit}\n', '')],
  }


def _Logs(single=SINGLE, all_output=ALL_2, runs=1):
  """PKB's `cat run1.log` after each make: single runs, then all-core."""
  return {LOG: [(single, '')] * runs + [(all_output, '')] * runs}


def _Vm(test, answers, cpus=2):
  vm = mock.create_autospec(linux_virtual_machine.BaseLinuxVirtualMachine)
  vm.NumCpusForBenchmark.return_value = cpus
  vm.name = 'db-0'
  vm.CLOUD = 'AWS'
  vm.zone = 'us-east-1a'
  vm.machine_type = 'c5a.4xlarge'
  vm.scratch_disks = []
  vm._installed_packages = set()  # pylint: disable=protected-access
  vm.CheckLsCpu.return_value.data = {'Model name': 'AMD EPYC 7R32'}
  cmd = test.MockRemoteCommand(answers, vm).RemoteCommand.mock_command
  return vm, cmd


class OfflineInstallTest(pkb_common_test_case.PkbCommonTestCase):
  """pkb_ext.coremark: PKB's tree from the data search path's tarball."""

  @mock.patch.object(data, 'ResourceExists', return_value=True)
  def testStagesTheVerifiedTreeWherePkbsPackagePutsIt(self, _):
    vm, cmd = _Vm(self, _Checks())
    offline.InstallFromData(vm)
    vm.Install.assert_called_once_with('build_tools')
    vm.PushDataFile.assert_called_once_with(offline.TARBALL, TAR)
    self.assertIn(
        f'tar -xzf {TAR} -C {TREE} --strip-components=1', cmd.all_commands
    )
    self.assertNotIn('wget', cmd.all_commands)
    # PKB's package then counts as installed: vm.Install('coremark') skips.
    self.assertIn('coremark', vm._installed_packages)  # pylint: disable=protected-access

  @mock.patch.object(data, 'ResourceExists', return_value=True)
  def testRefusesATarballOfOtherBytes(self, _):
    vm, cmd = _Vm(self, _Checks(tar_sha='0' * 64))
    with self.assertRaisesRegex(
        errors.Setup.BadPreprovisionedDataError,
        'from the data search path: sha256 is 0{64}, expected b49f82',
    ):
      offline.InstallFromData(vm)
    self.assertNotIn('tar -xzf', cmd.all_commands)

  @mock.patch.object(data, 'ResourceExists', return_value=True)
  def testRefusesAnotherCommitOrOtherFiles(self, _):
    vm, _ = _Vm(self, _Checks(commit='a' * 40))
    with self.assertRaisesRegex(
        errors.Setup.BadPreprovisionedDataError, 'git commit'
    ):
      offline.InstallFromData(vm)
    vm, _ = _Vm(self, _Checks(tree='f' * 64))
    with self.assertRaisesRegex(
        errors.Setup.BadPreprovisionedDataError, 'file tree sha256 is f{64}'
    ):
      offline.InstallFromData(vm)

  @mock.patch.object(data, 'ResourceExists', return_value=False)
  def testNoTarballIsOneLine(self, _):
    vm, _ = _Vm(self, _Checks())
    with self.assertRaisesRegex(
        errors.Setup.BadPreprovisionedDataError,
        r'^--cloud_report_coremark_install=data: coremark-v1.01.tar.gz is not'
        r' in PKB.s data search path \(put it there, or use =pkb on hosts'
        r' with internet\)$',
    ):
      offline.InstallFromData(vm)

  @mock.patch.object(data, 'ResourceExists', return_value=True)
  def testBeforePrepareOnlyWithTheFlagAndACoreMarkBenchmark(self, _):
    vm, cmd = _Vm(self, _Checks())
    spec = mock.Mock(vms=[vm], vm_groups={'db': [vm]})
    spec.name = 'cloud_report_coremark'
    offline.BeforePhase(pkb_stages.PREPARE, benchmark_spec=spec)
    self.assertEqual(
        cmd.all_commands, ''
    )  # --cloud_report_coremark_install=pkb
    with flagsaver.flagsaver(cloud_report_coremark_install='data'):
      offline.BeforePhase(pkb_stages.RUN, benchmark_spec=spec)
      spec.name = 'fio'
      offline.BeforePhase(pkb_stages.PREPARE, benchmark_spec=spec)
      self.assertEqual(cmd.all_commands, '')
      spec.name = 'coremark'  # PKB's own benchmark builds in the same tree
      offline.BeforePhase(pkb_stages.PREPARE, benchmark_spec=spec)
    self.assertIn('--strip-components=1', cmd.all_commands)

  def testOnlyTheVmThatRunsCoreMarkGetsTheTree(self):
    db = [mock.Mock(name=f'db{i}') for i in range(1, 4)]
    client = mock.Mock(name='client')
    spec = mock.Mock(
        vms=[client, *db],
        vm_groups={'client': [client], 'db': db},
        config=None,  # no configuration: no phase skipped for it
    )
    spec.name = 'coremark'  # PKB's own: its first VM
    self.assertEqual(offline.CoreMarkVms(spec), [client])
    spec.name = 'cloud_report_coremark'
    self.assertEqual(offline.CoreMarkVms(spec), [db[0]])
    spec.name = 'cloud_report_2021'
    # With overlap CoreMark runs on the third db VM (the second with two),
    # beside the io phase's fill on the first; without, on the first.
    with flagsaver.flagsaver(
        cloud_report_phases=['cpu', 'io', 'net'], cloud_report_overlap=True
    ):
      self.assertEqual(offline.CoreMarkVms(spec), [db[2]])
      spec.vm_groups['db'] = db[:2]
      self.assertEqual(offline.CoreMarkVms(spec), [db[1]])
      spec.vm_groups['db'] = db
    with flagsaver.flagsaver(
        cloud_report_phases=['cpu', 'io', 'net'], cloud_report_overlap=False
    ):
      self.assertEqual(offline.CoreMarkVms(spec), [db[0]])
    with flagsaver.flagsaver(cloud_report_phases=['io', 'net']):
      self.assertEqual(offline.CoreMarkVms(spec), [])

  def testRetiredParallelismFlagNamesPkbsFlag(self):
    with self.assertRaisesRegex(
        Exception, 'use PKB.s --coremark_parallelism_method=PTHREAD'
    ):
      with flagsaver.flagsaver(cloud_report_coremark_parallelism='fork'):
        pass


class BenchmarkModuleTest(pkb_common_test_case.PkbCommonTestCase):

  def setUp(self):
    super().setUp()
    # What the benchmark's config sets (flags the command line sets win).
    self.enter_context(
        flagsaver.flagsaver(coremark_parallelism_method='PTHREAD')
    )

  def _Spec(self, vm):
    spec = mock.Mock()
    spec.vm_groups = {'db': [vm]}
    return spec

  def testRegisteredWithPkb(self):
    self.assertIn(benchmark, linux_benchmarks.BENCHMARKS)
    config = benchmark.GetConfig({})
    self.assertEqual(config['vm_groups']['db']['vm_count'], 1)
    self.assertEqual(config['flags']['coremark_parallelism_method'], 'PTHREAD')

  @flagsaver.flagsaver(cloud_report_coremark_runs=3)
  def testPrepareRunCleanup(self):
    vm, cmd = _Vm(self, _Logs(runs=3))
    spec = self._Spec(vm)
    benchmark.Prepare(spec)
    samples = benchmark.Run(spec)
    benchmark.Cleanup(spec)

    vm.Install.assert_called_once_with('coremark')
    commands = cmd.all_commands.splitlines()
    makes = [c for c in commands if 'make PORT_DIR=linux64 ITERATIONS=' in c]
    self.assertLen(makes, 6)  # PKB's make per run: build and run
    self.assertTrue(all(' ITERATIONS=0 ' in c for c in makes))
    self.assertIn('-DMULTITHREAD=1 -DUSE_PTHREAD', makes[0])
    self.assertIn('-DMULTITHREAD=2 -DUSE_PTHREAD', makes[-1])
    (sed,) = [c for c in commands if 'sed -i' in c]
    self.assertLess(commands.index(sed), commands.index(makes[0]))
    self.assertIn(f'rm -rf {TREE}', commands)

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
    # The VM reports 16 vCPUs, so the phase builds 16 threads, but the run
    # printed 2 contexts.
    vm, _ = _Vm(self, {LOG: [(ALL_2, '')]}, cpus=16)
    spec = self._Spec(vm)
    benchmark.Prepare(spec)
    with self.assertRaisesRegex(parsers.ParseError, 'ran 2 context.*for 16'):
      benchmark.Run(spec)

  @flagsaver.flagsaver(
      cloud_report_coremark_runs=1,
      cloud_report_coremark_modes=['all'],
      coremark_parallelism_method='SOCKET',
      cloud_report_coremark_threads=8,
      cloud_report_coremark_iterations=5000,
  )
  def testFlagsReachTheBuild(self):
    self.assertEqual(
        cpu.Params.FromFlags(),
        cpu.Params(runs=1, threads=8, iterations=5000, modes=('all',)),
    )
    vm, cmd = _Vm(self, _Logs())
    benchmark.Prepare(self._Spec(vm))
    self.assertNotIn('sed -i', cmd.all_commands)  # no -lpthread for sockets
    with self.assertRaises(parsers.ParseError):  # the log is not 8 contexts
      benchmark.Run(self._Spec(vm))
    self.assertIn('-DMULTITHREAD=8 -DUSE_SOCKET', cmd.all_commands)
    self.assertIn(' ITERATIONS=5000 ', cmd.all_commands)
    self.assertIn('cloud_report_running.coremark-all-8.pid', cmd.all_commands)

  def testFlagValidation(self):
    with self.assertRaisesRegex(Exception, 'cloud_report_coremark_modes'):
      with flagsaver.flagsaver(cloud_report_coremark_modes=['multi']):
        pass
    with self.assertRaisesRegex(Exception, 'cloud_report_coremark_runs'):
      with flagsaver.flagsaver(cloud_report_coremark_runs=0):
        pass


class FidelityTest(pkb_common_test_case.PkbCommonTestCase):

  @flagsaver.flagsaver(coremark_parallelism_method='PTHREAD')
  def testPairsInAbbaOrder(self):
    vm, cmd = _Vm(self, {LOG: [(ALL_2, '')]})
    order = []
    phase_score = parser.Parse(ALL_2).score
    raw_16 = ALL_2.replace('13380.367352', '16000.000000')

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
    # With iterations 0 the raw run is the bare binary PKB's make built.
    self.assertEqual(order[1][1], f'{TREE}/coremark.exe')
    self.assertEqual(fidelity.phase, (phase_score,) * 3)
    self.assertEqual(fidelity.raw, (16000.0,) * 3)
    self.assertAlmostEqual(fidelity.ratio, phase_score / 16000)
    self.assertAlmostEqual(fidelity.median_pair_ratio, fidelity.ratio)
    self.assertNotIn('-DMULTITHREAD=1 ', cmd.all_commands)  # all-core only
    self.assertEqual(
        fidelity_lib.RawCoreMarkCommand(20000),
        f'{TREE}/coremark.exe 0x0 0x0 0x66 20000 7 1 2000',
    )

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
    result = stock_pkb.RunMain(
        self.create_tempdir().full_path,
        'cloud_report_coremark',
        stock_pkb.StaticVms(1),
        answers=coremark_playback.Answers(),
        flags={'cloud_report_coremark_runs': 2},
        run_uri='cmfake1',
    )
    self.assertEqual(result.proc.returncode, 0, result.proc.stderr[-3000:])
    commands, samples = result.command_texts, result.samples

    # The config's PTHREAD reached PKB's make and its makefile edit.
    self.assertTrue(any('-DMULTITHREAD=16 -DUSE_PTHREAD' in c
                        for c in commands))  # fmt: skip
    self.assertTrue(any('-lrt -lpthread' in c for c in commands))
    self.assertIn(f'rm -rf {TREE}', commands)
    per_run = [s for s in samples if s['metric'] == 'coremark_score']
    self.assertEqual(
        [
            (stock_pkb.Labels(s)['mode'], stock_pkb.Labels(s)['iteration'])
            for s in per_run
        ],
        [('single', '1'), ('single', '2'), ('all', '1'), ('all', '2')],
    )
    all_16 = coremark_playback.Read('all_core_pthread_16_short.txt')
    self.assertEqual(
        [s['value'] for s in per_run],
        [parser.Parse(SINGLE).score] * 2 + [parser.Parse(all_16).score] * 2,
    )
    all_labels = stock_pkb.Labels(per_run[-1])
    self.assertEqual(all_labels['threads'], '16')
    self.assertEqual(all_labels['parallelism'], 'pthread')
    self.assertEqual(all_labels['valid_for_reporting'], 'False')
    self.assertEqual(all_labels['phase'], 'cpu')
    self.assertEqual(all_labels['vcpus'], '16')
    per_vcpu = [s for s in samples if s['metric'] == 'coremark_score_per_vcpu']
    self.assertLen(per_vcpu, 1)
    self.assertAlmostEqual(
        per_vcpu[0]['value'], parser.Parse(all_16).score / 16, places=4
    )


if __name__ == '__main__':
  pkb_common_test_case.absltest.main()
