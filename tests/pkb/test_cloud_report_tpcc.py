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
"""cloud_report_tpcc through PKB with mocked VMs (CockroachDB cannot run here).

The client answers `cockroach workload run tpcc --active-warehouses=N` with
the real output of a 9-node run at N active warehouses
(tests/data/tpcc/cockroach_v22.1.2_9node_8vcpu_*wh_tail.txt: 3,500 and 3,750
pass, 4,000 fails). Three levels: the cockroachdb and go-tpc packages'
commands and checks; the benchmark module's Prepare/Run/Cleanup on mocked PKB
VMs (stepping, resume, pass rules); and stock PKB's real Main
(pkb_ext_dev.stock_pkb, in a subprocess) on 4 fake static VMs.
"""

import glob
import importlib.util
import json
import os
import pathlib
import re
import types
from unittest import mock

from absl.testing import flagsaver
from perfkitbenchmarker import data
from perfkitbenchmarker import errors
from perfkitbenchmarker import linux_benchmarks
from perfkitbenchmarker import linux_virtual_machine
from perfkitbenchmarker import publisher

from absl.testing import parameterized
from pkb_ext.suite import cloud_report_tpcc_benchmark as benchmark
from pkb_ext.suite import phases
from benchmarks.cloud_report import timeouts
from pkb_ext.suite import topology as topology_lib
from benchmarks.cloud_report.tpcc import cockroach as cockroach_cluster
from benchmarks.cloud_report.tpcc import engines as tpcc_engines
from pkb_ext.suite.tpcc import stages as tpcc
from pkb_ext.suite.tpcc import stepping_state
from linux_packages import cloud_report_cockroachdb as cockroachdb
from pkb_ext.suite import cockroach_sha256
from pkb_ext.tpcc_postgres import go_tpc
from pkb_ext_dev import pkb_tests
from pkb_ext_dev import stock_pkb

pkb_common_test_case = pkb_tests.Import('pkb_common_test_case')
benchmark_module = benchmark


def _LoadDouble():
  """The cockroach double (tests/doubles/cockroach.py) as a module."""
  path = pathlib.Path(__file__).resolve().parents[1] / 'doubles/cockroach.py'
  spec = importlib.util.spec_from_file_location('cockroach_double', path)
  module = importlib.util.module_from_spec(spec)
  spec.loader.exec_module(module)
  return module


_DOUBLE = _LoadDouble()

DATA = pathlib.Path(__file__).resolve().parent.parent / 'data' / 'tpcc'
SHA = cockroach_sha256.SHA256  # the suite's; the package pins none
ROOT = '/opt/pkb/cloud_report_cockroachdb'
TAR = f'{ROOT}/cockroach-v20.2.7.linux-amd64.tgz'
STEP_OUTPUT = {
    n: (DATA / f'cockroach_v22.1.2_9node_8vcpu_{n}wh_tail.txt').read_text()
    for n in (3500, 3750, 4000)
}
INTERRUPTED = (
    DATA / 'cockroach_v22.1.2_mr_4000wh_interrupted_tail.txt'
).read_text()
# The two real failure shapes at the overload edge (see PROVENANCE.md).
NO_RESULTS = (DATA / 'cockroach_no_results_900s.txt').read_text()
DIED = ((DATA / 'cockroach_died_connection_reset.txt').read_text(), 1)
EXIT_0 = 'cloud_report_tpcc_exit_status=0\n'
# cockroach sql's answer to a count of a table that does not exist.
NO_TABLE = 'ERROR: relation "tpcc.warehouse" does not exist\nSQLSTATE: 42P01\n'
INSTALL_RECORD = (
    '{"version": "v20.2.7", "arch": "%s", "sha256": "%s", "sha256_source":'
    ' "flag"}'
)
# Real io_guard probe outputs (tests/data/fio, see its PROVENANCE.md).
FIO_DATA = DATA.parent / 'fio'
PROBE_SAFE = (FIO_DATA / 'probe_loop_unmounted.txt').read_text()
PROBE_MOUNTED = (FIO_DATA / 'probe_loop_mounted.txt').read_text()
# The captures' run: 12 minutes after a 2-minute ramp, 3,500 to 4,000.
STEP_FLAGS = dict(
    cloud_report_tpcc_engine='cockroach',
    cloud_report_tpcc_start_warehouses=3500,
    cloud_report_tpcc_step_warehouses=250,
    cloud_report_tpcc_max_warehouses=4000,
    cloud_report_tpcc_duration='12m',
    cloud_report_tpcc_ramp='2m',
    cloud_report_cockroachdb_sha256=[f'amd64={SHA}'],
)


def _Vm(
    name, ip, mount='/scratch', machine='x86_64', sha=SHA, probe=PROBE_SAFE,
    device='/dev/sdb', has_disk=True,
):  # fmt: skip
  vm = mock.create_autospec(
      linux_virtual_machine.BaseLinuxVirtualMachine, instance=True
  )
  vm.name = name
  vm.internal_ip = ip
  vm.install_packages = True
  vm.CLOUD = 'GCP'
  vm.zone = 'us-east1-b'
  vm.machine_type = 'c2-standard-16'
  vm.NumCpusForBenchmark.return_value = 16
  vm.CheckLsCpu.return_value.data = {'Model name': 'Intel Cascade Lake'}
  disk = mock.Mock(mount_point=mount, disk_type='pd-ssd', disk_size=2500)
  disk.GetDevicePath.return_value = device
  disk.provisioned_iops = None
  disk.provisioned_throughput = None
  vm.scratch_disks = [disk] if has_disk else []
  vm.commands = []

  def Remote(command, **kwargs):
    del kwargs
    vm.commands.append(command)
    if command == 'uname -m':
      return machine + '\n', ''
    if command == f'cat {ROOT}/install.json':
      arch = cockroachdb.ARCH_OF_MACHINE[machine]
      return INSTALL_RECORD % (arch, sha), ''
    if command.startswith('sha256sum '):
      return f'{sha}  {command.split()[-1]}\n', ''
    if 'echo end-of-probe' in command:
      return probe, ''
    return '', ''

  def RemoteWithCode(command, **kwargs):
    if command.startswith(f'cat {ROOT}/install.json && '):
      vm.commands.append(command)
      if not vm.installed:
        return '', 'cat: No such file or directory\n', 1
      return INSTALL_RECORD % (cockroachdb.ARCH_OF_MACHINE[machine], sha), '', 0
    if 'SELECT count(*) FROM tpcc.warehouse' in command:
      vm.commands.append(command)
      if vm.loaded_warehouses is None:
        return '', NO_TABLE, 1
      return f'count\n{vm.loaded_warehouses}\n', '', 0
    return Remote(command, **kwargs) + (0,)

  vm.loaded_warehouses = None  # what a count of tpcc.warehouse finds
  vm.installed = False  # an earlier Install's record is there

  vm.RemoteCommand.side_effect = Remote
  vm.RemoteCommandWithReturnCode.side_effect = RemoteWithCode
  return vm


