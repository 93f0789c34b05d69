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
"""report, compare, publish and upstream hold against bad input as parse does.

Every case starts from real samples (tests/data/analysis) or a real capture
and changes the one thing under test: the command gives a one-line error
naming the file (and line), exit 1 (2 for usage), no traceback, no hang, and
writes nothing.
"""

import json
import os
import pathlib
import shutil
import subprocess
import tarfile
import time

from absl.testing import absltest
from absl.testing import parameterized

from pkb_ext import inputs
from pkb_ext.publish import schema
from pkb_ext_dev import cli_run

DATA = pathlib.Path(__file__).resolve().parent.parent / 'data'
FIXTURE = DATA / 'analysis' / 'samples_3x2.ndjson'
# The CPU samples of one configuration: a small report of its own.
CPU_LINES = 22
TABLE = 'my-project.pkb.samples'


def FixtureLines(count: int | None = None) -> list[str]:
  lines = FIXTURE.read_text(encoding='utf-8').splitlines()
  return lines[:count] if count else lines


def Cli(argv: list[str], timeout: float = 120) -> subprocess.CompletedProcess:
  """`pkb-ext ARGV` in a subprocess, warnings as a user sees them."""
  env = {k: v for k, v in os.environ.items() if k != 'PYTHONWARNINGS'}
  return cli_run.Child(argv, timeout=timeout, env=env)


class Case(parameterized.TestCase):
  """Helpers: files in a temporary directory, one-line failures."""

  def setUp(self):
    super().setUp()
    self.dir = self.create_tempdir().full_path

  def Write(self, name: str, lines: list[str]) -> str:
    path = os.path.join(self.dir, name)
    with open(path, 'w', encoding='utf-8') as f:
      f.write(''.join(l + '\n' for l in lines))
    return path

  def Mutated(self, index: int, change, count: int = CPU_LINES) -> str:
    """The fixture's first `count` lines, line `index` (0-based) changed."""
    lines = FixtureLines(count)
    row = json.loads(lines[index])
    changed = change(row)
    lines[index] = changed if isinstance(changed, str) else json.dumps(row)
    return self.Write('bad.ndjson', lines)

  def AssertOneLineFailure(self, result, code=1, *, contains=()):
    """Exit status `code`, one line of error (for a usage error: argparse's
    usage, then one line), no traceback, nothing on stdout."""
    status, out, err = result
    self.assertEqual(status, code, f'stdout: {out[:300]} stderr: {err[:300]}')
    self.assertNotIn('Traceback', err)
    self.assertEqual(out, '')
    lines = err.strip().splitlines()
    if code == 2 and lines and lines[0].startswith('usage:'):
      lines = [l for l in lines if not l.startswith(('usage:', ' '))]
    self.assertLen(lines, 1, err[:2000])
    self.assertLess(len(lines[0]), 600, err[:2000])
    for text in contains:
      self.assertIn(text, lines[0])

  def AssertFifoRefused(self, argv_before: list[str], argv_after=()):
    """`pkb-ext ARGV_BEFORE FIFO ARGV_AFTER` fails at once, naming the FIFO."""
    fifo = os.path.join(self.dir, 'fifo')
    os.mkfifo(fifo)
    proc = Cli(argv_before + [fifo] + list(argv_after), 60)
    self.AssertOneLineFailure(
        (proc.returncode, proc.stdout, proc.stderr),
        contains=(f'{fifo}: not a regular file',),
    )

  def AssertGivesUpAfterTheTimeout(self, argv: list[str]):
    """ARGV against a closed port with --timeout 3: a one-line error."""
    start = time.monotonic()
    proc = Cli(
        argv + ['--bigquery-endpoint', 'http://127.0.0.1:9', '--timeout', '3'],
        120,
    )
    self.AssertOneLineFailure(
        (proc.returncode, proc.stdout, proc.stderr),
        contains=('timeout 3 s',),
    )
    self.assertLess(time.monotonic() - start, 60)


def _SetValue(value):
  def Change(row):
    row['value'] = value

  return Change


