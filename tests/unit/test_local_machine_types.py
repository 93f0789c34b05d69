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
"""The local machine types: limits that grow together, applied as set."""

import os

from absl.testing import absltest

from pkb_ext import pricing
from pkb_ext.local import layout
from pkb_ext.local import limits
from pkb_ext.local import machine_types


class MachineTypesTest(absltest.TestCase):

  def testEveryLimitGrowsFromTheSmallestTypeToTheLargest(self):
    types = machine_types.TYPES
    self.assertGreaterEqual(len(types), 3)
    for small, large in zip(types, types[1:]):
      for field in ('cpus', 'disk_iops', 'disk_mbps', 'network_mbps'):
        self.assertLess(
            getattr(small, field), getattr(large, field), (small, large, field)
        )

  def testTheirCloudsCanRunSideBySide(self):
    for what in ('prefix', 'subnet', 'number'):
      values = [getattr(t, what) for t in machine_types.TYPES]
      self.assertLen(set(values), len(values), what)
    for t in machine_types.TYPES:
      plan = layout.Plan(
          state_dir='/srv/pkb-ext-test-' + t.short,
          prefix=t.prefix,
          subnet=t.subnet,
          machine_type=t.name,
      )
      self.assertEqual(plan.limits, t)

  def testAnUnknownTypeNamesTheChoices(self):
    with self.assertRaisesRegex(ValueError, r"'local-xl': choose from local-s"):
      layout.Plan(state_dir='/srv/x', machine_type='local-xl')

  def testThePriceTablePublishesTheLimitsTheCloudEnforces(self):
    catalog = pricing.Load()
    table = catalog.tables['static']
    self.assertEqual(sorted(table.machines), sorted(machine_types.NAMES))
    for t in machine_types.TYPES:
      published = table.machines[t.name].limits
      self.assertEqual(published.disk_iops, t.disk_iops, t.name)
      self.assertEqual(published.disk_mbps, t.disk_mbps, t.name)
      self.assertAlmostEqual(
          published.network_gbps * 1000, t.network_mbps, msg=t.name
      )
    prices = [table.machines[t.name].usd_per_hour for t in machine_types.TYPES]
    self.assertEqual(prices, sorted(prices))


class LimitsTest(absltest.TestCase):

  def testCgroupSettingsCapCpuAndBothDirectionsOfTheDisk(self):
    t = machine_types.Get('local-m')
    got = limits.CgroupSettings(t, '7:3')
    self.assertEqual(
        dict(got['cpu']),
        {
            'cpu.cfs_period_us': '20000',
            'cpu.cfs_quota_us': '8000',
            'cpu.shares': '6553',
        },
    )
    self.assertEqual(
        dict(got['blkio']),
        {
            'blkio.throttle.read_iops_device': '7:3 400',
            'blkio.throttle.write_iops_device': '7:3 400',
            'blkio.throttle.read_bps_device': '7:3 16000000',
            'blkio.throttle.write_bps_device': '7:3 16000000',
        },
    )
    self.assertEqual(limits.CgroupSettings(t, None)['blkio'], [])

  def testTbfRateAndABucketForGsoPackets(self):
    args = limits.TbfArgs(machine_types.Get('local-s'))
    self.assertEqual(args[:3], ['tbf', 'rate', '40mbit'])
    self.assertGreaterEqual(int(args[args.index('burst') + 1]), 65536)
    big = machine_types.MachineType('x-big', 1, 1, 1, 10_000, number=9)
    self.assertEqual(
        int(limits.TbfArgs(big)[limits.TbfArgs(big).index('burst') + 1]),
        10_000 * 1_000_000 // 8 // 100,
    )

  def testDeviceNumberOfARealDevice(self):
    self.assertEqual(
        limits.DeviceNumber('/dev/null'),
        '%d:%d' % (os.major(os.stat('/dev/null').st_rdev),
                   os.minor(os.stat('/dev/null').st_rdev)),
    )  # fmt: skip


if __name__ == '__main__':
  absltest.main()
