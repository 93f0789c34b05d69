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
"""Tests for the cpu phase's runs of PKB's RunCoremark.

One parse per run; PKB's make recognised or refused; each make bounded. The
make tests run PKB's RunCoremark through the phase's remote_command and a
real shell (pkb_ext_dev.local_vm.LocalVm), with a stand-in `make` on PATH
that records what it was given, writes a captured log, or hangs.
"""

import os
import pathlib
import stat
import time
from unittest import mock

from absl.testing import absltest
from absl.testing import flagsaver
from perfkitbenchmarker import errors
from perfkitbenchmarker.linux_benchmarks import coremark_benchmark

from benchmarks.cloud_report import remote
from pkb_ext.suite.cpu import bounds
from pkb_ext.suite.cpu import parser as coremark_parser
from pkb_ext.suite.cpu import stages as cpu
from pkb_ext_dev import local_vm

DATA = pathlib.Path(__file__).resolve().parent.parent / 'data' / 'coremark'
SINGLE = (DATA / 'single_core.txt').read_text()
SINGLE_SHORT = (DATA / 'single_core_short.txt').read_text()
ALL_2 = (DATA / 'all_core_pthread_2.txt').read_text()
TAG = 'coremark-single'

# The stand-in for make, in the tree PKB's command cd's into: `clean` does
# nothing; the build records its arguments and the tracked command's PID
# file (once written), then hangs if $d/hang exists, else writes $d/log as
# run1.log.
_FAKE_MAKE = """#!/bin/sh
d=@DIR@
case " $* " in *' clean '*) exit 0;; esac
echo "$*" > "$d/args"
i=0  # the tracking shell writes the PID file just after starting make
while [ ! -s @PID@ ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i+1)); done
cp @PID@ "$d/tracked.pid"
echo $$ > "$d/make.pid"
if [ -e "$d/hang" ]; then
  sleep 300 & echo $! > "$d/sleep.pid"; wait; exit 1
fi
cp "$d/log" run1.log
"""


class AnsweringVm:
  """Answers PKB's make with nothing and the log's cat with a text."""

  name = 'db-0'

  def __init__(self, log: str, cpus: int = 2):
    self.log = log
    self.cpus = cpus
    self.commands = []

  def NumCpusForBenchmark(self):
    return self.cpus

  def RemoteCommand(self, command, **kwargs):
    del kwargs
    self.commands.append(command)
    return (self.log if command.startswith('cat ') else ''), ''


