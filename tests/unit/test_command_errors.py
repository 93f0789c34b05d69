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
"""Every pkb-ext command refuses a bad value the same way.

Each command runs as `python -m pkb_ext.cli COMMAND ...` in its own
process. A bad option or value is one line on standard error, `pkb-ext
COMMAND...: message`, exit status 2; an input file that is missing is one
such line, exit status 1; neither prints a traceback. `pkb-ext run` hands
its arguments to pkb.py, which reports its own flags; only its help is
pkb-ext's.
"""

import concurrent.futures
import os
import subprocess
import tempfile

from absl.testing import absltest

from pkb_ext_dev import cli_run

_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(__file__)))
_MISSING = '/nonexistent/pkb_ext_input'
_TABLE = 'my-project.dataset.samples'

# (command, arguments, exit status); {tmp} is a fresh directory.
CASES = (
    ('list', ['--no_such_flag'], 2),
    ('plan', ['--no_such_flag'], 2),
    ('plan', [f'--prices={_MISSING}.yaml'], 1),
    ('parse', ['fio', _MISSING, '--no-such-option'], 2),
    ('parse', ['tpcc', _MISSING, '--duration', '12 minutes'], 2),
    ('parse', ['fio', _MISSING], 1),
    ('local', ['up', '--ssh-port', 'x'], 2),
    ('local', ['results', _MISSING, '--out', '{tmp}/out.ndjson'], 1),
    ('publish', [_MISSING, '--table', _TABLE, '--batch-size', '0'], 2),
    ('publish', [_MISSING, '--table', _TABLE, '--dry-run'], 1),
    ('report', ['--samples', _MISSING, '--out', '{tmp}', '--timeout', 'x'], 2),
    ('report', ['--samples', _MISSING, '--out', '{tmp}/report'], 1),
    ('compare', [_MISSING, _MISSING, '--alpha', 'x'], 2),
    ('compare', [_MISSING, _MISSING + '2'], 1),
    ('bench', ['--out', '{tmp}/bench.json', '--pairs', 'x'], 2),
    ('upstream', ['--no-such-option'], 2),
    ('upstream', ['--out', '{tmp}/series', '--pkb-archive', _MISSING], 1),
    ('no_such_command', [], 2),
)


def _Run(command: str, args: list[str]) -> subprocess.CompletedProcess:
  env = dict(os.environ)
  env['PYTHONPATH'] = os.pathsep.join(
      p
      for p in (_ROOT, os.path.join(_ROOT, 'tests'), env.get('PYTHONPATH'))
      if p
  )
  with tempfile.TemporaryDirectory() as tmp:
    argv = [a.replace('{tmp}', tmp) for a in args]
    return cli_run.Child([command, *argv], env=env)


class CommandErrorTest(absltest.TestCase):

  @classmethod
  def setUpClass(cls):
    super().setUpClass()
    with concurrent.futures.ThreadPoolExecutor(4) as pool:
      cls.results = list(pool.map(lambda c: _Run(c[0], c[1]), CASES))

  def testEveryCommandIsCovered(self):
    from pkb_ext import cli  # pylint: disable=g-import-not-at-top

    covered = {command for command, _, _ in CASES}
    self.assertEqual(set(cli.COMMANDS) - covered, {'run'})

  def testABadValueIsOneLineAndItsStatus(self):
    for (command, args, status), proc in zip(CASES, self.results):
      with self.subTest(command=command, args=args):
        lines = proc.stderr.splitlines()
        self.assertNotIn('Traceback', proc.stderr)
        self.assertLen(lines, 1, proc.stderr)
        # An unknown command is the top level's to refuse.
        prog = (
            'pkb-ext:' if command == 'no_such_command' else f'pkb-ext {command}'
        )
        self.assertTrue(lines[0].startswith(prog), lines[0])
        self.assertEqual(proc.returncode, status, proc.stderr)

  def testRunsHelpIsItsOwn(self):
    proc = _Run('run', ['--help'])
    self.assertEqual(proc.returncode, 0, proc.stderr)
    self.assertIn('--helpmatch=cloud_report', proc.stdout)


if __name__ == '__main__':
  absltest.main()
