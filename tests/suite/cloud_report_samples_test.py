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
"""Tests for the 2021 Cloud Report's samples: catalog, run metadata."""

import unittest

from perfkitbenchmarker import sample

from pkb_ext.suite import samples
from tests import pkb_common_test_case

_META = samples.RunMetadata(
    cloud='AWS',
    region='us-east-1',
    zone='us-east-1a',
    machine_type='c5a.4xlarge',
    vcpus=16,
    cpu_platform='AMD EPYC 7R32',
    disk_type='gp2',
    disk_size_gb=2500,
    provisioned_iops=None,
    provisioned_mbps=None,
    report_version='2021',
)
_KEYS = {
    'cloud',
    'region',
    'zone',
    'machine_type',
    'vcpus',
    'cpu_platform',
    'disk_type',
    'disk_size_gb',
    'provisioned_iops',
    'provisioned_mbps',
    'report_version',
    'phase',
    'iteration',
}


class MakeTest(pkb_common_test_case.PkbCommonTestCase):
  """A sample's unit comes from its phase's metric catalog."""

  def testUnitComesFromCatalog(self):
    s = samples.Make({'x_latency': 'us'}, 'x_latency', 3, {'job': 'rd'})
    self.assertEqual((s.metric, s.value, s.unit), ('x_latency', 3.0, 'us'))
    self.assertEqual(s.metadata, {'job': 'rd'})

  def testUnknownMetricIsRefused(self):
    with self.assertRaisesRegex(samples.UnknownMetricError, 'y_rate'):
      samples.Make({'x_latency': 'us'}, 'y_rate', 1)


class RunMetadataTest(pkb_common_test_case.PkbCommonTestCase):
  """Every sample carries the run's typed metadata."""

  def testEveryDesignKeyIsThere(self):
    self.assertEqual(set(_META.ForSample('cpu', 1)), _KEYS)

  def testRejectsUnknownPhaseAndIteration(self):
    with self.assertRaisesRegex(ValueError, 'unknown phase'):
      _META.ForSample('gpu', 1)
    with self.assertRaisesRegex(ValueError, 'iteration'):
      _META.ForSample('cpu', 0)

  def testStampKeepsOwnMetadataAndIteration(self):
    """Stamp adds the run's keys and keeps what a sample has."""
    s = [
        sample.Sample('m', 1, 'u', {'iteration': 3, 'mode': 'all'}),
        sample.Sample('m', 2, 'u', {}),
    ]
    placement = {'phase_vms': 'db2', 'overlapped': True}
    samples.Stamp(s, _META, 'cpu', placement)
    self.assertEqual(s[0].metadata['iteration'], 3)
    self.assertEqual(s[0].metadata['mode'], 'all')
    self.assertEqual(s[1].metadata['iteration'], 1)
    for one in s:
      self.assertTrue(_KEYS <= set(one.metadata))
      self.assertEqual(one.metadata['phase'], 'cpu')
      self.assertEqual(one.metadata['machine_type'], 'c5a.4xlarge')
      self.assertEqual(one.metadata['phase_vms'], 'db2')
      self.assertIs(one.metadata['overlapped'], True)

  def testStampRefusesAnotherPhase(self):
    with self.assertRaisesRegex(ValueError, "phase 'io'"):
      samples.Stamp(
          [sample.Sample('m', 1, 'u', {'phase': 'io'})], _META, 'cpu', {}
      )

  def testJsonDict(self):
    d = samples.ToJsonDict(sample.Sample('m', 1.5, 'u', {'a': 1}))
    self.assertEqual(
        d, {'metric': 'm', 'value': 1.5, 'unit': 'u', 'metadata': {'a': 1}}
    )


if __name__ == '__main__':
  unittest.main()
