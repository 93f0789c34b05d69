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
"""Tests for the net phase's samples, on parsed real netperf outputs."""

import pathlib

from absl.testing import absltest
from perfkitbenchmarker import sample

from pkb_ext.suite.net import parser as netperf
from pkb_ext.suite.net import samples as net
from pkb_ext.suite import phase_modules

DATA = pathlib.Path(__file__).resolve().parent.parent / 'data' / 'netperf'


def _Parse(name: str) -> netperf.Result:
  return netperf.Parse((DATA / name).read_text())


class FromResultTest(absltest.TestCase):

  def testRrSamples(self):
    out = net.FromResult(_Parse('tcp_rr_csv_phase.txt'), {'x': 1}, 3)
    self.assertEqual(
        [(s.metric, s.value, s.unit) for s in out],
        [
            ('netperf_latency_min', 13.0, 'us'),
            ('netperf_latency_mean', 20.83, 'us'),
            ('netperf_latency_p50', 14.0, 'us'),
            ('netperf_latency_p90', 14.0, 'us'),
            ('netperf_latency_p99', 18.0, 'us'),
            ('netperf_latency_max', 11247.0, 'us'),
            ('netperf_latency_stddev', 162.56, 'us'),
            ('netperf_transaction_rate', 47776.04, 'transactions/s'),
        ],
    )
    md = out[0].metadata
    self.assertEqual(md['x'], 1)
    self.assertEqual(md['iteration'], 3)
    self.assertEqual(md['streams'], 1)
    self.assertEqual(md['netperf_test'], 'TCP_RR')
    self.assertEqual(md['output_style'], 'csv')
    self.assertIs(md['confidence_requested'], True)
    self.assertIs(md['confidence_met'], False)
    self.assertEqual(md['confidence_width_pct'], 7.4)
    self.assertEqual(md['confidence_width_target_pct'], 5.0)
    self.assertEqual(md['confidence_level_pct'], 99.0)
    self.assertEqual(md['confidence_iterations'], 3)
    self.assertEqual(md['transaction_rate_mean_over_iterations'], 47905.29)
    self.assertEqual(md['transport_mss_bytes'], 32768)
    self.assertEqual(md['request_size_bytes'], 1)
    self.assertEqual(md['netperf_warnings'], [])

  def testStreamSample(self):
    (s,) = net.FromResult(_Parse('tcp_stream_csv.txt'))
    self.assertEqual((s.metric, s.value, s.unit),
                     ('netperf_throughput', 12118.34, 'Mbit/s'))  # fmt: skip
    self.assertIs(s.metadata['confidence_requested'], False)
    self.assertNotIn('confidence_met', s.metadata)
    self.assertEqual(s.metadata['local_retransmissions'], 30)
    self.assertEqual(s.metadata['transport_mss_bytes'], 65483)
    self.assertEqual(s.metadata['iteration'], 1)

  def testUnknownConfidenceLeavesMetOut(self):
    # netperf prints -1 for a width it did not measure.
    text = (DATA / 'tcp_rr_csv_phase.txt').read_text()
    out = net.FromResult(netperf.Parse(text.replace(',7.400,', ',-1.000,')))
    self.assertIs(out[0].metadata['confidence_requested'], True)
    self.assertNotIn('confidence_met', out[0].metadata)

  def testEveryMetricIsInTheCatalog(self):
    self.assertEqual(phase_modules.Catalog()['netperf_throughput'], 'Mbit/s')
    for s in net.FromResult(_Parse('tcp_rr_csv.txt')):
      self.assertEqual(phase_modules.Catalog()[s.metric], s.unit)


