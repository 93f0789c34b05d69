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
"""The net phase for real: netperf and netserver, short durations.

LoopbackTest runs the phase with two LocalVms (pkb_ext_dev.local_vm) on
this machine's loopback, with Debian's netperf linked by pkb_ext.netperf at
PKB's NETPERF_PATH and NETSERVER_PATH, which point into a temporary
directory. LocalCloudTest runs it between two namespace hosts of a local
cloud of its own (prefix pkbnet, subnet 10.247.79.0/24, no MinIO), directly
over ssh (their netperf linked at PKB's paths as
--cloud_report_netperf_install=distro does) and through stock pkb.py (with
the local cloud's flags), then takes it down. Fidelity is measured and logged, never asserted
(a loaded machine makes timed thresholds flaky; see pkb_ext_dev.fidelity).
"""

import json
import logging
import math
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from unittest import mock

from absl import flags
from absl.testing import absltest
from absl.testing import flagsaver
from perfkitbenchmarker import errors
from perfkitbenchmarker.linux_packages import netperf as pkb_netperf

from pkb_ext.suite import phases
from pkb_ext import netperf as os_netperf
from pkb_ext import paths
from pkb_ext.suite.net import netserver
from pkb_ext.suite.net import stages as net
from pkb_ext_dev import fidelity as fidelity_lib
from pkb_ext_dev import load
from pkb_ext_dev import local_vm

FLAGS = flags.FLAGS
CONTROL_PORT = 23941  # unusual ports, ours alone
DATA_PORT = 23942
_NO_NETPERF = (
    None
    if shutil.which('netperf') and shutil.which('netserver')
    else 'netperf/netserver not installed (Debian non-free package netperf)'
)
RR_METRICS = [
    'netperf_latency_' + k
    for k in ('min', 'mean', 'p50', 'p90', 'p99', 'max', 'stddev')
] + ['netperf_transaction_rate']


def _NetserversOn(port: int) -> list[str]:
  """Processes on this machine running `netserver -p PORT`.

  -ww: never cut a long command line (ps cuts at $COLUMNS, which a test
  runner may set).
  """
  out = subprocess.run(
      ['ps', '-ww', '-eo', 'pid=,args='],
      capture_output=True,
      text=True,
      check=True,
  ).stdout
  return [l for l in out.splitlines() if f'netserver -p {port} ' in l + ' ']


class _PhaseAsserts(absltest.TestCase):

  def AssertSamples(self, samples, tests, streams, repetitions, server_ip):
    for iteration in range(1, repetitions + 1):
      mine = [s for s in samples if s.metadata['iteration'] == iteration]
      if 'TCP_RR' in tests:
        rr = {
            s.metric: s.value
            for s in mine
            if s.metadata['netperf_test'] == 'TCP_RR'
        }
        self.assertEqual(sorted(rr), sorted(RR_METRICS))
        self.assertGreater(rr['netperf_transaction_rate'], 0)
        self.assertLessEqual(rr['netperf_latency_min'],
                             rr['netperf_latency_p50'])  # fmt: skip
        self.assertLessEqual(rr['netperf_latency_p50'],
                             rr['netperf_latency_p90'])  # fmt: skip
        self.assertLessEqual(rr['netperf_latency_p90'],
                             rr['netperf_latency_p99'])  # fmt: skip
        self.assertLessEqual(rr['netperf_latency_p99'],
                             rr['netperf_latency_max'])  # fmt: skip
      if 'TCP_STREAM' in tests:
        tput = {
            s.metadata['streams']: s
            for s in mine
            if s.metric == 'netperf_throughput'
        }
        self.assertEqual(sorted(tput), sorted(streams))
        for n, s in tput.items():
          self.assertGreater(s.value, 0)
          self.assertEqual(s.unit, 'Mbit/s')
          if n > 1:
            self.assertLen(s.metadata['stream_throughputs_mbps'], n)
            self.assertAlmostEqual(
                s.value, sum(s.metadata['stream_throughputs_mbps'])
            )
    for s in samples:
      self.assertEqual(s.metadata['server_ip'], server_ip)
      self.assertEqual(s.metadata['netperf_version'], '2.7.0')
      self.assertEqual(s.metadata['repetitions'], repetitions)


