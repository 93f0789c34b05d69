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
"""Tests for the pkb-ext command line (parse, list, delegation)."""

import contextlib
import io
import os
import subprocess
import sys
import tempfile
from unittest import mock

from absl.testing import absltest

from benchmarks.cloud_report import parsers
from pkb_ext.suite import phase_table
from pkb_ext import cli
from pkb_ext import run_cli
from pkb_ext.suite import phase_modules


def _Main(argv):
  out, err = io.StringIO(), io.StringIO()
  with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
    rc = cli.main(argv)
  return rc, out.getvalue(), err.getvalue()


class ParseTest(absltest.TestCase):

  def testMissingFileIsOneLineError(self):
    rc, out, err = _Main(['parse', 'fio', '/nonexistent/fio.json'])
    self.assertEqual(rc, 1)
    self.assertEqual(out, '')
    self.assertIn('cannot read /nonexistent/fio.json', err)
    self.assertEqual(len(err.strip().splitlines()), 1)

  def testUnknownToolIsRefused(self):
    rc, _, err = _Main(['parse', 'iperf', '/dev/null'])
    self.assertEqual(rc, 2)
    self.assertRegex(
        err, r"^pkb-ext parse: argument tool: invalid choice: 'iperf'"
    )
    self.assertEqual(len(err.splitlines()), 1)

  def testParseErrorIsOneLineWithFileName(self):
    with tempfile.NamedTemporaryFile('w', suffix='.txt', delete=False) as f:
      f.write('garbage\n')
    self.addCleanup(os.unlink, f.name)
    with mock.patch.object(
        phase_modules,
        'ParseText',
        side_effect=parsers.ParseError('no score line'),
    ):
      rc, _, err = _Main(['parse', 'coremark', f.name])
    self.assertEqual(rc, 1)
    self.assertIn(f.name, err)
    self.assertIn('no score line', err)

  def testACutShortTpccRunIsRefusedGivenItsDuration(self):
    data = os.path.join(os.path.dirname(__file__), '..', 'data', 'tpcc')
    cut = os.path.join(data, 'cockroach_v22.1.2_mr_4000wh_interrupted_tail.txt')
    whole = os.path.join(data, 'cockroach_v22.1.2_9node_8vcpu_3500wh_tail.txt')
    rc, out, _ = _Main(['parse', 'tpcc', cut])  # complete-looking alone
    self.assertEqual(rc, 0)
    self.assertIn('"elapsed_s": 24.5', out)
    rc, out, err = _Main(['parse', 'tpcc', '--duration', '12m', cut])
    self.assertEqual((rc, out), (1, ''))
    self.assertEqual(
        err,
        f'pkb-ext parse tpcc: {cut}: the run ended after 24.5 s of the 720 s'
        ' asked for (12m): cut short, not a complete run\n',
    )
    rc, out, _ = _Main(['parse', 'tpcc', '--duration', '12m', whole])
    self.assertEqual(rc, 0)
    self.assertIn('tpcc_tpmc', out)
    rc, _, err = _Main(['parse', 'tpcc', '--duration', '12 minutes', whole])
    self.assertEqual(rc, 2)
    self.assertIn('is not a duration such as 90s', err)

  def testToolTable(self):
    self.assertEqual(
        set(phase_table.TOOLS), {'coremark', 'fio', 'netperf', 'tpcc', 'ttfb'}
    )
    for tool in phase_table.TOOLS:
      self.assertIn(
          phase_table.ByTool(tool).sample,
          ('cpu', 'io', 'net', 'object_storage', 'tpcc'),
      )


