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
"""Tests for the suite-overhead measurement (pkb_ext_dev.bench_overhead)."""

import os
import subprocess
import time

from unittest import mock

from absl.testing import absltest
from absl.testing import parameterized

from pkb_ext_dev import bench_overhead as bo

_M, _X = bo.MEASURED, bo.METHOD


class ClassifyTest(parameterized.TestCase):

  # Command lines as seen on local-cloud hosts during a smoke run.
  @parameterized.parameters(
      ('fio', 'fio --output-format=json --output=cloud_report_fio_rd-iops.json'
       ' --filename=/dev/loop13 --section=rd-iops cloud_report_2021.fio', '',
       ('fio', _M)),
      ('fio', 'fio --output-format=json --output=x.json --filename=/dev/loop13'
       ' --section=fill-disk-ignore cloud_report_2021.fio', '', ('fio', _X)),
      ('netperf', '/usr/bin/netperf -H 10.247.83.11 -p 20000 -t TCP_RR -l 5',
       '', ('netperf', _M)),
      # PKB's make runs ./coremark.exe (the cpu phase's runs, PKB's coremark).
      ('coremark.exe', './coremark.exe 0x0 0x0 0x66 1000000 7 1 2000', '',
       ('coremark', _M)),
      ('python3', '/usr/bin/python3 ttfb_worker.py --config worker.json --out'
       ' ttfb.jsonl', '', ('ttfb_worker', _M)),
      ('go-tpc', '/opt/pkb-ext/bin/go-tpc tpcc prepare -d postgres -H x'
       ' --warehouses 1 -T 4', '', ('go-tpc', _X)),
      ('go-tpc', '/opt/pkb-ext/bin/go-tpc tpcc run -d postgres --warehouses 1'
       ' --time 20s', '/bin/sh -c ... > cloud_report_tpcc/step-01-1wh.txt',
       ('go-tpc', _M)),
      ('go-tpc', '/opt/pkb-ext/bin/go-tpc tpcc run -d postgres --warehouses 1'
       ' --time 2s', '/bin/sh -c ... > cloud_report_tpcc/step-01-1wh-ramp.txt',
       ('go-tpc', _X)),
  )  # fmt: skip
  def testTools(self, comm, cmdline, parent, want):
    self.assertEqual(bo.Classify(comm, cmdline, parent), want)

  @parameterized.parameters(
      ('netserver', '/usr/bin/netserver -p 20000 -D'),
      ('sudo', 'sudo fio --output-format=json --section=rd-iops x.fio'),
      ('make', 'make PORT_DIR=linux64 ITERATIONS=0 XCFLAGS=-DMULTITHREAD=2'),
      ('python3', 'python3 /tmp/pkb/wait_for_command.py --status x'),
      ('minio', '/opt/pkb-ext/bin/minio server --quiet'),
      ('postgres', 'postgres: postgres tpcc 10.247.83.10(51570) SELECT'),
      ('go-tpc', '/opt/pkb-ext/bin/go-tpc version'),
      ('make', 'make PORT_DIR=linux XCFLAGS=-O2 link'),
  )
  def testNotTools(self, comm, cmdline):
    self.assertIsNone(bo.Classify(comm, cmdline))