def _Replace(field, raw):
  """Sets `field` to raw JSON text (NaN, a 400-digit number...)."""

  def Change(row):
    row[field] = '@@'
    return json.dumps(row).replace('"@@"', raw)

  return Change


class ReportTest(Case):

  @parameterized.parameters('NaN', 'Infinity', '-Infinity', '1e400', '9' * 400)
  def testValueThatCannotBeRightIsRefusedNotDropped(self, raw):
    path = self.Mutated(3, _Replace('value', raw))
    out = os.path.join(self.dir, 'out')
    self.AssertOneLineFailure(
        cli_run.Run(['report', '--samples', path, '--out', out]),
        contains=(f'{path}:4', 'value'),
    )
    self.assertFalse(os.path.exists(out))

  def testValueOf5000DigitsIsNotEchoedWhole(self):
    path = self.Mutated(3, _Replace('value', '9' * 5000))
    result = cli_run.Run(
        ['report', '--samples', path, '--out', self.dir + '/o']
    )
    self.AssertOneLineFailure(result, contains=(f'{path}:4: not JSON',))

  @parameterized.parameters(
      ('1e300', 'timestamp'),
      ('"yesterday"', 'timestamp'),
      ('[1]', 'metadata is a list'),
      ('"not json"', 'metadata is a string'),
  )
  def testTimestampsAndMetadataThatAreNotAreRefused(self, raw, message):
    field = 'metadata' if 'metadata' in message else 'timestamp'
    path = self.Mutated(3, _Replace(field, raw))
    self.AssertOneLineFailure(
        cli_run.Run(['report', '--samples', path, '--out', self.dir + '/o']),
        contains=(f'{path}:4', message),
    )

  def testDeeplyNestedLineIsRefused(self):
    lines = FixtureLines(CPU_LINES)
    lines[3] = '[' * 5000 + ']' * 5000
    path = self.Write('deep.ndjson', lines)
    self.AssertOneLineFailure(
        cli_run.Run(['report', '--samples', path, '--out', self.dir + '/o']),
        contains=(f'{path}:4', 'nested too deeply'),
    )

  def testNotUtf8NamesFileAndLine(self):
    path = os.path.join(self.dir, 'latin1.ndjson')
    with open(path, 'wb') as f:
      f.write(FIXTURE.read_bytes().split(b'\n', 1)[0] + b'\n\xff\xfe\n')
    self.AssertOneLineFailure(
        cli_run.Run(['report', '--samples', path, '--out', self.dir + '/o']),
        contains=(f'{path}:2: not UTF-8',),
    )

  def testEmptyInputNeverOverwritesAGoodReport(self):
    good = self.Write('good.ndjson', FixtureLines(CPU_LINES))
    out = os.path.join(self.dir, 'out')
    code, _, err = cli_run.Run(['report', '--samples', good, '--out', out])
    self.assertEqual(code, 0, err)
    before = {n: (pathlib.Path(out) / n).read_bytes() for n in os.listdir(out)}
    self.assertIn('report.html', before)
    empty = self.Write('empty.ndjson', [])
    for bad in (empty, '/dev/null'):
      with self.subTest(bad=bad):
        self.AssertOneLineFailure(
            cli_run.Run(['report', '--samples', bad, '--out', out]),
            contains=(bad,),
        )
        after = {
            n: (pathlib.Path(out) / n).read_bytes() for n in os.listdir(out)
        }
        self.assertEqual(after, before)
    self.assertEqual(
        [n for n in os.listdir(self.dir) if n.startswith('.out.')], []
    )

  def testANewReportLeavesNoOldChartBehind(self):
    out = os.path.join(self.dir, 'out')
    code, _, err = cli_run.Run(
        ['report', '--samples', self.Write('a.ndjson', FixtureLines(60)),
         '--out', out]
    )  # fmt: skip
    self.assertEqual(code, 0, err)
    charts = {n for n in os.listdir(out) if n.startswith('chart_')}
    code, _, err = cli_run.Run(
        ['report', '--samples', self.Write('b.ndjson', FixtureLines(CPU_LINES)),
         '--out', out]
    )  # fmt: skip
    self.assertEqual(code, 0, err)
    now = {n for n in os.listdir(out) if n.startswith('chart_')}
    self.assertLess(now, charts)  # the net charts are gone

  def testOutHoldingOtherFilesIsRefusedUntouched(self):
    good = self.Write('good.ndjson', FixtureLines(CPU_LINES))
    self.AssertOneLineFailure(
        cli_run.Run(['report', '--samples', good, '--out', self.dir]),
        contains=('good.ndjson', 'does not write'),
    )
    self.assertEqual(sorted(os.listdir(self.dir)), ['good.ndjson'])

  def testMixedReportVersionsAreRefused(self):
    lines = FixtureLines(CPU_LINES)
    row = json.loads(lines[0])
    row['metadata']['report_version'] = '2022'
    lines[0] = json.dumps(row)
    path = self.Write('mixed.ndjson', lines)
    self.AssertOneLineFailure(
        cli_run.Run(['report', '--samples', path, '--out', self.dir + '/o']),
        contains=('mixes report versions 2021, 2022',),
    )

  def testAnotherVersionIsNotLabelled2021(self):
    lines = []
    for line in FixtureLines(CPU_LINES):
      row = json.loads(line)
      row['metadata']['report_version'] = '2022'
      lines.append(json.dumps(row))
    out = os.path.join(self.dir, 'out')
    code, _, err = cli_run.Run(
        ['report', '--samples', self.Write('v.ndjson', lines), '--out', out]
    )
    self.assertEqual(code, 0, err)
    md = (pathlib.Path(out) / 'report.md').read_text(encoding='utf-8')
    self.assertIn('2022 Cloud Report', md)
    self.assertNotIn('2021 Cloud Report', md)

  def testSpoolDirectoryIsAccepted(self):
    spool_dir = os.path.join(self.dir, 'spool')
    os.mkdir(spool_dir)
    shutil.copy(FIXTURE, os.path.join(spool_dir, 'run.ndjson'))
    code, out, err = cli_run.Run(
        ['report', '--samples', spool_dir, '--print-sql', 'benchmarks']
    )
    self.assertEqual(code, 0, err)
    self.assertIn('SELECT', out)

  def testFifoIsRefusedWithoutHanging(self):
    self.AssertFifoRefused(['report', '--samples'], ['--out', self.dir + '/o'])

  def testUnreachableBigQueryGivesUpAfterTheTimeout(self):
    self.AssertGivesUpAfterTheTimeout(
        ['report', '--table', TABLE, '--out', self.dir + '/o']
    )


