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
"""configs/machines/*.yaml: the report's machine matrix for stock PKB."""

import os

from absl import flags
from absl.testing import absltest
from absl.testing import flagsaver
from absl.testing import parameterized
from perfkitbenchmarker import benchmark_sets
from perfkitbenchmarker import pkb  # pylint: disable=unused-import
import yaml

from pkb_ext import paths
from pkb_ext import pricing
from pkb_ext_dev import analysis_fixture as fx

FLAGS = flags.FLAGS
_DIR = os.path.join(paths.RepoRoot(), 'configs', 'machines')
_MATRICES = {
    'aws.yaml': ('gp2', 'io2', 'local'),
    'gcp.yaml': ('pd_ssd',),
    'azure.yaml': ('premium', 'ultra'),
}


def _Load(name):
  with open(os.path.join(_DIR, name), encoding='utf-8') as f:
    return yaml.safe_load(f)['cloud_report_2021']


def _Configurations():
  """{(cloud, machine_type, disk_type)} of every matrix of every file."""
  out = {}
  for name, matrices in _MATRICES.items():
    config = _Load(name)
    for matrix in matrices:
      m = config['flag_matrix_defs'][matrix]
      for machine in m['machine_type']:
        key = (config['flags']['cloud'], machine, m['data_disk_type'][0])
        out[key] = m
  return out


class MachinesTest(parameterized.TestCase):

  def setUp(self):
    super().setUp()
    if not FLAGS.is_parsed():
      FLAGS.mark_as_parsed()

  @parameterized.parameters(
      (name, matrix) for name, ms in _MATRICES.items() for matrix in ms
  )
  def testPkbExpandsTheMatrix(self, name, matrix):
    path = os.path.join(_DIR, name)
    with flagsaver.flagsaver(
        benchmarks=['cloud_report_2021'],
        benchmark_config_file=path,
        flag_matrix=matrix,
    ):
      FLAGS['benchmarks'].present = 1
      try:
        configs = benchmark_sets.GetBenchmarksFromFlags()
      finally:
        FLAGS['benchmarks'].present = 0
    spec = _Load(name)['flag_matrix_defs'][matrix]
    self.assertLen(configs, len(spec['machine_type']))
    seen = set()
    for module, config in configs:
      self.assertEqual(module.BENCHMARK_NAME, 'cloud_report_2021')
      f = config['flags']
      seen.add(f['machine_type'])
      self.assertEqual(f['data_disk_size'], 2500)
      self.assertEqual(f['data_disk_type'], spec['data_disk_type'][0])
      if f['data_disk_type'] in ('io2', 'UltraSSD_LRS'):
        self.assertEqual(f['provisioned_iops'], 5400)
      else:
        self.assertNotIn('provisioned_iops', f)
      if f['data_disk_type'] == 'UltraSSD_LRS':
        self.assertEqual(f['provisioned_throughput'], 300)
    self.assertEqual(seen, set(spec['machine_type']))

  def testCoversMachinesCsv(self):
    rows = fx.ReportMachines()
    if rows is None:
      self.skipTest(f'{fx.MACHINES_CSV} is not beside the repository')
    expected = set()
    for row in rows:
      for disk in filter(None, row['network_disks'].split(';')):
        expected.add((row['cloud'], row['machine_type'], fx.CSV_DISKS[disk]))
      if row['local_disks']:
        expected.add((row['cloud'], row['machine_type'], 'local'))
    got = set(_Configurations())
    # The CSV lists Azure's L16s_v2 with network disks only, as we do; GCP's
    # local SSD variants are not in Appendix I either.
    self.assertEqual(got, expected)

  def testEveryConfigurationHasAPrice(self):
    catalog = pricing.Load()
    for (cloud, machine, disk), m in _Configurations().items():
      iops = (m.get('provisioned_iops') or [None])[0]
      mbps = (m.get('provisioned_throughput') or [None])[0]
      size = 0 if disk == 'local' else 2500
      with self.subTest(machine=machine, disk=disk):
        cost = catalog.MonthlyCost(cloud, machine, disk, size, iops, mbps)
        self.assertGreater(cost.total_usd, 0)


if __name__ == '__main__':
  absltest.main()
