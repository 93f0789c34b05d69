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
"""The cockroach engine's Setup with --cloud_report_tpcc_fixtures, on a double.

A one-node cluster of tests/doubles/cockroach.py on loopback (its SQL port a
free one), the engine's own Setup run through pkb_ext_dev.local_vm.LocalVm
as an AWS client in us-east-1: the fixture bucket is the double's
fixtures_dir. Each test counts the fixtures and import commands the engine
ran, and the warehouses the cluster holds.
"""

import importlib.util
import logging
import os
import pathlib
import shutil
import subprocess
import tempfile
from unittest import mock

from absl.testing import absltest

from benchmarks.cloud_report.tpcc import cockroach as cockroach_cluster
from benchmarks.cloud_report.tpcc import engines
from benchmarks.cloud_report.tpcc import fixtures
from benchmarks.cloud_report.tpcc import params as tpcc_params
from linux_packages import cloud_report_cockroachdb as cockroachdb
from pkb_ext.suite import phases
from pkb_ext_dev import local_vm
from pkb_ext_dev import ports

_DOUBLE = pathlib.Path(__file__).resolve().parents[1] / 'doubles'
_SPEC = importlib.util.spec_from_file_location(
    'cockroach_double', _DOUBLE / 'cockroach.py'
)
double = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(double)

WAREHOUSES = 20
VERSION = 'v22.1.2'  # the first release line with --provider-override
# A bucket of the user's own: {region} becomes the client's (us-east-1).
BUCKET = 'pkb-tpcc-fixtures-{region}'


