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
"""Tests for the CoreMark parser on real outputs (tests/data/coremark)."""

import contextlib
import io
import json
import pathlib
import re

from absl.testing import absltest
from absl.testing import parameterized
import perfkitbenchmarker

from pkb_ext import cli
from benchmarks.cloud_report.cpu import parser as coremark
from benchmarks.cloud_report.parsers import ParseError

DATA = pathlib.Path(__file__).resolve().parent.parent / 'data' / 'coremark'
PKB_SAMPLE = (
    pathlib.Path(perfkitbenchmarker.__file__).resolve().parent.parent
    / 'tests'
    / 'data'
    / 'coremark_sample_output.txt'
)
GOOD = (
    'single_core.txt',
    'all_core_pthread_2.txt',
    'single_core_short.txt',
    'all_core_pthread_2_short.txt',
    'all_core_fork_2_short.txt',
    'all_core_pthread_16_short.txt',
    'single_core_validation_short.txt',
)


def _Read(name: str) -> str:
  return (DATA / name).read_text()


def _Field(text: str, key: str) -> str:
  """The value of a 'key : value' line, read independently of the parser."""
  (value,) = re.findall(rf'^{re.escape(key)}\s*:\s*(.*?)\s*$', text, re.M)
  return value


class ParseRealOutputTest(parameterized.TestCase):

  @parameterized.parameters(*GOOD)
  def testFieldsMatchTheOutput(self, name):
    text = _Read(name)
    result = coremark.Parse(text)
    self.assertEqual(result.score_text, _Field(text, 'Iterations/Sec'))
    self.assertEqual(result.score, float(_Field(text, 'Iterations/Sec')))
    self.assertEqual(result.iterations, int(_Field(text, 'Iterations')))
    self.assertEqual(result.total_ticks, int(_Field(text, 'Total ticks')))
    self.assertEqual(
        result.total_time_sec, float(_Field(text, 'Total time (secs)'))
    )
    self.assertEqual(result.compiler_flags, _Field(text, 'Compiler flags'))
    self.assertEqual(result.compiler_version, 'GCC12.2.0')
    self.assertEqual(result.coremark_size, 666)
    self.assertEqual(result.seedcrc, _Field(text, 'seedcrc'))
    self.assertLen(result.crcfinal, result.threads)
    self.assertEqual(result.iterations_per_thread * result.threads,
                     result.iterations)  # fmt: skip

  def testSingleCore(self):
    result = coremark.Parse(_Read('single_core.txt'))
    self.assertEqual(result.threads, 1)
    self.assertIsNone(result.parallelism)
    self.assertEqual(result.run_type, '2K performance')
    self.assertTrue(result.validated)
    self.assertTrue(result.valid_for_reporting)
    self.assertEqual(result.invalid_reasons, ())
    self.assertEqual(result.crcfinal, ('0xcc42',))
    self.assertEqual(result.compiler_flags, '-O2   -lrt')
    # The continuation line of the port's default text is joined.
    self.assertEqual(
        result.memory_location,
        'Please put data memory location here (e.g. code in flash, data on'
        ' heap etc)',
    )
    self.assertStartsWith(result.summary_line, 'CoreMark 1.0 : 10946.508064 /')

  def testAllCorePthreads(self):
    result = coremark.Parse(_Read('all_core_pthread_2.txt'))
    self.assertEqual((result.threads, result.parallelism), (2, 'pthread'))
    self.assertEqual(result.iterations_per_thread, result.iterations // 2)
    self.assertIn('-DMULTITHREAD=2 -DUSE_PTHREAD', result.compiler_flags)
    self.assertIn('-lpthread', result.compiler_flags)
    self.assertTrue(result.valid_for_reporting)

  def testForkMethodIsRecognized(self):
    result = coremark.Parse(_Read('all_core_fork_2_short.txt'))
    self.assertEqual((result.threads, result.parallelism), (2, 'fork'))

  def testPkbsSocketSample(self):
    result = coremark.Parse(PKB_SAMPLE.read_text())
    self.assertEqual((result.threads, result.parallelism), (8, 'socket'))
    self.assertEqual(result.score_text, '160665.153736')
    self.assertEqual(result.iterations, 8000000)
    self.assertTrue(result.valid_for_reporting)

  @parameterized.parameters(
      'single_core_short.txt',
      'all_core_pthread_2_short.txt',
      'all_core_fork_2_short.txt',
  )
  def testShortRunIsKeptButNotReportable(self, name):
    text = _Read(name)
    self.assertIn('Errors detected', text)  # CoreMark's own verdict
    result = coremark.Parse(text)
    self.assertFalse(result.validated)
    self.assertFalse(result.valid_for_reporting)
    (reason,) = result.invalid_reasons
    self.assertRegex(reason, r'^total time [\d.]+ s < 10 s \(EEMBC run rule\)$')

  def testValidationSeedsAreNotReportable(self):
    result = coremark.Parse(_Read('single_core_validation_short.txt'))
    self.assertEqual(result.run_type, '2K validation')
    self.assertLen(result.invalid_reasons, 2)
    self.assertIn('not the 2K performance run', result.invalid_reasons[1])

  def testCrLfLineEndings(self):
    text = _Read('single_core.txt')
    result = coremark.Parse(text.replace('\n', '\r\n'))
    self.assertEqual(result.score_text, '10946.508064')


def _Replace(name, old, new):
  text = _Read(name)
  assert old in text, (name, old)
  return text.replace(old, new)


class RejectTest(parameterized.TestCase):

  @parameterized.named_parameters(
      ('empty', '', 'empty CoreMark output'),
      ('blank', ' \n\n\t\n', 'empty CoreMark output'),
      ('not_coremark', 'Segmentation fault (core dumped)\n', 'no "Iterations'),
      (
          'unknown_seeds_real',
          _Read('bad_unknown_seeds_short.txt'),
          'seeds are not a known CoreMark set',
      ),
      (
          'not_validated',
          _Replace(
              'single_core.txt', 'Correct operation validated', 'Invalid run'
          ),
          'no "Correct operation validated" line',
      ),
      (
          'crc_error',
          _Replace(
              'single_core.txt',
              'Correct operation validated. See readme.txt for run and'
              ' reporting rules.',
              '[0]ERROR! list crc 0xe714 - should be 0x1234\nErrors detected',
          ),
          'CRC check failed: \\[0\\]ERROR! list crc',
      ),
      (
          'garbled_score',
          _Replace('single_core.txt', '10946.508064\n', '10946.5O8064\n'),
          'garbled "Iterations/Sec" value',
      ),
      (
          'score_disagrees',
          _Replace('single_core.txt', ': 300000', ': 310000'),
          'Iterations/Sec 10946.508064 != Iterations 310000',
      ),
      (
          'summary_disagrees',
          _Replace(
              'single_core.txt',
              'CoreMark 1.0 : 10946.508064',
              'CoreMark 1.0 : 10946.508065',
          ),
          'disagrees with Iterations/Sec',
      ),
      (
          'concatenated',
          _Read('single_core.txt') + _Read('single_core.txt'),
          'appears twice: concatenated',
      ),
      (
          'missing_context_crc',
          _Replace('all_core_pthread_2.txt', '[1]crcfinal      : 0x33ff\n', ''),
          r'expected \[0\]..\[1\]crcfinal lines for 2 context',
      ),
      (
          'garbled_thread_count',
          _Replace('all_core_pthread_2.txt', 'PThreads : 2', 'PThreads : two'),
          'garbled "Parallel PThreads : two" line',
      ),
      (
          'short_run_without_rule_line',
          _Replace(
              'single_core_short.txt',
              'ERROR! Must execute for at least 10 secs for a valid result!\n',
              '',
          ),
          'disagrees with the presence of',
      ),
      (
          'short_run_other_error',
          _Replace(
              'single_core_short.txt',
              'Errors detected',
              'ERROR! ee_u32 is not a 32b datatype!\nErrors detected',
          ),
          'CoreMark reported errors: ERROR! ee_u32',
      ),
      (
          'validated_and_errors',
          _Replace(
              'single_core.txt',
              'CoreMark 1.0 :',
              'Errors detected\nCoreMark 1.0 :',
          ),
          'both "Correct operation validated" and "Errors detected"',
      ),
  )
  def testRejected(self, text, message):
    with self.assertRaisesRegex(ParseError, message):
      coremark.Parse(text)

  @parameterized.parameters('single_core.txt', 'all_core_pthread_2.txt')
  def testEveryTruncationBeforeTheVerdictIsRejected(self, name):
    lines = _Read(name).splitlines(keepends=True)
    verdict = next(
        i for i, l in enumerate(lines) if l.startswith('Correct operation')
    )
    for cut in range(verdict):
      with self.subTest(lines_kept=cut):
        with self.assertRaises(ParseError):
          coremark.Parse(''.join(lines[:cut]))
    # Cut mid-line through the score: also rejected.
    text = ''.join(lines)
    with self.assertRaises(ParseError):
      coremark.Parse(text[: text.index('Iterations/Sec') + 22])

  def testOutputAfterTheVerdictIsOptional(self):
    lines = _Read('single_core.txt').splitlines(keepends=True)
    result = coremark.Parse(''.join(lines[:-1]))  # no "CoreMark 1.0 :" line
    self.assertIsNone(result.summary_line)
    self.assertTrue(result.valid_for_reporting)


class CliTest(parameterized.TestCase):
  """`pkb-ext parse coremark FILE` prints the score the output shows."""

  def _Main(self, argv):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
      rc = cli.main(argv)
    return rc, out.getvalue(), err.getvalue()

  @parameterized.parameters(
      ('single_core.txt', 'single', 1), ('all_core_pthread_2.txt', 'all', 2)
  )
  def testPrintsTheExactScore(self, name, mode, threads):
    printed = _Field(_Read(name), 'Iterations/Sec')
    rc, out, err = self._Main(['parse', 'coremark', str(DATA / name)])
    self.assertEqual(rc, 0, err)
    (line,) = out.splitlines()
    row = json.loads(line)
    self.assertEqual(row['metric'], 'coremark_score')
    self.assertEqual(row['unit'], 'iterations/sec')
    self.assertEqual(row['value'], float(printed))
    self.assertEqual(repr(row['value']), printed)  # same digits as printed
    self.assertEqual(row['metadata']['score_text'], printed)
    self.assertEqual(row['metadata']['mode'], mode)
    self.assertEqual(row['metadata']['threads'], threads)
    self.assertEqual(row['metadata']['phase'], 'cpu')
    self.assertTrue(row['metadata']['valid_for_reporting'])

  def testRejectedOutputExitsOneWithTheReason(self):
    path = str(DATA / 'bad_unknown_seeds_short.txt')
    rc, out, err = self._Main(['parse', 'coremark', path])
    self.assertEqual(rc, 1)
    self.assertEqual(out, '')
    self.assertIn(path, err)
    self.assertIn('seeds are not a known CoreMark set', err)


if __name__ == '__main__':
  absltest.main()
