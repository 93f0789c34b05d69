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
"""Tests for the netperf parser on real outputs (tests/data/netperf)."""

import contextlib
import csv
import io
import json
import pathlib

from absl.testing import absltest
from absl.testing import parameterized

from pkb_ext import cli
from benchmarks.cloud_report.net import parser as netperf
from benchmarks.cloud_report.net import parser_styles as netperf_styles
from benchmarks.cloud_report.net import stages as net
from benchmarks.cloud_report.parsers import ParseError

DATA = pathlib.Path(__file__).resolve().parent.parent / 'data' / 'netperf'
KEYVAL = (
    'tcp_rr_keyval.txt',
    'tcp_rr_keyval_confidence.txt',
    'tcp_rr_keyval_confidence_met.txt',
    'tcp_stream_keyval.txt',
    'tcp_stream_keyval_confidence.txt',
)
CSV = ('tcp_rr_csv_confidence.txt', 'tcp_stream_csv_confidence.txt')
HUMAN = (
    'tcp_rr_human.txt',
    'tcp_rr_human_confidence.txt',
    'tcp_stream_human.txt',
)
CLASSIC = ('tcp_rr_classic.txt', 'tcp_stream_classic_warning.txt')
GOOD = KEYVAL + CSV + HUMAN + CLASSIC


def _Read(name: str) -> str:
  return (DATA / name).read_text()


def _Lines(name: str) -> list[str]:
  return _Read(name).splitlines(keepends=True)


def _KeyvalFields(text: str) -> dict[str, str]:
  """KEY=value lines, read independently of the parser."""
  return dict(line.split('=', 1) for line in text.splitlines() if '=' in line)