class _Client:
  """The client's RobustRemoteCommand: plays back captured tpcc outputs."""

  def __init__(self, outputs=None, fail_at=None):
    # A level's output, or a list of outputs for its successive runs.
    self.outputs = dict(STEP_OUTPUT) | (outputs or {})
    self.fail_at = fail_at
    self.runs = []

  def __call__(self, command, timeout=None, ignore_failure=False):
    del timeout, ignore_failure
    if 'workload run tpcc' not in command:
      return EXIT_0, ''
    active = int(re.search(r'--active-warehouses=(\d+)', command).group(1))
    if active == self.fail_at:
      raise errors.VirtualMachine.RemoteCommandError('ssh: connection lost')
    self.runs.append((active, command))
    output = self.outputs[active]
    if isinstance(output, list):
      output = output.pop(0)
    if isinstance(output, tuple):  # (output, exit status)
      text, code = output
      return f'{text}cloud_report_tpcc_exit_status={code}\n', ''
    return output + EXIT_0, ''


def _Topology(client_playback, **db_kwargs):
  dbs = [_Vm(f'db{i}', f'10.0.0.{i}', **db_kwargs) for i in (1, 2, 3)]
  client = _Vm('client', '10.0.0.9', has_disk=False)
  client.RobustRemoteCommand.side_effect = client_playback
  spec = mock.Mock()
  spec.vm_groups = {'db': dbs, 'client': [client]}
  return spec, dbs, client


