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
"""Tests for the net phase's flags, params and commands (pure parts)."""

from absl import flags
from absl.testing import absltest
from absl.testing import flagsaver
from absl.testing import parameterized
from perfkitbenchmarker import errors

from pkb_ext.suite.net import netserver
from pkb_ext.suite.net import stages as net

FLAGS = flags.FLAGS


class ParamsTest(parameterized.TestCase):

  def setUp(self):
    super().setUp()
    if not FLAGS.is_parsed():
      FLAGS.mark_as_parsed()

  def testDefaultsAreTheReports(self):
    params = net.Params.FromFlags()
    self.assertEqual(params, net.Params())
    self.assertEqual(params.duration_s, 60)
    self.assertEqual(params.confidence, '99,5')
    self.assertEqual(params.repetitions, 1)
    self.assertEqual(params.tests, ('TCP_RR', 'TCP_STREAM'))
    self.assertEqual(params.streams, (1,))
    self.assertEqual(params.Timeout('TCP_RR'), 60 * 10 + 300)

  @flagsaver.flagsaver(
      cloud_report_netperf_duration_s=5,
      cloud_report_netperf_confidence='off',
      cloud_report_netperf_tests=['TCP_STREAM', 'TCP_RR'],
      cloud_report_netperf_streams=['1', '8'],
      cloud_report_netperf_control_port=23900,
      cloud_report_netperf_data_port=23901,
      cloud_report_netperf_repetitions=4,
  )
  def testFromFlags(self):
    params = net.Params.FromFlags()
    self.assertEqual(
        params,
        net.Params(
            duration_s=5,
            confidence='off',
            repetitions=4,
            tests=('TCP_RR', 'TCP_STREAM'),  # always the report's order
            streams=(1, 8),
            control_port=23900,
            data_port=23901,
        ),
    )
    self.assertEqual(params.max_iterations, 1)
    self.assertEqual(params.RunsOf('TCP_RR'), (1,))
    self.assertEqual(params.RunsOf('TCP_STREAM'), (1, 8))

  @parameterized.named_parameters(
      ('level', 'cloud_report_netperf_confidence', '90,5', 'LEVEL 95 or 99'),
      ('width', 'cloud_report_netperf_confidence', '99,0', 'width must be'),
      ('garbage', 'cloud_report_netperf_confidence', '99', 'LEVEL,WIDTH'),
      ('iter_order', 'cloud_report_netperf_confidence_iterations', '3,10',
       'MIN <= MAX'),
      ('iter_max', 'cloud_report_netperf_confidence_iterations', '31,3',
       'MAX <= 30'),
      ('iter_min', 'cloud_report_netperf_confidence_iterations', '10,1',
       '3 <= MIN'),
      ('tests', 'cloud_report_netperf_tests', ['UDP_RR'], 'TCP_RR,TCP_STREAM'),
      ('tests_twice', 'cloud_report_netperf_tests', ['TCP_RR', 'TCP_RR'],
       'each once'),
      ('streams', 'cloud_report_netperf_streams', ['0'], 'positive integers'),
      ('streams_text', 'cloud_report_netperf_streams', ['two'],
       'positive integers'),
      ('port_overlap', 'cloud_report_netperf_data_port', 20000,
       'not include --cloud_report_netperf_control_port 20000'),
  )  # fmt: skip
  def testBadFlagsAreRefusedNamingTheFlag(self, name, value, message):
    with flagsaver.flagsaver():
      with self.assertRaises(flags.IllegalFlagValueError) as e:
        setattr(FLAGS, name, value)
    self.assertIn(f'--{name}', str(e.exception))
    self.assertIn(message, str(e.exception))

  def testDataPortsMustFitBelow65536(self):
    with flagsaver.flagsaver():
      FLAGS.cloud_report_netperf_data_port = 65535  # one stream fits
      with self.assertRaisesRegex(flags.IllegalFlagValueError, 'below 65536'):
        FLAGS.cloud_report_netperf_streams = ['2']

  def testOffConfidenceIsAccepted(self):
    with flagsaver.flagsaver(cloud_report_netperf_confidence='off'):
      self.assertEqual(net.Params.FromFlags().confidence, 'off')


