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
"""Tests for the cpu phase's parse (PKB's parser) on real outputs.

tests/data/coremark holds real CoreMark outputs; each expected value is read
from the output independently of the parser.
"""

import contextlib
import io
import json
import pathlib
import re

from absl.testing import absltest
from absl.testing import parameterized
import perfkitbenchmarker

from benchmarks.cloud_report.parsers import ParseError
from pkb_ext import cli
from pkb_ext.suite.cpu import parser as coremark

DATA = pathlib.Path(__file__).resolve().parent.parent / 'data' / 'coremark'
PKB_SAMPLE = (
    pathlib.Path(perfkitbenchmarker.__file__).resolve().parent.parent
    / 'tests'
    / 'data'
    / 'coremark_sample_output.txt'
)
VALIDATED = ('single_core.txt', 'all_core_pthread_2.txt')
SHORT = (
    'single_core_short.txt',
    'all_core_pthread_2_short.txt',
    'all_core_fork_2_short.txt',
    'all_core_pthread_16_short.txt',
)


def _Read(name: str) -> str:
  return (DATA / name).read_text()


def _Field(text: str, key: str) -> str:
  """The value of a 'key : value' line, read independently of the parser."""
  (value,) = re.findall(rf'^{re.escape(key)}\s*:\s*(.*?)\s*$', text, re.M)
  return value


class ParseRealOutputTest(parameterized.TestCase):

  @parameterized.parameters(*VALIDATED)
  def testValidatedRunIsPkbsScore(self, name):
    text = _Read(name)
    result = coremark.Parse(text)
    summary = text.strip().splitlines()[-1]
    self.assertEqual(result.score, float(summary.split()[3]))
    self.assertEqual(result.metadata['summary'], summary)
    self.assertEqual(
        result.metadata['iterations'], int(_Field(text, 'Iterations'))
    )
    self.assertTrue(result.valid_for_reporting)

  def testPkbsSocketSample(self):
    result = coremark.Parse(PKB_SAMPLE.read_text())
    self.assertEqual((result.threads, result.parallelism), (8, 'socket'))
    self.assertEqual(result.score, 160665.153736)
    self.assertEqual(result.metadata['iterations'], 8000000)

  @parameterized.parameters(*SHORT)
  def testShortRunIsKeptButNotReportable(self, name):
    text = _Read(name)
    result = coremark.Parse(text)
    self.assertEqual(result.score, float(_Field(text, 'Iterations/Sec')))
    self.assertFalse(result.valid_for_reporting)
    self.assertIn('< 10 s (EEMBC run rule)', result.invalid_reason)

  @parameterized.parameters(*SHORT)
  def testShortRunHasTheKeysOfAValidatedRun(self, name):
    text = _Read(name)
    result = coremark.Parse(text)
    validated = coremark.Parse(_Read('single_core.txt'))
    self.assertEqual(sorted(result.metadata), sorted(validated.metadata))
    self.assertEqual(
        result.metadata['size'], int(_Field(text, 'CoreMark Size'))
    )
    self.assertEqual(
        result.metadata['total_ticks'], int(_Field(text, 'Total ticks'))
    )
    self.assertEqual(result.metadata['thread_count'], result.threads)

  def testForkMethodIsRecognized(self):
    result = coremark.Parse(_Read('all_core_fork_2_short.txt'))
    self.assertEqual((result.threads, result.parallelism), (2, 'fork'))

  def testValidationSeedsAreRejected(self):
    with self.assertRaises(ParseError):
      coremark.Parse(_Read('single_core_validation_short.txt'))

  def testCrcErrorOfAShortRunIsRejected(self):
    text = _Read('single_core_short.txt').replace(
        '[0]crcfinal',
        '[0]ERROR! list crc 0x0000 - should be 0xe714\n[0]crcfinal',
    )
    with self.assertRaises(ParseError):
      coremark.Parse(text)

  @parameterized.parameters('', '   \n')
  def testEmptyIsRejected(self, text):
    with self.assertRaisesRegex(ParseError, 'empty CoreMark output'):
      coremark.Parse(text)

  @parameterized.parameters(*VALIDATED)
  def testEveryTruncationIsRejected(self, name):
    lines = _Read(name).splitlines(keepends=True)
    for cut in range(len(lines)):
      with self.subTest(lines_kept=cut):
        with self.assertRaises(ParseError):
          coremark.Parse(''.join(lines[:cut]))

  def testTheMissingLineIsNamed(self):
    lines = _Read('single_core.txt').splitlines(keepends=True)
    with self.assertRaisesRegex(
        ParseError, r"^CoreMark output has no 'CoreMark 1.0 :' line"
    ):
      coremark.Parse(''.join(lines[:-1]))


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
  def testPrintsTheScore(self, name, mode, threads):
    printed = _Field(_Read(name), 'Iterations/Sec')
    rc, out, err = self._Main(['parse', 'coremark', str(DATA / name)])
    self.assertEqual(rc, 0, err)
    (line,) = out.splitlines()
    row = json.loads(line)
    self.assertEqual(row['metric'], 'coremark_score')
    self.assertEqual(row['unit'], 'iterations/sec')
    self.assertEqual(row['value'], float(printed))
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
    self.assertIn("no 'CoreMark 1.0 :' line", err)


if __name__ == '__main__':
  absltest.main()