class CockroachPackageTest(pkb_common_test_case.PkbCommonTestCase):

  def setUp(self):
    super().setUp()
    self.enter_context(
        flagsaver.flagsaver(cloud_report_cockroachdb_sha256=[f'amd64={SHA}'])
    )

  def testTheAmd64Sha256IsTheGivenOne(self):
    with self.assertRaisesRegex(
        errors.Setup.InvalidConfigurationError,
        r'no sha256 pinned for cockroach-v20\.2\.7\.linux-amd64\.tgz',
    ):
      cockroachdb.ExpectedSha256('v20.2.7', 'amd64')
    self.assertEqual(
        cockroachdb.ExpectedSha256('v20.2.7', 'amd64', {'amd64': SHA}), SHA
    )
    self.assertEqual(cockroachdb.CheckRelease('amd64'), cockroachdb.SHA_FLAG)

  def testArm64NeedsAReleaseAndItsSha256(self):
    with self.assertRaisesRegex(
        errors.Setup.InvalidConfigurationError,
        r'no linux-arm64 build of v20\.2\.7 .*v22\.2\.0.*'
        r'--cloud_report_cockroachdb_arm64_version=v22\.2\.0 or later',
    ):
      cockroachdb.ExpectedSha256('v20.2.7', 'arm64', {'arm64': 'a' * 64})
    with self.assertRaisesRegex(
        errors.Setup.InvalidConfigurationError,
        r'no sha256 pinned for cockroach-v23\.1\.14\.linux-arm64\.tgz.*'
        r'--cloud_report_cockroachdb_sha256=arm64=<sha256>.*'
        r'--cloud_report_cockroachdb_vendor_checksum',
    ):
      cockroachdb.ExpectedSha256('v23.1.14', 'arm64')
    self.assertEqual(
        cockroachdb.ExpectedSha256('v23.1.14', 'arm64', {'arm64': 'a' * 64}),
        'a' * 64,
    )

  def testShaFlagValidation(self):
    for bad in (['arm64'], ['x86=' + 'a' * 64], ['arm64=ABC']):
      with self.assertRaisesRegex(Exception, 'cloud_report_cockroachdb_sha256'):
        with flagsaver.flagsaver(cloud_report_cockroachdb_sha256=bad):
          pass
    with self.assertRaisesRegex(Exception, 'cloud_report_cockroachdb_version'):
      with flagsaver.flagsaver(cloud_report_cockroachdb_version='20.2'):
        pass

  @mock.patch.object(data, 'ResourceExists', return_value=True)
  def testInstallsFromTheDataSearchPath(self, _):
    vm = _Vm('db1', '10.0.0.1')
    cockroachdb.Install(vm)
    vm.PushDataFile.assert_called_once_with(
        'cockroach-v20.2.7.linux-amd64.tgz', TAR
    )
    self.assertFalse(any('curl' in c for c in vm.commands))
    self.assertIn(
        f'tar -xzf {TAR} -C {ROOT} --strip-components=1 && {ROOT}/cockroach'
        ' version && printf %s \'{"version": "v20.2.7", "arch": "amd64",'
        f' "sha256": "{SHA}", "sha256_source": "flag"}}\' >'
        f' {ROOT}/install.json',
        vm.commands,
    )

  @mock.patch.object(data, 'ResourceExists', return_value=False)
  def testDownloadsOtherwise(self, _):
    vm = _Vm('db1', '10.0.0.1')
    cockroachdb.Install(vm)
    vm.InstallPackages.assert_called_once_with('curl')
    self.assertIn(
        f'curl -fsSL -o {TAR} https://binaries.cockroachdb.com/'
        'cockroach-v20.2.7.linux-amd64.tgz',
        vm.commands,
    )

  @mock.patch.object(data, 'ResourceExists', return_value=True)
  def testRefusesAnotherTarball(self, _):
    vm = _Vm('db1', '10.0.0.1', sha='0' * 64)
    with self.assertRaisesRegex(
        errors.Setup.BadPreprovisionedDataError,
        f'sha256 0{{64}}, expected {SHA}',
    ):
      cockroachdb.Install(vm)
    self.assertFalse(any(c.startswith('tar ') for c in vm.commands))

  @mock.patch.object(data, 'ResourceExists', return_value=False)
  @flagsaver.flagsaver(
      cloud_report_cockroachdb_version='v23.1.14',
      cloud_report_cockroachdb_sha256=['arm64=' + 'b' * 64],
  )
  def testGravitonWithAGivenRelease(self, _):
    vm = _Vm('db1', '10.0.0.1', machine='aarch64', sha='b' * 64)
    cockroachdb.Install(vm)
    self.assertTrue(
        any('cockroach-v23.1.14.linux-arm64.tgz' in c for c in vm.commands)
    )

  def testStartInitStop(self):
    vms = [_Vm(f'db{i}', f'10.0.0.{i}') for i in (1, 2, 3)]
    dirs = ['/scratch/cockroach'] * 3
    cockroach_cluster.StartCluster(vms, dirs)
    for i, vm in enumerate(vms, 1):
      start = [c for c in vm.commands if ' start ' in c]
      self.assertLen(start, 1)
      node = (
          f'{ROOT}/cockroach start --insecure'
          ' --store=path=/scratch/cockroach'
          f' --listen-addr=10.0.0.{i}:26257 --http-addr=10.0.0.{i}:8080'
          ' --join=10.0.0.1:26257,10.0.0.2:26257,10.0.0.3:26257'
          ' --cache=.25 --max-sql-memory=.4'
          ' --pid-file=/scratch/cockroach/cockroach.pid'
          ' --log-dir=/scratch/cockroach/logs --background'
      )
      # No stdio of the ssh session, a bounded wait, open files raised.
      self.assertTrue(
          start[0].endswith(
              f'timeout -k 10 300 {node} </dev/null'
              ' >>/scratch/cockroach/logs/cockroach-start.log 2>&1; fi'
          ),
          start[0],
      )
      # A node already running from the store is kept.
      self.assertTrue(
          start[0].startswith(
              'if [ -f /scratch/cockroach/cockroach.pid ] && kill -0'
              ' "$(cat /scratch/cockroach/cockroach.pid)" 2>/dev/null; then'
              ' echo "cloud_report_cockroach_running: pid'
          ),
          start[0],
      )
      self.assertIn(
          '; else mkdir -p /scratch/cockroach/logs && { n=15000;'
          ' s=$(ulimit -Sn)',
          start[0],
      )
    inits = [c for vm in vms for c in vm.commands if ' init ' in c]
    self.assertEqual(inits, [cockroach_cluster.InitCommand('10.0.0.1')])
    self.assertIn(
        f'out=$({ROOT}/cockroach init --insecure --host=10.0.0.1:26257 2>&1)',
        inits[0],
    )
    self.assertIn(
        f"{ROOT}/cockroach sql --insecure --host=10.0.0.1:26257 -e 'SELECT 1'",
        vms[0].commands,
    )
    cockroach_cluster.StopCluster(vms, dirs)
    stop = vms[2].commands[-1]
    self.assertIn('pid=$(cat /scratch/cockroach/cockroach.pid)', stop)
    self.assertIn('kill -TERM "$pid"', stop)
    self.assertNotIn('pkill', stop)
    self.assertNotIn('killall', stop)

  def testAStartThatIsNotReadyInTimeRaisesWithTheLogTails(self):
    vm = _Vm('db2', '10.0.0.2')
    vm.RemoteCommandWithReturnCode.side_effect = lambda c, **kw: ('', '', 124)
    vm.RemoteCommand.side_effect = lambda c, **kw: (
        ('I210301 node waiting for its disk\n', '')
        if c.startswith('tail ')
        else ('', '')
    )
    with self.assertRaisesRegex(
        errors.Benchmarks.PrepareException,
        r'db2: cockroach start failed \(the node was not ready after 300 s\)'
        r'.*/scratch/cockroach/logs/cockroach-start\.log.*\n'
        r'I210301 node waiting for its disk',
    ):
      cockroach_cluster.StartNode(vm, '/scratch/cockroach', ['10.0.0.2'])
    (call,) = vm.RemoteCommandWithReturnCode.call_args_list
    self.assertEqual(call.kwargs['timeout'], 360)  # bounded over ssh too