@absltest.skipIf(_NO_NETPERF, _NO_NETPERF)
class LoopbackTest(_PhaseAsserts):
  """Server and client are LocalVms on 127.0.0.1."""

  def setUp(self):
    super().setUp()
    if not FLAGS.is_parsed():
      FLAGS.mark_as_parsed()
    work = self.create_tempdir().full_path
    self.server = local_vm.LocalVm(
        'db-0', work_dir=os.path.join(work, 'server')
    )
    self.client = local_vm.LocalVm(
        'client-0', work_dir=os.path.join(work, 'client')
    )
    os.makedirs(self.server.work_dir)
    os.makedirs(self.client.work_dir)
    # PKB's paths, in this test's directory, linked to this machine's netperf.
    src = os.path.join(work, 'pkb', 'netperf-netperf-2.7.0', 'src')
    self.enter_context(
        mock.patch.object(pkb_netperf, 'NETPERF_PATH', f'{src}/netperf')
    )
    self.enter_context(
        mock.patch.object(pkb_netperf, 'NETSERVER_PATH', f'{src}/netserver')
    )
    for vm in (self.server, self.client):
      self.assertEqual(os_netperf.LinkOsNetperf(vm), '2.7.0')
    self.topology = phases.Topology(
        db_vms=(self.server,), client_vm=self.client, run_metadata=None
    )
    self.assertEqual(_NetserversOn(CONTROL_PORT), [], 'port taken')

  def tearDown(self):
    net.StopNetserver(self.server, CONTROL_PORT)
    super().tearDown()

  def testRunPairWithRepetitionsAndStreams(self):
    params = net.Params(
        duration_s=1,
        confidence='off',
        repetitions=2,
        streams=(1, 2),
        control_port=CONTROL_PORT,
        data_port=DATA_PORT,
    )
    samples = net.RunPair(self.client, self.server, params)
    self.AssertSamples(
        samples, net.TESTS, (1, 2), repetitions=2, server_ip='127.0.0.1'
    )
    self.assertTrue(all(not s.metadata['confidence_requested']
                        for s in samples))  # fmt: skip
    self.assertEqual(_NetserversOn(CONTROL_PORT), [])
    self.assertFalse(
        os.path.exists(
            os.path.join(self.server.work_dir, netserver.WORK_DIR, 'netserver-'
                         f'{CONTROL_PORT}.pid')
        )
    )  # fmt: skip
    # The client ran netperf, the server only netserver.
    self.assertFalse(any('netperf -H' in c for c in self.server.commands))
    self.assertLen([c for c in self.client.commands if ' -H ' in c], 6)

  @flagsaver.flagsaver(
      cloud_report_netperf_duration_s=1,
      cloud_report_netperf_confidence='95,50',
      cloud_report_netperf_confidence_iterations='3,3',
      cloud_report_netperf_control_port=CONTROL_PORT,
      cloud_report_netperf_data_port=DATA_PORT,
  )
  def testPhaseModuleWithConfidence(self):
    net.Install(self.topology)
    samples = net.Run(self.topology)
    net.Cleanup(self.topology)
    self.AssertSamples(
        samples, net.TESTS, (1,), repetitions=1, server_ip='127.0.0.1'
    )
    for s in samples:
      md = s.metadata
      self.assertEqual(md['output_style'], 'csv')
      self.assertIs(md['confidence_requested'], True)
      self.assertEqual(md['confidence_level_pct'], 95)
      self.assertEqual(md['confidence_width_target_pct'], 50)
      self.assertEqual(md['confidence_iterations'], 3)
      self.assertGreaterEqual(md['confidence_width_pct'], 0)
      self.assertEqual(
          md['confidence_met'],
          md['confidence_width_pct'] <= md['confidence_width_target_pct'],
      )
      self.assertEqual(md['sending_vm'], 'client-0')
      self.assertEqual(md['receiving_vm'], 'db-0')
    self.assertFalse(
        os.path.exists(os.path.join(self.server.work_dir, netserver.WORK_DIR))
    )

  def testCleanupStopsOnlyItsOwnNetserver(self):
    # Another netserver on this machine (started here, on another port)
    # must survive the phase's cleanup: no killall.
    other = subprocess.Popen(
        ['netserver', '-p', str(CONTROL_PORT + 50), '-D'],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    self.addCleanup(other.wait)
    self.addCleanup(other.kill)
    binaries = net.Locate(self.server)
    pid = net.StartNetserver(self.server, binaries, CONTROL_PORT)
    self.assertTrue(any(l.split()[0] == str(pid)
                        for l in _NetserversOn(CONTROL_PORT)))  # fmt: skip
    with flagsaver.flagsaver(cloud_report_netperf_control_port=CONTROL_PORT):
      net.Cleanup(self.topology)
    self.assertEqual(_NetserversOn(CONTROL_PORT), [])
    self.assertIsNone(other.poll(), 'the other netserver was killed')
    self.assertEqual(net.StopNetserver(self.server, CONTROL_PORT), '')

  def _OtherNetserver(self) -> subprocess.Popen:
    """Another program's netserver on CONTROL_PORT, once it runs."""
    other = subprocess.Popen(
        ['netserver', '-p', str(CONTROL_PORT), '-D'],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    self.addCleanup(other.wait)
    self.addCleanup(other.kill)
    for _ in range(50):
      if _NetserversOn(CONTROL_PORT):
        break
      time.sleep(0.1)
    return other

  def testNetserverOnATakenPortFails(self):
    other = self._OtherNetserver()
    binaries = net.Locate(self.server)
    with self.assertRaisesRegex(
        errors.VirtualMachine.RemoteCommandError, 'Unable to start netserver'
    ) as raised:
      net.StartNetserver(self.server, binaries, CONTROL_PORT)
    self.assertIsNone(other.poll())
    # The error names who holds the port.
    self.assertIn(f'sockets on port {CONTROL_PORT}:', str(raised.exception))
    self.assertIn(f'pid={other.pid},', str(raised.exception))
    self.assertEqual(
        [l.split()[0] for l in _NetserversOn(CONTROL_PORT)], [str(other.pid)]
    )  # the failed attempts' netservers are gone

  def testAPortFreedWithinTheAttemptsIsTaken(self):
    # A port held for a moment is tried again: the start succeeds once it is
    # free.
    other = self._OtherNetserver()
    freed = threading.Timer(1.0, other.kill)
    freed.start()
    self.addCleanup(freed.cancel)
    binaries = net.Locate(self.server)
    pid = net.StartNetserver(self.server, binaries, CONTROL_PORT)
    self.assertNotEqual(pid, other.pid)
    (line,) = _NetserversOn(CONTROL_PORT)
    self.assertEqual(line.split()[0], str(pid))
    self.assertTrue(net.StopNetserver(self.server, CONTROL_PORT).startswith(
        'stopped'))  # fmt: skip
    self.assertEqual(_NetserversOn(CONTROL_PORT), [])

  def testANetserverSilentPastTheWaitIsEndedAndNamed(self):
    # A netserver that never says it listens: the start fails after its
    # wait, says so, and leaves no process behind.
    tool_dir = self.create_tempdir().full_path
    fake = os.path.join(tool_dir, 'netserver')
    with open(fake, 'w') as f:
      f.write('#!/bin/sh\nwhile :; do sleep 1; done\n')
    os.chmod(fake, 0o755)
    with self.assertRaisesRegex(
        errors.VirtualMachine.RemoteCommandError,
        'netserver did not say it listens within 1 s',
    ):
      self.server.RemoteCommand(
          netserver.StartNetserverCommand(fake, CONTROL_PORT, wait_s=1)
      )
    for _ in range(50):
      left = [l for l in _NetserversOn(CONTROL_PORT) if tool_dir in l]
      if not left:
        break
      time.sleep(0.1)
    self.assertEqual(left, [])
    self.assertEqual(net.StopNetserver(self.server, CONTROL_PORT), '')

  def testAStaleLogOfAnEarlierStartIsNotRead(self):
    # The log of an earlier start says 'Starting netserver'; a start that
    # read it would report a netserver before it listens.
    binaries = net.Locate(self.server)
    work = os.path.join(self.server.work_dir, netserver.WORK_DIR)
    os.makedirs(work, exist_ok=True)
    tool_dir = self.create_tempdir().full_path
    slow = os.path.join(tool_dir, 'netserver')
    with open(slow, 'w') as f:
      f.write(f'#!/bin/sh\nsleep 1\nexec {binaries.netserver} "$@"\n')
    os.chmod(slow, 0o755)
    with open(os.path.join(work, f'netserver-{CONTROL_PORT}.log'), 'w') as f:
      f.write("Starting netserver with host 'IN(6)ADDR_ANY' port 'x'\n")
    stdout, _ = self.server.RemoteCommand(
        netserver.StartNetserverCommand(slow, CONTROL_PORT)
    )
    pid = int(stdout.split()[-1])
    (line,) = _NetserversOn(CONTROL_PORT)
    self.assertEqual(line.split()[0], str(pid))
    proc = subprocess.run(
        ['ss', '-Htln', f'sport = :{CONTROL_PORT}'],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    self.assertNotEqual(proc.stdout.strip(), '', 'not listening yet')
    self.assertTrue(net.StopNetserver(self.server, CONTROL_PORT).startswith(
        'stopped'))  # fmt: skip

  def testStopFreesThePortHeldByATestChild(self):
    # netserver forks a child per test that inherits the listening socket;
    # stopping must stop it too, or the next start finds the port held.
    binaries = net.Locate(self.server)
    pid = net.StartNetserver(self.server, binaries, CONTROL_PORT)
    netperf = subprocess.Popen(
        ['netperf', '-H', '127.0.0.1', '-p', str(CONTROL_PORT), '-t',
         'TCP_STREAM', '-l', '30', '--', '-P', f',{DATA_PORT}'],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    self.addCleanup(netperf.wait)
    self.addCleanup(netperf.kill)
    for _ in range(100):
      if len(_NetserversOn(CONTROL_PORT)) > 1:
        break
      time.sleep(0.1)
    servers = _NetserversOn(CONTROL_PORT)
    self.assertGreater(len(servers), 1, 'no per-test netserver child')
    self.assertTrue(net.StopNetserver(self.server, CONTROL_PORT).startswith(
        'stopped'))  # fmt: skip
    self.assertEqual(_NetserversOn(CONTROL_PORT), [])
    # The port is free at once: a new netserver starts on it.
    pid2 = net.StartNetserver(self.server, binaries, CONTROL_PORT)
    self.assertNotEqual(pid2, pid)
    net.StopNetserver(self.server, CONTROL_PORT)
    self.assertEqual(_NetserversOn(CONTROL_PORT), [])

  def testFidelityCallable(self):
    fidelity = fidelity_lib.MeasureNetwork(
        self.client,
        self.server,
        duration_s=1,
        pairs=2,
        params=net.Params(control_port=CONTROL_PORT, data_port=DATA_PORT),
    )
    logging.info('loopback fidelity (1 s x 2 pairs): %s', fidelity)
    self.assertLen(fidelity.phase, 2)
    self.assertTrue(all(r > 0 for r in fidelity.raw))
    self.assertTrue(math.isfinite(fidelity.ratio))
    raw = [
        c
        for c in self.client.commands
        if f'-P ,{DATA_PORT} -O ' in c and 'P99_LATENCY' in c
    ]
    self.assertLen(raw, 2)  # the raw runs: the report's selectors, -O columns
    self.assertEqual(_NetserversOn(CONTROL_PORT), [])


_HOG_SECONDS = 600  # a bound: the hogs end by themselves even if orphaned


@absltest.skipIf(_NO_NETPERF, _NO_NETPERF)
class LoopbackUnderLoadTest(LoopbackTest):
  """LoopbackTest again while two more busy loops keep the CPUs busy.

  The hogs (pkb_ext_dev.load) are this class's own processes: started in
  setUpClass, stopped by PID in tearDownClass, and each ends by itself after
  _HOG_SECONDS.
  """

  @classmethod
  def setUpClass(cls):
    super().setUpClass()
    cls.hogs = load.CpuHogs(2, seconds=_HOG_SECONDS).Start()
    logging.info('CPU hogs %s; load %s', cls.hogs.pids, os.getloadavg())

  @classmethod
  def tearDownClass(cls):
    logging.info('%s', cls.hogs.Stop(check=False).Summary())
    super().tearDownClass()

  def tearDown(self):
    super().tearDown()
    logging.info('load under the hogs: %s', os.getloadavg())
    self.assertTrue(self.hogs.Alive(), 'a CPU hog ended early')


# --- The local cloud. ---

from pkb_ext.local import layout  # pylint: disable=g-import-not-at-top
from pkb_ext_dev import local_cloud  # pylint: disable=g-import-not-at-top
from pkb_ext_dev.ssh_host_vm import HostVm  # pylint: disable=g-import-not-at-top

_CLOUD_REASON = local_cloud.Unavailable() or _NO_NETPERF

PREFIX = 'pkbnet'
SUBNET = '10.247.79.0/24'


if not _CLOUD_REASON:

  class NetTestCloud(local_cloud.TestCloud):
    """A test cloud of the net phase's own, beside any other."""

    def __init__(self):  # pylint: disable=super-init-not-called
      self.state_dir = os.path.join(paths.CacheDir(), 'local-net-test')
      self.plan = layout.Plan(
          state_dir=self.state_dir, prefix=PREFIX, subnet=SUBNET, disk_gib=0.25
      )

    @property
    def env(self):
      env = dict(super().env)
      env.update(PKB_EXT_LOCAL_PREFIX=PREFIX, PKB_EXT_LOCAL_SUBNET=SUBNET)
      return env

    def Mine(self) -> list[str]:
      """What of this cloud exists: namespaces, links, the state dir."""
      out = (
          subprocess.run(
              ['ip', '-o', 'link', 'show'], capture_output=True, text=True
          ).stdout
          + subprocess.run(
              ['ip', 'netns', 'list'], capture_output=True, text=True
          ).stdout
      )
      found = [l for l in out.splitlines() if PREFIX in l]
      if os.path.exists(self.state_dir):
        found.append(self.state_dir)
      return found


@absltest.skipIf(_CLOUD_REASON, _CLOUD_REASON)
class LocalCloudTest(_PhaseAsserts):
  """client -> db1 over the local cloud's bridge; tests run in order."""

  @classmethod
  def setUpClass(cls):
    super().setUpClass()
    if not FLAGS.is_parsed():
      FLAGS.mark_as_parsed()
    cls.cloud = NetTestCloud()
    proc = cls.cloud.Cli('up', '--no-minio')
    if proc.returncode:
      cls.cloud.Cli('down')
      raise AssertionError(f'up failed: {proc.stdout}\n{proc.stderr}')
    cls.client = HostVm(cls.cloud.plan, 'client')
    cls.server = HostVm(cls.cloud.plan, 'db1')
    try:
      for vm in (cls.client, cls.server):
        os_netperf.LinkOsNetperf(vm)
    except Exception:
      cls.cloud.Cli('down')
      raise
    cls.work = tempfile.mkdtemp(prefix='pkb-ext-net-test-')

  @classmethod
  def tearDownClass(cls):
    cls.cloud.Cli('down')
    shutil.rmtree(cls.work, ignore_errors=True)
    super().tearDownClass()

  def test_1_phase_between_namespace_hosts(self):
    params = net.Params(
        duration_s=2,
        confidence_iterations='3,3',
        streams=(1, 2),
        control_port=CONTROL_PORT,
        data_port=DATA_PORT,
    )
    samples = net.RunPair(self.client, self.server, params)
    self.AssertSamples(
        samples, net.TESTS, (1, 2), 1, server_ip=self.server.internal_ip
    )
    self.assertNotEqual(self.server.internal_ip, self.client.internal_ip)
    for s in samples:
      self.assertIs(s.metadata['confidence_requested'], True)
      self.assertEqual(s.metadata['confidence_level_pct'], 99)
    proc = self.cloud.Ssh(
        'db1', f'pgrep -af "[n]etserver -p {CONTROL_PORT}"; echo "rc=$?"'
    )
    self.assertEqual(proc.stdout.strip(), 'rc=1', 'netserver left running')
    for s in samples:
      logging.info('local cloud: %s %s %s', s.metric, s.value, s.metadata)

  def test_2_fidelity(self):
    fidelity = fidelity_lib.MeasureNetwork(
        self.client,
        self.server,
        duration_s=5,
        pairs=4,
        params=net.Params(control_port=CONTROL_PORT, data_port=DATA_PORT),
    )
    logging.info(
        'local cloud fidelity (5 s x 4 pairs): ratio %.4f, pairs %s, phase'
        ' %s, raw %s', fidelity.ratio, fidelity.pair_ratios,
        fidelity.phase, fidelity.raw,
    )  # fmt: skip
    self.assertTrue(all(r > 0 for r in fidelity.phase))
    self.assertTrue(math.isfinite(fidelity.ratio))

  def test_3_stock_pkb(self):
    # The local cloud's flags say --cloud_report_netperf_install=distro:
    # pkb_ext links the hosts' netperf again before Prepare.
    links = f'{pkb_netperf.NETPERF_PATH} {pkb_netperf.NETSERVER_PATH}'
    for host in ('client', 'db1'):
      proc = self.cloud.Ssh(host, f'sudo rm -f {links}')
      self.assertEqual(proc.returncode, 0, proc.stderr)
    proc = self.cloud.Cli('flags', '--preset=smoke')
    self.assertEqual(proc.returncode, 0, proc.stderr)
    flagfile = os.path.join(self.work, 'flags')
    with open(flagfile, 'w') as f:
      f.write(proc.stdout)
    samples_path = os.path.join(self.work, 'samples.json')
    pkb = os.path.join(os.path.dirname(sys.executable), 'pkb.py')
    proc = subprocess.run(
        [sys.executable, pkb, '--benchmarks=cloud_report_netperf',
         f'--flagfile={flagfile}', f'--temp_dir={self.work}/pkb',
         f'--json_path={samples_path}',
         f'--cloud_report_netperf_control_port={CONTROL_PORT}',
         f'--cloud_report_netperf_data_port={DATA_PORT}',
         '--cloud_report_netperf_duration_s=2'],
        capture_output=True, text=True, timeout=900, check=False,
    )  # fmt: skip
    self.assertEqual(proc.returncode, 0, proc.stderr[-3000:])
    with open(samples_path) as f:
      rows = [json.loads(line) for line in f]
    mine = [r for r in rows if '|phase:net|' in r['labels']]
    metrics = {r['metric'] for r in mine}
    self.assertEqual(metrics, set(RR_METRICS) | {'netperf_throughput'})
    for r in mine:
      self.assertIn(f'|server_ip:{self.server.internal_ip}|', r['labels'])
      self.assertIn('|sending_vm:', r['labels'])
      self.assertGreater(r['value'], 0)
    proc = self.cloud.Ssh(
        'db1', f'pgrep -af "[n]etserver -p {CONTROL_PORT}" || true'
    )
    self.assertEqual(proc.stdout.strip(), '')
    for host in ('client', 'db1'):
      proc = self.cloud.Ssh(host, f'readlink {links}')
      self.assertEqual(
          proc.stdout.split(), ['/usr/bin/netperf', '/usr/bin/netserver']
      )

  def test_4_down_leaves_nothing(self):
    proc = self.cloud.Cli('down')
    self.assertEqual(proc.returncode, 0, proc.stderr)
    self.assertEqual(self.cloud.Mine(), [])


if __name__ == '__main__':
  absltest.main()
