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
"""The postgres engine's fixtures for real: a pg_dump in MinIO, made once.

The engine's own Setup through pkb_ext_dev.local_vm.LocalVm (as
test_tpcc_phase.py's LocalVmTest), with a MinIO of this test's on loopback
as the object storage endpoint. A first Setup with
--cloud_report_tpcc_fixtures=auto and --cloud_report_tpcc_fixtures_make finds
no dump, generates 1 warehouse with go-tpc and stores its dump; after
Cleanup, a second Setup with auto restores that dump and runs no go-tpc
prepare, and every table holds the rows the first one had. A third, asking
for 2 warehouses, finds only the 1-warehouse dump and generates.
"""

import logging
import os
import secrets
import shutil
import subprocess
import tempfile
import time
import urllib.request

from absl.testing import absltest
from absl.testing import flagsaver

from pkb_ext.suite import phases
from benchmarks.cloud_report.tpcc import params as tpcc_params
from pkb_ext.suite.tpcc import stages as tpcc
from pkb_ext import paths
from pkb_ext_dev import local_vm
from pkb_ext_dev import ports

MINIO = os.path.join(paths.CacheDir(), 'bin', 'minio')
GO_TPC = os.path.join(paths.CacheDir(), 'bin', 'go-tpc')
PG_BIN = '/usr/lib/postgresql/15/bin'
PG_PORT = 25442  # private to this test
FAST_PG = ('fsync=off', 'synchronous_commit=off', 'full_page_writes=off',
           'shared_buffers=128MB')  # fmt: skip
TABLES = ('warehouse', 'district', 'customer', 'history', 'new_order',
          'orders', 'order_line', 'stock', 'item')  # fmt: skip


class PostgresFixturesTest(absltest.TestCase):

  def setUp(self):
    super().setUp()
    missing = ''
    for tool in (MINIO, GO_TPC, os.path.join(PG_BIN, 'initdb')):
      if not os.access(tool, os.X_OK):
        missing = f'no {tool}: run scripts/setup.sh'
    if subprocess.run(['id', 'postgres'], capture_output=True).returncode:
      missing = 'no postgres user'
    if missing:
      self.skipTest(missing)
    self.dir = tempfile.mkdtemp(prefix='pkb-ext-tpcc-dump-')
    os.chmod(self.dir, 0o755)  # user postgres must reach its data dir
    self.addCleanup(shutil.rmtree, self.dir, ignore_errors=True)
    self._StartMinio()
    db = local_vm.LocalVm('db1', work_dir=os.path.join(self.dir, 'db1'))
    client = local_vm.LocalVm('client', work_dir=os.path.join(self.dir, 'c'))
    for vm in (db, client):
      os.makedirs(vm.work_dir)
    self.db, self.client = db, client
    self.topology = phases.Topology((db,), client, None)
    self.pg_data = os.path.join(self.dir, 'pgdata')
    self.enter_context(
        flagsaver.flagsaver(
            cloud_report_go_tpc_path=GO_TPC,
            cloud_report_tpcc_postgres_port=PG_PORT,
            cloud_report_tpcc_postgres_bin_dir=PG_BIN,
            cloud_report_tpcc_postgres_data_dir=self.pg_data,
            cloud_report_tpcc_postgres_options=list(FAST_PG),
            cloud_report_tpcc_gotpc_load_threads=2,
            cloud_report_tpcc_gotpc_load_check=False,
            cloud_report_object_storage_endpoint=self.endpoint,
            cloud_report_object_storage_provider='s3',
            cloud_report_object_storage_credentials_file=self.creds,
        )
    )

  def _StartMinio(self):
    port = ports.FreePort()
    key = secrets.token_hex(12)
    env = dict(os.environ, MINIO_ROOT_USER='pkbext', MINIO_ROOT_PASSWORD=key,
               MINIO_BROWSER='off')  # fmt: skip
    log = open(os.path.join(self.dir, 'minio.log'), 'w')
    self.addCleanup(log.close)
    proc = subprocess.Popen(
        [MINIO, 'server', '--quiet', '--address', f'127.0.0.1:{port}',
         os.path.join(self.dir, 'minio-data')],
        env=env, stdout=log, stderr=log,
    )  # fmt: skip
    self.addCleanup(proc.wait, 30)
    self.addCleanup(proc.terminate)
    self.endpoint = f'http://127.0.0.1:{port}'
    for _ in range(150):
      try:
        urllib.request.urlopen(f'{self.endpoint}/minio/health/live', timeout=2)
        break
      except OSError:
        time.sleep(0.2)
    self.creds = os.path.join(self.dir, 'creds')
    with open(os.open(self.creds, os.O_WRONLY | os.O_CREAT, 0o600), 'w') as f:
      f.write(f'AWS_ACCESS_KEY_ID=pkbext\nAWS_SECRET_ACCESS_KEY={key}\n')

  def _Engine(self, warehouses, **kw):
    params = tpcc_params.Params(
        max_warehouses=warehouses, fixtures='auto',
        fixtures_bucket='pkb-tpcc-fixtures', **kw
    )  # fmt: skip
    return tpcc.SelectEngine('postgres', params)

  def _Rows(self):
    counts = ' UNION ALL '.join(
        f"SELECT '{t}', count(*) FROM {t}" for t in TABLES
    )
    out, _ = self.db.RemoteCommand(
        f'sudo -u postgres {PG_BIN}/psql -h {self.pg_data}'
        f' -p {PG_PORT} -d tpcc -tA -F= -c "{counts}"'
    )
    return dict(l.split('=') for l in out.split())

  def _Setup(self, engine):
    self.client.commands.clear()
    with self.assertLogs(level=logging.INFO) as logs:
      engine.Setup(self.topology)
    said = [r.getMessage() for r in logs.records]
    prepares = [c for c in self.client.commands if 'tpcc prepare' in c]
    return [l for l in said if l.startswith('tpcc: fixtures:')], prepares

  def testADumpMadeOnceIsLoadedByTheNextRun(self):
    maker = self._Engine(1, fixtures_make=True)
    self.addCleanup(maker.Cleanup, self.topology)
    said, prepares = self._Setup(maker)
    self.assertLen(prepares, 1)
    self.assertLen(said, 2)
    self.assertRegex(said[0], r'^tpcc: fixtures: generating 1 warehouses: no'
                     r' dump at s3://pkb-tpcc-fixtures/')  # fmt: skip
    self.assertRegex(said[1], r'^tpcc: fixtures: stored the dump of 1'
                     r' warehouses \(\d+ bytes\)')  # fmt: skip
    made = self._Rows()
    self.assertEqual(made['warehouse'], '1')
    self.assertEqual(made['item'], '100000')
    maker.Cleanup(self.topology)

    said, prepares = self._Setup(self._Engine(1))
    self.assertEmpty(prepares)
    self.assertEqual(
        said,
        [
            'tpcc: fixtures: loaded 1 warehouses at s3://pkb-tpcc-fixtures/'
            'cloud_report/tpcc/postgres/warehouses=1/tpcc.dump (s3 at'
            f' {self.endpoint})'
        ],
    )
    self.assertEqual(self._Rows(), made)
    maker.Cleanup(self.topology)

    # Another warehouse count: the 1-warehouse dump is not used.
    said, prepares = self._Setup(self._Engine(2))
    self.assertLen(prepares, 1)
    self.assertRegex(said[0], r'warehouses=2/tpcc\.dump .*\(there:'
                     r' warehouses=1\)$')  # fmt: skip
    self.assertEqual(self._Rows()['warehouse'], '2')


if __name__ == '__main__':
  absltest.main()