class FixturesDoubleTest(absltest.TestCase):

  def setUp(self):
    super().setUp()
    self.dir = tempfile.mkdtemp(prefix='pkb-ext-crdb-fixtures-')
    self.addCleanup(shutil.rmtree, self.dir, ignore_errors=True)
    self.bucket_dir = os.path.join(self.dir, 'buckets')
    self.store = os.path.join(self.dir, 'store')
    self._Install(VERSION)
    self.enter_context(
        mock.patch.object(cockroach_cluster, 'SQL_PORT', ports.FreePort())
    )
    self.enter_context(
        mock.patch.object(
            engines.CockroachEngine, 'StoreDirs', return_value=[self.store]
        )
    )
    self.client = self._Vm('client')
    self.db = self._Vm('db1')
    self.topology = phases.Topology((self.db,), self.client, None)
    self.addCleanup(
        subprocess.run,
        ['bash', '-c', cockroach_cluster.StopCommand(self.store)],
        check=False,
    )

  def _Install(self, version, load_s=0.0):
    self.installs = getattr(self, 'installs', 0) + 1
    root = os.path.join(self.dir, f'root{self.installs}')
    tarball, _ = double.BuildTarball(
        self.dir,
        version=version,
        start_delay_s=0.2,
        fixtures_dir=self.bucket_dir,
        fixture_load_s=load_s,
    )
    os.makedirs(root)
    subprocess.run(
        ['tar', '-xzf', tarball, '-C', root, '--strip-components=1'],
        check=True,
    )
    self.binary = os.path.join(root, 'cockroach')
    patch = mock.patch.object(
        cockroachdb, 'BinaryPath', return_value=self.binary
    )
    patch.start()
    self.addCleanup(patch.stop)
    info = mock.patch.object(
        cockroachdb, 'InstalledInfo', return_value={'version': version}
    )
    info.start()
    self.addCleanup(info.stop)

  def _Vm(self, name):
    vm = local_vm.LocalVm(name, work_dir=os.path.join(self.dir, name))
    os.makedirs(vm.work_dir)
    vm.CLOUD, vm.zone = 'AWS', 'us-east-1a'
    return vm

  def _Engine(self, **kw):
    params = tpcc_params.Params(
        max_warehouses=WAREHOUSES, load_timeout='60s', fixtures_bucket=BUCKET,
        **kw
    )  # fmt: skip
    return engines.CockroachEngine(params)

  def _Commands(self, what):
    return [c for c in self.client.commands if f'workload fixtures {what}' in c]

  def _Loaded(self):
    return cockroach_cluster.LoadedWarehouses(
        self.client, '127.0.0.1', engines.DATABASE
    )

  def _Fixture(self, warehouses):
    """Stores a fixture of `warehouses` in the bucket (the make path is
    testMakeMakesAMissingFixtureThenLoadsIt's)."""
    location = fixtures.LocationOf(self.client, BUCKET)
    double.WriteFixture(
        self.bucket_dir,
        location.provider,
        location.bucket,
        location.prefix,
        warehouses,
    )

  def _Setup(self, engine):
    with self.assertLogs(level=logging.INFO) as logs:
      engine.Setup(self.topology)
    lines = [r.getMessage() for r in logs.records]
    return [l for l in lines if l.startswith('tpcc: fixtures:')]

  def testAPresentFixtureLoadsAndNothingIsGenerated(self):
    self._Fixture(WAREHOUSES)
    said = self._Setup(self._Engine(fixtures='auto'))
    self.assertLen(self._Commands('load'), 1)
    self.assertEmpty(self._Commands('import'))
    self.assertEmpty(self._Commands('make'))
    self.assertEqual(self._Loaded(), WAREHOUSES)
    self.assertEqual(
        said,
        [
            'tpcc: fixtures: loaded 20 warehouses at'
            ' s3://pkb-tpcc-fixtures-us-east-1/cloud_report (found)'
        ],
    )

  def testAMissingFixtureFallsBackToGeneration(self):
    said = self._Setup(self._Engine(fixtures='auto'))
    self.assertLen(self._Commands('load'), 1)
    self.assertLen(self._Commands('import'), 1)
    self.assertEmpty(self._Commands('make'))
    self.assertEqual(self._Loaded(), WAREHOUSES)
    self.assertLen(said, 1)
    self.assertRegex(
        said[0],
        r'^tpcc: fixtures: generating 20 warehouses at s3://\S+ instead:'
        r' fixtures load: Error: finding fixture: fixture not found:'
        r' cloud_report/tpcc/version=2\.2\.0,\S*warehouses=20$',
    )

  def testAFixtureOfAnotherWarehouseCountIsNotLoaded(self):
    self._Fixture(10)
    said = self._Setup(self._Engine(fixtures='auto'))
    self.assertLen(self._Commands('import'), 1)
    self.assertEqual(self._Loaded(), WAREHOUSES)
    self.assertIn('fixture not found', said[0])
    self.assertIn('warehouses=20', said[0])

  def testOffRunsNoFixturesCommand(self):
    self._Fixture(WAREHOUSES)
    with mock.patch.object(fixtures, 'SetUp', side_effect=AssertionError):
      self._Engine(fixtures='off').Setup(self.topology)
    self.assertEmpty(self._Commands('load'))
    self.assertLen(self._Commands('import'), 1)

  def testMakeMakesAMissingFixtureThenLoadsIt(self):
    said = self._Setup(self._Engine(fixtures='auto', fixtures_make=True))
    self.assertEqual(
        [len(self._Commands(v)) for v in ('load', 'make', 'import')], [2, 1, 0]
    )
    self.assertEqual(self._Loaded(), WAREHOUSES)
    self.assertEqual(
        said,
        [
            'tpcc: fixtures: loaded 20 warehouses at'
            ' s3://pkb-tpcc-fixtures-us-east-1/cloud_report (none was'
            ' there: made it (fixtures make), then loaded it)'
        ],
    )

  def testAReleaseBeforeV221OnAwsGenerates(self):
    self._Install('v20.2.7')
    said = self._Setup(self._Engine(fixtures='auto', fixtures_make=True))
    self.assertEmpty(self._Commands('load'))
    self.assertLen(self._Commands('import'), 1)
    self.assertEqual(
        said,
        [
            'tpcc: fixtures: generating 20 warehouses: CockroachDB v20.2.7'
            ' keeps fixtures on GCS only (v22.1 adds s3)'
        ],
    )

  def testALoadKilledHalfWayIsResumedWithoutRunningAnythingTwice(self):
    self._Fixture(WAREHOUSES)
    self._Install(VERSION, load_s=30)
    engine = self._Engine(fixtures='auto')
    # A first Setup's load ended (here by its bound) after restoring half.
    cockroach_cluster.StartCluster([self.db], [self.store])
    flags = fixtures.StorageFlags(
        VERSION, fixtures.LocationOf(self.client, BUCKET)
    )
    load = fixtures.Command('load', WAREHOUSES, '127.0.0.1', flags)
    proc = subprocess.run(
        ['bash', '-c', f'timeout 3 {load}'], capture_output=True, check=False
    )
    self.assertEqual(proc.returncode, 124)
    self.assertEqual(self._Loaded(), WAREHOUSES // 2)
    self._Install(VERSION)  # the resumed load runs to its end
    said = self._Setup(engine)
    self.assertEqual(self._Loaded(), WAREHOUSES)
    self.assertLen(self._Commands('load'), 1)
    self.assertEmpty(self._Commands('import'))
    self.assertEmpty(self._Commands('make'))
    drops = [c for c in self.client.commands if 'DROP DATABASE' in c]
    self.assertLen(drops, 1)  # the half-loaded database, before the load
    self.assertLen(said, 1)
    # Resumed again, the loaded database is kept: nothing runs.
    self.client.commands.clear()
    engine.Setup(self.topology)
    self.assertEmpty(self._Commands(''))
    self.assertEqual(self._Loaded(), WAREHOUSES)


if __name__ == '__main__':
  absltest.main()