class CompareTest(Case):

  def _Side(self, name: str, lines=None) -> str:
    return self.Write(name, lines or FixtureLines())

  @parameterized.parameters(
      (['--min-change=nan'], 'must be a finite number'),
      (['--min-change=inf'], 'must be a finite number'),
      (['--min-change=-1'], '--min-change must be a number of % in 0..'),
      (['--alpha=nan'], 'must be a finite number'),
      (['--min-repetitions=1e20'], 'must be an integer'),
      ([f'--min-repetitions={10**20}'], '--min-repetitions must be in 2..'),
      (['--by='], '--by names no dimension'),
      (['--timeout=nan'], 'must be a finite number of seconds'),
  )
  def testNumericAndEmptyFlagsAreUsageErrors(self, flags, message):
    a = self._Side('a.ndjson', FixtureLines(CPU_LINES))
    self.AssertOneLineFailure(
        cli_run.Run(['compare', a, a] + flags), code=2, contains=(message,)
    )

  def testEmptyBaselineNameIsAUsageError(self):
    a = self._Side('a.ndjson', FixtureLines(CPU_LINES))
    self.AssertOneLineFailure(
        cli_run.Run(['compare', '--baseline=', a]),
        code=2,
        contains=('--baseline needs a NAME',),
    )

  def testAMissingFileIsNeverATable(self):
    a = self._Side('a.ndjson', FixtureLines(CPU_LINES))
    start = time.monotonic()
    self.AssertOneLineFailure(
        cli_run.Run(['compare', a, 'proj.dataset.table']),
        contains=(
            'proj.dataset.table: no such file or directory',
            'bq:proj.dataset.table',
        ),
    )
    self.assertLess(time.monotonic() - start, 30)

  @parameterized.parameters('NaN', 'Infinity', '1e400', '9' * 400)
  def testValueThatCannotBeRightIsRefused(self, raw):
    a = self._Side('a.ndjson')
    b = self.Mutated(3, _Replace('value', raw), count=None)
    self.AssertOneLineFailure(
        cli_run.Run(['compare', a, b]), contains=(f'{b}:4', 'value')
    )

  def testTimestampOf1e300IsRefused(self):
    a = self._Side('a.ndjson')
    b = self.Mutated(3, _Replace('timestamp', '1e300'), count=None)
    self.AssertOneLineFailure(
        cli_run.Run(['compare', a, b]), contains=(f'{b}:4', 'timestamp')
    )

  def testFifoIsRefusedWithoutHanging(self):
    a = self._Side('a.ndjson', FixtureLines(CPU_LINES))
    self.AssertFifoRefused(['compare', a])

  def testUnreachableBigQueryGivesUpAfterTheTimeout(self):
    self.AssertGivesUpAfterTheTimeout(
        ['compare', f'bq:{TABLE}', f'bq:{TABLE}2']
    )