class OneParseTest(absltest.TestCase):
  """PKB's RunCoremark parses each log; the phase does not parse it again."""

  def setUp(self):
    super().setUp()
    self.enter_context(
        flagsaver.flagsaver(coremark_parallelism_method='PTHREAD')
    )
    self.parse = self.enter_context(
        mock.patch.object(
            coremark_benchmark,
            '_ParseOutputForSamples',
            wraps=coremark_benchmark._ParseOutputForSamples,  # pylint: disable=protected-access
        )
    )

  def _Run(self, log, build, runs=3):
    params = cpu.Params(runs=runs, modes=(build.mode,))
    return cpu.RunBuild(AnsweringVm(log), build, params)

  def testValidatedRunsAreParsedOnce(self):
    results = self._Run(ALL_2, cpu.Build('all', 2))
    self.assertEqual(self.parse.call_count, 3)
    # The same results as a parse of the text (the samples' source).
    self.assertEqual(results, [coremark_parser.Parse(ALL_2, 2)] * 3)
    self.assertEqual(results[0].parallelism, 'pthread')
    self.assertEqual(results[0].metadata['thread_count'], 2)

  def testShortRunsArePkbsParseThenKept(self):
    results = self._Run(SINGLE_SHORT, cpu.Build('single', 1))
    self.assertEqual(self.parse.call_count, 3)  # PKB's, which refuses
    self.assertEqual(results, [coremark_parser.Parse(SINGLE_SHORT, 1)] * 3)
    self.assertFalse(results[0].valid_for_reporting)
    self.assertIn('< 10 s', results[0].invalid_reason)

  def testTruncatedLogNamesTheLine(self):
    with self.assertRaisesRegex(
        coremark_parser.ParseError, "no 'Correct operation validated'"
    ):
      self._Run(SINGLE[: len(SINGLE) // 3], cpu.Build('single', 1))

  def testAnotherContextCountThanBuiltIsRefused(self):
    with self.assertRaisesRegex(coremark_parser.ParseError, r'ran 2 .*4'):
      self._Run(ALL_2, cpu.Build('all', 4))


class MakeBoundTest(absltest.TestCase):

  def testCalibratedRuns(self):
    # 120 s of builds, 2 runs of 12 s calibration + 22 s, + 600 s margin.
    vm = AnsweringVm('', cpus=4)
    params = cpu.Params(iterations=0)
    self.assertEqual(cpu.MakeBound(vm, cpu.Build('single', 1), params), 788)
    self.assertEqual(cpu.MakeBound(vm, cpu.Build('all', 4), params), 788)
    # 8 contexts on 4 vCPUs: each timed run twice as long.
    self.assertEqual(
        cpu.MakeBound(vm, cpu.Build('all', 8), params), 120 + 2 * 56 + 600
    )

  def testFixedIterations(self):
    # 1,000,000 iterations at 1,000/s: 1,000 s a run; the margin is a
    # quarter (530 s), at least 600 s.
    params = cpu.Params(iterations=1000000)
    self.assertEqual(
        cpu.MakeBound(AnsweringVm(''), cpu.Build('all', 2), params),
        120 + 2 * 1000 + 600,
    )
    params = cpu.Params(iterations=4000000)  # 8,120 s; a quarter: 2,030 s
    self.assertEqual(
        cpu.MakeBound(AnsweringVm(''), cpu.Build('all', 2), params),
        120 + 2 * 4000 + 2030,
    )

  def testACoreMarkMakeIsItsBuildsThenTwoRuns(self):
    # Calibrated: 2 runs of 12 s calibration + 22 s per context per vCPU.
    self.assertEqual(bounds.CoreMarkSeconds(0, 1, 1), 120 + 2 * 34)
    self.assertEqual(bounds.CoreMarkSeconds(0, 4, 4), 120 + 2 * 34)
    self.assertEqual(bounds.CoreMarkSeconds(0, 5, 4), 120 + 2 * 56)
    # Fixed: the iterations at 1,000/s per context.
    self.assertEqual(bounds.CoreMarkSeconds(20000, 2, 2), 120 + 2 * 20)
    self.assertEqual(bounds.CoreMarkSeconds(20000, 16, 2), 120 + 2 * 160)
    for bad in ((-1, 1, 1), (0, 0, 1), (0, 1, 0)):
      with self.assertRaisesRegex(ValueError, 'context'):
        bounds.CoreMarkSeconds(*bad)


def _Alive(pid: int) -> bool:
  """Whether pid runs (a zombie does not)."""
  try:
    text = pathlib.Path(f'/proc/{pid}/stat').read_text()
  except (FileNotFoundError, ProcessLookupError):
    return False
  return text.rsplit(')', 1)[1].split()[0] != 'Z'


def _InGroup(pgid: int) -> list[int]:
  """The live processes of process group pgid."""
  out = []
  for proc in pathlib.Path('/proc').iterdir():
    if not proc.name.isdigit():
      continue
    try:
      fields = (proc / 'stat').read_text().rsplit(')', 1)[1].split()
    except (FileNotFoundError, ProcessLookupError):
      continue
    if fields[0] != 'Z' and int(fields[2]) == pgid:
      out.append(int(proc.name))
  return out


class RealShellMakeTest(absltest.TestCase):
  """PKB's RunCoremark through RemoteCommands and a real shell."""

  def setUp(self):
    super().setUp()
    self.dir = pathlib.Path(self.create_tempdir().full_path)
    self.tree = self.dir / 'coremark-1.01'
    self.tree.mkdir()
    self.running = self.dir / 'running'
    self.running.mkdir()
    bin_dir = self.dir / 'bin'
    bin_dir.mkdir()
    make = bin_dir / 'make'
    pid_file = remote.PidPath(TAG, str(self.running))
    make.write_text(
        _FAKE_MAKE.replace('@DIR@', str(self.dir)).replace('@PID@', pid_file)
    )
    make.chmod(make.stat().st_mode | stat.S_IXUSR)
    self.pid_file = pathlib.Path(pid_file)
    self.enter_context(
        mock.patch.dict(os.environ, {'PATH': f'{bin_dir}:{os.environ["PATH"]}'})
    )
    self.enter_context(
        mock.patch.object(coremark_benchmark, 'COREMARK_DIR', str(self.tree))
    )
    self.enter_context(
        flagsaver.flagsaver(coremark_parallelism_method='PTHREAD')
    )
    self.vm = local_vm.LocalVm(work_dir=str(self.dir))

  def _Commands(self, bound_s=60):
    return cpu.RemoteCommands(
        self.vm, TAG, 0, bound_s, running_dir=str(self.running)
    )

  def testPkbsMakeRunsRewrittenTrackedAndBounded(self):
    (self.dir / 'log').write_text(SINGLE)
    (pkb_sample,) = coremark_benchmark.RunCoremark(self._Commands(), 1)
    self.assertEqual(pkb_sample.value, 10946.508064)
    args = (self.dir / 'args').read_text().split()
    self.assertIn('ITERATIONS=0', args)  # not PKB's 1000000
    self.assertNotIn('ITERATIONS=1000000', args)
    # It was tracked while it ran; its PID file is gone after.
    self.assertRegex((self.dir / 'tracked.pid').read_text(), r'^\d+ \d+$')
    self.assertFalse(self.pid_file.exists())
    (make,) = [c for c in self.vm.commands if 'ITERATIONS=' in c]
    self.assertIn(' timeout -k 30 60 sh -c ', make)

  def testHungMakeIsEndedAtItsBound(self):
    (self.dir / 'hang').touch()
    started = time.monotonic()
    with self.assertRaises(errors.Benchmarks.RunError) as raised:
      coremark_benchmark.RunCoremark(self._Commands(bound_s=2), 1)
    elapsed = time.monotonic() - started
    message = str(raised.exception)
    self.assertNotIn('\n', message)
    self.assertIn(f'make {TAG} on local-vm did not end within its bound'
                  ' of 2 s and was ended', message)  # fmt: skip
    self.assertIn('exit status 124', message)
    # Ended at its bound by TERM: not at PKB's ssh timeout (bound + 150 s),
    # not by the KILL 30 s later.
    self.assertGreaterEqual(elapsed, 2)
    self.assertLess(elapsed, 20)
    # Nothing of it is left: make, its sleep, the whole process group.
    leader = int((self.dir / 'tracked.pid').read_text().split()[0])
    pids = [leader] + [
        int((self.dir / f).read_text()) for f in ('make.pid', 'sleep.pid')
    ]
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline and (
        any(_Alive(p) for p in pids) or _InGroup(leader)
    ):
      time.sleep(0.1)
    self.assertEqual([p for p in pids if _Alive(p)], [])
    self.assertEqual(_InGroup(leader), [])
    self.assertFalse(self.pid_file.exists())
    self.assertFalse((self.tree / 'run1.log').exists())  # never read

  def testMakeOfAnotherShapeIsRefusedUnrun(self):
    commands = self._Commands()
    for changed in (
        (
            f'cd {self.tree};make PORT_DIR=linux64 clean; make PORT_DIR=linux64'
            ' XCFLAGS="-DITERATIONS=1000000 -DMULTITHREAD=1"'
        ),
        f'cd {self.tree} && make -j PORT_DIR=linux64 ITERATIONS=1000000',
    ):
      with self.subTest(changed=changed):
        with self.assertRaises(errors.Benchmarks.RunError) as raised:
          commands(changed)
        message = str(raised.exception)
        self.assertNotIn('\n', message)
        self.assertIn("PKB's CoreMark make has a shape", message)
        self.assertIn(cpu.MAKE_SHAPE, message)
    self.assertEqual(self.vm.commands, [])  # nothing ran
    self.assertFalse((self.dir / 'args').exists())

  def testLogReadBeforeAnyMakeIsRefused(self):
    with self.assertRaisesRegex(
        errors.Benchmarks.RunError, 'before any make the phase ran'
    ):
      self._Commands()(f'cat {self.tree}/run1.log')
    self.assertEqual(self.vm.commands, [])


if __name__ == '__main__':
  absltest.main()
