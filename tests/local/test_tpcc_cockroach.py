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
"""The cockroach engine over real ssh on the local test cloud, with the double.

CockroachDB cannot be installed here; tests/doubles/cockroach.py stands in
for the binary, packed as the release tarball (cockroach-v20.2.7.linux-amd64/
cockroach) into a data search path directory and installed by the package's
Install with its sha256 given through --cloud_report_cockroachdb_sha256.

1. Over ssh to db1, the bare `cockroach start ... --background` (the
   command as it was, with no redirection) never returns: the ssh, bounded
   by a timeout, is still waiting when the node is long ready. StartNode's
   command returns, and a whole cluster starts, initializes and stops.
2. Stock pkb.py runs cloud_report_2021's tpcc phase with the cockroach
   engine on the 3 db hosts and the client: 3 judged steps along the
   double's capacity curve (100 and 200 active warehouses pass, 300 fails),
   while the client's sshd gives sessions a soft open-file limit of 256, so
   the workload runs only because the engine raises it. After stop and
   cleanup no cockroach process is left on any host or on this machine.
Test 5, the whole suite killed mid-search and resumed: with overlap (the
   default), object_storage runs while the cockroach engine loads the
   warehouses (the client is idle), and tpcc's search after both.
Test 6, object_storage and tpcc with the double's import failing (as an
   IMPORT job whose node lost its liveness) while object_storage runs
   beside it: tpcc fails with the import's cause and never runs a step,
   object_storage keeps its samples, and no cockroach is left.

Reuses the test cloud (pkb_ext_dev.local_cloud) when it is up; else
brings it up and takes it down. Needs root; run under the machine's heavy
lock like every local-cloud test.
"""

import collections
import glob
import importlib.util
import json
import os
import pathlib
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

from absl.testing import absltest
from absl.testing import flagsaver
from perfkitbenchmarker import data

from benchmarks.cloud_report import remote
from benchmarks.cloud_report.tpcc import cockroach as cockroach_cluster
from benchmarks.cloud_report.tpcc import engines as tpcc_engines
from linux_packages import cloud_report_cockroachdb as cockroachdb
from pkb_ext.local import sshd
from pkb_ext_dev import faults
from pkb_ext_dev import local_cloud
from pkb_ext_dev import procs
from pkb_ext_dev import ssh_host_vm
from pkb_ext_dev import stock_pkb

_REASON = local_cloud.Unavailable()
_HOSTS = ('client', 'db1', 'db2', 'db3')
_DOUBLE = pathlib.Path(__file__).resolve().parents[1] / 'doubles'
_SPEC = importlib.util.spec_from_file_location(
    'cockroach_double', _DOUBLE / 'cockroach.py'
)
double = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(double)
CAPACITY = 250  # warehouses the double's cluster sustains
SESSION_SOFT_NOFILE = 256  # the client's ssh sessions, during test 2
_NODE = re.compile(r'cloud_report_cockroachdb/cockroach (start|workload)')


class SshVm(ssh_host_vm.HostVm):
  """A local-cloud host with what the cockroachdb package calls."""

  def PushFile(self, source_path, remote_path=''):
    with open(source_path, 'rb') as f:
      subprocess.run(
          sshd.SshArgv(
              self._plan, self._plan.Host(self.name), f'cat > {remote_path}'
          ),
          stdin=f,
          check=True,
          timeout=120,
      )

  def PushDataFile(self, data_file, remote_path='', should_double_copy=None):
    del should_double_copy
    self.PushFile(data.ResourcePath(data_file), remote_path)