class RealOutputTest(parameterized.TestCase):

  def testEveryCapturedGoodFileIsCovered(self):
    captured = {p.name for p in DATA.glob('*.txt')}
    good = {n for n in captured if not n.startswith('bad_')}
    self.assertEqual(good, set(GOOD))

  @parameterized.parameters(*KEYVAL)
  def testKeyvalFieldsMatchTheOutput(self, name):
    text = _Read(name)
    result = netperf.Parse(text)
    self.assertEqual(result.style, 'keyval')
    self.assertEqual(dict(result.fields), _KeyvalFields(text))
    fields = _KeyvalFields(text)
    self.assertEqual(result.throughput, float(fields['THROUGHPUT']))
    self.assertEqual(result.elapsed_s, float(fields['ELAPSED_TIME']))
    if 'TRANSACTION_RATE' in fields:
      self.assertEqual(
          result.transaction_rate, float(fields['TRANSACTION_RATE'])
      )
      self.assertEqual(result.latency_us.p90, float(fields['P90_LATENCY']))
      self.assertEqual(result.latency_us.p50, float(fields['P50_LATENCY']))
      self.assertEqual(
          result.latency_us.stddev, float(fields['STDDEV_LATENCY'])
      )

  @parameterized.parameters(*CSV)
  def testCsvFieldsMatchTheCsvModule(self, name):
    _, titles, values = _Read(name).splitlines()
    expected = dict(zip(next(csv.reader([titles])), next(csv.reader([values]))))
    result = netperf.Parse(_Read(name))
    self.assertEqual(result.style, 'csv')
    self.assertEqual(
        dict(result.fields),
        {netperf_styles.TITLES[t]: v for t, v in expected.items()},
    )

  @parameterized.parameters(*GOOD)
  def testTestNameFromTheBanner(self, name):
    expected = 'TCP_RR' if name.startswith('tcp_rr') else 'TCP_STREAM'
    self.assertEqual(netperf.Parse(_Read(name)).test, expected)

  @parameterized.parameters(*KEYVAL, *CSV)
  def testPhaseSelectorsAreAllThere(self, name):
    test = 'TCP_RR' if name.startswith('tcp_rr') else 'TCP_STREAM'
    result = netperf.Parse(_Read(name), required=net.SELECTORS[test])
    self.assertLen(result.fields, len(net.SELECTORS[test]))

  def testHumanReportStyle(self):
    result = netperf.Parse(_Read('tcp_rr_human.txt'))
    self.assertEqual(result.style, 'human')
    self.assertEqual(
        result.latency_us,
        netperf.Latency(
            min=13, mean=17.74, p50=17, p90=18, p99=58, max=5047, stddev=29.75
        ),
    )
    self.assertEqual(result.transaction_rate, 56218.227)
    self.assertIsNone(result.throughput)
    self.assertIsNone(result.confidence)
    self.assertEqual(result.warnings, ())

  def testHumanConfidenceOnlyFromTheBanner(self):
    result = netperf.Parse(_Read('tcp_rr_human_confidence.txt'))
    self.assertEqual(result.transaction_rate, 54321.993)
    self.assertEqual(
        result.confidence,
        netperf.Confidence(
            level_pct=99,
            width_target_pct=5.0,
            width_pct=None,
            iterations=None,
            met=None,  # -O without confidence columns: netperf does not say
        ),
    )

  def testHumanStream(self):
    result = netperf.Parse(_Read('tcp_stream_human.txt'))
    self.assertEqual(result.style, 'human')
    self.assertEqual(result.throughput_units, '10^6bits/s')
    self.assertEqual(result.throughput_mbps, 11407.21)
    self.assertIsNone(result.transaction_rate)
    self.assertIsNone(result.latency_us)
    self.assertEqual(result.Field('CONFIDENCE_INTERVAL'), '-1.000000')
    self.assertIsNone(result.confidence)

  def testConfidenceNotMet(self):
    result = netperf.Parse(_Read('tcp_rr_keyval_confidence.txt'))
    self.assertEqual(
        result.confidence,
        netperf.Confidence(99, 5.0, 199.428, 3, False),
    )
    # THROUGHPUT is the mean over the iterations, TRANSACTION_RATE the last.
    self.assertEqual(result.transaction_rate, 54698.659)
    self.assertEqual(result.throughput, 52896.83)
    self.assertIsNone(result.throughput_mbps)

  def testConfidenceMet(self):
    result = netperf.Parse(_Read('tcp_rr_keyval_confidence_met.txt'))
    self.assertEqual(
        result.confidence, netperf.Confidence(95, 50.0, 38.646, 3, True)
    )

  def testCsvConfidence(self):
    result = netperf.Parse(_Read('tcp_stream_csv_confidence.txt'))
    self.assertEqual(result.throughput_mbps, 7064.50)
    self.assertEqual(
        result.confidence, netperf.Confidence(99, 5.0, 348.157, 3, False)
    )

  def testClassicRr(self):
    result = netperf.Parse(_Read('tcp_rr_classic.txt'))
    self.assertEqual(result.style, 'classic')
    self.assertEqual(result.transaction_rate, 60625.02)
    self.assertEqual(result.elapsed_s, 3.0)
    self.assertEqual(result.Field('RSR_SIZE_END'), '131072')
    self.assertIsNone(result.latency_us)
    self.assertIsNone(result.confidence)

  def testNetperfsOwnWarning(self):
    result = netperf.Parse(_Read('tcp_stream_classic_warning.txt'))
    self.assertEqual(result.throughput_mbps, 13762.50)
    self.assertLen(result.warnings, 1)
    self.assertStartsWith(
        result.warnings[0],
        'WARNING: Desired confidence was not achieved within the specified'
        ' iterations.',
    )
    self.assertIn(
        'Confidence intervals: Throughput : 98.008%', result.warnings[0]
    )
    self.assertEqual(
        result.confidence, netperf.Confidence(99, 1.0, 98.008, None, False)
    )

  def testWithoutBannerTheTestComesFromTheFields(self):
    text = ''.join(_Lines('tcp_rr_keyval.txt')[1:])
    self.assertEqual(netperf.Parse(text).test, 'TCP_RR')
    text = ''.join(_Lines('tcp_stream_keyval.txt')[1:])
    self.assertEqual(netperf.Parse(text).test, 'TCP_STREAM')
    text = ''.join(_Lines('tcp_rr_human.txt')[1:])
    self.assertEqual(netperf.Parse(text).test, 'unknown')

  @parameterized.parameters(
      ('10^9bits/s', 6.16, 6160.0),
      ('10^3bits/s', 4174234.92, 4174.23492),
      ('MBytes/s', 1291.01, 1291.01 * 1048576 * 8 / 1e6),
      ('GBytes/s', 1.06, 1.06 * 1073741824 * 8 / 1e6),
      ('KBytes/s', 899993.36, 899993.36 * 1024 * 8 / 1e6),
  )
  def testThroughputUnits(self, units, value, mbps):
    text = (
        _Read('tcp_stream_keyval.txt')
        .replace('THROUGHPUT=6879.84', f'THROUGHPUT={value}')
        .replace('10^6bits/s', units)
    )
    self.assertAlmostEqual(netperf.Parse(text).throughput_mbps, mbps)


