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
"""Tests for cloud_report_netperf_benchmark on mocked VMs.

A db VM runs netserver and a client VM runs netperf against it; the client
answers with real netperf 2.7.0 outputs.
"""

import os
import unittest
from unittest import mock

from absl.testing import flagsaver
from perfkitbenchmarker import errors
from perfkitbenchmarker import linux_benchmarks
from perfkitbenchmarker.linux_packages import netperf
from pkb_ext.suite import cloud_report_netperf_benchmark
from pkb_ext.suite.net import parser
from pkb_ext_dev import mock_vms
from tests import pkb_common_test_case

_DATA_DIR = os.path.join(
    os.path.dirname(__file__), os.pardir, 'data', 'netperf'
)


def _Read(name):
  with open(os.path.join(_DATA_DIR, name), encoding='utf-8') as f:
    return f.read()


RR = _Read('tcp_rr_csv_phase.txt')
STREAM = _Read('tcp_stream_csv_confidence.txt')
VERSION = _Read('netperf_version.txt')


def _Answers(rr=RR):
  return {
      # The netserver start command also holds its stop: matched first.
      'nohup ': [('4242\n', '')],
      'kill "$pid"': [('stopped 4242\n', '')],
      'netperf -V': [(VERSION, '')],
      '-t TCP_RR': [(rr, '')],
      '-t TCP_STREAM': [(STREAM, '')],
  }


class CloudReportNetperfBenchmarkTest(pkb_common_test_case.PkbCommonTestCase):
  """Prepare, Run and Cleanup of the net phase on two mocked VMs."""

  def _Vm(self, name, machine_type, ip, answers):
    return mock_vms.LinuxVm(
        self, answers, name=name, cloud='GCP', zone='us-east1-b',
        machine_type=machine_type, cpu_model='AMD EPYC 7B12', internal_ip=ip,
    )  # fmt: skip

  def _Spec(self, client_answers=None):
    self.server, self.server_cmd = self._Vm(
        'db-0', 'n2-standard-16', '10.128.0.2', _Answers()
    )
    self.client, self.client_cmd = self._Vm(
        'client-0', 'n2-highcpu-16', '10.128.0.3',
        client_answers or _Answers(),
    )  # fmt: skip
    spec = mock.Mock()
    spec.vm_groups = {'db': [self.server], 'client': [self.client]}
    return spec

  def testRegisteredWithADbAndAClientVm(self):
    self.assertIn(cloud_report_netperf_benchmark, linux_benchmarks.BENCHMARKS)
    groups = cloud_report_netperf_benchmark.GetConfig({})['vm_groups']
    self.assertEqual(
        {name: group['vm_count'] for name, group in groups.items()},
        {'db': 1, 'client': 1},
    )

  def testPrepareInstallsPkbsNetperfOnBothVms(self):
    cloud_report_netperf_benchmark.Prepare(self._Spec())
    for cmd in (self.server_cmd, self.client_cmd):
      self.assertIn(f'{netperf.NETPERF_PATH} -V', cmd.all_commands)
    for vm in (self.server, self.client):
      vm.Install.assert_called_once_with('netperf')

  def testPrepareWithoutNetperfAtPkbsPathIsASetupError(self):
    answers = _Answers()
    answers['netperf -V'] = [('', 'netperf: No such file or directory')]
    with self.assertRaisesRegex(
        errors.Setup.InvalidSetupError,
        f'no netperf at {netperf.NETPERF_PATH} or no netserver at'
        f' {netperf.NETSERVER_PATH} on client-0',
    ):
      cloud_report_netperf_benchmark.Prepare(self._Spec(answers))

  @flagsaver.flagsaver(cloud_report_netperf_repetitions=2)
  def testRunTurnsOutputsIntoSamples(self):
    """netperf from the client to netserver on the db VM, twice."""
    spec = self._Spec()
    cloud_report_netperf_benchmark.Prepare(spec)
    samples = cloud_report_netperf_benchmark.Run(spec)

    starts = [
        c for c in self.server_cmd.all_commands.splitlines() if 'nohup' in c
    ]
    self.assertLen(starts, 1)
    self.assertIn(f'{netperf.NETSERVER_PATH} -p 20000 -D', starts[0])
    runs = [c for c in self.client_cmd.all_commands.splitlines() if ' -H ' in c]
    self.assertEqual(
        [c.split(' -t ')[1].split()[0] for c in runs],
        ['TCP_RR', 'TCP_STREAM'] * 2,
    )
    for c in runs:
      self.assertStartsWith(c, f'{netperf.NETPERF_PATH} -H 10.128.0.2 ')
      self.assertIn(' -l 60 -I 99,5 ', c)

    rr, stream = parser.Parse(RR), parser.Parse(STREAM)
    p90 = [s for s in samples if s.metric == 'netperf_latency_p90']
    self.assertEqual([s.value for s in p90], [rr.latency_us.p90] * 2)
    rate = [s for s in samples if s.metric == 'netperf_transaction_rate']
    self.assertEqual([s.value for s in rate], [rr.transaction_rate] * 2)
    throughput = [s for s in samples if s.metric == 'netperf_throughput']
    self.assertEqual(
        [s.value for s in throughput], [stream.throughput_mbps] * 2
    )
    self.assertEqual([s.metadata['iteration'] for s in throughput], [1, 2])
    for s in samples:
      md = s.metadata
      self.assertEqual((md['phase'], md['cloud'], md['region']),
                       ('net', 'GCP', 'us-east1'))  # fmt: skip
      self.assertEqual(md['sending_machine_type'], 'n2-highcpu-16')
      self.assertEqual(md['receiving_machine_type'], 'n2-standard-16')
      self.assertEqual(md['netperf_version'], '2.7.0')

  def testNetperfFailureIsARunErrorAndNetserverIsStopped(self):
    answers = _Answers(rr=_Read('bad_connection_refused.txt'))
    spec = self._Spec(client_answers=answers)
    with self.assertRaisesRegex(
        errors.Benchmarks.RunError,
        'netperf TCP_RR stream 0 from client-0 to db-0 failed: netperf'
        ' failed: establish control',
    ):
      cloud_report_netperf_benchmark.Run(spec)
    stop = self.server_cmd.all_commands.splitlines()[-1]
    self.assertIn('pid=$(cat cloud_report_netperf/netserver-', stop)
    self.assertNotIn('killall', self.server_cmd.all_commands)

  def testCleanupStopsNetserverByPidAndRemovesItsFiles(self):
    cloud_report_netperf_benchmark.Cleanup(self._Spec())
    (stop,) = self.server_cmd.all_commands.splitlines()
    self.assertStartsWith(stop, 'if [ -f ')
    self.assertIn('kill $pids', stop)
    self.assertTrue(stop.endswith('; rm -rf cloud_report_netperf'), stop)
    self.assertEqual(self.client_cmd.all_commands, '')

  def testNeedsAClientVm(self):
    spec = self._Spec()
    spec.vm_groups = {'db': [self.server]}
    with self.assertRaisesRegex(ValueError, 'phase net needs a "client"'):
      cloud_report_netperf_benchmark.Prepare(spec)


if __name__ == '__main__':
  unittest.main()