class PassThroughTest(absltest.TestCase):

  def testListWithFlagsDefaultsToTheSuiteLikeRun(self):
    from pkb_ext import registry  # pylint: disable=g-import-not-at-top

    with mock.patch.object(
        registry, 'ResolveBenchmarks', return_value=[('a', 'b')]
    ) as resolve:
      rc, out, _ = _Main(['list', '--cloud=GCP'])
    self.assertEqual(rc, 0)
    self.assertEqual(out, 'a\tb\n')
    resolve.assert_called_once_with(
        ['--benchmarks=cloud_report_2021', '--cloud=GCP']
    )
    with mock.patch.object(run_cli.os, 'execv') as execv:
      cli.main(['run', '--cloud=GCP'])
    self.assertEqual(
        execv.call_args[0][1][2:],
        ['--benchmarks=cloud_report_2021', '--cloud=GCP'],
    )

  def testExplicitBenchmarksAreKept(self):
    from pkb_ext import registry  # pylint: disable=g-import-not-at-top

    with mock.patch.object(
        registry, 'ResolveBenchmarks', return_value=[]
    ) as resolve:
      _Main(['list', '--benchmarks=cloud_report_phases'])
    resolve.assert_called_once_with(['--benchmarks=cloud_report_phases'])

  def testHelpOfRunAndList(self):
    for command in ('run', 'list'):
      for option in ('--help', '-h'):
        with mock.patch.object(run_cli.os, 'execv') as execv:
          with self.assertRaises(SystemExit) as e:
            _Main([command, option])
        self.assertEqual(e.exception.code, 0)
        execv.assert_not_called()

  def testHelpSaysWhereTheFlagsAreListed(self):
    out = io.StringIO()
    with contextlib.redirect_stdout(out), self.assertRaises(SystemExit):
      cli.main(['list', '--help'])
    self.assertIn('--helpmatch=cloud_report', out.getvalue())
    self.assertIn('--benchmarks=cloud_report_2021', out.getvalue())


class DelegateTest(absltest.TestCase):

  def testBenchWithoutSourceCheckoutExitsTwo(self):
    with mock.patch.object(cli, '_DevPackageDir', return_value=None):
      rc, _, err = _Main(['bench', '--out', 'x.json'])
    self.assertEqual(rc, 2)
    self.assertIn('needs a source checkout', err)

  def testBenchRunsTheHarnessAsItsOwnProcess(self):
    self.enter_context(mock.patch.dict(sys.modules))
    for name in [m for m in sys.modules if m.startswith('pkb_ext_dev')]:
      del sys.modules[name]
    with mock.patch.object(cli.subprocess, 'run') as run:
      run.return_value.returncode = 3
      rc, _, _ = _Main(['bench', '--out', 'x.json'])
    self.assertEqual(rc, 3)
    (command,), kwargs = run.call_args
    self.assertEqual(
        command,
        [sys.executable, '-m', 'pkb_ext_dev.bench', '--out', 'x.json'],
    )
    self.assertEqual(
        kwargs['env']['PYTHONPATH'].split(os.pathsep)[0], cli._DevPackageDir()
    )
    self.assertEqual(
        [m for m in sys.modules if m.startswith('pkb_ext_dev')], []
    )

  def testBenchExitStatusAndErrorComeFromTheHarness(self):
    env = dict(os.environ)
    env['PYTHONPATH'] = ''
    proc = subprocess.run(
        [
            sys.executable,
            '-c',
            'import sys; from pkb_ext import cli; sys.exit(cli.main())',
            'bench',
            '--out',
            os.devnull,
            '--only',
            'iperf',
        ],
        env=env,
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )
    self.assertEqual(proc.returncode, 2, proc.stderr)
    self.assertIn("pkb-ext bench: --only: unknown part 'iperf'", proc.stderr)

  def testBenchFindsTheDevPackage(self):
    self.assertTrue(
        os.path.isfile(
            os.path.join(cli._DevPackageDir(), 'pkb_ext_dev', 'bench.py')
        )
    )


class BrokenPipeTest(absltest.TestCase):

  def testClosedPipeIsNotAnError(self):
    with mock.patch.object(cli, '_Dispatch', side_effect=BrokenPipeError), \
        mock.patch.object(cli.os, 'dup2') as dup2:  # fmt: skip
      self.assertEqual(cli.main(['local', 'status']), 0)
    dup2.assert_called_once()

  def testOtherErrorsStillRaise(self):
    with mock.patch.object(cli, '_Dispatch', side_effect=OSError('disk')):
      with self.assertRaisesRegex(OSError, 'disk'):
        cli.main(['local', 'status'])


if __name__ == '__main__':
  absltest.main()