def _SpoolLines(count: int = 3) -> list[str]:
  """Spool lines (rows) made from the fixture's samples."""
  rows = [schema.RowFromSample(json.loads(l)) for l in FixtureLines(count)]
  return [json.dumps(r, sort_keys=True) for r in rows]


class PublishDryRunTest(Case):

  def _Spool(self, change) -> str:
    lines = _SpoolLines()
    row = json.loads(lines[1])
    changed = change(row)
    lines[1] = changed if isinstance(changed, str) else json.dumps(row)
    return self.Write('spool.ndjson', lines)

  @parameterized.parameters(
      ('value', '"fast"', 'value is a string'),
      ('value', '9' * 400, 'not a finite FLOAT64'),
      ('timestamp', '"yesterday"', 'timestamp'),
      ('timestamp', '1e300', 'timestamp is a number'),
      ('schema_version', '99', 'schema_version 99 is not a schema version'),
      ('schema_version', '"1"', 'schema_version is a string'),
      ('metadata', '[1, 2]', 'metadata is a list'),
      ('official', '"yes"', 'official is a string'),
      ('run_uri', '7', 'run_uri is a number'),
  )
  def testRowsALoadJobWouldRefuseAreRefused(self, field, raw, message):
    path = self._Spool(_Replace(field, raw))
    self.AssertOneLineFailure(
        cli_run.Run(['publish', path, '--table', TABLE, '--dry-run']),
        contains=(f'{path}:2: ', message),
    )

  @parameterized.parameters(
      ('value', '"fast"', 'value is a string'),
      ('value', '9' * 400, 'beyond a FLOAT64'),
      ('timestamp', '"yesterday"', 'timestamp'),
      ('timestamp', '1e300', 'timestamp 1e+300 is not a time'),
  )
  def testSamplesThatNoRowCanHoldAreRefused(self, field, raw, message):
    lines = FixtureLines(3)
    row = json.loads(lines[1])
    lines[1] = _Replace(field, raw)(row)
    path = self.Write('pkb.ndjson', lines)
    self.AssertOneLineFailure(
        cli_run.Run(['publish', path, '--table', TABLE, '--dry-run']),
        contains=(f'{path}:2: ', message),
    )

  def testGoodRowsWouldPublish(self):
    path = self.Write('spool.ndjson', _SpoolLines())
    code, out, err = cli_run.Run(
        ['publish', path, '--table', TABLE, '--dry-run']
    )
    self.assertEqual(code, 0, err)
    self.assertIn('would publish 3 rows', out)

  def testSpoolDirectoryIsAccepted(self):
    directory = os.path.join(self.dir, 'spool')
    os.mkdir(directory)
    self.Write('spool/a.ndjson', _SpoolLines())
    code, out, err = cli_run.Run(
        ['publish', directory, '--table', TABLE, '--dry-run']
    )
    self.assertEqual(code, 0, err)
    self.assertIn('would publish 3 rows', out)

  def testFifoIsRefusedWithoutHanging(self):
    self.AssertFifoRefused(['publish'], ['--table', TABLE, '--dry-run'])

  def testNonNumericBatchSizeNamesTheFlag(self):
    path = self.Write('spool.ndjson', _SpoolLines())
    code, _, err = cli_run.Run(
        ['publish', path, '--table', TABLE, '--batch-size', 'abc']
    )
    self.assertEqual(code, 2)
    self.assertIn('argument --batch-size: must be an integer > 0', err)
    self.assertNotIn('Parse', err)


