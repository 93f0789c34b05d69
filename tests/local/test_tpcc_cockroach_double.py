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
"""The cockroachdb package's commands against the cockroach double, here.

tests/doubles/cockroach.py stands in for the binary (CockroachDB cannot be
installed here). It is unpacked from the release-layout tarball it builds,
as Install does, and the package's own command strings run in bash on
loopback, each bounded by a timeout, with the open-file limits a VM's ssh
session may have (set per child process). Over ssh on the local cloud and
through stock pkb.py: tests/local/test_tpcc_cockroach.py.
"""

import importlib.util
import json
import os
import pathlib
import re
import resource
import shutil
import socket
import subprocess
import tempfile
import time
from unittest import mock

from absl.testing import absltest
from perfkitbenchmarker import errors

from benchmarks.cloud_report import remote
from benchmarks.cloud_report.tpcc import cockroach as cockroach_cluster
from benchmarks.cloud_report.tpcc import engines as tpcc_engines
from benchmarks.cloud_report.tpcc import parser as tpcc_parser
from benchmarks.cloud_report.tpcc import pass_rules
from benchmarks.cloud_report.tpcc import stepping
from linux_packages import cloud_report_cockroachdb as cockroachdb
from pkb_ext_dev import local_vm
from pkb_ext_dev import ports
from pkb_ext_dev import procs

_DOUBLE = pathlib.Path(__file__).resolve().parents[1] / 'doubles'
_SPEC = importlib.util.spec_from_file_location(
    'cockroach_double', _DOUBLE / 'cockroach.py'
)
double = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(double)

CAPACITY = 40  # warehouses the double's cluster sustains


def _Limits(soft, hard):
  def Set():
    resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))

  return Set