class GoTpcPackageTest(pkb_common_test_case.PkbCommonTestCase):

  def setUp(self):
    super().setUp()
    self.exists = self.enter_context(
        mock.patch.object(data, 'ResourceExists', return_value=False)
    )

  def testPushesABinaryFromTheDataSearchPath(self):
    self.exists.side_effect = lambda name: name == 'go-tpc-v1.0.9-linux-amd64'
    vm = _Vm('client', '10.0.0.9')
    go_tpc.Install(vm)
    vm.PushDataFile.assert_called_once_with(
        'go-tpc-v1.0.9-linux-amd64', '/opt/pkb/cloud_report_go_tpc/go-tpc'
    )
    vm.InstallPreprovisionedPackageData.assert_not_called()
    self.assertIn(
        'chmod 755 /opt/pkb/cloud_report_go_tpc/go-tpc &&'
        ' /opt/pkb/cloud_report_go_tpc/go-tpc version',
        vm.commands,
    )

  def testOtherwiseBuildsOnTheVmWithThePinnedGo(self):
    vm = _Vm('client', '10.0.0.9', machine='aarch64')
    go_tpc.Install(vm)
    vm.InstallPreprovisionedPackageData.assert_called_once_with(
        'cloud_report_go_tpc',
        ['go1.22.12.linux-arm64.tar.gz'],
        '/opt/pkb/cloud_report_go_tpc',
    )
    pushed = [c.args for c in vm.PushDataFile.call_args_list]
    self.assertEqual(
        pushed,
        [
            ('go_tpc/go.mod', '/opt/pkb/cloud_report_go_tpc/build/go.mod'),
            ('go_tpc/go.sum', '/opt/pkb/cloud_report_go_tpc/build/go.sum'),
            ('go_tpc/tools.go', '/opt/pkb/cloud_report_go_tpc/build/tools.go'),
        ],
    )
    build = [c for c in vm.commands if ' build -o ' in c]
    self.assertLen(build, 1)
    self.assertIn('/opt/pkb/cloud_report_go_tpc/go/bin/go build', build[0])
    self.assertIn('-mod=readonly', build[0])

  def testUninstallRemovesTheDirInstallMadeWithSudo(self):
    vm = _Vm('client', '10.0.0.9')
    go_tpc.Install(vm)
    self.assertIn(
        'sudo mkdir -p /opt/pkb/cloud_report_go_tpc', ' '.join(vm.commands)
    )
    go_tpc.Uninstall(vm)
    self.assertEqual(
        vm.commands[-1], 'sudo rm -rf /opt/pkb/cloud_report_go_tpc'
    )

  def testEveryToolchainTarballIsPinned(self):
    for arch in ('amd64', 'arm64'):
      name = go_tpc.GoTarball(arch)
      self.assertRegex(go_tpc.PREPROVISIONED_DATA[name], '^[0-9a-f]{64}$')
      self.assertEqual(
          go_tpc.PACKAGE_DATA_URL[name], f'https://go.dev/dl/{name}'
      )

  def testBuildModuleFilesAreData(self):
    for name in go_tpc.BUILD_MODULE_FILES:
      self.assertTrue(os.path.isfile(data.ResourcePath(name)), name)
    with open(data.ResourcePath('go_tpc/go.mod')) as f:
      self.assertIn(f'require {go_tpc.MODULE} {go_tpc.VERSION}', f.read())

  def testRefusesAnUnknownArchitecture(self):
    with self.assertRaisesRegex(
        errors.Setup.InvalidConfigurationError, "no go-tpc build for.*'s390x'"
    ):
      go_tpc.Install(_Vm('client', '10.0.0.9', machine='s390x'))

  def testPath(self):
    vm = _Vm('client', '10.0.0.9')
    self.assertEqual(go_tpc.Path(vm), '/opt/pkb/cloud_report_go_tpc/go-tpc')
    with flagsaver.flagsaver(cloud_report_go_tpc_path='/usr/bin/go-tpc'):
      self.assertEqual(go_tpc.Path(vm), '/usr/bin/go-tpc')
      vm.commands.clear()
      go_tpc.Install(vm)
      self.assertEqual(vm.commands, [])

  def testCommands(self):
    self.assertEqual(
        go_tpc.RunWorkloadCommand(
            '/b/go-tpc', '10.0.0.1', 5432, 'postgres', 'tpcc', 4, 40, '30m',
            wait=True,
        ),
        '/b/go-tpc tpcc run -d postgres -H 10.0.0.1 -P 5432 -U postgres'
        ' -D tpcc --conn-params sslmode=disable --warehouses 4 -T 40'
        ' --time 30m --interval 10s --wait',
    )  # fmt: skip


def _ByMetric(samples, metric):
  return [s for s in samples if s.metric == metric]