@absltest.skipIf(_REASON, _REASON)
class CockroachLocalCloudTest(absltest.TestCase):

  @classmethod
  def setUpClass(cls):
    super().setUpClass()
    cls.work = tempfile.mkdtemp(prefix='pkb-ext-crdb-local-')
    cls.cloud = local_cloud.TestCloud(local_cloud.TestStateDir())
    cls.was_up = cls.cloud.UpForTests()
    cls.data_dir = os.path.join(cls.work, 'data')
    os.makedirs(cls.data_dir)
    cls.tarball, cls.sha = double.BuildTarball(
        cls.data_dir, capacity_warehouses=CAPACITY, start_delay_s=1
    )

  @classmethod
  def tearDownClass(cls):
    faults.FaultCloud.EndSshMasters(cls.work)
    shutil.rmtree(cls.work, ignore_errors=True)
    cls.cloud.DownAfterTests(cls.was_up)
    super().tearDownClass()

  def _Vm(self, name):
    return SshVm(self.cloud.plan, name)

  def _Cockroaches(self):
    """cockroach processes on the hosts (seen from this machine's /proc)."""
    return [f'{pid}: {cmd[:160]}' for pid, cmd in procs.Cmdlines()
            if _NODE.search(cmd) and 'pytest' not in cmd]  # fmt: skip

  def _HostCockroaches(self):
    out = {}
    for host in _HOSTS:
      proc = self.cloud.Ssh(host, 'ps -eo args')
      self.assertEqual(proc.returncode, 0, proc.stderr)
      out[host] = [l for l in proc.stdout.splitlines() if _NODE.search(l)]
    return out

  def test_1_bare_start_hangs_over_ssh_the_start_command_returns(self):
    vms = [self._Vm(h) for h in ('db1', 'db2', 'db3')]
    stores = [f'/home/pkbext/crdb-start-test-{vm.name}' for vm in vms]
    db1, store = vms[0], stores[0]
    self.addCleanup(cockroach_cluster.StopCluster, vms, stores)
    with flagsaver.flagsaver(
        data_search_paths=[self.data_dir],
        cloud_report_cockroachdb_sha256=[f'amd64={self.sha}'],
    ):
      for vm in vms:
        cockroachdb.Install(vm)  # the package's own path, from the tarball
    info = cockroachdb.InstalledInfo(db1)
    self.assertEqual(
        (info['version'], info['arch'], info['sha256_source']),
        ('v20.2.7', 'amd64', 'flag'),
    )
    db1.RemoteCommand(f'mkdir -p {store}')
    bare = cockroach_cluster.NodeCommand(
        store, db1.internal_ip, [db1.internal_ip]
    )
    with self.assertRaises(subprocess.TimeoutExpired):
      self.cloud.Ssh('db1', bare, timeout=20)
    # The node was ready long before: only the session's pipe is held.
    pid_file = cockroach_cluster.PidFile(store)
    alive = self.cloud.Ssh('db1', f'kill -0 $(cat {pid_file}) && echo alive')
    self.assertEqual(alive.stdout.strip(), 'alive', alive.stderr)
    db1.RemoteCommand(cockroach_cluster.StopCommand(store))
    self.assertEqual(self._HostCockroaches()['db1'], [])

    cockroach_cluster.StartNode(db1, store, [db1.internal_ip], timeout_s=60)
    listening = self.cloud.Ssh(
        'client',
        'python3 -c "import socket;'
        f" socket.create_connection(('{db1.internal_ip}',"
        f' {cockroach_cluster.SQL_PORT}), 5)" && echo listening',
    )
    self.assertEqual(listening.stdout.strip(), 'listening', listening.stderr)
    db1.RemoteCommand(cockroach_cluster.StopCommand(store))

    cockroach_cluster.StartCluster(vms, stores)  # start x3, init, SQL answers
    out, _ = vms[2].RemoteCommand(
        cockroach_cluster.SqlCommand(vms[2].internal_ip, 'SELECT 1')
    )
    self.assertIn('(1 row)', out)
    cockroach_cluster.StopCluster(vms, stores)
    self.assertEqual(self._HostCockroaches(), {h: [] for h in _HOSTS})
    for vm in vms:
      vm.RemoteCommand(f'rm -rf {store} {cockroachdb.RootDir()}')

  def _PkbArgv(
      self, run_uri, edge=None, spool=None, phases='tpcc', **double_config
  ):
    """pkb.py's argv for the cockroach engine on the test cloud: steps at
    100, 200 and 300 active warehouses (the double sustains 250); edge and
    double_config set the double's config."""
    flag_file = os.path.join(self.work, 'flags')
    if not os.path.exists(flag_file):
      proc = self.cloud.Cli('flags', '--preset=smoke')
      self.assertEqual(proc.returncode, 0, proc.stderr)
      with open(flag_file, 'w') as f:
        f.write(proc.stdout)
    data_dir, sha = self.data_dir, self.sha
    if edge or double_config:
      data_dir = os.path.join(self.work, f'data-{run_uri}')
      os.makedirs(data_dir, exist_ok=True)
      _, sha = double.BuildTarball(
          data_dir, capacity_warehouses=CAPACITY, start_delay_s=1,
          edge_failure=edge or double.EDGE_NONE, **double_config,
      )  # fmt: skip
    pkb = os.path.join(os.path.dirname(sys.executable), 'pkb.py')
    argv = [
        sys.executable, pkb, '--benchmarks=cloud_report_2021',
        f'--flagfile={flag_file}', f'--temp_dir={self.work}/pkb',
        f'--json_path={self.work}/{run_uri}-samples.json',
        f'--run_uri={run_uri}',
        '--cloud_report_tpcc_engine=cockroach',
        f'--data_search_paths={data_dir}',
        f'--cloud_report_cockroachdb_sha256=amd64={sha}',
        '--cloud_report_tpcc_start_warehouses=100',
        '--cloud_report_tpcc_step_warehouses=100',
        '--cloud_report_tpcc_max_warehouses=300',
        '--cloud_report_tpcc_duration=4s',
        '--cloud_report_tpcc_ramp=1s',
    ]  # fmt: skip
    if phases:
      argv.append(f'--cloud_report_phases={phases}')
    if spool:
      argv.append(f'--cloud_report_spool_dir={spool}')
    return argv

  def _Samples(self, run_uri):
    with open(os.path.join(self.work, f'{run_uri}-samples.json')) as f:
      return [json.loads(line) for line in f if line.strip()]

  def _Run(self, argv, timeout=1200):
    proc = subprocess.run(
        argv, env=self.cloud.env, capture_output=True, text=True,
        timeout=timeout, check=False,
    )  # fmt: skip
    run_uri = next(a for a in argv if a.startswith('--run_uri='))[10:]
    with open(os.path.join(self.work, f'{run_uri}.log'), 'w') as f:
      f.write(proc.stderr)
    return proc

  def _Failures(self, proc):
    return '\n'.join(
        l for l in proc.stderr.splitlines() if re.search(r'tpcc: |Error', l)
    )[-4000:]

  def test_2_stock_pkb_runs_the_cockroach_engine(self):
    argv = self._PkbArgv('crdbloc1') + [
        f'--cloud_report_tpcc_state_dir={self.work}/state'
    ]
    samples_path = os.path.join(self.work, 'crdbloc1-samples.json')
    sshd_pid = self.cloud.State()['hosts']['client']['sshd_pid']
    before = subprocess.run(
        ['prlimit', '--pid', str(sshd_pid), '--nofile', '--raw', '-o',
         'SOFT,HARD', '--noheadings'],
        capture_output=True, text=True, check=True,
    ).stdout.split()  # fmt: skip
    subprocess.run(
        ['prlimit', '--pid', str(sshd_pid),
         f'--nofile={SESSION_SOFT_NOFILE}:{before[1]}'],
        check=True,
    )  # fmt: skip
    try:
      soft = self.cloud.Ssh('client', 'ulimit -Sn').stdout.strip()
      self.assertEqual(soft, str(SESSION_SOFT_NOFILE))
      proc = subprocess.run(
          argv, env=self.cloud.env, capture_output=True, text=True,
          timeout=1200, check=False,
      )  # fmt: skip
    finally:
      subprocess.run(
          ['prlimit', '--pid', str(sshd_pid),
           f'--nofile={before[0]}:{before[1]}'],
          check=True,
      )  # fmt: skip
    with open(os.path.join(self.work, 'pkb.log'), 'w') as f:
      f.write(proc.stderr)
    failures = '\n'.join(
        l for l in proc.stderr.splitlines() if re.search(r'tpcc: |Error', l)
    )
    self.assertEqual(proc.returncode, 0, failures[-4000:])
    self.assertIn('Success rate: 100.00% (1/1)', proc.stderr)

    with open(samples_path) as f:
      samples = [json.loads(line) for line in f if line.strip()]
    tpcc = [s for s in samples if 'phase:tpcc' in s.get('labels', '')]
    steps = [s for s in tpcc if s['metric'] == 'tpcc_step_passed']
    labels = [stock_pkb.Labels(s) for s in steps]
    self.assertEqual(
        [(l['active_warehouses'], s['value']) for l, s in zip(labels, steps)],
        [('100', 1.0), ('200', 1.0), ('300', 0.0)],
    )
    for l in labels:
      self.assertEqual(l['engine'], 'cockroach')
      self.assertRegex(l['pass_reason'], r'^(pass|fail) \(report\): p90 ')
      self.assertEqual(l['cockroach_sha256_source'], 'flag')
      self.assertEqual(l['cockroach_version'], 'v20.2.7')
    (best,) = [s for s in tpcc if s['metric'] == 'tpcc_max_passing_warehouses']
    self.assertEqual(best['value'], 200)
    tpmc = [s['value'] for s in tpcc if s['metric'] == 'tpcc_tpmc']
    self.assertLen(tpmc, 3)
    self.assertLess(tpmc[0], tpmc[1])  # throughput grows with the load

    # The client ran each step with its open-file limit raised first.
    runs = [c for c in self.cloud.CommandLog('client') if 'workload run' in c]
    self.assertTrue(runs)
    self.assertTrue(all('n=1224;' in c or 'n=1424;' in c or 'n=1624;' in c
                        for c in runs), runs)  # fmt: skip
    # Stop and cleanup left no cockroach process, and the disks unmounted.
    self._AssertNothingLeft()

  def _ClientWorkloads(self) -> set[int]:
    """PIDs of the GNU timeouts of tracked workloads running on the client."""
    proc = self.cloud.Ssh('client', 'ps -eo pid=,args=')
    return {
        int(line.split()[0])
        for line in proc.stdout.splitlines()
        if re.search(r'^\s*\d+ timeout .*cockroach workload run', line)
    }

  def _AssertNothingLeft(self):
    self.assertEqual(self._HostCockroaches(), {h: [] for h in _HOSTS})
    self.assertEqual(self._Cockroaches(), [])
    for host in ('db1', 'db2', 'db3'):
      mounted = self.cloud.Ssh(host, 'findmnt -n /mnt/cloud_report_tpcc')
      self.assertEqual(mounted.stdout.strip(), '', host)

  def _Tpcc(self, samples, metric):
    return [s for s in samples
            if 'phase:tpcc' in s.get('labels', '') and s['metric'] == metric]  # fmt: skip

  def test_3_at_the_edge_the_search_keeps_the_last_healthy_level(self):
    # The workload dies (no summary) or completes nothing at 300.
    for edge, end, reason in (
        (double.EDGE_DIE, 'no_result', 'connection reset by peer'),
        (double.EDGE_ZERO, 'fail', 'no throughput: tpmC 0'),
    ):
      with self.subTest(edge=edge):
        run_uri = f'crdbedge{edge}'
        proc = self._Run(self._PkbArgv(run_uri, edge))
        self.assertEqual(proc.returncode, 0, self._Failures(proc))
        samples = self._Samples(run_uri)
        steps = self._Tpcc(samples, 'tpcc_step_passed')
        levels = [stock_pkb.Labels(s)['active_warehouses'] for s in steps]
        self.assertEqual(levels[:2], ['100', '200'])
        self.assertEqual(set(levels[2:]), {'300'})
        self.assertLen(levels, 4 if edge == double.EDGE_DIE else 3)
        (best,) = self._Tpcc(samples, 'tpcc_max_passing_warehouses')
        self.assertEqual(best['value'], 200)
        labels = stock_pkb.Labels(best)
        self.assertEqual(labels['search_end'], end)
        self.assertIn(reason, labels['search_end_reason'])
        self.assertLen(self._Tpcc(samples, 'tpcc_max_passing_tpmc'), 1)
        self._AssertNothingLeft()

  def test_4_a_hung_step_is_ended_within_its_bound(self):
    run_uri = 'crdbhang'
    argv = self._PkbArgv(run_uri, double.EDGE_HANG) + [
        '--cloud_report_tpcc_step_timeout=10s',
        '--cloud_report_tpcc_step_retries=0',
    ]
    proc = self._Run(argv)
    self.assertEqual(proc.returncode, 0, self._Failures(proc))
    samples = self._Samples(run_uri)
    (best,) = self._Tpcc(samples, 'tpcc_max_passing_warehouses')
    self.assertEqual(best['value'], 200)
    self.assertIn(
        'the step did not end within 10 s and was ended on the client',
        stock_pkb.Labels(best)['search_end_reason'],
    )
    # No workload was left running on the client (nor any node).
    self._AssertNothingLeft()

  def test_5_a_killed_suite_resumes_and_runs_no_phase_twice(self):
    run_uri = 'crdbresume'
    spool = os.path.join(self.work, 'spool')
    argv = self._PkbArgv(run_uri, spool=spool, phases=None)
    state = os.path.join(self.work, 'pkb', 'runs', run_uri)
    log_path = os.path.join(self.work, f'{run_uri}-killed.log')
    with open(log_path, 'w') as log:
      first = subprocess.Popen(
          argv, env=self.cloud.env, stdout=subprocess.DEVNULL, stderr=log,
          start_new_session=True,
      )  # fmt: skip
      # Killed once the search has saved its first step: mid-search.
      deadline = time.monotonic() + 900
      while time.monotonic() < deadline and first.poll() is None:
        saved = glob.glob(os.path.join(state, 'cloud_report_tpcc_*.json'))
        if saved and '"level": 100' in open(saved[0]).read():
          break
        time.sleep(0.5)
      if first.poll() is not None:
        with open(log_path) as f:
          tail = f.read()[-3000:]
        self.fail(f'the run ended before the kill: {tail}')
      os.killpg(first.pid, signal.SIGKILL)
      first.wait()
    with open(log_path) as f:
      killed_log = f.read()
    for phase in ('cpu', 'io', 'net', 'object_storage', 'tpcc'):
      self.assertIn(f'phase {phase}: Run starting', killed_log)
    # cockroach's load leaves the client idle: object_storage ran while
    # tpcc's Setup loaded the warehouses (each began before the other
    # ended), and tpcc's Run began after object_storage's ended.
    self.assertIn(
        'overlap: object_storage run while tpcc loads its data', killed_log
    )

    def At(line):
      return killed_log.index(f'cloud_report: phase {line}')

    self.assertLess(At('tpcc: Setup starting'), At('object_storage: Run done'))
    self.assertLess(At('object_storage: Run starting'), At('tpcc: Setup done'))
    self.assertLess(At('object_storage: Run done'), At('tpcc: Run starting'))
    # Each finished phase was published as it ended; tpcc was not done.
    published = collections.Counter(
        json.loads(line)['metadata'].get('phase')
        for path in glob.glob(os.path.join(spool, '*.ndjson'))
        for line in open(path) if line.strip()
    )  # fmt: skip
    self.assertEqual(
        {p for p in published if p}, {'cpu', 'io', 'net', 'object_storage'}
    )
    # The killed attempt's step runs on, detached on the client, as PKB's
    # RobustRemoteCommand leaves it; a second one, tracked as a step is,
    # still runs for minutes: a longer step, or a slower resume.
    ips = [self._Vm(h).internal_ip for h in ('db1', 'db2', 'db3')]
    workload = tpcc_engines.WorkloadRunCommand(300, 200, '1s', '600s', ips)
    left = self.cloud.Ssh(
        'client',
        'nohup '
        + remote.Bounded(workload, 900, 'tpcc-step-09-200wh')
        + ' >/dev/null 2>&1 </dev/null & sleep 2;'
        ' cat /tmp/cloud_report_running.tpcc-step-09-200wh.pid',
    )
    # The PID file holds the PID, then its start time.
    left_pid = int(left.stdout.splitlines()[-1].split()[0])
    self.assertIn(left_pid, self._ClientWorkloads(), left.stderr)

    resumed = self._Run(argv + ['--run_stage=run,cleanup,teardown'])
    self.assertEqual(resumed.returncode, 0, self._Failures(resumed))
    for phase in ('cpu', 'io', 'net', 'object_storage'):
      self.assertNotIn(f'phase {phase}: Run starting', resumed.stderr)
      self.assertIn(f'phase {phase} finished in an earlier attempt',
                    resumed.stderr)  # fmt: skip
    self.assertIn('already holds 300 warehouses', resumed.stderr)
    self.assertIn('phase tpcc: Run starting', resumed.stderr)
    # The leftover was ended before the resumed search ran a step.
    ended = re.search(
        rf'ended tpcc-step-09-200wh \(pid {left_pid}\) on \S+, left running'
        ' by an earlier attempt',
        resumed.stderr,
    )
    self.assertIsNotNone(ended, resumed.stderr[-3000:])
    self.assertLess(ended.start(), resumed.stderr.index('tpcc: step 2 '))
    self.assertNotIn(left_pid, self._ClientWorkloads())
    # The spool has every sample once: each phase's, the tpcc steps resumed.
    rows = [
        json.loads(line)
        for path in glob.glob(os.path.join(spool, '*.ndjson'))
        for line in open(path) if line.strip()
    ]  # fmt: skip
    self.assertEqual(len(rows), len(self._Samples(run_uri)))
    keys = [
        (r['metric'], json.dumps(r['metadata'], sort_keys=True)) for r in rows
    ]
    self.assertEqual(len(keys), len(set(keys)))
    by_phase = collections.Counter(r['metadata'].get('phase') for r in rows)
    for phase in ('cpu', 'io', 'net', 'object_storage', 'tpcc'):
      self.assertGreater(by_phase[phase], 0, by_phase)
    steps = [r for r in rows if r['metric'] == 'tpcc_step_passed']
    self.assertEqual(
        [(int(r['metadata']['active_warehouses']), r['metadata']['resumed'])
         for r in steps],
        [(100, True), (200, False), (300, False)],
    )  # fmt: skip
    self._AssertNothingLeft()

  def test_6_a_failed_import_fails_tpcc_and_keeps_object_storage(self):
    run_uri = 'crdbimport'
    argv = self._PkbArgv(
        run_uri,
        phases='object_storage,tpcc',
        import_failure=double.IMPORT_LIVENESS,
        import_s=15,  # object_storage begins its Run meanwhile
    )
    proc = self._Run(argv)
    log = proc.stderr
    self.assertNotEqual(proc.returncode, 0, log[-3000:])
    self.assertIn('overlap: object_storage run while tpcc loads its data', log)

    def At(line):
      return log.index(f'cloud_report: phase {line}')

    # The import failed while object_storage ran beside it (each began before
    # the other ended); tpcc failed with the import's cause, before its Run.
    self.assertLess(At('tpcc: Setup starting'), At('object_storage: Run done'))
    self.assertLess(At('object_storage: Run starting'), At('tpcc failed'))
    self.assertNotIn('phase tpcc: Run starting', log)
    self.assertIn('tpcc: RunError: cockroach fixtures import exited 1', log)
    self.assertIn('node liveness error: restarting in the background', log)
    samples = self._Samples(run_uri)
    kept = [
        stock_pkb.Labels(s)
        for s in samples
        if stock_pkb.Labels(s).get('phase') == 'object_storage'
    ]
    self.assertNotEmpty(kept)
    self.assertEqual({x['overlapped'] for x in kept}, {'True'})
    self.assertEqual(self._Tpcc(samples, 'tpcc_step_passed'), [])
    self._AssertNothingLeft()


if __name__ == '__main__':
  absltest.main()
