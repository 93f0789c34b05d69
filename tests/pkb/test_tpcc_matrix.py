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
"""A flag matrix of TPC-C searches, killed between steps and resumed.

Stock PKB's real Main (pkb_ext_dev.stock_pkb, fake static VMs) runs
cloud_report_tpcc over a flag matrix of three configurations with
--run_processes=3. They differ in their pass rule, so on the same captured
cockroach outputs (3,500 / 3,750 / 4,000 active warehouses) their searches
differ: `report` passes 3,750, `custom:p90_ms<400` stops at 3,750 and
`custom:p90_ms<9000` passes every level. Each configuration is held in its
second step, then the whole run is killed. The run is resumed with the same
run_uri twice, from copies of what the kill left: with --run_processes=3,
and in series. Both times every configuration continues its own search from
its own recorded step, and every sample lands in the spool exactly once.
"""

import collections
import glob
import json
import os
import pathlib
import shutil

from pkb_ext.suite import cockroach_sha256
from pkb_ext_dev import pkb_tests
from pkb_ext_dev import stock_pkb

pkb_common_test_case = pkb_tests.Import('pkb_common_test_case')

DATA = pathlib.Path(__file__).resolve().parent.parent / 'data'
SHA = cockroach_sha256.SHA256  # the suite's; the package pins none
ROOT = '/opt/pkb/cloud_report_cockroachdb'
TAR = f'{ROOT}/cockroach-v20.2.7.linux-amd64.tgz'
# What the package's Install leaves on each node (cockroachdb.InstalledInfo).
INSTALL_RECORD = json.dumps({
    'version': 'v20.2.7',
    'arch': 'amd64',
    'sha256': SHA,
    'sha256_source': 'flag',
})
OUTPUTS = {
    str(n): (
        (
            DATA / 'tpcc' / f'cockroach_v22.1.2_9node_8vcpu_{n}wh_tail.txt'
        ).read_text()
    )
    for n in (3500, 3750, 4000)
}
PROBE_SAFE = (DATA / 'fio' / 'probe_loop_unmounted.txt').read_text()
RUN_URI = 'mtx1'
RULES = ('report', 'custom:p90_ms<400', 'custom:p90_ms<9000')
MATRIX = f"""
cloud_report_tpcc:
  flag_matrix: rules
  flag_matrix_defs:
    rules:
      cloud_report_tpcc_pass_rule: [{', '.join(repr(r) for r in RULES)}]
"""
FLAGS = dict(
    cloud_report_tpcc_engine='cockroach',
    cloud_report_tpcc_start_warehouses=3500,
    cloud_report_tpcc_step_warehouses=250,
    cloud_report_tpcc_max_warehouses=4000,
    cloud_report_tpcc_duration='12m',
    cloud_report_tpcc_ramp='2m',
    cloud_report_cockroachdb_sha256=f'amd64={SHA}',
)
# Each configuration's search: (active warehouses, passed) per step.
SEARCHES = {
    'report': [(3500, 1.0), (3750, 1.0), (4000, 0.0)],
    'custom:p90_ms<400': [(3500, 1.0), (3750, 0.0)],
    'custom:p90_ms<9000': [(3500, 1.0), (3750, 1.0), (4000, 1.0)],
}
MAX_PASSING = {
    'report': 3750,
    'custom:p90_ms<400': 3500,
    'custom:p90_ms<9000': 4000,
}

# Run in each fake_vm_main process before PKB's Main: plays back the
# RobustRemoteCommand protocol with the captured output of the level the VM
# last started, logs every `workload run` with its configuration's pass rule,
# and, with extra['hold'], holds each configuration in its second step.
_BOOT = r"""
import re, time
from absl import flags as absl_flags
original = driver.FakeShell.__call__
started = {}
steps = {}

def Call(self, vm, command, *args, **kwargs):
  stdout, stderr, code = original(self, vm, command, *args, **kwargs)
  if 'execute_command' in command and 'workload run' in command:
    rule = absl_flags.FLAGS.cloud_report_tpcc_pass_rule
    active = re.search(r'--active-warehouses=(\d+)', command).group(1)
    steps[rule] = steps.get(rule, 0) + 1
    if extra['hold'] and steps[rule] == 2:
      open(os.path.join(extra['dir'], f'held-{os.getpid()}'), 'w').close()
      time.sleep(3600)
    with open(extra['log'], 'a') as f:
      f.write(json.dumps({'rule': rule, 'active': int(active)}) + '\n')
    started[vm.name] = active
  elif 'wait_for_command' in command:
    if '--delete' not in command:
      return 'Command finished.\n', '', 0
    text = extra['outputs'].get(started.get(vm.name, ''), '')
    return text + 'cloud_report_tpcc_exit_status=0\n', '', 0
  return stdout, stderr, code

driver.FakeShell.__call__ = Call
"""


def _ReadJsonLines(path):
  if not os.path.exists(path):
    return []
  with open(path) as f:
    return [json.loads(line) for line in f if line.strip()]


