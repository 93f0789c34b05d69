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

Runs tests/pkb/fake_vm_main.py in a subprocess (PKB's Main sets global flags,
logging and temp dirs), over 4 static VMs whose remote commands are answered
by its FakeShell and logged. Phases whose tool outputs the fake shell can play
back are run and must produce samples; with none, the run must still
provision, prepare, run and clean up without error.
"""

import json
import os
import pathlib
import subprocess
import sys

from absl.testing import absltest

from pkb_ext import phases
from pkb_ext.testing import coremark_playback
from pkb_ext.testing import fio_playback
from pkb_ext.testing import netperf_playback

_DRIVER = pathlib.Path(__file__).with_name('fake_vm_main.py')
# Phases whose tool runs the fake shell answers with real captured outputs.
_PLAYBACK = {
    'cpu': coremark_playback.Answers,
    'io': fio_playback.Answers,
    'net': netperf_playback.Answers,
}


def _StaticVmFile(directory):
  vms = [
      {
          'ip_address': f'192.0.2.{i}',  # TEST-NET-1: never contacted.
          'user_name': 'perfkit',
          'keyfile_path': '/dev/null',
          'internal_ip': f'192.0.2.{i}',
          'zone': 'local-1',
          'local_disks': ['/dev/vdb'],
          'os_type': 'ubuntu2404',
      }
      for i in range(1, 5)
  ]
  path = os.path.join(directory, 'static_vms.json')
  with open(path, 'w') as f:
    json.dump(vms, f)
  return path


def _Labels(pkb_json_sample):
  """PKB's JSON publisher packs metadata as '|key:value|,|key:value|'."""
  out = {}
  for item in pkb_json_sample['labels'].split('|,|'):
    key, _, value = item.strip('|').partition(':')
    out[key] = value
  return out


class CloudReport2021MainTest(absltest.TestCase):

  def _RunMain(self, selected_phases):
    tmp = self.create_tempdir().full_path
    log = os.path.join(tmp, 'commands.jsonl')
    samples_path = os.path.join(tmp, 'samples.json')
    argv = [
        sys.executable,
        str(_DRIVER),
        log,
        '--benchmarks=cloud_report_2021',
        f'--static_vm_file={_StaticVmFile(tmp)}',
        f'--temp_dir={tmp}/pkb',
        f'--json_path={samples_path}',
        '--cloud_report_phases=' + ','.join(selected_phases),
        '--accept_licenses',
        '--ignore_package_requirements',
        '--run_uri=fakevms1',
    ]
    answers_path = os.path.join(tmp, 'answers.json')
    with open(answers_path, 'w') as f:
      json.dump([a for p in selected_phases for a in _PLAYBACK[p]()], f)
    proc = subprocess.run(
        argv,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
        env=dict(os.environ, PKB_EXT_FAKE_ANSWERS=answers_path),
    )
    self.assertEqual(proc.returncode, 0, proc.stderr[-3000:])
    with open(os.path.join(tmp, 'pkb', 'runs', 'fakevms1', 'pkb.log')) as f:
      pkb_log = f.read()
    with open(log) as f:
      commands = [json.loads(line) for line in f]
    with open(samples_path) as f:
      samples = [json.loads(line) for line in f]
    return pkb_log, commands, samples

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
    labels = _Labels(end_to_end[0])
    self.assertEqual(
        (labels['db_vm_count'], labels['client_vm_count']), ('3', '1')
    )

  def testLandedPhasesProduceSamples(self):
    selected = [p for p in phases.Landed() if p in _PLAYBACK]
    if not selected:
      self.skipTest('no landed phase has playback outputs yet')
    _, _, samples = self._RunMain(selected)
    for phase in selected:
      mine = [s for s in samples if _Labels(s).get('phase') == phase]
      self.assertNotEmpty(mine, f'no samples from phase {phase}')
      for s in mine:
        self.assertEqual(_Labels(s)['report_version'], '2021')


if __name__ == '__main__':
  absltest.main()
