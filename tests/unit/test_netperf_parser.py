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
"""Tests for the net phase's netperf parser on real -o outputs."""

import contextlib
import csv
import io
import json
import pathlib

from absl import flags
from absl.testing import absltest
from absl.testing import parameterized
from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st
from perfkitbenchmarker.linux_benchmarks import netperf_benchmark

from benchmarks.cloud_report.parsers import ParseError
from pkb_ext import cli
from pkb_ext.suite.net import parser as netperf
from pkb_ext.suite.net import stages as net

DATA = pathlib.Path(__file__).resolve().parent.parent / 'data' / 'netperf'
# The phase's runs: its selectors in -o output.
PHASE = ('tcp_rr_csv.txt', 'tcp_rr_csv_phase.txt', 'tcp_stream_csv.txt')
GOOD = PHASE + ('tcp_stream_csv_confidence.txt',)


def _Read(name: str) -> str:
  return (DATA / name).read_text()


def _Lines(name: str) -> list[str]:
  return _Read(name).splitlines(keepends=True)


def _CsvFields(text: str) -> dict[str, str]:
  """The -o columns by title, read with the csv module alone."""
  titles, values = csv.reader(text.splitlines()[1:3])
  return dict(zip(titles, values))


def setUpModule():
  if not flags.FLAGS.is_parsed():
    flags.FLAGS.mark_as_parsed()


class RealOutputTest(parameterized.TestCase):

  @parameterized.parameters(*GOOD)
  def testFieldsMatchTheCsvModule(self, name):
    expected = _CsvFields(_Read(name))
    result = netperf.Parse(_Read(name))
    self.assertEqual(result.style, 'csv')
    self.assertEqual(
        dict(result.fields),
        {netperf.TITLES[t]: v for t, v in expected.items()},
    )
    self.assertEqual(result.elapsed_s, float(expected['Elapsed Time (sec)']))

  @parameterized.parameters(*GOOD)
  def testValuesArePkbsParsers(self, name):
    text = _Read(name)
    result = netperf.Parse(text)
    test = result.test
    throughput, latencies, _ = netperf_benchmark.ParseNetperfOutput(
        text, {}, test, False
    )
    self.assertEqual(result.throughput, throughput.value)
    for s in latencies:
      stat = s.metric.rsplit('_', 1)[1]
      self.assertEqual(getattr(result.latency_us, stat), s.value)

  @parameterized.parameters(*PHASE)
  def testPhaseSelectorsAreAllThere(self, name):
    test = 'TCP_RR' if name.startswith('tcp_rr') else 'TCP_STREAM'
    result = netperf.Parse(_Read(name), required=net.RequiredSelectors(test))
    self.assertEqual(result.test, test)

  def testRequestResponse(self):
    result = netperf.Parse(_Read('tcp_rr_csv_phase.txt'))
    self.assertEqual(result.test, 'TCP_RR')
    self.assertEqual(result.latency_us.mean, 20.83)  # not in PKB's samples
    self.assertEqual(result.latency_us.p99, 18.0)
    # TRANSACTION_RATE (the last iteration), not THROUGHPUT (their mean).
    self.assertEqual(result.transaction_rate, 47776.040)
    self.assertEqual(result.throughput, 47905.29)
    self.assertIsNone(result.throughput_mbps)
    self.assertEqual(
        result.confidence,
        netperf.Confidence(
            level_pct=99.0,
            width_target_pct=5.0,
            width_pct=7.4,
            iterations=3,
            met=False,
        ),
    )

  def testNoConfidenceRequested(self):
    result = netperf.Parse(_Read('tcp_stream_csv.txt'))
    self.assertIsNone(result.confidence)
    self.assertEqual(result.throughput_mbps, 12118.34)
    self.assertIsNone(result.latency_us)
    self.assertIsNone(result.transaction_rate)

  def testConfidenceMet(self):
    text = _Read('tcp_rr_csv_phase.txt').replace(',7.400,', ',4.900,')
    self.assertIs(netperf.Parse(text).confidence.met, True)

  def testTimerDiagnosticIsAWarning(self):
    lines = _Lines('tcp_rr_csv.txt')
    lines.insert(1, 'catcher: timer popped with times_up != 0\n')
    result = netperf.Parse(''.join(lines))
    self.assertEqual(
        result.warnings, ('catcher: timer popped with times_up != 0',)
    )

  @settings(max_examples=40, deadline=None)
  @given(st.floats(0, 1e9, allow_nan=False), st.floats(0, 1e6, allow_nan=False))
  def testAnyThroughputAndElapsedRoundTrip(self, value, elapsed):
    text = _Read('tcp_stream_csv.txt').replace(
        ',12118.34,10^6bits/s,3.00,', f',{value!r},10^6bits/s,{elapsed!r},'
    )
    result = netperf.Parse(text)
    self.assertEqual(result.throughput_mbps, value)
    self.assertEqual(result.elapsed_s, elapsed)


