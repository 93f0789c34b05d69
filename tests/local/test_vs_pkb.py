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
"""`pkb-ext bench --only vs_pkb` for real, one pair, on the test cloud.

Runs the bench part through the command line with the smallest settings
(one ours/PKB pair per tool, 2 s fio and netperf runs) on the local test
cloud (pkb_ext_dev.local_cloud), then checks the figures are finite and
positive, that both sides ran their tools (PKB's samples, the tool
processes the tracer saw and which binaries they were), and that only
PKB's own netservers were stopped: a sentinel netserver started on db1
before the run, in its own process group, is alive after it. The ratios'
targets are not asserted: one short pair on a shared machine is noise.
CoreMark takes most of its time: PKB's coremark benchmark fixes the
iterations per thread (ITERATIONS_PER_CPU) and runs CoreMark twice
(performance and validation run); ours is the same PKB make in the same
tree, with the same count, through the cpu phase.
"""

import json
import math
import os
import subprocess
import sys
import tempfile

from absl.testing import absltest
from perfkitbenchmarker.linux_benchmarks import coremark_benchmark
from perfkitbenchmarker.linux_packages import fio as pkb_fio
from perfkitbenchmarker.linux_packages import netperf as pkb_netperf

from pkb_ext_dev import bench
from pkb_ext_dev import local_cloud

SENTINEL_PORT = 23977  # not a port either side uses
_UNAVAILABLE = local_cloud.Unavailable()


@absltest.skipIf(_UNAVAILABLE, _UNAVAILABLE)
class VsPkbTest(absltest.TestCase):

  @classmethod
  def setUpClass(cls):
    super().setUpClass()
    cls.cloud = local_cloud.TestCloud(local_cloud.TestStateDir())
    proc = cls.cloud.Cli('up', '--no-minio')
    if proc.returncode:
      cls.cloud.Cli('down')
      raise AssertionError(f'up failed: {proc.stdout}\n{proc.stderr}')

  @classmethod
  def tearDownClass(cls):
    cls.cloud.Cli('down')
    super().tearDownClass()

  def _Sentinel(self) -> int:
    """Starts a netserver on db1 in its own process group; returns its PID."""
    proc = self.cloud.Ssh(
        'db1',
        f'setsid nohup netserver -p {SENTINEL_PORT} -D </dev/null'
        ' >/dev/null 2>&1 & echo $!; sleep 0.5',
    )
    self.assertEqual(proc.returncode, 0, proc.stderr)
    pid = int(proc.stdout.split()[-1])
    self.addCleanup(self.cloud.Ssh, 'db1', f'kill {pid} 2>/dev/null || true')
    return pid

  def _Alive(self, pid: int) -> bool:
    proc = self.cloud.Ssh('db1', f'ps -o args= -p {pid}')
    return proc.returncode == 0 and f'-p {SENTINEL_PORT}' in proc.stdout

  def test_one_pair(self):
    sentinel = self._Sentinel()
    self.assertTrue(self._Alive(sentinel))
    work = tempfile.mkdtemp(prefix='pkb-ext-vs-pkb-test-')
    out = os.path.join(work, 'bench.json')
    proc = subprocess.run(
        [sys.executable, '-m', 'pkb_ext.cli', 'bench', '--only', 'vs_pkb',
         '--out', out, '--state-dir', self.cloud.state_dir,
         '--vs-pkb-pairs', '1', '--vs-pkb-seconds', '2',
         '--time-cap', '0',  # exactly the one pair: no pairs added
         '--work-dir', work],
        env=self.cloud.env, capture_output=True, text=True, timeout=1200,
        check=False,
    )  # fmt: skip
    # One pair gives no interval: every ratio is INCONCLUSIVE (exit 4).
    self.assertEqual(
        proc.returncode, bench.EXIT_INCONCLUSIVE,
        proc.stdout + proc.stderr[-4000:],
    )  # fmt: skip
    with open(out) as f:
      doc = json.load(f)
    for key, (part, _, _) in bench.FIGURES.items():
      if part == 'vs_pkb':
        self.assertTrue(math.isfinite(doc[key]) and doc[key] > 0, key)
        self.assertIn(key, proc.stdout)  # the printed table
    details = doc['details']['vs_pkb']
    self.assertEqual(details['errors'], {})
    binaries = {
        # PKB's make runs it in PKB's tree, on both sides (the cpu phase
        # runs PKB's RunCoremark).
        'coremark': ('./coremark.exe', './coremark.exe'),
        'fio': (pkb_fio.FIO_PATH, pkb_fio.FIO_PATH),
        'netperf': (pkb_netperf.NETPERF_PATH, pkb_netperf.NETPERF_PATH),
    }
    for tool, (pkb_binary, our_binary) in binaries.items():
      result = details['tools'][tool]
      (pkb_run,) = result['runs']['pkb']
      (our_run,) = result['runs']['ours']
      for run in (pkb_run, our_run):
        self.assertGreaterEqual(run['tool_runs'], 1, (tool, run))
        self.assertGreater(run['tool_s'], 0, (tool, run))
        self.assertGreater(run['harness_s'], 0, (tool, run))
        self.assertGreater(run['samples'], 0, (tool, run))
      self.assertEqual(pkb_run['tool_commands'], [pkb_binary])
      self.assertTrue(
          all(c.startswith(our_binary) for c in our_run['tool_commands']),
          our_run,
      )
    # CoreMark: PKB's make runs the performance and the validation run, for
    # PKB's benchmark and for ours alike.
    for side in ('pkb', 'ours'):
      self.assertEqual(details['tools']['coremark']['runs'][side][0]
                       ['tool_runs'], 2, side)  # fmt: skip
    self.assertEqual(
        details['settings']['coremark_iterations_per_thread'],
        coremark_benchmark.ITERATIONS_PER_CPU,
    )
    staged = details['staged']
    self.assertEqual({e['path'] for e in staged['fio']}, {pkb_fio.FIO_PATH})
    self.assertTrue(all(e['sha256'] for e in staged['fio'] + staged['netperf']))
    (tree,) = staged['coremark_tree']
    self.assertEqual(tree['tarball_sha256'], tree['expected_sha256'])
    # PKB's netservers were stopped by PID, the sentinel was not.
    (killed,) = details['killed_pkb_netservers']
    self.assertNotEqual(killed, [])
    self.assertNotIn(sentinel, killed)
    self.assertTrue(self._Alive(sentinel), 'the sentinel netserver is gone')
    log = '\n'.join(self.cloud.CommandLog('db1'))
    self.assertNotIn('killall', log)


if __name__ == '__main__':
  absltest.main()
