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
"""pkb_ext_dev.bench_plan's RowParts: a row's plan, part by part.

The AWS gp2 matrix's first configuration, planned in a child process as
the vm_hours_per_row figure is: its parts add up to its wall time (the
fill and each lane of side phases beside it count as the longest), and,
every configuration planning the same times, the VM-hours per row are its
VMs times that time.
"""

from absl.testing import absltest

from pkb_ext_dev import bench_plan


class RowPartsTest(absltest.TestCase):

  def testThePartsAddUpToTheRow(self):
    got = bench_plan.Predict(
        [*bench_plan.AWS_GP2, bench_plan.PROBE], fixtures=True
    )
    parts = got['first']
    phases = parts['phases_s']
    self.assertEqual(parts['fill'], ['io'])
    self.assertEqual(parts['side'], ['cpu', 'net'])
    self.assertEqual(parts['lanes'], [['cpu'], ['net']])
    self.assertEqual(parts['beside_load'], ['object_storage'])
    once = parts['once_s']
    # Each thread beside the fill, and the fill's: the longest counts; an
    # install counts once, before; object_storage runs beside tpcc's load
    # (tpcc_import, once), which is the longer.
    beside = max(
        sum(phases[n] - once[n] for n in lane)
        for lane in [parts['fill'], *parts['lanes']]
    )
    self.assertGreater(once['tpcc_import'], phases['object_storage'])
    overlapped = parts['fill'] + parts['side'] + parts['beside_load']
    rest = sum(s if n not in overlapped else once[n] for n, s in phases.items())
    self.assertAlmostEqual(
        parts['provision_s'] + beside + rest, parts['seconds']
    )
    # Every configuration of the matrix plans the same times.
    for seconds in got['seconds']:
      self.assertAlmostEqual(seconds, parts['seconds'])
    self.assertAlmostEqual(
        got['vm_hours'] / got['configurations'],
        parts['vms'] * parts['seconds'] / 3600,
    )


if __name__ == '__main__':
  absltest.main()
