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
"""cloud_report_netperf through PKB, with mocked VMs (PKB's test style).

The VMs answer the phase's commands with real netperf outputs from
tests/data/netperf (pkb_ext_dev.netperf_playback). Two levels: the
benchmark module's Prepare/Run/Cleanup on mocked PKB VMs (a db server and a
client); and stock PKB's real Main (pkb_ext_dev.stock_pkb, in a subprocess)
on two fake static VMs. pkb_ext.netperf's install is tested in
tests/unit/test_netperf_install.py.
"""

from unittest import mock

from absl.testing import flagsaver
from perfkitbenchmarker import errors
from perfkitbenchmarker import linux_benchmarks
from perfkitbenchmarker.linux_packages import netperf as pkb_netperf

from pkb_ext.suite import cloud_report_netperf_benchmark as benchmark
from pkb_ext.suite.net import parser
from pkb_ext.suite.net import stages as net
from pkb_ext_dev import mock_vms
from pkb_ext_dev import netperf_playback as playback
from pkb_ext_dev import pkb_tests
from pkb_ext_dev import stock_pkb

pkb_common_test_case = pkb_tests.Import('pkb_common_test_case')

RR = parser.Parse(playback.Read(playback.RR_FILE))
STREAM = parser.Parse(playback.Read(playback.STREAM_FILE))


def _Vm(test, answers, name, machine_type, ip):
  return mock_vms.LinuxVm(
      test, answers, name=name, cloud='GCP', zone='us-east1-b',
      machine_type=machine_type, cpu_model='AMD EPYC 7B12', internal_ip=ip,
  )  # fmt: skip


def _Answers(streams=1, **overrides):
  answers = {k: [(v, '')] for k, v in playback.Answers(streams)}
  answers.update(overrides)
  return answers