class FromStreamsTest(absltest.TestCase):

  def testOneStreamIsFromResult(self):
    result = _Parse('tcp_stream_csv.txt')
    (a,) = net.FromStreams([result], {'a': 1}, 2)
    (b,) = net.FromResult(result, {'a': 1}, 2)
    self.assertEqual(
        (a.metric, a.value, a.unit, a.metadata),
        (b.metric, b.value, b.unit, b.metadata),
    )

  def testSumsConcurrentStreams(self):
    results = [
        _Parse('tcp_stream_csv_confidence.txt'),
        _Parse('tcp_stream_csv.txt'),
    ]
    (s,) = net.FromStreams(results, {'a': 1}, 2)
    self.assertEqual(s.metric, 'netperf_throughput')
    self.assertAlmostEqual(s.value, 7064.50 + 12118.34)
    self.assertEqual(s.metadata['streams'], 2)
    self.assertEqual(s.metadata['iteration'], 2)
    self.assertEqual(s.metadata['stream_throughputs_mbps'], [7064.50, 12118.34])
    # The second run asked for no confidence: the streams disagree.
    self.assertNotIn('confidence_met', s.metadata)
    self.assertEqual(s.metadata['confidence_width_pct_max'], 348.157)

  def testAllStreamsMustMeetConfidence(self):
    results = [_Parse('tcp_stream_csv_confidence.txt')] * 2
    (s,) = net.FromStreams(results)
    self.assertIs(s.metadata['confidence_met'], False)

  def testRejectsRrAndNothing(self):
    with self.assertRaisesRegex(ValueError, 'no netperf stream results'):
      net.FromStreams([])
    with self.assertRaisesRegex(ValueError, 'no stream throughput'):
      net.FromStreams([_Parse('tcp_rr_csv.txt')] * 2)


def _Samples(metric, values, test='TCP_STREAM', streams=1):
  return [
      sample.Sample(metric, v, 'x', {'netperf_test': test, 'streams': streams})
      for v in values
  ]


class BimodalityTest(absltest.TestCase):

  def testTwoModesAreFlagged(self):
    # The report: ~5 vs ~10 Gbit/s on AWS network-optimized machines, about
    # half and half over its 10 experiments.
    values = [4950, 10010, 5010, 9980, 5030, 10020, 4990, 9990, 5020, 10005]
    samples = _Samples('netperf_throughput', values)
    net.FlagBimodality(samples)
    for s in samples:
      self.assertIs(s.metadata['bimodal'], True)
      self.assertEqual(s.metadata['repetitions'], 10)
      self.assertGreater(s.metadata['bimodality_coefficient'], 5 / 9)

  def testOneModeIsNot(self):
    values = [60, 61, 59, 60, 62, 58, 61, 60, 59, 63]
    samples = _Samples('netperf_latency_p90', values)
    net.FlagBimodality(samples)
    self.assertIs(samples[0].metadata['bimodal'], False)

  def testFewRepetitionsMissAnEvenSplit(self):
    # Sarle's coefficient with its small-sample correction: an even 4/4
    # split of 8 values stays under 5/9 (documented in the flag's help).
    values = [4950, 10010, 5010, 9980, 5030, 10020, 4990, 9990]
    samples = _Samples('netperf_throughput', values)
    net.FlagBimodality(samples)
    self.assertIs(samples[0].metadata['bimodal'], False)
    self.assertLess(samples[0].metadata['bimodality_coefficient'], 5 / 9)

  def testTooFewRepetitionsSayNothing(self):
    samples = _Samples('netperf_throughput', [5000, 10000, 5000])
    net.FlagBimodality(samples)
    self.assertEqual(samples[0].metadata['repetitions'], 3)
    self.assertNotIn('bimodal', samples[0].metadata)

  def testGroupsByStreamsAndLeavesOtherMetricsAlone(self):
    split = [5000, 10000] * 5
    one = _Samples('netperf_throughput', [v + i for i, v in enumerate(split)])
    many = _Samples(
        'netperf_throughput', [100, 101, 99, 100, 102, 98, 101, 100, 99, 103],
        streams=8,
    )  # fmt: skip
    other = _Samples('netperf_latency_max', split)
    net.FlagBimodality(one + many + other)
    self.assertIs(one[0].metadata['bimodal'], True)
    self.assertIs(many[0].metadata['bimodal'], False)
    self.assertNotIn('repetitions', other[0].metadata)

  def testIdenticalValuesAreNotBimodal(self):
    samples = _Samples('netperf_throughput', [5000] * 4)
    net.FlagBimodality(samples)
    self.assertIs(samples[0].metadata['bimodal'], False)
    self.assertNotIn('bimodality_coefficient', samples[0].metadata)


if __name__ == '__main__':
  absltest.main()