class FiguresTest(absltest.TestCase):

  def testUnionCountsOverlapOnce(self):
    self.assertEqual(bo.UnionSeconds([]), 0)
    self.assertEqual(bo.UnionSeconds([(0, 2), (1, 3), (5, 6)]), 4)
    self.assertEqual(bo.UnionSeconds([(5, 6), (0, 10)]), 10)
    self.assertEqual(bo.UnionSeconds([(0, 1), (1, 2)]), 2)
    self.assertEqual(bo.UnionSeconds([(3, 3), (4, 2)]), 0)

  def testOverhead(self):
    runs = [
        bo.ToolRun('db1', 'fio', _X, 10, 30, 'fill'),
        bo.ToolRun('db1', 'fio', _M, 30, 40, 'rd-iops'),
        bo.ToolRun('client', 'netperf', _M, 35, 45, 'rr'),
        bo.ToolRun('client', 'go-tpc', _X, 50, 60, 'prepare'),
    ]
    got = bo.Overhead(100.0, runs)
    self.assertAlmostEqual(got['measured_tool_s'], 15)
    self.assertAlmostEqual(got['overhead_pct'], 85)
    self.assertAlmostEqual(got['all_tool_s'], 45)
    self.assertAlmostEqual(got['harness_pct'], 55)
    self.assertEqual(
        got['tool_runs']['fio (method)'], {'runs': 1, 'seconds': 20}
    )
    with self.assertRaises(ValueError):
      bo.Overhead(0, runs)

  def testPhaseSecondsFromPkbLog(self):
    log = (
        '2026-11-22 07:20:26,805 r MainThread cloud_report_2021(1/1) INFO    '
        ' cloud_report: phase cpu: Prepare done in 7.4 s\n'
        '2026-11-22 07:27:24,587 r MainThread cloud_report_2021(1/1) INFO    '
        ' cloud_report: phase net: Run done in 30.8 s\n'
        'cloud_report: phase io: Run starting\n'
    )
    self.assertEqual(
        bo.PhaseSeconds(log), {'cpu.Prepare': 7.4, 'net.Run': 30.8}
    )


def _Line(when, text, thread='MainThread'):
  return f'{when} r {thread} cloud_report_2021(1/1) INFO     {text}\n'


class FixedCostsTest(absltest.TestCase):

  def setUp(self):
    super().setUp()
    self.log = (
        _Line('2026-11-22 07:20:00,000', 'Ran: {ssh -A -p 22 u@h hostname}')
        + _Line('2026-11-22 07:20:02,500', 'Ran: {ssh -A -p 22 u@h lscpu}')
        + _Line('2026-11-22 07:20:03,000', 'Ran: {scp -P 22 a u@h:b}')
        + _Line('2026-11-22 07:20:04,000', 'Ran: {ssh-keygen -t rsa}')
        + _Line('2026-11-22 07:20:09,000',
                'cloud_report: phase cpu: Prepare done in 7.0 s')
        + _Line('2026-11-22 07:20:12,000', 'Ran: {ssh -A -p 22 u@h x}',
                'Thread-3')
        + _Line('2026-11-22 07:20:20,000',
                'cloud_report: phase cpu: Run done in 10.0 s')
    )  # fmt: skip
    self.t0 = time.mktime(
        time.strptime('2026-11-22 07:20:00', '%Y-%m-%d %H:%M:%S')
    )

  def testWindowsAndSshTimes(self):
    windows = bo.PhaseWindows(self.log)
    self.assertEqual(
        [(p, s, a - self.t0, b - self.t0) for p, s, a, b in windows],
        [('cpu', 'Prepare', 2.0, 9.0), ('cpu', 'Run', 10.0, 20.0)],
    )
    self.assertEqual(
        [t - self.t0 for t in bo.SshTimes(self.log)], [0.0, 2.5, 3.0, 12.0]
    )

  def testAStartingLineBeginsTheWindow(self):
    # `done in 0.0 s` is rounded: the stage's own `starting` line, not
    # end - S, holds the ssh commands of a short stage.
    log = (
        _Line('2026-11-22 07:20:00,000',
              'cloud_report: phase net: Prepare starting')
        + _Line('2026-11-22 07:20:00,020', 'Ran: {ssh -A -p 22 u@h probe}')
        + _Line('2026-11-22 07:20:00,040', 'Ran: {ssh -A -p 22 u@h probe}')
        + _Line('2026-11-22 07:20:00,045',
                'cloud_report: phase net: Prepare done in 0.0 s')
        + _Line('2026-11-22 07:20:01,000',
                'cloud_report: phase net: Run done in 0.5 s')
    )  # fmt: skip
    windows = bo.PhaseWindows(log)
    self.assertEqual(
        [(p, s, round(a - self.t0, 3), round(b - self.t0, 3))
         for p, s, a, b in windows],
        [('net', 'Prepare', 0.0, 0.045), ('net', 'Run', 0.5, 1.0)],
    )  # fmt: skip
    got = bo.FixedCosts(2.0, [], windows, bo.SshTimes(log))
    self.assertEqual(got['phases']['net']['ssh_commands'], 2)
    self.assertEqual(got['outside_phases']['ssh_commands'], 0)

  def testPerPhaseAndOutside(self):
    t0 = self.t0
    runs = [
        bo.ToolRun('db1', 'coremark', _M, t0 + 12, t0 + 18, 'c'),
        bo.ToolRun('db1', 'coremark', _M, t0 + 19, t0 + 25, 'c'),  # 1 s in
        bo.ToolRun('db1', 'fio', _X, t0 - 5, t0 - 1, 'outside'),
    ]
    got = bo.FixedCosts(
        30.0, runs, bo.PhaseWindows(self.log), bo.SshTimes(self.log)
    )
    self.assertEqual(
        got['phases'],
        {'cpu': {'wall_s': 17.0, 'tool_s': 7.0, 'ssh_commands': 3,
                 'harness_s': 10.0}},
    )  # fmt: skip
    # 30 s of wall, 17 in the phase; tools outside: 4 s + 5 s of the second
    # CoreMark run; ssh outside: the one at 0 s (2.5 and 3 are inside).
    self.assertEqual(
        got['outside_phases'],
        {'wall_s': 13.0, 'tool_s': 9.0, 'ssh_commands': 1, 'harness_s': 4.0},
    )
    self.assertEqual(got['ssh_commands'], 4)