class BenchmarkModuleTest(pkb_common_test_case.PkbCommonTestCase):

  def _Pair(self, client_answers=None, streams=1):
    server, server_cmd = _Vm(
        self, _Answers(streams), 'db-0', 'n2-standard-16', '10.128.0.2'
    )
    client, client_cmd = _Vm(
        self, client_answers or _Answers(streams), 'client-0',
        'n2-highcpu-16', '10.128.0.3',
    )  # fmt: skip
    spec = mock.Mock()
    spec.vm_groups = {'db': [server], 'client': [client]}
    return spec, server, server_cmd, client, client_cmd

  def testRegisteredWithPkb(self):
    self.assertIn(benchmark, linux_benchmarks.BENCHMARKS)
    config = benchmark.GetConfig({})
    self.assertEqual(config['vm_groups']['db']['vm_count'], 1)
    self.assertEqual(config['vm_groups']['client']['vm_count'], 1)

  @flagsaver.flagsaver(cloud_report_netperf_repetitions=2)
  def testPrepareRunCleanup(self):
    spec, server, server_cmd, client, client_cmd = self._Pair()
    benchmark.Prepare(spec)
    samples = benchmark.Run(spec)
    benchmark.Cleanup(spec)

    # netserver: started once on the db VM, stopped by its own PID.
    server_commands = server_cmd.all_commands.splitlines()
    starts = [c for c in server_commands if 'nohup' in c]
    self.assertLen(starts, 1)
    self.assertIn(f'{pkb_netperf.NETSERVER_PATH} -p 20000 -D', starts[0])
    stops = [c for c in server_commands if c.startswith('if [ -f ')]
    self.assertLen(stops, 2)  # after Run, and again (a no-op) in Cleanup
    # Cleanup's stop removes the work dir in the same command.
    self.assertTrue(server_commands[-1].startswith('if [ -f '))
    self.assertTrue(
        server_commands[-1].endswith('; rm -rf cloud_report_netperf')
    )
    # PKB's package on both VMs; its netperf is probed once per VM, in
    # Prepare, and Run uses what it found.
    for vm in (server, client):
      vm.Install.assert_called_once_with('netperf')
    for commands in (server_commands, client_cmd.all_commands.splitlines()):
      self.assertEqual(
          [c for c in commands if ' -V' in c],
          [f'test -x {pkb_netperf.NETSERVER_PATH} &&'
           f' {pkb_netperf.NETPERF_PATH} -V'],
      )  # fmt: skip
    self.assertNotIn('killall', server_cmd.all_commands)
    self.assertNotIn('netperf -H', server_cmd.all_commands)

    # netperf: from the client to the db VM's internal IP.
    runs = [c for c in client_cmd.all_commands.splitlines() if ' -H ' in c]
    self.assertEqual(
        [c.split(' -t ')[1].split()[0] for c in runs],
        ['TCP_RR', 'TCP_STREAM'] * 2,
    )
    for c in runs:
      self.assertStartsWith(
          c, f'{pkb_netperf.NETPERF_PATH} -H 10.128.0.2 -p 20000 '
      )
      self.assertIn(' -l 60 -I 99,5 -i 10,3 -', c)
    client.RemoteCommand.assert_any_call(runs[0], timeout=60 * 10 + 300)

    rr = [s for s in samples if s.metadata['netperf_test'] == 'TCP_RR']
    self.assertEqual(
        [s.metric for s in rr[:8]],
        ['netperf_latency_' + k for k in
         ('min', 'mean', 'p50', 'p90', 'p99', 'max', 'stddev')]
        + ['netperf_transaction_rate'],
    )  # fmt: skip
    self.assertLen(rr, 16)
    self.assertEqual(rr[3].value, RR.latency_us.p90)
    self.assertEqual(rr[7].value, RR.transaction_rate)
    stream = [s for s in samples if s.metric == 'netperf_throughput']
    self.assertEqual([s.value for s in stream], [STREAM.throughput_mbps] * 2)
    self.assertEqual([s.metadata['iteration'] for s in stream], [1, 2])
    for s in samples:
      md = s.metadata
      self.assertEqual(md['phase'], 'net')
      self.assertEqual(md['cloud'], 'GCP')
      self.assertEqual(md['region'], 'us-east1')
      self.assertEqual(md['sending_machine_type'], 'n2-highcpu-16')
      self.assertEqual(md['receiving_machine_type'], 'n2-standard-16')
      self.assertEqual(md['machine_type'], 'n2-standard-16')
      self.assertEqual(md['server_ip'], '10.128.0.2')
      self.assertEqual(md['netperf_version'], '2.7.0')
      self.assertIs(md['confidence_met'], False)
      self.assertEqual(md['repetitions'], 2)
    self.assertEqual(stream[0].metadata['confidence_width_pct'], 348.157)
    self.assertNotIn('bimodal', stream[0].metadata)  # 2 < 4 repetitions

  @flagsaver.flagsaver(
      cloud_report_netperf_tests=['TCP_STREAM'],
      cloud_report_netperf_streams=['1', '3'],
      cloud_report_netperf_confidence='off',
      cloud_report_netperf_duration_s=5,
      cloud_report_netperf_repetitions=4,
  )
  def testMultiStreamIsSummedAndBimodalityChecked(self):
    spec, _, _, _, client_cmd = self._Pair(streams=3)
    samples = benchmark.Run(spec)
    concurrent = client_cmd.GetCommandWithSubstring('mktemp -d')
    for port in (20001, 20002, 20003):
      self.assertIn(f'-P ,{port} ', concurrent)
    self.assertNotIn(' -I ', concurrent)
    self.assertEqual(
        [(s.metadata['streams'], s.metadata['iteration']) for s in samples],
        [(1, 1), (3, 1), (1, 2), (3, 2), (1, 3), (3, 3), (1, 4), (3, 4)],
    )
    three = [s for s in samples if s.metadata['streams'] == 3]
    self.assertAlmostEqual(three[0].value, 3 * STREAM.throughput_mbps)
    self.assertEqual(
        three[0].metadata['stream_throughputs_mbps'],
        [STREAM.throughput_mbps] * 3,
    )
    for s in samples:
      self.assertIs(s.metadata['bimodal'], False)  # identical values
      self.assertEqual(s.metadata['repetitions'], 4)

  def testFailedNetperfStillStopsNetserver(self):
    failure = playback.Read('bad_connection_refused.txt')
    answers = _Answers(**{'-t TCP_RR': [(failure, '')]})
    spec, _, server_cmd, _, _ = self._Pair(client_answers=answers)
    with self.assertRaisesRegex(
        errors.Benchmarks.RunError,
        'netperf TCP_RR stream 0 from client-0 to db-0 failed: netperf'
        ' failed: establish control',
    ):
      benchmark.Run(spec)
    stop = server_cmd.all_commands.splitlines()[-1]
    self.assertIn('pid=$(cat cloud_report_netperf/netserver-', stop)
    self.assertIn('kill $pids', stop)
    self.assertNotIn('killall', stop)

  @flagsaver.flagsaver(cloud_report_netperf_streams=['2'])
  def testFailedStreamOfMany(self):
    bad = playback.ConcurrentOutput([playback.Read(playback.STREAM_FILE), ''])
    bad = bad.replace('stream 1 exit 0', 'stream 1 exit 255')
    spec, *_ = self._Pair(client_answers=_Answers(**{'mktemp -d': [(bad, '')]}))
    with self.assertRaisesRegex(
        errors.Benchmarks.RunError, 'TCP_STREAM stream 1 .* exit code 255'
    ):
      benchmark.Run(spec)

  def testNetserverThatCannotStart(self):
    answers = _Answers(**{'nohup ': [('', 'Unable to start netserver', 1)]})
    server, _ = _Vm(self, answers, 'db-0', 'm', '10.0.0.2')
    client, _ = _Vm(self, _Answers(), 'client-0', 'm', '10.0.0.3')
    spec = mock.Mock()
    spec.vm_groups = {'db': [server], 'client': [client]}
    with self.assertRaisesRegex(Exception, 'Unable to start netserver'):
      benchmark.Run(spec)

  def testNeedsAClient(self):
    server, _ = _Vm(self, _Answers(), 'db-0', 'm', '10.0.0.2')
    spec = mock.Mock()
    spec.vm_groups = {'db': [server]}
    with self.assertRaisesRegex(ValueError, 'phase net needs a "client"'):
      benchmark.Prepare(spec)

  def testOutputLackingRequestedSelectorsIsAnError(self):
    answers = _Answers(
        **{'-t TCP_RR': [(playback.Read('tcp_rr_csv_confidence.txt'), '')]}
    )
    spec, *_ = self._Pair(client_answers=answers)
    with self.assertRaisesRegex(errors.Benchmarks.RunError, 'TRANSPORT_MSS'):
      # A capture from before the phase asked for TRANSPORT_MSS in TCP_RR.
      benchmark.Run(spec)
    self.assertIn(' -o min_latency,', net.NetperfCommand(
        'netperf', 'h', 'TCP_RR', net.Params.FromFlags()))  # fmt: skip


