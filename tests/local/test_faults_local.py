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
"""Fault injection through stock pkb.py on a local cloud of its own.

Brings up a cloud with the fault tests' prefix, subnet and state dir
(pkb_ext_dev.faults), then, with smoke durations:

1. fio pointed at a mounted device: refused, nothing written;
2. cpu, io, net, object_storage: fio exits non-zero on db1, netperf prints
   half its output on the client, and the ssh connection of the TTFB
   worker's RobustRemoteCommand wait is dropped: io and net fail with their
   cause, cpu and object_storage keep their samples (spool and PKB's JSON);
   under overlap (the default) cpu runs on db3 in a lane of its own;
2b. the same phases with --cloud_report_keep_going=false and netperf
   failing: object_storage, next in net's lane, never starts, and the log
   and the failure say it was not run; io and cpu keep their samples;
3. cpu, net, object_storage, tpcc: CoreMark prints half its output, the TTFB
   worker exits non-zero, go-tpc exits non-zero, and netperf's ssh
   connection is dropped mid-run (PKB re-runs it): net keeps its samples;
4. tpcc: pkb.py killed (SIGKILL) between two steps, then resumed with
   --run_stage=run: the passed step is not run again.

Faults are put in after `--run_stage=provision,prepare` and before
`--run_stage=run,cleanup,teardown` of the same run_uri, so they hit the
phases' Run. docs/faults.md has the table of what was tried and what held.
Needs root; skipped (with the reason) where the machine cannot do it.
"""

import glob
import json
import logging
import os
import re
import shutil
import signal
import subprocess
import tempfile
import time

from absl.testing import absltest
from perfkitbenchmarker.linux_packages import netperf as pkb_netperf

from pkb_ext.local import results
from pkb_ext_dev import faults
from pkb_ext_dev import local_cloud

_REASON = local_cloud.Unavailable()
_COREMARK_FAST = '--cloud_report_coremark_iterations=2000'
# go-tpc's consistency checks after loading take minutes on 2 vCPUs.
_TPCC_FAST = ('--cloud_report_tpcc_gotpc_load_check=false',)


def _Failures(stderr: str) -> str:
  """The phase-failure lines PKB logged (for assertion messages)."""
  at = stderr.find('phase(s) failed')
  return stderr[at : at + 6000] if at >= 0 else stderr[-3000:]


def _RetriedSsh(pattern: str) -> str:
  """PKB's IssueCommand log line of an ssh that lost its connection."""
  return r'Ran: \{ssh [^}\n]*' + pattern + r'[^}\n]*\}\s*ReturnCode:255'