class BadInputTest(parameterized.TestCase):

  @parameterized.named_parameters(
      ('connection_refused', 'bad_connection_refused.txt',
       'netperf failed: establish control: are you sure'),
      ('unknown_selector', 'bad_unknown_selector.txt',
       'netperf failed: Could not open output selection file'),
      ('killed_midrun', 'bad_killed_midrun.txt', 'empty netperf output'),
      # The phase's -o output before it asked for TRANSPORT_MSS in TCP_RR:
      # PKB's parser reads that column for every TCP test.
      ('pkb_needs_mss', 'tcp_rr_csv_confidence.txt',
       "PKB's netperf parser refused the output: 'Transport MSS bytes'"),
  )  # fmt: skip
  def testRealFailures(self, name, message):
    with self.assertRaisesRegex(ParseError, message):
      netperf.Parse(_Read(name))

  @parameterized.named_parameters(
      ('empty', '', 'empty'),
      ('blank', ' \n\n  \n', 'empty'),
      ('garbage', 'hello world\n', 'no netperf test banner'),
      ('binary', '\x00\x01\x7f\xfe garbage \x03', 'no netperf test banner'),
      ('html', '<html><body>502 Bad Gateway</body></html>\n', 'banner'),
      ('keyval', 'THROUGHPUT=1\nTHROUGHPUT_UNITS=Trans/s\n', 'banner'),
      ('timeout', 'recv_response_timed: no response received. errno 0\n',
       'netperf failed: recv_response_timed'),
  )  # fmt: skip
  def testSynthetic(self, text, message):
    with self.assertRaisesRegex(ParseError, message):
      netperf.Parse(text)

  @parameterized.named_parameters(
      ('nan', ',12118.34,', ',nan,', 'THROUGHPUT is not finite'),
      ('not_a_number', ',12118.34,', ',abc,', 'THROUGHPUT is not a number'),
      ('negative', ',12118.34,', ',-5,', 'THROUGHPUT is negative'),
      ('no_value', ',12118.34,', ',,', 'THROUGHPUT has no value'),
      ('units', '10^6bits/s', 'furlongs/s', "unknown THROUGHPUT_UNITS 'furl"),
      ('twice', 'Elapsed Time (sec)', 'Throughput', 'appears twice'),
  )  # fmt: skip
  def testBadStreamValues(self, old, new, message):
    with self.assertRaisesRegex(ParseError, message):
      netperf.Parse(_Read('tcp_stream_csv.txt').replace(old, new, 1))

  def testContradictingLatencies(self):
    text = _Read('tcp_rr_csv.txt').replace(
        '13,19.52,14,14,17,', '13,19.52,14,14,12,'
    )
    with self.assertRaisesRegex(ParseError, 'P90_LATENCY 14 is above P99'):
      netperf.Parse(text)

  @parameterized.parameters(*GOOD)
  def testCutAtAnyLine(self, name):
    lines = _Lines(name)
    for n in range(len(lines)):
      with self.subTest(lines=n), self.assertRaises(ParseError):
        netperf.Parse(''.join(lines[:n]))

  @parameterized.parameters(*PHASE)
  def testValueRowCutAtAnyCharacterIsCaught(self, name):
    lines = _Lines(name)
    test = 'TCP_RR' if name.startswith('tcp_rr') else 'TCP_STREAM'
    # A cut inside the last value leaves a shorter number: undetectable.
    for n in range(lines[-1].rindex(',') + 1):
      cut = ''.join(lines[:-1]) + lines[-1][:n]
      with self.subTest(chars=n), self.assertRaises(ParseError):
        netperf.Parse(cut, required=net.RequiredSelectors(test))

  def testValueRowCutShort(self):
    lines = _Lines('tcp_rr_csv_phase.txt')
    lines[-1] = lines[-1][:30] + '\n'
    with self.assertRaisesRegex(ParseError, '22 titles but 7 values'):
      netperf.Parse(''.join(lines))

  def testRequiredSelectorMissing(self):
    with self.assertRaisesRegex(ParseError, 'MIN_LATENCY missing'):
      netperf.Parse(
          _Read('tcp_stream_csv.txt'), required=net.SELECTORS['TCP_RR']
      )


class CliTest(absltest.TestCase):

  def _Main(self, argv):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
      rc = cli.main(argv)
    return rc, out.getvalue(), err.getvalue()

  def testParseRr(self):
    rc, out, err = self._Main(
        ['parse', 'netperf', str(DATA / 'tcp_rr_csv_phase.txt')]
    )
    self.assertEqual(rc, 0, err)
    rows = [json.loads(line) for line in out.splitlines()]
    values = {r['metric']: (r['value'], r['unit']) for r in rows}
    self.assertEqual(values['netperf_latency_p99'], (18.0, 'us'))
    self.assertEqual(
        values['netperf_transaction_rate'], (47776.04, 'transactions/s')
    )
    self.assertLen(rows, 8)
    self.assertTrue(all(r['metadata']['phase'] == 'net' for r in rows))

  def testParseStream(self):
    rc, out, _ = self._Main(
        ['parse', 'netperf', str(DATA / 'tcp_stream_csv_confidence.txt')]
    )
    self.assertEqual(rc, 0)
    (row,) = [json.loads(line) for line in out.splitlines()]
    self.assertEqual(
        (row['metric'], row['value'], row['unit']),
        ('netperf_throughput', 7064.5, 'Mbit/s'),
    )
    self.assertIs(row['metadata']['confidence_met'], False)

  def testParseFailureExitsOne(self):
    path = str(DATA / 'bad_connection_refused.txt')
    rc, out, err = self._Main(['parse', 'netperf', path])
    self.assertEqual(rc, 1)
    self.assertEqual(out, '')
    self.assertIn(f'{path}: netperf failed: establish control', err)


if __name__ == '__main__':
  absltest.main()
