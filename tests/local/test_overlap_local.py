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
"""Overlap through stock pkb.py on the local test cloud.

Runs cloud_report_2021's cpu, io and net phases twice with the smoke
preset, with --cloud_report_overlap and without (object_storage is left
out: preflight refuses it on static VMs), and reads each host's command
log (every ssh command with its start time, UTC ms):

1. with overlap, while db1 runs the io phase's fill, db2 runs CoreMark
   (then netserver for the client's netperf): a side phase's Run (its
   window from PKB's log) spans part of the fill's window on db1 (from the
   fill's start to the next fio job's start), CoreMark runs on db2 only;
2. without overlap, CoreMark runs on db1 and no side phase's command starts
   inside the fill's window;
3. both runs give the same samples: metrics and the phases' metadata keys
   (the values of phase_vms and overlapped differ, as they should).

The fill is made long enough to see (4 KiB blocks at queue depth 1). The
hosts share one machine, so their figures under overlap are not cloud
figures. Uses the test cloud of pkb_ext_dev.local_cloud (its prefix, subnet
and state from PKB_EXT_TEST_LOCAL_*); brings it up when it is down and
takes it down after. Needs root.
"""

import datetime
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

from absl.testing import absltest

from pkb_ext_dev import faults
from pkb_ext_dev import local_cloud
from pkb_ext_dev import stock_pkb

_REASON = local_cloud.Unavailable()
_PHASES = '--cloud_report_phases=cpu,io,net'
_SLOW_FILL = (
    '--cloud_report_fio_fill_block_size=4k',
    '--cloud_report_fio_fill_iodepth=1',
)
_HOSTS = ('db1', 'db2', 'db3', 'client')
_FILL = '--section=fill-disk-ignore'
# Commands of the side phases: CoreMark's build and runs, netperf and
# netserver.
_SIDE = ('coremark', 'netperf', 'netserver')
# PKB's log lines of a phase's Run (runner._RunOne).
_PHASE_RUN = re.compile(
    r'(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3}) .*cloud_report: phase'
    r' (\w+): Run (starting|done in)'
)


def _Side(command: str) -> bool:
  return any(word in command for word in _SIDE)