class AtReportTest(absltest.TestCase):

  REPORT = {'coremark_runs': '10', 'fio_runtime_s': '120', 'fio_ramp_s': '2',
            'netperf_duration_s': '60', 'tpcc_duration': '30m',
            'tpcc_ramp': '1m'}  # fmt: skip
  SMOKE = {'coremark_runs': '1', 'fio_runtime_s': '5', 'fio_ramp_s': '1',
           'netperf_duration_s': '5', 'tpcc_duration': '20s',
           'tpcc_ramp': '2s'}  # fmt: skip

  def testScalesEachToolRunToTheReportsSettings(self):
    runs = [
        bo.ToolRun('db1', 'coremark', _M, 0, 3, 'c'),
        bo.ToolRun('db1', 'fio', _X, 0, 7, 'fill'),
        bo.ToolRun('db1', 'fio', _M, 0, 6.5, 'rd-iops'),
        bo.ToolRun('c', 'netperf', _M, 0, 15, 'rr'),
        bo.ToolRun('c', 'go-tpc', _X, 0, 9, 'go-tpc tpcc prepare'),
        bo.ToolRun('c', 'go-tpc', _X, 0, 2.1, 'go-tpc tpcc run --time 2s'),
        bo.ToolRun('c', 'go-tpc', _M, 0, 20.3, 'go-tpc tpcc run --time 20s'),
        bo.ToolRun('c', 'ttfb_worker', _M, 0, 4, 'w'),
    ]
    got = bo.AtReport(runs, 30.0, self.REPORT, self.SMOKE)
    want = 30 + 7 + 122 + 60 + 9 + 60 + 1800 + 4
    self.assertEqual(got['tool_s'], want)
    self.assertAlmostEqual(got['harness_share_pct'], 100 * 30 / (30 + want))
    self.assertEqual(got['tool_s_by_tool']['go-tpc (measured)'], 1800)

  def testMissingSettingsCountAsMeasured(self):
    runs = [bo.ToolRun('c', 'netperf', _M, 0, 15, 'rr')]
    got = bo.AtReport(runs, 5.0, {}, {})
    self.assertEqual(got['tool_s'], 15)
    self.assertAlmostEqual(got['harness_share_pct'], 25)


