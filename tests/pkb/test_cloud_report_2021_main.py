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
"""cloud_report_2021 through stock PKB's real Main, on fake static VMs.

Runs pkb_ext_dev.fake_vm_main in a subprocess (pkb_ext_dev.stock_pkb;
PKB's Main sets global flags, logging and temp dirs), over 4 static VMs whose
remote commands are answered by its FakeShell and logged. Phases whose tool
outputs the fake shell can play back are run and must produce samples; with
none, the run must still provision, prepare, run and clean up without error.
"""

import os

from absl.testing import absltest

from pkb_cloud_report.benchmarks.cloud_report import phases
from pkb_ext_dev import coremark_playback
from pkb_ext_dev import fio_playback
from pkb_ext_dev import netperf_playback
from pkb_ext_dev import stock_pkb

# Phases whose tool runs the fake shell answers with real captured outputs.
_PLAYBACK = {
    'cpu': coremark_playback.Answers,
    'io': fio_playback.Answers,
    'net': netperf_playback.Answers,
}


class CloudReport2021MainTest(absltest.TestCase):

  def _RunMain(self, selected_phases, **extra_flags):
    result = stock_pkb.RunMain(
        self.create_tempdir().full_path,
        'cloud_report_2021',
        stock_pkb.StaticVms(4, local_disks=['/dev/vdb']),
        answers=[a for p in selected_phases for a in _PLAYBACK[p]()],
        flags={
            'cloud_report_phases': ','.join(selected_phases) or 'none',
            **extra_flags,
        },
        run_uri='fakevms1',
    )
    self.assertEqual(result.proc.returncode, 0, result.proc.stderr[-3000:])
    with open(os.path.join(result.run_dir, 'pkb.log')) as f:
      pkb_log = f.read()
    return pkb_log, result.commands, result.samples

  def testAllStagesWithoutPhases(self):
    pkb_log, commands, samples = self._RunMain([])
    for stage in (
        'Provisioning resources',
        'Preparing benchmark',
        'Running benchmark',
        'Cleaning up benchmark',
    ):
      self.assertIn(stage, pkb_log)
    self.assertIn('SUCCEEDED', pkb_log)
    self.assertLen({c['vm'] for c in commands}, 4)
    end_to_end = [s for s in samples if s['metric'] == 'End to End Runtime']
    self.assertLen(end_to_end, 1)
    labels = stock_pkb.Labels(end_to_end[0])
    self.assertEqual(
        (labels['db_vm_count'], labels['client_vm_count']), ('3', '1')
    )

  def testPhasesWithPlaybackProduceSamples(self):
    selected = [p for p in phases.LoadAll() if p in _PLAYBACK]
    self.assertNotEmpty(selected)
    _, _, samples = self._RunMain(selected)
    for phase in selected:
      mine = [s for s in samples if stock_pkb.Labels(s).get('phase') == phase]
      self.assertNotEmpty(mine, f'no samples from phase {phase}')
      for s in mine:
        self.assertEqual(stock_pkb.Labels(s)['report_version'], '2021')

  def testOverlapMovesCpuAndNetToTheSecondDbVmWithOneSampleSet(self):
    selected = ['cpu', 'io', 'net']
    runs = {
        overlap: self._RunMain(selected, cloud_report_overlap=overlap)
        for overlap in ('true', 'false')
    }

    def VmOf(commands, fragment):
      (vm,) = {c['vm'] for c in commands if fragment in c['command']}
      return vm

    shapes = {}
    for overlap, (pkb_log, commands, samples) in runs.items():
      fio_vm = VmOf(commands, 'blockdev --getsize64')
      coremark_vm = VmOf(commands, '/bin/coremark-single')
      self.assertEqual(VmOf(commands, 'netserver -p'), coremark_vm)
      placed = {}
      for s in samples:
        labels = stock_pkb.Labels(s)
        if 'phase' in labels:
          placed[labels['phase']] = (labels['phase_vms'], labels['overlapped'])
      if overlap == 'true':
        self.assertNotEqual(coremark_vm, fio_vm)
        self.assertIn('overlap: cpu,net run while io runs on db1', pkb_log)
        self.assertEqual(placed, {
            'cpu': ('db2', 'True'),
            'io': ('db1', 'True'),
            'net': ('client,db2', 'True'),
        })  # fmt: skip
      else:
        self.assertEqual(coremark_vm, fio_vm)
        self.assertEqual(placed, {
            'cpu': ('db1', 'False'),
            'io': ('db1', 'False'),
            'net': ('client,db1', 'False'),
        })  # fmt: skip
      shapes[overlap] = sorted(
          (s['metric'], tuple(sorted(stock_pkb.Labels(s))))
          for s in samples
          if 'phase' in stock_pkb.Labels(s)
      )
    self.assertNotEmpty(shapes['true'])
    self.assertEqual(shapes['true'], shapes['false'])


if __name__ == '__main__':
  absltest.main()