class CockroachDoubleTest(absltest.TestCase):

  def setUp(self):
    super().setUp()
    self.dir = tempfile.mkdtemp(prefix='pkb-ext-crdb-double-')
    self.addCleanup(shutil.rmtree, self.dir, ignore_errors=True)
    tarball, sha = double.BuildTarball(
        self.dir, capacity_warehouses=CAPACITY, start_delay_s=0.3
    )
    self.sha = sha
    root = os.path.join(self.dir, 'root')
    os.makedirs(root)
    subprocess.run(
        ['tar', '-xzf', tarball, '-C', root, '--strip-components=1'],
        check=True,
    )
    self.binary = os.path.join(root, 'cockroach')
    self.root = root
    self.enter_context(
        mock.patch.object(cockroachdb, 'BinaryPath', return_value=self.binary)
    )
    self.ports = ports.FreePorts(3)
    # A sudo that fails, as where the login user has no passwordless sudo.
    self.nosudo = os.path.join(self.dir, 'nosudo')
    os.makedirs(self.nosudo)
    with open(os.path.join(self.nosudo, 'sudo'), 'w') as f:
      f.write('#!/bin/sh\necho "sudo: a password is required" >&2\nexit 1\n')
    os.chmod(os.path.join(self.nosudo, 'sudo'), 0o755)
    self.stores = []

  def _Bash(self, command, timeout=30, limits=(1024, 20000), sudo=True):
    env = dict(os.environ)
    if not sudo:
      env['PATH'] = self.nosudo + ':' + env['PATH']
    return subprocess.run(
        ['bash', '-c', command],
        capture_output=True,
        text=True,
        timeout=timeout,
        preexec_fn=_Limits(*limits),
        env=env,
        check=False,
    )

  def _Store(self, i):
    store = os.path.join(self.dir, f'store{i}')
    if store not in self.stores:
      self.stores.append(store)
      self.addCleanup(self._Bash, cockroach_cluster.StopCommand(store))
    return store

  def _Start(self, i, **kw):
    # The package's ports are fixed (26257); here each node has a free one.
    command = cockroach_cluster.StartCommand(
        self._Store(i), '127.0.0.1', ['127.0.0.1'] * 3
    )
    command = command.replace(
        f'--listen-addr=127.0.0.1:{cockroach_cluster.SQL_PORT}',
        f'--listen-addr=127.0.0.1:{self.ports[i]}',
    ).replace(
        f'--join={",".join(["127.0.0.1:26257"] * 3)}',
        '--join=' + ','.join(f'127.0.0.1:{p}' for p in self.ports),
    )
    return self._Bash(command, **kw)

  def _Url(self, i):
    return f'postgresql://root@127.0.0.1:{self.ports[i]}?sslmode=disable'

  def _Sql(self, i, statement):
    return self._Bash(
        cockroach_cluster.SqlCommand('127.0.0.1', statement).replace(
            ':26257', f':{self.ports[i]}'
        )
    )

  def _Cluster(self, warehouses):
    for i in range(3):
      proc = self._Start(i)
      self.assertEqual(proc.returncode, 0, proc.stderr)
    proc = self._Sql(2, 'SELECT 1')
    self.assertEqual(proc.returncode, 1)  # not initialised yet
    self.assertIn('waiting for the cluster to be initialized', proc.stderr)
    proc = self._Bash(
        cockroach_cluster.InitCommand('127.0.0.1').replace(
            ':26257', f':{self.ports[0]}'
        )
    )
    self.assertEqual(proc.stdout.strip(), 'Cluster successfully initialized')
    proc = self._Bash(
        tpcc_engines.ImportCommand(warehouses, '127.0.0.1').replace(
            ':26257', f':{self.ports[0]}'
        )
    )
    self.assertEqual(proc.returncode, 0, proc.stderr)

  def _RunCommand(self, loaded, active, duration='2s'):
    command = tpcc_engines.WorkloadRunCommand(
        loaded, active, '0s', duration, ['127.0.0.1']
    )
    urls = ' '.join(f"'{self._Url(i)}'" for i in range(3))
    return re.sub(r"'postgresql://[^']*'", lambda _: urls, command, count=1)

  def testBareStartKeepsTheCallersPipeOpenTheStartCommandReturns(self):
    bare = cockroach_cluster.NodeCommand(
        self._Store(0), '127.0.0.1', ['127.0.0.1']
    ).replace(':26257', f':{self.ports[0]}')
    # As over ssh: the caller reads the command's output to its end.
    with self.assertRaises(subprocess.TimeoutExpired):
      self._Bash(bare, timeout=8)
    pid_file = cockroach_cluster.PidFile(self._Store(0))
    with open(pid_file) as f:
      pid = int(f.read())
    os.kill(pid, 0)  # the node was ready: it is the pipe that is held
    self._Bash(cockroach_cluster.StopCommand(self._Store(0)))
    self.assertFalse(os.path.exists(pid_file))

    proc = self._Start(0, timeout=30)
    self.assertEqual(proc.returncode, 0, proc.stderr)
    with open(pid_file) as f:
      pid = int(f.read())
    os.kill(pid, 0)
    with open(cockroach_cluster.StartLog(self._Store(0))) as f:
      self.assertIn('CockroachDB node starting', f.read())
    with socket.create_connection(('127.0.0.1', self.ports[0]), timeout=5):
      pass

  def testClusterRunsStepsAlongItsCapacityCurve(self):
    self._Cluster(60)
    proc = self._Sql(2, 'SELECT 1')  # node 3 learnt of init from its peers
    self.assertEqual(proc.returncode, 0, proc.stderr)
    verdicts = []
    for active in (20, 40, 60):
      proc = self._Bash(self._RunCommand(60, active), timeout=60)
      self.assertEqual(proc.returncode, 0, proc.stderr)
      result = tpcc_parser.Parse(proc.stdout)
      self.assertAlmostEqual(result.implied_warehouses, active, delta=0.5)
      self.assertGreaterEqual(result.elapsed_s, 1.8)
      m = tpcc_engines.ToMeasurement(proc.stdout, 0, active, 2)
      self.assertIsNone(m.error)
      step = stepping.Judge(pass_rules.RULES['report'], active, m)
      verdicts.append((active, step.passed))
    self.assertEqual(verdicts, [(20, True), (40, True), (60, False)])

  def _EdgeFailure(self, edge):
    path = os.path.join(self.root, double.CONFIG_NAME)
    with open(path) as f:
      config = json.load(f)
    config['edge_failure'] = edge
    with open(path, 'w') as f:
      json.dump(config, f)

  def _Workloads(self):
    """This test's `workload run` processes still alive."""
    return [cmd for _, cmd in procs.Cmdlines()
            if self.binary in cmd and 'workload run' in cmd]  # fmt: skip

  def testAtTheEdgeTheWorkloadDiesAsTheRealOneDoes(self):
    self._Cluster(60)
    self._EdgeFailure(double.EDGE_DIE)
    below = self._Bash(self._RunCommand(60, 40), timeout=60)
    self.assertEqual(below.returncode, 0, below.stderr)  # at the capacity
    proc = self._Bash(self._RunCommand(60, 60), timeout=60)
    self.assertEqual(proc.returncode, 1)
    self.assertEqual(proc.stdout, 'Initializing 120 connections...\n')
    self.assertRegex(
        proc.stderr,
        r'^Error: read tcp 127\.0\.0\.1:\d+->127\.0\.0\.1:\d+: read:'
        r' connection reset by peer\n$',
    )
    m = tpcc_engines.ToMeasurement(proc.stdout + proc.stderr, 1, 60, 2)
    self.assertIn('connection reset by peer', m.error)

  def testAtTheEdgeARunCanCompleteNothing(self):
    self._Cluster(60)
    self._EdgeFailure(double.EDGE_ZERO)
    proc = self._Bash(self._RunCommand(60, 60), timeout=60)
    self.assertEqual(proc.returncode, 0, proc.stderr)
    m = tpcc_engines.ToMeasurement(proc.stdout, 0, 60, 2)
    self.assertIsNone(m.error)  # a result: one that completed nothing
    self.assertEqual((m.metrics['tpmc'], m.metrics['p90_ms']), (0.0, 0.0))
    step = stepping.Judge(pass_rules.RULES['report'], 60, m)
    self.assertFalse(step.passed)
    self.assertIn('no throughput', step.reason)

  def testAHungWorkloadIsEndedWithItsProcessGroup(self):
    self._Cluster(60)
    self._EdgeFailure(double.EDGE_HANG)
    command = remote.Bounded(self._RunCommand(60, 60), 3)
    proc = self._Bash(command, timeout=60)
    self.assertIn(proc.returncode, remote.TIMED_OUT)
    self.assertEqual(proc.stdout, 'Initializing 120 connections...\n')
    self.assertEqual(self._Workloads(), [])

  def testImportOverExistingTablesFailsAsTheRealOneDoes(self):
    self._Cluster(60)
    import_command = tpcc_engines.ImportCommand(60, '127.0.0.1').replace(
        ':26257', f':{self.ports[0]}'
    )
    proc = self._Bash(import_command)
    self.assertEqual(proc.returncode, 1, proc.stdout)
    self.assertEqual(
        proc.stderr,
        'Error: importing fixture: importing table warehouse: pq: relation'
        ' "warehouse" already exists\n',
    )
    count = cockroach_cluster.CountCommand('127.0.0.1', 'tpcc.warehouse')
    for _ in range(100):  # the import reaches every node (the double gossips)
      proc = self._Bash(count.replace(':26257', f':{self.ports[2]}'))
      if proc.returncode == 0:
        break
      time.sleep(0.2)
    self.assertEqual((proc.returncode, proc.stdout), (0, 'count\n60\n'))
    proc = self._Sql(0, 'DROP DATABASE IF EXISTS tpcc CASCADE')
    self.assertEqual(proc.returncode, 0, proc.stderr)
    for _ in range(100):  # the drop reaches every node
      proc = self._Bash(count.replace(':26257', f':{self.ports[2]}'))
      if proc.returncode:
        break
      time.sleep(0.2)
    self.assertEqual(proc.returncode, 1)
    self.assertIn('relation "tpcc.warehouse" does not exist', proc.stderr)
    proc = self._Bash(import_command)
    self.assertEqual(proc.returncode, 0, proc.stderr)

  def testARestartKeepsTheStoreAndInitIsTolerated(self):
    self._Cluster(60)
    proc = self._Start(1)  # running: kept
    self.assertEqual(proc.returncode, 0, proc.stderr)
    self.assertIn(cockroach_cluster.RUNNING_MARK, proc.stdout)
    self._Bash(cockroach_cluster.StopCommand(self._Store(1)))
    proc = self._Start(1)  # stopped: restarts on its store
    self.assertEqual(proc.returncode, 0, proc.stderr)
    self.assertNotIn(cockroach_cluster.RUNNING_MARK, proc.stdout)
    init = cockroach_cluster.InitCommand('127.0.0.1').replace(
        ':26257', f':{self.ports[1]}'
    )
    proc = self._Bash(init)
    self.assertEqual(proc.returncode, 0, proc.stderr)
    self.assertIn('already been initialized', proc.stdout)
    count = cockroach_cluster.CountCommand('127.0.0.1', 'tpcc.warehouse')
    for _ in range(100):  # its store, or its peers, have the import
      proc = self._Bash(count.replace(':26257', f':{self.ports[1]}'))
      if proc.returncode == 0:
        break
      time.sleep(0.2)
    self.assertEqual(proc.stdout, 'count\n60\n', proc.stderr)

  def testWorkloadNeedsTwoConnectionsPerWarehouse(self):
    self._Cluster(60)
    # An ssh session's usual soft limit is low; here 64 < 2 x 60.
    bare = self._RunCommand(60, 60, '1s')
    proc = self._Bash(bare, limits=(64, 4096))
    self.assertEqual(proc.returncode, 1)
    self.assertIn('socket: too many open files', proc.stderr)
    # A step's "no result" says why, in the tool's words.
    m = tpcc_engines.ToMeasurement(proc.stderr, 1, 60, 1)
    self.assertRegex(
        m.error,
        r'\(exit status 1\); its last output line: Error: dial tcp'
        r' 127\.0\.0\.1:\d+: socket: too many open files$',
    )
    # The engine's prelude raises the soft limit in the same shell.
    prelude = cockroach_cluster.RaiseOpenFilesCommand(
        cockroach_cluster.WorkloadOpenFiles(60), 'workload'
    )
    proc = self._Bash(f'{{ {prelude}; }} && {bare}', limits=(64, 4096))
    self.assertEqual(proc.returncode, 0, proc.stderr)
    self.assertEqual(tpcc_parser.Parse(proc.stdout).tool, 'cockroach')
    # A hard limit that neither ulimit nor sudo can lift: a clear failure,
    # and the workload does not run.
    proc = self._Bash(
        f'{{ {prelude}; }} && {bare}', limits=(64, 256), sudo=False
    )
    self.assertEqual(proc.returncode, 1)
    self.assertIn(
        'cloud_report_open_files: workload needs 1144 open files; the soft'
        ' limit is 64 (hard 256)',
        proc.stderr,
    )
    self.assertNotIn('too many open files', proc.stderr)

  def testStartRaisesTheNodesLimitOrSaysWhyNot(self):
    proc = self._Start(0, limits=(1024, 4096), sudo=False)
    self.assertEqual(proc.returncode, 1)
    self.assertIn(
        'cloud_report_open_files: cockroach start needs 15000 open files',
        proc.stderr,
    )
    self.assertFalse(os.path.exists(cockroach_cluster.PidFile(self._Store(0))))
    # Bare, the double refuses a hard limit below cockroach's minimum.
    bare = cockroach_cluster.NodeCommand(
        self._Store(1), '127.0.0.1', ['127.0.0.1']
    ).replace(':26257', f':{self.ports[1]}')
    proc = self._Bash(f'{bare} </dev/null 2>&1', limits=(1024, 1024))
    self.assertEqual(proc.returncode, 1)
    self.assertIn(
        'hard open file descriptor limit of 1024 is under the minimum'
        ' required 1956',
        proc.stdout,
    )

  def testAFailedStartRaisesWithTheLogTails(self):
    taken = socket.socket()
    taken.bind(('127.0.0.1', 0))
    taken.listen(1)
    self.addCleanup(taken.close)
    vm = local_vm.LocalVm('db1', work_dir=self.dir)
    with mock.patch.object(
        cockroach_cluster, 'SQL_PORT', taken.getsockname()[1]
    ):
      with self.assertRaisesRegex(
          errors.Benchmarks.PrepareException,
          r'(?s)db1: cockroach start failed \(exit status 1\)\. Log tails'
          r' \(.*/logs/cockroach-start\.log, cockroach\.log\):\n.*'
          r'bind: Address already in use',
      ):
        cockroach_cluster.StartNode(
            vm, self._Store(0), ['127.0.0.1'], timeout_s=30
        )

  def testSigtermStopsTheNode(self):
    proc = self._Start(0)
    self.assertEqual(proc.returncode, 0, proc.stderr)
    with open(cockroach_cluster.PidFile(self._Store(0))) as f:
      pid = int(f.read())
    proc = self._Bash(cockroach_cluster.StopCommand(self._Store(0)))
    self.assertEqual(proc.returncode, 0)
    with self.assertRaises(ProcessLookupError):
      os.kill(pid, 0)
    with self.assertRaises(OSError):
      socket.create_connection(('127.0.0.1', self.ports[0]), timeout=2)
    with open(os.path.join(self._Store(0), 'logs', 'cockroach.log')) as f:
      self.assertIn('received signal SIGTERM', f.read())


if __name__ == '__main__':
  absltest.main()