class TpccMatrixResumeTest(pkb_common_test_case.PkbCommonTestCase):

  def _Run(self, tmp, hold, **more_flags):
    with open(os.path.join(tmp, 'matrix.yaml'), 'w') as f:
      f.write(MATRIX)
    flags = dict(FLAGS)
    flags.update(
        benchmark_config_file=os.path.join(tmp, 'matrix.yaml'),
        cloud_report_spool_dir=os.path.join(tmp, 'spool'),
        **more_flags,
    )
    held = lambda: len(glob.glob(os.path.join(tmp, 'held-*'))) == len(RULES)
    return stock_pkb.RunMain(
        tmp,
        'cloud_report_tpcc',
        stock_pkb.StaticVms(4, local_disks=['/dev/vdb']),
        answers=[
            (f'sha256sum {TAR}', f'{SHA}  {TAR}\n'),
            (f'cat {ROOT}/install.json', INSTALL_RECORD),
            # A fresh cluster: the tpcc tables hold no warehouse.
            ('SELECT count(*) FROM tpcc.warehouse', 'count\n0\n'),
            ('echo end-of-probe', PROBE_SAFE),
        ],
        flags=flags,
        boot=_BOOT,
        extra={
            'dir': tmp,
            'hold': hold,
            'log': os.path.join(
                tmp, 'runs-hold.jsonl' if hold else 'runs.jsonl'
            ),
            'outputs': OUTPUTS,
        },
        run_uri=RUN_URI,
        kill_when=held if hold else None,
        timeout=900,
    )

  def _Spool(self, tmp):
    return [
        row
        for path in glob.glob(os.path.join(tmp, 'spool', '*.ndjson'))
        for row in _ReadJsonLines(path)
    ]

  def _CheckResumed(self, tmp, result):
    self.assertEqual(result.proc.returncode, 0, result.proc.stderr[-3000:])
    # Each configuration ran only the rest of its own search.
    ran = collections.defaultdict(list)
    for run in _ReadJsonLines(os.path.join(tmp, 'runs.jsonl')):
      ran[run['rule']].append(run['active'])
    self.assertEqual(
        dict(ran), {r: [a for a, _ in SEARCHES[r][1:]] for r in RULES}
    )
    # Every sample once: PKB's JSON publisher and the spool agree, no sample
    # twice, and each configuration's steps are its own.
    rows = self._Spool(tmp)
    self.assertLen(rows, len(result.samples))
    uris = [r['sample_uri'] for r in rows]
    self.assertEqual(len(uris), len(set(uris)))
    steps = collections.defaultdict(list)
    best = collections.defaultdict(list)
    for row in rows:
      md = row['metadata']
      if row['metric'] == 'tpcc_step_passed':
        steps[md['pass_rule']].append((
            int(md['iteration']),
            int(md['active_warehouses']),
            row['value'],
            md['resumed'] in (True, 'True'),
        ))
      elif row['metric'] == 'tpcc_max_passing_warehouses':
        best[md['pass_rule']].append(row['value'])
    for rule in RULES:
      with self.subTest(rule=rule):
        self.assertEqual(
            sorted(steps[rule]),
            [
                (i, active, passed, i == 1)
                for i, (active, passed) in enumerate(SEARCHES[rule], 1)
            ],
        )
        self.assertEqual(best[rule], [MAX_PASSING[rule]])
    states = glob.glob(
        os.path.join(result.run_dir, f'cloud_report_tpcc_{RUN_URI}_*.json')
    )
    self.assertLen(states, len(RULES))
    # One results summary, the main process's (not one per worker), of the
    # spool every process appended to, with every configuration's search.
    err = result.proc.stderr
    self.assertEqual(err.count('-cloud_report results-'), 1)
    (path,) = glob.glob(os.path.join(tmp, 'spool', '*.ndjson'))
    self.assertIn(f'Samples (NDJSON): {path}\n', err)
    self.assertRegex(
        err,
        rf'TPC-C max passing warehouses +[0-9,.]+ warehouses \(mean of'
        rf' {len(RULES)}\)',
    )

  def testKilledMatrixResumesEachConfigurationsOwnSearch(self):
    first = self.create_tempdir('killed').full_path
    killed = self._Run(first, hold=True, run_processes=3)
    self.assertNotEqual(killed.proc.returncode, 0)
    # Killed between steps: each configuration has one recorded step.
    runs = _ReadJsonLines(os.path.join(first, 'runs-hold.jsonl'))
    self.assertCountEqual(
        [(r['rule'], r['active']) for r in runs],
        [(rule, 3500) for rule in RULES],
    )
    self.assertEqual(self._Spool(first), [])  # PKB published nothing yet
    resumes = {
        'parallel': {'run_processes': 3},
        'series': {},
    }
    for name, more_flags in resumes.items():
      with self.subTest(resume=name):
        tmp = os.path.join(self.create_tempdir().full_path, name)
        shutil.copytree(first, tmp, symlinks=True)
        for held in glob.glob(os.path.join(tmp, 'held-*')):
          os.remove(held)
        result = self._Run(
            tmp,
            hold=False,
            run_stage='run,cleanup,teardown',
            **more_flags,
        )
        self._CheckResumed(tmp, result)


if __name__ == '__main__':
  pkb_common_test_case.absltest.main()
