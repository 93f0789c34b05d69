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
"""Fault injection: the BigQuery emulator down while stock PKB publishes.

A whole `pkb.py` run (pkb_ext_dev.fake_vm_main: PKB's real Main over fake
static VMs) publishes through pkb_ext's flags to an emulator that is not
running: the run still succeeds, the spool keeps every sample, and the log
names the command that publishes it later. With the emulator back (same
port), that exact command loads every row once, and again loads none.

The emulator stopping in the middle of a `pkb-ext publish`, or killed between
two load jobs, is covered by tests/emulator/test_publish_emulator.py
(testEmulatorStoppedMidPublishThenRepublished,
testEmulatorKilledBetweenBatchesThenRepublished).
"""

import json
import os
import re
import shlex
import subprocess
import sys
import tempfile

from absl.testing import absltest

from pkb_ext.publish import spool
from pkb_ext_dev import bq_emulator
from pkb_ext_dev import stock_pkb

_REPUBLISH = re.compile(
    r'The samples are kept in the spool (\S+); publish them later with:'
    r' (pkb-ext publish .*)$',
    re.M,
)


class EmulatorDownDuringPkbRunTest(absltest.TestCase):

  def setUp(self):
    super().setUp()
    self.dir = tempfile.mkdtemp(prefix='pkb-ext-bq-fault-')
    self.emulator = bq_emulator.Emulator()  # ports chosen, not started
    self.addCleanup(self.emulator.Close)

  def _Pkb(self, table, run_uri):
    vm_file = stock_pkb.StaticVmFile(
        self.dir, stock_pkb.StaticVms(4, local_disks=['/dev/vdb'])
    )
    argv = [
        *stock_pkb.DriverCommand(), os.path.join(self.dir, 'cmds'),
        '--benchmarks=cloud_report_2021', f'--static_vm_file={vm_file}',
        f'--temp_dir={self.dir}/pkb',
        f'--json_path={self.dir}/samples.json', '--cloud_report_phases=none',
        '--accept_licenses', '--ignore_package_requirements',
        f'--run_uri={run_uri}', f'--cloud_report_bq_table={table}',
        f'--cloud_report_bq_endpoint={self.emulator.endpoint}',
        '--cloud_report_bq_timeout=5', '--cloud_report_bq_batch_size=3',
        f'--cloud_report_spool_dir={self.dir}/spool',
    ]  # fmt: skip
    return subprocess.run(argv, capture_output=True, text=True, timeout=600)

  def _Count(self, table):
    query = (
        f'SELECT COUNT(*) AS n, COUNT(DISTINCT sample_uri) AS u FROM `{table}`'
    )
    (row,) = list(self.emulator.Client().query_and_wait(query))
    self.assertEqual(row.n, row.u, 'duplicate sample_uri')
    return row.n

  def testRunSucceedsSpoolKeptRepublishExact(self):
    table = f'{bq_emulator.PROJECT}.faults.samples'
    proc = self._Pkb(table, 'bqdown01')
    self.assertFalse(self.emulator.Running())
    # Publishing is not the benchmark: the run itself succeeded.
    self.assertEqual(proc.returncode, 0, proc.stderr[-3000:])
    self.assertIn('Success rate: 100.00% (1/1)', proc.stderr)
    found = _REPUBLISH.search(proc.stderr)
    self.assertIsNotNone(found, proc.stderr[-3000:])
    path, command = found.group(1), found.group(2)
    self.assertEqual(path, spool.SpoolPath(f'{self.dir}/spool', 'bqdown01'))
    with open(f'{self.dir}/samples.json') as f:
      published = [json.loads(line) for line in f]
    self.assertNotEmpty(published)
    spooled = spool.Read([path], 3)
    self.assertEqual(spooled.rows, len(published))

    self.emulator.Start()  # back, on the same port
    argv = shlex.split(command)
    self.assertEqual(argv[:2], ['pkb-ext', 'publish'])
    self.assertIn(self.emulator.endpoint, argv)
    argv = [sys.executable, '-m', 'pkb_ext.cli', *argv[1:]]
    first = subprocess.run(argv, capture_output=True, text=True, timeout=300)
    self.assertEqual(first.returncode, 0, first.stderr)
    self.assertIn(f'{len(published)} rows loaded', first.stdout)
    self.assertEqual(self._Count(table), len(published))
    again = subprocess.run(argv, capture_output=True, text=True, timeout=300)
    self.assertEqual(again.returncode, 0, again.stderr)
    self.assertIn(
        f'0 rows loaded in 0 load jobs, {len(published)} rows', again.stdout
    )
    self.assertEqual(self._Count(table), len(published))


if __name__ == '__main__':
  absltest.main()