class CockroachPhaseTest(pkb_common_test_case.PkbCommonTestCase):

  def setUp(self):
    super().setUp()
    self.enter_context(
        mock.patch.object(data, 'ResourceExists', return_value=True)
    )
    self.state_dir = self.create_tempdir().full_path
    self.enter_context(
        flagsaver.flagsaver(
            run_uri='tpcc1',
            cloud_report_tpcc_state_dir=self.state_dir,
            **STEP_FLAGS,
        )
    )

  def testRegisteredWithPkb(self):
    self.assertIn(benchmark, linux_benchmarks.BENCHMARKS)
    config = benchmark.GetConfig({})
    self.assertEqual(config['vm_groups']['db']['vm_count'], 3)
    self.assertEqual(config['vm_groups']['client']['vm_count'], 1)

  def testPrepareInstallsStartsAndImports(self):
    playback = _Client()
    spec, dbs, client = _Topology(playback)
    benchmark.Prepare(spec)
    for vm in dbs + [client]:
      # Directly: vm.Install does nothing where install_packages is off.
      vm.PushDataFile.assert_called_once_with(
          'cockroach-v20.2.7.linux-amd64.tgz', TAR
      )
    self.assertTrue(any('--cache=.25 --max-sql-memory=.4' in c
                        for c in dbs[1].commands))  # fmt: skip
    imports = [
        c.args[0] for c in client.RobustRemoteCommand.call_args_list
        if 'fixtures import' in c.args[0]
    ]  # fmt: skip
    self.assertLen(imports, 1)
    self.assertIn(
        f'{ROOT}/cockroach workload fixtures import tpcc --warehouses=4000'
        " 'postgresql://root@10.0.0.1:26257?sslmode=disable' >"
        ' cloud_report_tpcc/import.txt 2>&1',
        imports[0],
    )
    settings = [
        c.args[0] for c in client.RemoteCommandWithReturnCode.call_args_list
        if 'SET CLUSTER SETTING' in c.args[0]
    ]  # fmt: skip
    self.assertLen(settings, 5)

  def testPreparingAgainKeepsTheInstallTheNodesAndTheData(self):
    playback = _Client()
    spec, dbs, client = _Topology(playback)
    for vm in dbs + [client]:
      vm.installed = True
    client.loaded_warehouses = 4000
    benchmark.Prepare(spec)
    for vm in dbs + [client]:
      vm.PushDataFile.assert_not_called()
      self.assertFalse(any(c.startswith('tar ') for c in vm.commands))
    self.assertEqual([c for c in client.commands if 'DROP DATABASE' in c], [])
    self.assertFalse(any('fixtures import' in c.args[0]
                         for c in client.RobustRemoteCommand.call_args_list))  # fmt: skip

  def testAPartialLoadIsDroppedAndImportedAgain(self):
    playback = _Client()
    spec, _, client = _Topology(playback)
    client.loaded_warehouses = 120
    benchmark.Prepare(spec)
    drops = [c for c in client.commands if 'DROP DATABASE' in c]
    self.assertEqual(
        drops,
        [cockroach_cluster.SqlCommand('10.0.0.1', 'DROP DATABASE IF EXISTS tpcc'
                                ' CASCADE')],
    )  # fmt: skip
    imports = [c.args[0] for c in client.RobustRemoteCommand.call_args_list
               if 'fixtures import' in c.args[0]]  # fmt: skip
    self.assertLen(imports, 1)

  def testTheImportIsBoundedOnTheClient(self):
    playback = _Client()
    spec, _, client = _Topology(playback)
    benchmark.Prepare(spec)
    (call,) = [c for c in client.RobustRemoteCommand.call_args_list
               if 'fixtures import' in c.args[0]]  # fmt: skip
    # 4,000 warehouses on 3 nodes at 1,333 per node-hour: 1 h, + 15 min.
    bound = timeouts.Bound(timeouts.ImportSeconds(4000, 3))
    self.assertEqual(bound, 3600 + 900)
    self.assertIn(
        f'timeout -k 30 {bound} {ROOT}/cockroach workload', call.args[0]
    )
    self.assertEqual(call.kwargs['timeout'], bound + 150)

  def testAnImportThatTimesOutSaysSo(self):
    spec, _, client = _Topology(_Client())
    client.RobustRemoteCommand.side_effect = lambda c, **kw: (
        'I210301 imported warehouse\ncloud_report_tpcc_exit_status=124\n',
        '',
    )
    with flagsaver.flagsaver(cloud_report_tpcc_load_timeout='20m'):
      with self.assertRaisesRegex(
          errors.Benchmarks.RunError,
          r'import did not finish in 1200 s and was ended'
          r' \(--cloud_report_tpcc_load_timeout\)',
      ):
        benchmark.Prepare(spec)

  def testAHungStepIsEndedOnTheClientAndGivesNoResult(self):
    playback = _Client({3750: ('  12.0s    0 newOrder\n', 124)})
    spec, _, client = _Topology(playback)
    samples = benchmark.Run(spec)
    bound = 12 * 60 + 2 * 60 + 600  # duration + ramp + the least margin
    steps = [c for c in client.RobustRemoteCommand.call_args_list
             if 'workload run' in c.args[0]]  # fmt: skip
    for call in steps:
      self.assertIn(f'timeout -k 30 {bound} {ROOT}/cockroach workload run',
                    call.args[0])  # fmt: skip
      self.assertEqual(call.kwargs['timeout'], bound + 150)
    (best,) = _ByMetric(samples, 'tpcc_max_passing_warehouses')
    self.assertEqual(best.value, 3500)
    self.assertIn(
        f'the step did not end within {bound} s and was ended on the client'
        ' (--cloud_report_tpcc_step_timeout); its last output line: 12.0s',
        best.metadata['search_end_reason'],
    )

  def testRawDataDisksAreFormattedAndMounted(self):
    spec, dbs, _ = _Topology(_Client(), mount=None)
    benchmark.Prepare(spec)
    commands = dbs[0].commands
    # One command: the file system, then (only if made) the mount.
    mkfs_and_mount = commands.index(
        'sudo mke2fs -F -E lazy_itable_init=0,discard -O ^has_journal -t ext4'
        ' -b 4096 /dev/sdb && sudo mkdir -p /mnt/cloud_report_tpcc && sudo'
        ' mount -o discard /dev/sdb /mnt/cloud_report_tpcc && sudo chown'
        ' "$(id -un):$(id -gn)" /mnt/cloud_report_tpcc'
    )
    start = next(i for i, c in enumerate(commands) if 'cockroach start' in c)
    self.assertLess(mkfs_and_mount, start)
    self.assertIn('--store=path=/mnt/cloud_report_tpcc/cockroach',
                  commands[start])  # fmt: skip
    benchmark.Cleanup(spec)
    self.assertIn('sudo umount /mnt/cloud_report_tpcc', dbs[0].commands[-1])

  def testAMountedDataDiskIsRefused(self):
    spec, _, _ = _Topology(_Client(), mount=None, probe=PROBE_MOUNTED)
    with self.assertRaisesRegex(Exception, 'refusing .*mounted'):
      benchmark.Prepare(spec)

  def testLinearStepsOnRealOutputs(self):
    playback = _Client()
    spec, _, _ = _Topology(playback)
    samples = benchmark.Run(spec)
    self.assertEqual([n for n, _ in playback.runs], [3500, 3750, 4000])
    self.assertIn(
        f'{ROOT}/cockroach workload run tpcc --warehouses=4000'
        ' --active-warehouses=3500 --ramp=2m --duration=12m'
        " 'postgresql://root@10.0.0.1:26257?sslmode=disable'"
        " 'postgresql://root@10.0.0.2:26257?sslmode=disable'"
        " 'postgresql://root@10.0.0.3:26257?sslmode=disable'"
        ' >> cloud_report_tpcc/step-01-3500wh.txt 2>&1',
        playback.runs[0][1],
    )
    # The client's open-file limit is raised first, in the same shell.
    self.assertIn('{ { n=8024; s=$(ulimit -Sn);', playback.runs[0][1])
    passed = _ByMetric(samples, 'tpcc_step_passed')
    self.assertEqual(
        [(s.metadata['iteration'], s.metadata['active_warehouses'], s.value)
         for s in passed],
        [(1, 3500, 1.0), (2, 3750, 1.0), (3, 4000, 0.0)],
    )  # fmt: skip
    self.assertEqual(
        passed[2].metadata['pass_reason'],
        'fail (report): p90 8321.5 ms >= 5000 ms',
    )
    tpmc = _ByMetric(samples, 'tpcc_tpmc')
    self.assertEqual([s.value for s in tpmc], [44008.2, 46975.0, 43960.1])
    p90 = [
        s.value for s in _ByMetric(samples, 'tpcc_latency')
        if s.metadata['stat'] == 'p90'
    ]  # fmt: skip
    self.assertEqual(p90, [352.3, 503.3, 8321.5])
    (best,) = _ByMetric(samples, 'tpcc_max_passing_warehouses')
    self.assertEqual(best.value, 3750)
    (at_max,) = _ByMetric(samples, 'tpcc_max_passing_tpmc')
    self.assertEqual((at_max.value, at_max.metadata['iteration']), (46975.0, 2))
    (steps,) = _ByMetric(samples, 'tpcc_steps_used')
    self.assertEqual(steps.value, 3)
    for s in samples:
      self.assertEqual(s.metadata['phase'], 'tpcc')
      self.assertEqual(s.metadata['cloud'], 'GCP')
      self.assertEqual(s.metadata['engine'], 'cockroach')
      self.assertEqual(s.metadata['cockroach_version'], 'v20.2.7')
      self.assertEqual(s.metadata['cockroach_arch'], 'amd64')
      self.assertEqual(s.metadata['cockroach_sha256_source'], 'flag')
      self.assertIs(s.metadata['comparable_with_report'], True)
    self.assertEqual(passed[0].metadata['efficiency_basis'],
                     'keying_and_think_time')  # fmt: skip

  @flagsaver.flagsaver(cloud_report_tpcc_pass_rule='crl_script')
  def testCrlScriptRule(self):
    spec, _, _ = _Topology(_Client())
    samples = benchmark.Run(spec)
    passed = _ByMetric(samples, 'tpcc_step_passed')
    self.assertEqual([s.value for s in passed], [1.0, 1.0, 0.0])
    self.assertEqual(
        passed[2].metadata['pass_reason'],
        'fail (crl_script): p95 15569.3 ms >= 10000 ms',
    )

  @flagsaver.flagsaver(cloud_report_tpcc_strategy='bisect')
  def testBisect(self):
    playback = _Client()
    spec, _, _ = _Topology(playback)
    samples = benchmark.Run(spec)
    # The middle, 3750, passes; 4000 fails; 3750 again confirms the edge.
    self.assertEqual([n for n, _ in playback.runs], [3750, 4000, 3750])
    (best,) = _ByMetric(samples, 'tpcc_max_passing_warehouses')
    self.assertEqual(best.value, 3750)
    confirm = [
        s.metadata['confirm_run']
        for s in _ByMetric(samples, 'tpcc_step_passed')
    ]
    self.assertEqual(confirm, [False, False, True])

  @flagsaver.flagsaver(
      cloud_report_tpcc_strategy='probe',
      cloud_report_tpcc_probe_duration='3m',
  )
  def testProbe(self):
    playback = _Client()
    spec, _, _ = _Topology(playback)
    samples = benchmark.Run(spec)
    # Probes bisect the grid (3750 passes, 4000 fails), then full-length
    # runs confirm: a pass at 3750 and a fail at 4000.
    self.assertEqual([n for n, _ in playback.runs], [3750, 4000, 3750, 4000])
    durations = [
        re.search(r'--duration=(\w+)', c).group(1) for _, c in playback.runs
    ]
    self.assertEqual(durations, ['3m', '3m', '12m', '12m'])
    (best,) = _ByMetric(samples, 'tpcc_max_passing_warehouses')
    self.assertEqual(best.value, 3750)
    self.assertEqual(best.metadata['probes_used'], 2)
    self.assertEqual(best.metadata['step_seconds'], 2 * 300 + 2 * 840)
    passed = _ByMetric(samples, 'tpcc_step_passed')
    self.assertEqual(
        [(s.metadata['step_kind'], s.metadata['duration_s']) for s in passed],
        [('probe', 180), ('probe', 180),
         ('confirmation', 720), ('confirmation', 720)],
    )  # fmt: skip
    (at_max,) = _ByMetric(samples, 'tpcc_max_passing_tpmc')
    self.assertEqual(at_max.metadata['iteration'], 3)  # the full run

  def testResumesAfterACrashWithoutRepeatingSteps(self):
    spec, _, _ = _Topology(_Client(fail_at=4000))
    with self.assertRaisesRegex(Exception, 'connection lost'):
      benchmark.Run(spec)
    playback = _Client()
    spec, _, _ = _Topology(playback)
    samples = benchmark.Run(spec)  # what --run_stage=run does
    self.assertEqual([n for n, _ in playback.runs], [4000])
    passed = _ByMetric(samples, 'tpcc_step_passed')
    self.assertEqual(
        [(s.metadata['active_warehouses'], s.metadata['resumed'])
         for s in passed],
        [(3500, True), (3750, True), (4000, False)],
    )  # fmt: skip
    self.assertLen(
        glob.glob(
            os.path.join(self.state_dir, 'cloud_report_tpcc_tpcc1_*.json')
        ),
        1,
    )

  def testAnInterruptedRunIsRetriedNotJudged(self):
    playback = _Client({3750: [INTERRUPTED, STEP_OUTPUT[3750]]})
    spec, _, _ = _Topology(playback)
    samples = benchmark.Run(spec)
    self.assertEqual([a for a, _ in playback.runs], [3500, 3750, 3750, 4000])
    passed = _ByMetric(samples, 'tpcc_step_passed')
    self.assertEqual([s.value for s in passed], [1.0, 0.0, 1.0, 0.0])
    self.assertEqual(
        passed[1].metadata['step_error'],
        'the run ended after 24.5 s of 720 s',
    )
    self.assertEqual(
        passed[1].metadata['pass_reason'],
        'no result: the run ended after 24.5 s of 720 s',
    )
    (best,) = _ByMetric(samples, 'tpcc_max_passing_warehouses')
    self.assertEqual(best.value, 3750)  # as without the interruption
    (used,) = _ByMetric(samples, 'tpcc_steps_used')
    self.assertEqual(used.value, 4)

  def testNoResultAfterTheRetriesEndsTheSearchThere(self):
    playback = _Client({3750: INTERRUPTED})
    spec, _, _ = _Topology(playback)
    samples = benchmark.Run(spec)
    self.assertEqual([a for a, _ in playback.runs], [3500, 3750, 3750])
    (best,) = _ByMetric(samples, 'tpcc_max_passing_warehouses')
    self.assertEqual(best.value, 3500)
    self.assertEqual(best.metadata['search_end'], 'no_result')
    self.assertEqual(best.metadata['search_end_level'], 3750)
    self.assertIn(
        'no result: the run ended after 24.5 s of 720 s (given up',
        best.metadata['search_end_reason'],
    )
    passed = _ByMetric(samples, 'tpcc_step_passed')
    self.assertEqual(
        [s.metadata.get('step_gave_up') for s in passed], [None, False, True]
    )

  def testNoRetriesGivesUpOnTheFirstNoResult(self):
    playback = _Client({3750: INTERRUPTED})
    spec, _, _ = _Topology(playback)
    with flagsaver.flagsaver(cloud_report_tpcc_step_retries=0):
      samples = benchmark.Run(spec)
    self.assertEqual([a for a, _ in playback.runs], [3500, 3750])
    (best,) = _ByMetric(samples, 'tpcc_max_passing_warehouses')
    self.assertEqual(best.value, 3500)

  def testNoResultAtTheLowestLevelFailsThePhaseWithItsSamples(self):
    playback = _Client({3500: DIED})
    spec, _, _ = _Topology(playback)
    with self.assertRaisesRegex(
        phases.PhaseFailure,
        r'tpcc: no result: .*connection reset by peer.* at 3500 active'
        r' warehouses, the lowest level run, after 2 run\(s\).*saved in'
        r' .*cloud_report_tpcc_tpcc1_[0-9a-f]{12}.json; .*--run_uri=tpcc1'
        r' --run_stage=run,cleanup,teardown',
    ) as e:
      tpcc.Run(topology_lib.FromSpec(spec))
    passed = _ByMetric(e.exception.samples, 'tpcc_step_passed')
    self.assertEqual([s.value for s in passed], [0.0, 0.0])
    (best,) = _ByMetric(e.exception.samples, 'tpcc_max_passing_warehouses')
    self.assertEqual(best.metadata['search_end'], 'no_result')

  def testTheStandaloneModulePublishesTheSamplesAndFailsInRun(self):
    playback = _Client({3500: DIED})
    spec, _, _ = _Topology(playback)
    spec = types.SimpleNamespace(vm_groups=spec.vm_groups)
    published = []
    with mock.patch.object(
        publisher,
        'PublishRunStageSamples',
        side_effect=lambda _, samples: published.extend(samples),
    ):
      with self.assertRaisesRegex(phases.PhaseFailure, 'tpcc: no result'):
        benchmark_module.Run(spec)
    self.assertNotEmpty(_ByMetric(published, 'tpcc_step_passed'))
    self.assertEqual(published[0].metadata['phase'], 'tpcc')
    # PKB's own always_call_cleanup, nothing of ours, on the spec.
    self.assertEqual(sorted(vars(spec)), ['always_call_cleanup', 'vm_groups'])
    benchmark_module.Cleanup(spec)  # raises nothing of Run's

  def testAnOpenFileLimitThatCannotBeRaisedFailsThePhaseClearly(self):
    mark = (
        'cloud_report_open_files: cockroach workload run tpcc at 3500 active'
        ' warehouses needs 8024 open files; the soft limit is 1024 (hard'
        ' 4096) and neither ulimit nor sudo prlimit could raise it: ...\n'
    )
    playback = _Client()
    spec, _, client = _Topology(playback)
    client.RobustRemoteCommand.side_effect = lambda c, **kw: (
        mark + 'cloud_report_tpcc_exit_status=1\n',
        '',
    )
    with self.assertRaisesRegex(
        errors.Benchmarks.RunError,
        r'^tpcc: client: cloud_report_open_files: cockroach workload run'
        r' tpcc at 3500 active warehouses needs 8024 open files',
    ):
      benchmark.Run(spec)
    (command,) = [
        c.args[0] for c in client.RobustRemoteCommand.call_args_list
    ]  # fmt: skip
    self.assertIn('n=8024;', command)  # 2 x 3500 + 1024, before the run

  def testCleanupStopsByPidAndRemovesStores(self):
    spec, dbs, _ = _Topology(_Client())
    benchmark.Cleanup(spec)
    for vm in dbs:
      self.assertIn('cat /scratch/cockroach/cockroach.pid', vm.commands[-2])
      self.assertEqual(vm.commands[-1], 'sudo rm -rf /scratch/cockroach')

  def testFlagValidation(self):
    for flag, bad in (
        ('cloud_report_tpcc_duration', '30 minutes'),
        ('cloud_report_tpcc_ramp', '1'),
        ('cloud_report_tpcc_pass_rule', 'fast'),
        ('cloud_report_tpcc_postgres_options', ['fsync off']),
    ):
      with self.assertRaisesRegex(Exception, flag):
        with flagsaver.flagsaver(**{flag: bad}):
          pass
    with self.assertRaisesRegex(Exception, 'is below'):
      with flagsaver.flagsaver(cloud_report_tpcc_max_warehouses=100):
        pass