class BadInputTest(parameterized.TestCase):

  @parameterized.named_parameters(
      ('connection_refused', 'bad_connection_refused.txt',
       'netperf failed: establish control: are you sure'),
      ('unknown_selector', 'bad_unknown_selector.txt',
       "netperf failed: Could not open output selection file"),
      ('killed_midrun', 'bad_killed_midrun.txt', 'empty netperf output'),
  )  # fmt: skip
  def testRealFailures(self, name, message):
    with self.assertRaisesRegex(ParseError, message):
      netperf.Parse(_Read(name))

  @parameterized.named_parameters(
      ('empty', '', 'empty'),
      ('blank', ' \n\n  \n', 'empty'),
      ('garbage', 'hello world\n', 'title rows and a value row'),
      ('binary', '\x00\x01\x7f\xfe garbage \x03', 'title rows and a value'),
      ('html', '<html><body>502 Bad Gateway</body></html>\n', 'value row'),
      ('nan', 'THROUGHPUT=nan\nTHROUGHPUT_UNITS=10^6bits/s\n', 'not finite'),
      ('not_a_number', 'MEAN_LATENCY=abc\n', 'MEAN_LATENCY is not a number'),
      ('no_result', 'PROTOCOL=TCP\nDIRECTION=Send\n', 'no result'),
      ('duplicate', 'THROUGHPUT=1\nTHROUGHPUT=2\nTHROUGHPUT_UNITS=Trans/s\n',
       'appears twice'),
      ('no_units', 'THROUGHPUT=1.5\n', 'THROUGHPUT without THROUGHPUT_UNITS'),
      ('timeout', 'recv_response_timed: no response received. errno 0\n',
       'netperf failed: recv_response_timed'),
  )  # fmt: skip
  def testSynthetic(self, text, message):
    with self.assertRaisesRegex(ParseError, message):
      netperf.Parse(text)

  def testBannerOnly(self):
    with self.assertRaisesRegex(ParseError, 'no results after the banner'):
      netperf.Parse(_Lines('tcp_rr_keyval.txt')[0])

  def testUnknownUnits(self):
    text = _Read('tcp_stream_keyval.txt').replace('10^6bits/s', 'furlongs/s')
    with self.assertRaisesRegex(ParseError, "unknown THROUGHPUT_UNITS 'furl"):
      netperf.Parse(text)

  def testStrayLineInKeyval(self):
    lines = _Lines('tcp_rr_keyval.txt')
    lines.insert(4, 'something else\n')
    with self.assertRaisesRegex(ParseError, 'not a KEY=value line'):
      netperf.Parse(''.join(lines))

  def testEmptyKeyvalValue(self):
    text = _Read('tcp_rr_keyval.txt').replace('P90_LATENCY=29', 'P90_LATENCY=')
    with self.assertRaisesRegex(ParseError, 'P90_LATENCY has no value'):
      netperf.Parse(text)

  @parameterized.parameters(*KEYVAL)
  def testKeyvalCutAtAnyLineIsCaughtWithRequired(self, name):
    test = 'TCP_RR' if name.startswith('tcp_rr') else 'TCP_STREAM'
    lines = _Lines(name)
    for n in range(len(lines)):
      with self.subTest(lines=n), self.assertRaises(ParseError):
        netperf.Parse(''.join(lines[:n]), required=net.SELECTORS[test])

  @parameterized.parameters(*CSV, *HUMAN, *CLASSIC)
  def testCutAtAnyLine(self, name):
    lines = _Lines(name)
    for n in range(len(lines)):
      if not ''.join(lines[n:]).strip():
        continue  # only blank lines were cut
      with self.subTest(lines=n), self.assertRaises(ParseError):
        netperf.Parse(''.join(lines[:n]))

  def testHumanValueRowCutShort(self):
    lines = _Lines('tcp_rr_human.txt')
    lines[-1] = lines[-1][:40] + '\n'  # 3 values and a digit of the 4th
    with self.assertRaisesRegex(ParseError, 'P99_LATENCY has no value'):
      netperf.Parse(''.join(lines))

  def testCsvValueRowCutShort(self):
    lines = _Lines('tcp_rr_csv_confidence.txt')
    lines[-1] = lines[-1][:30] + '\n'
    with self.assertRaisesRegex(ParseError, '21 titles but 7 values'):
      netperf.Parse(''.join(lines))

  def testRequiredSelectorMissing(self):
    with self.assertRaisesRegex(ParseError, 'MIN_LATENCY missing'):
      netperf.Parse(
          _Read('tcp_stream_keyval.txt'), required=net.SELECTORS['TCP_RR']
      )


class CliTest(absltest.TestCase):

  def _Main(self, argv):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
      rc = cli.main(argv)
    return rc, out.getvalue(), err.getvalue()

  def testParseRr(self):
    rc, out, err = self._Main(
        ['parse', 'netperf', str(DATA / 'tcp_rr_human.txt')]
    )
    self.assertEqual(rc, 0, err)
    rows = [json.loads(line) for line in out.splitlines()]
    values = {r['metric']: (r['value'], r['unit']) for r in rows}
    self.assertEqual(values['netperf_latency_p99'], (58.0, 'us'))
    self.assertEqual(
        values['netperf_transaction_rate'], (56218.227, 'transactions/s')
    )
    self.assertLen(rows, 8)
    self.assertTrue(all(r['metadata']['phase'] == 'net' for r in rows))
    self.assertTrue(
        all(r['metadata']['netperf_test'] == 'TCP_RR' for r in rows)
    )

  def testParseStreamWithWarning(self):
    rc, out, _ = self._Main(
        ['parse', 'netperf', str(DATA / 'tcp_stream_classic_warning.txt')]
    )
    self.assertEqual(rc, 0)
    (row,) = [json.loads(line) for line in out.splitlines()]
    self.assertEqual(
        (row['metric'], row['value'], row['unit']),
        ('netperf_throughput', 13762.5, 'Mbit/s'),
    )
    self.assertIs(row['metadata']['confidence_met'], False)
    self.assertLen(row['metadata']['netperf_warnings'], 1)

  def testParseFailureExitsOne(self):
    path = str(DATA / 'bad_connection_refused.txt')
    rc, out, err = self._Main(['parse', 'netperf', path])
    self.assertEqual(rc, 1)
    self.assertEqual(out, '')
    self.assertIn(f'{path}: netperf failed: establish control', err)


if __name__ == '__main__':
  absltest.main()