class CommandTest(absltest.TestCase):

  def testRrCommandIsTheReportsPlusP50AndPkbsColumns(self):
    command = net.NetperfCommand('netperf', '10.0.0.2', 'TCP_RR', net.Params())
    self.assertEqual(
        command,
        'netperf -H 10.0.0.2 -p 20000 -t TCP_RR -l 60 -I 99,5 -i 10,3 --'
        ' -P ,20001 -o min_latency,mean_latency,P50_LATENCY,P90_LATENCY,'
        'P99_LATENCY,max_latency,stddev_latency,transaction_rate,'
        'CONFIDENCE_LEVEL,CONFIDENCE_INTERVAL,CONFIDENCE_ITERATION,'
        'THROUGHPUT_CONFID,THROUGHPUT,THROUGHPUT_UNITS,ELAPSED_TIME,PROTOCOL,'
        'DIRECTION,LOCAL_TRANSPORT_RETRANS,REMOTE_TRANSPORT_RETRANS,'
        'REQUEST_SIZE,RESPONSE_SIZE,TRANSPORT_MSS',
    )

  def testStreamCommand(self):
    params = net.Params(confidence='off', data_port=30000)
    command = net.NetperfCommand('/nb/netperf', 'h', 'TCP_STREAM', params, 3)
    self.assertStartsWith(
        command,
        '/nb/netperf -H h -p 20000 -t TCP_STREAM -l 60 -f m -- -P ,30003 -o'
        ' CONFIDENCE_LEVEL,',
    )
    self.assertNotIn('-I', command)
    with self.assertRaisesRegex(ValueError, 'unknown netperf test'):
      net.NetperfCommand('netperf', 'h', 'UDP_RR', params)

  def testNetserverIsStartedAndStoppedByItsPid(self):
    start = netserver.StartNetserverCommand('/usr/bin/netserver', 20000)
    self.assertIn('nohup /usr/bin/netserver -p 20000 -D', start)
    self.assertIn('echo $! >cloud_report_netperf/netserver-20000.pid', start)
    stop = netserver.StopNetserverCommand(20000)
    # Its own process group (setsid), stopped with its per-test children:
    # only the group's members that run `netserver -p PORT`.
    self.assertIn('$setsid nohup /usr/bin/netserver', start)
    self.assertIn('pgrep -g "$pid" -f "netserver -p 20000 "', stop)
    self.assertIn('grep -q "netserver -p 20000 "', stop)
    self.assertIn('kill $pids', stop)
    self.assertIn('ss -Hltn "sport = :20000"', stop)
    # Each attempt removes the earlier start's log before it starts, in the
    # shell that then reads it.
    log = 'cloud_report_netperf/netserver-20000.log'
    attempt = start.split('for attempt in', 1)[1]
    self.assertLess(attempt.index(f'rm -f {log};'), attempt.index('nohup'))
    for command in (start, stop):
      self.assertNotIn('killall', command)
      self.assertNotIn('pkill', command)

  def testConcurrentCommandAndSplit(self):
    command = netserver.ConcurrentCommand(['netperf a', 'netperf b'])
    self.assertStartsWith(command, 'd=$(mktemp -d) || exit 1; (netperf a ')
    self.assertIn('wait;', command)
    stdout = (
        '@@@ cloud_report netperf stream 0 exit 0\nA=1\n'
        '@@@ cloud_report netperf stream 1 exit 255\n'
    )
    self.assertEqual(
        netserver.SplitConcurrent(stdout, 2), [(0, 'A=1\n'), (255, '')]
    )
    with self.assertRaisesRegex(errors.Benchmarks.RunError, 'outputs of 3'):
      netserver.SplitConcurrent(stdout, 3)
    self.assertEqual(
        netserver.SplitConcurrent(
            '@@@ cloud_report netperf stream 0 exit \n', 1
        ),
        [(-1, '')],
    )


if __name__ == '__main__':
  absltest.main()