class SearchRunIdTest(pkb_common_test_case.PkbCommonTestCase):

  def testEachRunStageSearchesAgain(self):
    first = phases.RunIdentity('abc', 'cfg', '/tmp/x')
    self.assertEqual(tpcc.SearchRunId(first), 'abc')  # as before: resumable
    third = phases.RunIdentity('abc', 'cfg', '/tmp/x', run_number=2)
    self.assertEqual(tpcc.SearchRunId(third), 'abc/run2')
    # A state saved by the first Run is not the third Run's search.
    path = self.create_tempfile().full_path
    saved = stepping_state.StateStore(path, tpcc.SearchRunId(first), {'a': 1})
    saved.Save([])
    store = stepping_state.StateStore(path, tpcc.SearchRunId(third), {'a': 1})
    self.assertEqual(store.Load(), [])


class EdgeFailureTest(pkb_common_test_case.PkbCommonTestCase):
  """The overload edge's real failure shapes, through the phase's Run.

  Healthy summaries at 2,500 and 2,750 (the 3,500-warehouse capture
  rescaled by the cockroach double's Summary), and at 3,000 one of the two
  real failure shapes: the maximum is 2,750 either way.
  """

  def setUp(self):
    super().setUp()
    self.enter_context(
        flagsaver.flagsaver(
            **(STEP_FLAGS | dict(
                cloud_report_tpcc_start_warehouses=2500,
                cloud_report_tpcc_max_warehouses=3500,
                cloud_report_tpcc_state_dir=self.create_tempdir().full_path,
                run_uri='edge1',
            ))
        )
    )  # fmt: skip

  def _Healthy(self, active):
    return _DOUBLE.Summary(STEP_OUTPUT[3500], 720.0, active, 1.0, 97.8)

  @parameterized.named_parameters(
      ('NoTransactions', NO_RESULTS, 'fail', 'no throughput: tpmC 0'),
      ('WorkloadDied', DIED, 'no_result', 'connection reset by peer'),
  )
  def testTheMaximumIsTheLastHealthyLevel(self, at_3000, end, reason):
    playback = _Client(
        {2500: self._Healthy(2500), 2750: self._Healthy(2750), 3000: at_3000}
    )
    spec, _, _ = _Topology(playback)
    samples = tpcc.Run(topology_lib.FromSpec(spec))
    (best,) = _ByMetric(samples, 'tpcc_max_passing_warehouses')
    self.assertEqual(best.value, 2750)
    self.assertEqual(best.metadata['search_end'], end)
    self.assertIn(reason, best.metadata['search_end_reason'])
    (tpmc,) = _ByMetric(samples, 'tpcc_max_passing_tpmc')
    self.assertAlmostEqual(tpmc.value, 12.86 * 2750 * 0.978, delta=1)
    levels = [s.metadata['active_warehouses']
              for s in _ByMetric(samples, 'tpcc_step_passed')]  # fmt: skip
    self.assertEqual(levels[:2], [2500, 2750])
    self.assertEqual(set(levels[2:]), {3000})