class StockPkbMainTest(pkb_common_test_case.PkbCommonTestCase):
  """pkb.py --benchmarks=cloud_report_netperf on two fake static VMs."""

  def testSamplesThroughPkb(self):
    result = stock_pkb.RunMain(
        self.create_tempdir().full_path,
        'cloud_report_netperf',
        stock_pkb.StaticVms(2),
        answers=playback.Answers(),
        flags={
            'cloud_report_netperf_duration_s': 2,
            'cloud_report_netperf_confidence_iterations': '3,3',
        },
        run_uri='npfake1',
    )
    self.assertEqual(result.proc.returncode, 0, result.proc.stderr[-3000:])
    commands, samples = result.commands, result.samples

    # PKB fills vm_groups in alphabetical order: client (192.0.2.1), db.
    by_vm = {}
    for c in commands:
      by_vm.setdefault(c['vm'], []).append(c['command'])
    (server,) = [v for v, cs in by_vm.items() if any('nohup' in c for c in cs)]
    (client,) = [v for v, cs in by_vm.items() if any(' -H ' in c for c in cs)]
    self.assertNotEqual(server, client)
    runs = [c for c in by_vm[client] if ' -H ' in c]
    self.assertLen(runs, 2)
    for c in runs:  # PKB's netperf, built by its package's Install
      self.assertStartsWith(c, f'{pkb_netperf.NETPERF_PATH} -H 192.0.2.2 ')
      self.assertIn(' -H 192.0.2.2 -p 20000 ', c)
      self.assertIn(' -l 2 -I 99,5 -i 3,3 ', c)
    self.assertFalse(any('killall' in c for c in by_vm[server]))

    mine = [s for s in samples if stock_pkb.Labels(s).get('phase') == 'net']
    self.assertEqual(
        sorted({s['metric'] for s in mine}),
        sorted(
            ['netperf_throughput', 'netperf_transaction_rate']
            + ['netperf_latency_' + k for k in
               ('min', 'mean', 'p50', 'p90', 'p99', 'max', 'stddev')]
        ),
    )  # fmt: skip
    by_metric = {s['metric']: s for s in mine}
    self.assertEqual(
        by_metric['netperf_throughput']['value'], STREAM.throughput_mbps
    )
    self.assertEqual(by_metric['netperf_throughput']['unit'], 'Mbit/s')
    self.assertEqual(by_metric['netperf_latency_p99']['value'], 18.0)
    labels = stock_pkb.Labels(by_metric['netperf_transaction_rate'])
    self.assertEqual(labels['netperf_test'], 'TCP_RR')
    self.assertEqual(labels['report_version'], '2021')
    self.assertEqual(labels['iteration'], '1')
    self.assertEqual(labels['confidence_met'], 'False')


if __name__ == '__main__':
  pkb_common_test_case.absltest.main()
