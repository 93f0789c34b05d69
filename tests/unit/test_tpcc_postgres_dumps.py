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
"""pkb_ext.tpcc_postgres.dumps without a database or a bucket.

The dump made, stored in MinIO and restored for real:
tests/local/test_tpcc_postgres_fixtures.py.
"""

from absl.testing import absltest

from pkb_ext.tpcc_postgres import dumps
from pkb_ext.tpcc_postgres import engine as pg_engine


class _Paginator:

  def __init__(self, keys):
    self.keys = keys

  def paginate(self, Bucket, Prefix):  # pylint: disable=invalid-name
    del Bucket
    return [{'Contents': [{'Key': k} for k in self.keys
                          if k.startswith(Prefix)]}]  # fmt: skip


class _S3:
  """A bucket's listing, as boto3's client gives it."""

  class exceptions:  # pylint: disable=invalid-name
    NoSuchBucket = KeyError

  def __init__(self, keys):
    self.keys = keys

  def get_paginator(self, name):
    assert name == 'list_objects_v2'
    return _Paginator(self.keys)


class _Db:

  def __init__(self):
    self.commands = []

  def RemoteCommandWithReturnCode(self, command, **kw):
    self.commands.append(command)
    return '', '', 0


_CTL = pg_engine.PostgresCommands('/pg/bin', '/data/pg', 5433)


class DumpsTest(absltest.TestCase):

  def testNoDumpOfTheWarehouseCountSaysWhichThereAre(self):
    store = dumps.Dumps(_S3([dumps.Key(1), dumps.Key(3)]), 'b', where='s3 at E')
    db = _Db()
    why = dumps.Restore(db, _CTL, store, 2, 'tpcc')
    self.assertEqual(
        why,
        'no dump at s3://b/cloud_report/tpcc/'
        'postgres/warehouses=2/tpcc.dump (s3 at E) (there: warehouses=1,'
        ' warehouses=3)',
    )
    self.assertEmpty(db.commands)  # nothing restored

  def testAnEmptyBucket(self):
    why = dumps.Restore(_Db(), _CTL, dumps.Dumps(_S3([]), 'b'), 2, 'tpcc')
    self.assertTrue(why.startswith('no dump at s3://'), why)
    self.assertNotIn('there', why)

  def testTheCommands(self):
    self.assertEqual(
        dumps.RestoreCommand(_CTL, 'tpcc'),
        'cat cloud_report_tpcc.dump | sudo -u postgres /pg/bin/pg_restore -h'
        ' /data/pg -p 5433 -d tpcc --no-owner --exit-on-error && rm -f'
        ' cloud_report_tpcc.dump',
    )
    self.assertEqual(
        dumps.DumpCommand(_CTL, 'tpcc'),
        'sudo -u postgres /pg/bin/pg_dump -h /data/pg -p 5433 -Fc tpcc >'
        ' cloud_report_tpcc.dump',
    )


if __name__ == '__main__':
  absltest.main()