@absltest.skipIf(_REASON, _REASON)
class LocalOverlapTest(absltest.TestCase):

  @classmethod
  def setUpClass(cls):
    super().setUpClass()
    cls.work = tempfile.mkdtemp(prefix='pkb-ext-overlap-')
    cls.cloud = local_cloud.TestCloud(local_cloud.TestStateDir())
    cls.was_up = cls.cloud.UpForTests()
    cls.runs = {}

  @classmethod
  def tearDownClass(cls):
    faults.FaultCloud.EndSshMasters(cls.work)
    if os.environ.get('PKB_EXT_KEEP_OVERLAP_LOGS'):
      print(f'overlap test logs kept in {cls.work}', file=sys.stderr)
    else:
      shutil.rmtree(cls.work, ignore_errors=True)
    cls.cloud.DownAfterTests(cls.was_up)
    super().tearDownClass()

  def _Log(self, host):
    """(start time, command) of every ssh command the host ran."""
    path = os.path.join(self.cloud.plan.HostDir(host), 'log', 'commands.log')
    try:
      with open(path) as f:
        lines = [line.rstrip('\n').split('\t', 2) for line in f]
    except FileNotFoundError:
      return []
    return [
        (datetime.datetime.fromisoformat(when.replace('Z', '+00:00')), what)
        for when, _, what in (x for x in lines if len(x) == 3)
    ]

  def _Run(self, overlap):
    """One pkb.py run; returns (its samples, each host's new commands)."""
    if overlap in self.runs:
      return self.runs[overlap]
    flag_file = os.path.join(self.work, 'flags')
    if not os.path.exists(flag_file):
      proc = self.cloud.Cli('flags', '--preset=smoke')
      self.assertEqual(proc.returncode, 0, proc.stderr)
      with open(flag_file, 'w') as f:
        f.write(proc.stdout)
    run_uri = f'ovl{overlap[0]}1'
    marks = {h: len(self._Log(h)) for h in _HOSTS}
    pkb = os.path.join(os.path.dirname(sys.executable), 'pkb.py')
    argv = [
        sys.executable, pkb, '--benchmarks=cloud_report_2021',
        f'--flagfile={flag_file}', f'--temp_dir={self.work}/pkb',
        f'--json_path={self.work}/{run_uri}-samples.json',
        f'--run_uri={run_uri}', _PHASES, *_SLOW_FILL,
        f'--cloud_report_overlap={overlap}',
    ]  # fmt: skip
    proc = subprocess.run(
        argv, env=self.cloud.env, capture_output=True, text=True,
        timeout=1800, check=False,
    )  # fmt: skip
    with open(os.path.join(self.work, f'{run_uri}.log'), 'w') as f:
      f.write(proc.stderr)
    self.assertEqual(proc.returncode, 0, proc.stderr[-4000:])
    with open(os.path.join(self.work, f'{run_uri}-samples.json')) as f:
      samples = [json.loads(line) for line in f if line.strip()]
    logs = {h: self._Log(h)[marks[h] :] for h in _HOSTS}
    self.runs[overlap] = samples, logs, proc.stderr
    return self.runs[overlap]

  def _FillWindow(self, logs):
    """The fill's start on db1 and the next fio job's start."""
    db1 = logs['db1']
    (start,) = [i for i, (_, c) in enumerate(db1) if _FILL in c and
                'execute_command' in c]  # fmt: skip
    end = next(
        when
        for when, c in db1[start + 1 :]
        if '--section=' in c and 'execute_command' in c
    )
    return db1[start][0], end

  def _SideInWindow(self, logs, window):
    start, end = window
    return sorted(
        (when.isoformat(), host, c[:100])
        for host in _HOSTS
        if host != 'db1'
        for when, c in logs[host]
        if _Side(c) and start < when < end
    )

  def _Labels(self, samples):
    """{phase: (phase_vms, overlapped)} and the set of (metric, keys).

    The keys are the phase's own: PKB's run labels (each VM group's
    machine facts, which list the machine's loop devices, shared with
    other local clouds) are on every sample, the phases' and PKB's own
    (End to End Runtime), and are left out.
    """
    labels = [stock_pkb.Labels(s) for s in samples]
    run_keys = set().union(*(set(x) for x in labels if 'phase' not in x))
    placed, shape = {}, set()
    for s, x in zip(samples, labels):
      if 'phase' not in x:
        continue
      placed[x['phase']] = (x['phase_vms'], x['overlapped'])
      shape.add((s['metric'], tuple(sorted(set(x) - run_keys))))
    return placed, shape

  def _PhaseRuns(self, stderr):
    """{phase: (start, end)} of each phase's Run, from PKB's log lines.

    A side phase's commands can each outlast the fill (CoreMark's smoke run
    takes >= 10 s), so the phases' Run windows, not their commands' start
    times, show the overlap.
    """
    runs, started = {}, {}
    for line in stderr.splitlines():
      m = _PHASE_RUN.search(line)
      if not m:
        continue
      when = datetime.datetime.strptime(
          m.group(1), '%Y-%m-%d %H:%M:%S,%f'
      ).astimezone()  # PKB logs local time
      if m.group(3) == 'starting':
        started[m.group(2)] = when
      elif m.group(2) in started:
        runs[m.group(2)] = (started[m.group(2)], when)
    return runs

  def test_1_the_fill_runs_beside_the_side_phases_on_other_hosts(self):
    samples, logs, stderr = self._Run('true')
    start, end = window = self._FillWindow(logs)
    runs = self._PhaseRuns(stderr)
    beside = sorted(
        phase
        for phase, (run_start, run_end) in runs.items()
        if phase != 'io' and run_start < end and run_end > start
    )
    self.assertTrue(beside, f'no side phase ran in the fill window {window}')
    self.assertTrue([c for _, c in logs['db2'] if 'coremark' in c])
    self.assertFalse([c for _, c in logs['db1'] if 'coremark' in c])
    self.assertIn('overlap: cpu,net run while io runs on db1', stderr)
    placed, _ = self._Labels(samples)
    self.assertEqual(placed, {
        'cpu': ('db2', 'True'),
        'io': ('db1', 'True'),
        'net': ('client,db2', 'True'),
    })  # fmt: skip
    print(
        f'fill window on db1 {window[0].isoformat()} ..'
        f' {window[1].isoformat()}; side phases running in it: {beside}',
        file=sys.stderr,
    )

  def test_2_without_overlap_the_phases_run_in_series(self):
    samples, logs, _ = self._Run('false')
    window = self._FillWindow(logs)
    self.assertEqual(self._SideInWindow(logs, window), [])
    self.assertTrue([c for _, c in logs['db1'] if 'coremark' in c])
    self.assertFalse([c for _, c in logs['db2'] if _Side(c)])
    placed, _ = self._Labels(samples)
    self.assertEqual(placed, {
        'cpu': ('db1', 'False'),
        'io': ('db1', 'False'),
        'net': ('client,db1', 'False'),
    })  # fmt: skip

  def test_3_the_same_samples_with_and_without_overlap(self):
    _, on = self._Labels(self._Run('true')[0])
    _, off = self._Labels(self._Run('false')[0])
    self.assertNotEmpty(on)
    self.assertEqual(sorted(on - off), [])
    self.assertEqual(sorted(off - on), [])


if __name__ == '__main__':
  absltest.main()