# Run in the fake_vm_main subprocess (stock_pkb.RunMain's boot): plays the
# RobustRemoteCommand protocol back. The `workload run` started last on a VM
# (its --active-warehouses) decides which real output the wait returns;
# `extra` maps active warehouses to those outputs.
_ROBUST_PLAYBACK = r"""
import re
original = driver.FakeShell.__call__
started = {}

def Call(self, vm, command, *args, **kwargs):
  stdout, stderr, code = original(self, vm, command, *args, **kwargs)
  if 'execute_command' in command:
    m = re.search(r'--active-warehouses=(\d+)', command)
    started[vm.name] = m.group(1) if m else ''
  elif 'wait_for_command' in command:
    if '--delete' not in command:
      return 'Command finished.\n', '', 0
    text = extra.get(started.get(vm.name, ''), '')
    return text + 'cloud_report_tpcc_exit_status=0\n', '', 0
  return stdout, stderr, code

driver.FakeShell.__call__ = Call
"""


class StockPkbMainTest(pkb_common_test_case.PkbCommonTestCase):
  """pkb.py --benchmarks=cloud_report_tpcc on 4 fake static VMs."""

  def testStepsThroughPkb(self):
    result = stock_pkb.RunMain(
        self.create_tempdir().full_path,
        'cloud_report_tpcc',
        stock_pkb.StaticVms(4, local_disks=['/dev/vdb']),
        answers=[
            (f'sha256sum {TAR}', f'{SHA}  {TAR}\n'),
            ('echo end-of-probe', PROBE_SAFE),
            (f'cat {ROOT}/install.json', INSTALL_RECORD % ('amd64', SHA)),
            # A fresh cluster: the tpcc tables hold no warehouse.
            ('SELECT count(*) FROM tpcc.warehouse', 'count\n0\n'),
        ],
        flags=STEP_FLAGS | {'cloud_report_cockroachdb_sha256': f'amd64={SHA}'},
        boot=_ROBUST_PLAYBACK,
        extra={str(n): text for n, text in STEP_OUTPUT.items()},
        run_uri='tpccfake1',
    )
    self.assertEqual(result.proc.returncode, 0, result.proc.stderr[-3000:])
    commands, samples = result.commands, result.samples

    runs = [
        re.search(r'--active-warehouses=(\d+)', c['command']).group(1)
        for c in commands
        if 'execute_command' in c['command'] and 'workload run' in c['command']
    ]
    self.assertEqual(runs, ['3500', '3750', '4000'])
    starts = [
        c['command'] for c in commands if 'cockroach start' in c['command']
    ]
    self.assertLen(starts, 3, starts)
    self.assertIn('--store=path=/mnt/cloud_report_tpcc/cockroach', starts[0])
    passed = [s for s in samples if s['metric'] == 'tpcc_step_passed']
    self.assertEqual([s['value'] for s in passed], [1.0, 1.0, 0.0])
    labels = stock_pkb.Labels(passed[2])
    self.assertEqual(labels['phase'], 'tpcc')
    self.assertEqual(labels['active_warehouses'], '4000')
    self.assertEqual(labels['iteration'], '3')
    (best,) = [
        s for s in samples if s['metric'] == 'tpcc_max_passing_warehouses'
    ]
    self.assertEqual(best['value'], 3750)
    (state,) = glob.glob(
        os.path.join(result.run_dir, 'cloud_report_tpcc_tpccfake1_*.json')
    )
    with open(state) as f:
      self.assertLen(json.load(f)['steps'], 3)


if __name__ == '__main__':
  pkb_common_test_case.absltest.main()