class UpstreamTest(Case):

  def testOutNamingAFileIsAOneLineError(self):
    path = self.Write('file', ['x'])
    self.AssertOneLineFailure(
        cli_run.Run(['upstream', '--out', path]),
        contains=(f'--out {path}: exists and is not a directory',),
    )

  def testCorruptArchiveIsAOneLineError(self):
    archive = os.path.join(self.dir, 'pkb.tar')
    with open(archive, 'wb') as f:
      f.write(b'\x1f\x8b' + b'corrupt' * 100)
    self.AssertOneLineFailure(
        cli_run.Run(
            ['upstream', '--out', self.dir + '/o', '--pkb-archive', archive]
        ),
        contains=(f'{archive}: not a readable tar',),
    )
    self.assertFalse(os.path.exists(self.dir + '/o'))

  def testTruncatedArchiveIsAOneLineError(self):
    archive = os.path.join(self.dir, 'pkb.tar')
    with tarfile.open(archive, 'w') as tar:
      tar.add(FIXTURE, arcname='perfkitbenchmarker/x')
    with open(archive, 'r+b') as f:
      f.truncate(700)
    self.AssertOneLineFailure(
        cli_run.Run(
            ['upstream', '--out', self.dir + '/o', '--pkb-archive', archive]
        ),
        contains=(archive,),
    )


class NoWarningTest(absltest.TestCase):
  """A clean run of a command prints no warning (PKB's imports' included)."""

  def testCleanRunsPrintNoWarning(self):
    cases = (
        ['list'],
        ['report', '--samples', str(FIXTURE), '--print-sql', 'benchmarks'],
        ['compare', str(FIXTURE), str(FIXTURE), '--print-sql',
         'compare_benchmarks'],
        ['parse', 'coremark', str(DATA / 'coremark' / 'single_core.txt')],
    )  # fmt: skip
    for argv in cases:
      with self.subTest(argv=argv):
        proc = Cli(argv)
        self.assertEqual(proc.returncode, 0, proc.stderr[-2000:])
        self.assertNotRegex(proc.stderr, r'(?i)warning|Redefining')

  def testLocalFlagsPrintsNoPintWarning(self):
    # Imports PKB's units (pint); exit 1 while no local cloud is up.
    proc = Cli(['local', 'flags'])
    self.assertIn(proc.returncode, (0, 1), proc.stderr[-2000:])
    self.assertNotRegex(proc.stderr, r'(?i)warning|Redefining')


class InputsTest(absltest.TestCase):

  def testShortenCutsLongValues(self):
    self.assertEqual(inputs.Shorten('abc'), "'abc'")
    text = inputs.Shorten('9' * 5000)
    self.assertLess(len(text), 100)
    self.assertIn('5002 characters', text)

  def testSampleFilesOfAMissingPath(self):
    with self.assertRaisesRegex(inputs.InputError, 'no such file'):
      inputs.SampleFiles('/nonexistent/x.ndjson')


if __name__ == '__main__':
  absltest.main()