class TracerTest(absltest.TestCase):
  """The tracer on this process's own network namespace, for real."""

  def _Tool(self, script: str) -> tuple[str, str]:
    """A shell-script tool named netperf in a new directory: (dir, path)."""
    tmp = self.create_tempdir().full_path
    tool = os.path.join(tmp, 'netperf')
    with open(tool, 'w') as f:
      f.write(script)
    os.chmod(tool, 0o755)
    return tmp, tool

  def testSeesAToolRunAndItsLength(self):
    tmp, tool = self._Tool('#!/bin/sh\nsleep 0.6\n')
    tracer = bo.ProcessTracer({'me': '/proc/self/ns/net'}, 0.02).Start()
    started = time.time()
    subprocess.run([tool, tmp], check=True)
    ended = time.time()
    time.sleep(0.1)
    runs = [r for r in tracer.Stop() if tmp in r.cmdline]
    self.assertLen(runs, 1)
    (run,) = runs
    self.assertEqual((run.host, run.tool, run.kind), ('me', 'netperf', _M))
    # Upper bounds allow for a poller slowed by a loaded machine.
    self.assertBetween(run.start, started - 0.05, started + 0.5)
    self.assertBetween(run.end, ended - 0.1, ended + 0.5)
    self.assertBetween(run.seconds, 0.5, 1.2)

  def testAToolsForkIsPartOfItsRun(self):
    # A shell script tool forks subshells: same comm and cmdline as the
    # tool until they exec; one run all the same.
    tmp, tool = self._Tool('#!/bin/sh\n(sleep 0.4; true)\n(sleep 0.3; true)\n')
    tracer = bo.ProcessTracer({'me': '/proc/self/ns/net'}, 0.02).Start()
    subprocess.run([tool, tmp], check=True)
    time.sleep(0.1)
    runs = [r for r in tracer.Stop() if tmp in r.cmdline]
    self.assertLen(runs, 1)
    self.assertBetween(runs[0].seconds, 0.6, 1.6)

  def testAToolSeenMidExecIsLookedAtAgain(self):
    # Mid-exec a process has its new name but not yet its command line (as
    # when exiting): it is classified at a later poll, with its command line.
    # The tool waits in a builtin (read), so no child it forks shares its
    # command line while the tracer polls (a forked `sleep` does, until it
    # execs: on a busy machine a poll could see it as a second run).
    tmp, tool = self._Tool('#!/bin/sh\nread line\n')
    proc = subprocess.Popen([tool, tmp], stdin=subprocess.PIPE)
    self.addCleanup(proc.stdin.close)
    self.addCleanup(proc.wait)
    self.addCleanup(proc.kill)
    cmdline = f'/proc/{proc.pid}/cmdline'
    for _ in range(100):
      if tmp in bo._Read(cmdline):
        break
      time.sleep(0.02)
    real_read, reads = bo._Read, []

    def Read(path):
      reads.append(path)
      return (
          '' if path == cmdline and reads.count(path) == 1 else real_read(path)
      )

    tracer = bo.ProcessTracer({'me': '/proc/self/ns/net'})
    with mock.patch.object(bo, '_Read', Read):
      tracer.Poll()
      tracer.Poll()
    self.assertGreaterEqual(reads.count(cmdline), 2)
    runs = [r for r in tracer.Stop() if tmp in r.cmdline]
    self.assertLen(runs, 1)
    self.assertEqual(runs[0].tool, 'netperf')
    self.assertTrue(runs[0].cmdline.startswith('/bin/sh ' + tool), runs)

  def testSeesAToolThatAShellExecsLater(self):
    # ssh runs `bash -c CMD`; bash may exec the tool in the same process
    # after the tracer first saw it as bash.
    # The tool runs 1.5 s, so a poller starved by a loaded machine for a
    # while still sees it; the run counts from the shell's start (same PID).
    tmp, tool = self._Tool('#!/bin/sh\nsleep 1.5\n')
    tracer = bo.ProcessTracer({'me': '/proc/self/ns/net'}, 0.02).Start()
    subprocess.run(['bash', '-c', f'sleep 0.3; exec {tool} {tmp}'], check=True)
    time.sleep(0.1)
    runs = [r for r in tracer.Stop() if tmp in r.cmdline]
    self.assertLen(runs, 1)
    self.assertEqual(runs[0].tool, 'netperf')
    self.assertBetween(runs[0].seconds, 1.5, 3.0)


if __name__ == '__main__':
  absltest.main()