@absltest.skipIf(_REASON, _REASON)
class LocalFaultsTest(absltest.TestCase):

  @classmethod
  def setUpClass(cls):
    super().setUpClass()
    cls.cloud = faults.FaultCloud()
    if cls.cloud.Leftovers():  # a previous run died: start clean
      cls.cloud.Cli('down')
    proc = cls.cloud.Cli('up')
    if proc.returncode:
      cls.cloud.Cli('down')
      raise AssertionError(f'up failed: {proc.stdout}\n{proc.stderr}')
    cls.work = tempfile.mkdtemp(prefix='pkb-ext-faults-')

  @classmethod
  def tearDownClass(cls):
    cls.cloud.EndSshMasters(cls.work)
    proc = cls.cloud.Cli('down')
    if os.environ.get('PKB_EXT_KEEP_FAULT_LOGS'):
      logging.warning('fault test logs kept in %s', cls.work)
    else:
      shutil.rmtree(cls.work, ignore_errors=True)
    super().tearDownClass()
    if proc.returncode or cls.cloud.Leftovers():
      raise AssertionError(f'down left {cls.cloud.Leftovers()}: {proc.stderr}')

  def _Samples(self, run_uri):
    """Phase samples of a run: pkb_ext's spool, then PKB's --json_path."""
    paths = glob.glob(f'{self.work}/spool/*{run_uri}*.ndjson')
    paths += glob.glob(f'{self.work}/samples-{run_uri}.json')
    paths = [p for p in paths if os.path.getsize(p)]
    samples = results.ReadSamples(paths) if paths else []
    # PKB's sample run_uri is the run's run_uri plus a per-run suffix.
    return [s for s in samples if (s.get('run_uri') or '').startswith(run_uri)]

  def _Phases(self, samples):
    return {s['metadata']['phase'] for s in samples}

  def _Faulty(self, run_uri, inject, *flags):
    """inject() (returns undo callables), then one whole pkb.py run."""
    undo = inject()
    try:
      return self.cloud.Pkb(self.work, run_uri, *flags)
    finally:
      failed = []
      for step in reversed(undo):  # every step, even after one fails
        try:
          step()
        except Exception as e:  # pylint: disable=broad-except
          failed.append(e)
      if failed:
        raise failed[0]

  def _Shim(self, host, path, content):
    self.cloud.Shim(host, path, content)
    return lambda: self.cloud.Unshim(host, path)

  def test_1_fio_refuses_a_mounted_device(self):
    loop = self.cloud.State()['hosts']['db1']['loop']
    self.cloud.Run(
        'db1',
        f'sudo mkfs.ext4 -q -F {loop} && sudo mkdir -p /mnt/fault && sudo'
        f' mount {loop} /mnt/fault && echo precious | sudo tee'
        ' /mnt/fault/data >/dev/null',
    )
    try:
      mark = len(self.cloud.CommandLog('db1'))
      proc = self.cloud.Pkb(self.work, 'fltmnt1', '--cloud_report_phases=io')
      self.assertNotEqual(proc.returncode, 0)
      self.assertRegex(
          proc.stderr,
          rf'io: UnsafeTargetError: refusing to run fio on {loop}: it is'
          r' mounted on [^;\n]*/mnt/fault',
      )
      ran = self.cloud.CommandLog('db1')[mark:]
      self.assertEqual([c for c in ran if re.search(r'\bfio --output', c)], [])
      self.assertEqual(
          self.cloud.Run('db1', 'cat /mnt/fault/data').strip(), 'precious'
      )
    finally:
      self.cloud.Ssh('db1', 'sudo umount /mnt/fault')

  def test_2_failing_io_and_net_keep_cpu_and_object_storage(self):
    run_uri = 'fltrun2'
    drop = {}

    def Inject():
      fio, netperf = '/usr/bin/fio', '/usr/bin/netperf'
      undo = [
          self._Shim(  # fio's jobs exit 3; `fio --version` still works
              'db1', fio,
              faults.ExitScript('fio', 3, faults.RealPath(fio), '*--section*'),
          ),
          self._Shim(  # netperf tests print half their output
              'client', netperf,
              faults.TruncateScript(faults.RealPath(netperf), when="*'-t '*"),
          ),
      ]  # fmt: skip
      # The TTFB worker runs under RobustRemoteCommand: drop the ssh
      # connection of PKB's wait for it, while the worker runs.
      _, found = self.cloud.DropSshInBackground(
          'client',
          r'^python3 \S*wait_for_command\.py --status',
          timeout_s=900,
          while_running=r'ttfb_worker\.py',
      )
      drop['result'] = found
      return undo

    proc = self._Faulty(
        run_uri,
        Inject,
        '--cloud_report_phases=cpu,io,net,object_storage',
        _COREMARK_FAST,
    )
    err = proc.stderr
    self.assertNotEqual(proc.returncode, 0, err[-3000:])
    failures = _Failures(err)
    self.assertIn('phase(s) failed', failures)
    self.assertRegex(
        failures,
        r'io: RunError: fio job [\w-]+ on \S+:\S+ failed \(exit status 3\):'
        r' pkb-ext fault injection: fio exits 3 on purpose',
    )
    self.assertRegex(failures, r'net: RunError: netperf TCP_RR .* failed: ')
    samples = self._Samples(run_uri)
    self.assertEqual(self._Phases(samples), {'cpu', 'object_storage'})
    # The dropped wait was retried by PKB, and the worker's samples kept.
    self.assertIn('killed', drop['result'], drop['result'])
    self.assertRegex(err, _RetriedSsh(r'wait_for_command\.py'))
    # Under overlap (the default): io failed in the fill's thread and net in
    # its lane, then object_storage ran in net's lane, and cpu, in a lane of
    # its own on the third db VM, kept its samples.
    self.assertIn(
        'overlap: cpu beside net,object_storage run while io runs on db1', err
    )
    self.assertEqual(
        {s['metadata']['phase_vms'] for s in samples if s['metadata']['phase']
         == 'cpu'},
        {'db3'},
    )  # fmt: skip

  def test_2b_keep_going_off_stops_a_lane_after_its_failure(self):
    run_uri = 'fltrun2b'
    mark = len(self.cloud.CommandLog('client'))

    def Inject():
      netperf = '/usr/bin/netperf'
      return [
          self._Shim(  # netperf tests print half their output
              'client', netperf,
              faults.TruncateScript(faults.RealPath(netperf), when="*'-t '*"),
          ),
      ]  # fmt: skip

    proc = self._Faulty(
        run_uri,
        Inject,
        '--cloud_report_phases=cpu,io,net,object_storage',
        '--cloud_report_keep_going=false',
        _COREMARK_FAST,
    )
    err = proc.stderr
    self.assertNotEqual(proc.returncode, 0, err[-3000:])
    failures = _Failures(err)
    self.assertRegex(failures, r'net: RunError: netperf TCP_RR .* failed: ')
    self.assertRegex(failures, r'; not run: object_storage\b')
    self.assertIn(
        'object_storage not run: a phase failed and --cloud_report_keep_going'
        ' is off',
        err,
    )
    # io (the fill's thread) and cpu (its own lane) had begun: they ended
    # and kept their samples; object_storage, after net in net's lane, never
    # started: no TTFB worker ran on the client.
    samples = self._Samples(run_uri)
    self.assertEqual(self._Phases(samples), {'cpu', 'io'})
    ran = self.cloud.CommandLog('client')[mark:]
    self.assertEqual([c for c in ran if 'ttfb_worker' in c], [])
    self.assertTrue([c for c in ran if 'netperf' in c])

  def test_3_failing_cpu_object_storage_tpcc_keep_net(self):
    run_uri = 'fltrun3'
    drop = {}

    def Inject():
      python = self.cloud.PutScript(  # a flag points the phase at it
          'client', 'python3-worker-exits-4',
          faults.ExitScript('the TTFB worker', 4, '/usr/bin/python3',
                            '*ttfb_worker.py*'),
      )  # fmt: skip
      go_tpc = '/opt/pkb-ext/bin/go-tpc'
      undo = [
          self._Shim(  # `go-tpc tpcc run` exits 5; the load still works
              'client', go_tpc,
              faults.ExitScript('go-tpc', 5, faults.RealPath(go_tpc),
                                "*'tpcc run'*"),
          ),
      ]  # fmt: skip
      # CoreMark's all-core run prints half its output: PKB's make on db1
      # (the top-level one RunCoremark runs, with ITERATIONS= and an
      # all-core -DMULTITHREAD) leaves half of run1.log for PKB's cat.
      undo.append(
          self._Shim(
              'db1', '/usr/bin/make',
              faults.LogTruncateScript(
                  faults.RealPath('/usr/bin/make'), 'run1.log',
                  when='*ITERATIONS=*-DMULTITHREAD=*',
                  unless='*-DMULTITHREAD=1\\ *',
              ),
          )
      )  # fmt: skip
      _, found = self.cloud.DropSshInBackground(
          'client',
          '^' + re.escape(pkb_netperf.NETPERF_PATH) + ' .*TCP_RR',
          timeout_s=900,
          after_s=1.0,
      )
      drop['result'] = found
      undo.append(lambda: self.cloud.Run('client', f'sudo rm -f {python}'))
      return undo

    proc = self._Faulty(
        run_uri,
        Inject,
        '--cloud_report_phases=cpu,net,object_storage,tpcc',
        f'--cloud_report_object_storage_python={faults.FAULT_DIR}/bin/'
        'python3-worker-exits-4',
        '--cloud_report_tpcc_max_warehouses=1',
        *_TPCC_FAST,
    )
    err = proc.stderr
    self.assertNotEqual(proc.returncode, 0, err[-3000:])
    failures = _Failures(err)
    self.assertRegex(
        failures,
        r"cpu: ParseError: CoreMark output has no 'Correct operation"
        r" validated' / 'CoreMark 1.0 :' line",
    )
    self.assertRegex(failures, r'object_storage: \w+Error: .*exit')
    self.assertIn('the TTFB worker exits 4 on purpose', failures)
    samples = self._Samples(run_uri)
    phases = self._Phases(samples)
    self.assertIn('net', phases)
    self.assertNotIn('cpu', phases)
    self.assertNotIn('object_storage', phases)
    # netperf's ssh dropped: PKB ran the same command again.
    self.assertIn('killed', drop['result'], drop['result'])
    # The net phase runs PKB's netperf path (the OS's netperf linked there).
    self.assertRegex(
        err, _RetriedSsh(re.escape(pkb_netperf.NETPERF_PATH) + ' ')
    )
    rr = [s for s in samples if s['metadata']['phase'] == 'net']
    self.assertTrue(any(s['value'] > 0 for s in rr))
    # go-tpc's failure is no verdict: the step runs again, then, the lowest
    # level given up, the phase fails with go-tpc's cause and how to resume,
    # and keeps its steps' samples.
    self.assertRegex(err, r'tpcc: step 1 at 1: no result: .*5')
    self.assertRegex(err, r'tpcc: step 2 at 1: no result: .*5')
    self.assertRegex(
        failures,
        r'(?s)tpcc: PhaseFailure: tpcc: no result: .*?5.*? at 1 active'
        r' warehouses, the lowest level run, after 2 run\(s\)',
    )
    self.assertIn('tpcc', phases)
    tpcc_steps = [s for s in samples if s['metric'] == 'tpcc_step_passed']
    self.assertTrue(tpcc_steps)
    self.assertEqual({s['value'] for s in tpcc_steps}, {0.0})

  def test_4_tpcc_killed_between_steps_resumes(self):
    run_uri = 'fltrun4'
    state_dir = os.path.join(self.work, 'tpcc-state')
    flags = [
        '--cloud_report_phases=tpcc',
        f'--cloud_report_tpcc_state_dir={state_dir}',
        '--cloud_report_tpcc_start_warehouses=1',
        '--cloud_report_tpcc_step_warehouses=1',
        '--cloud_report_tpcc_max_warehouses=2',
        '--cloud_report_tpcc_duration=6s',
        '--cloud_report_tpcc_ramp=0s',
        '--cloud_report_tpcc_pass_rule=custom:p90_ms<600000',
        *_TPCC_FAST,
    ]
    state_glob = os.path.join(state_dir, f'cloud_report_tpcc_{run_uri}_*.json')
    mark = len(self.cloud.CommandLog('client'))
    argv = self.cloud.PkbArgv(
        self.work, run_uri, *flags, '--run_stage=provision,prepare,run'
    )
    log_path = os.path.join(self.work, f'{run_uri}-killed.log')
    with open(log_path, 'w') as log:
      proc = subprocess.Popen(
          argv, env=self.cloud.env, stdout=log, stderr=subprocess.STDOUT,
          start_new_session=True,
      )  # fmt: skip
    try:
      deadline = time.monotonic() + 1200
      steps = []
      while time.monotonic() < deadline and proc.poll() is None:
        found = glob.glob(state_glob)
        if found:
          with open(found[0]) as f:
            steps = json.load(f)['steps']
          if steps:
            break
        time.sleep(0.1)
      self.assertLen(steps, 1, 'the first step never finished')
      os.killpg(proc.pid, signal.SIGKILL)  # pkb.py and its ssh children
    finally:
      proc.wait()
    self.assertTrue(steps[0]['passed'], steps[0])
    orphan = self.cloud.FindProcess('client', r'go-tpc tpcc run')
    logging.info('go-tpc still running on the client after the kill: %s',
                 orphan)  # fmt: skip
    resumed = self.cloud.Pkb(
        self.work, run_uri, *flags, '--run_stage=run,cleanup,teardown'
    )
    self.assertEqual(resumed.returncode, 0, resumed.stderr[-3000:])
    self.assertIn('1 resumed', resumed.stderr)
    ran = [
        c
        for c in self.cloud.CommandLog('client')[mark:]
        if re.search(r'go-tpc tpcc run', c)
    ]
    at_one = [c for c in ran if re.search(r'--warehouses 1\b', c)]
    self.assertLen(at_one, 1, ran)  # the passed step ran once, before the kill
    samples = self._Samples(run_uri)
    by_step = {
        (s['metadata'].get('active_warehouses'), s['metadata'].get('resumed'))
        for s in samples
        if s['metadata']['phase'] == 'tpcc' and 'resumed' in s['metadata']
    }
    self.assertIn((1, True), by_step)
    self.assertIn((2, False), by_step)


if __name__ == '__main__':
  absltest.main()
