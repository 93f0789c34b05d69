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
"""The postgres engine's TPC-C fixtures: pg_dump files in object storage.

What CockroachDB's `workload fixtures` are to the cockroach engine: with
--cloud_report_tpcc_fixtures=auto the engine restores the dump of its
warehouse count when the bucket has one (pg_restore), else generates the
data (go-tpc prepare) and, with --cloud_report_tpcc_fixtures_make, stores a
dump of it for the next run. The bucket (--cloud_report_tpcc_fixtures_bucket)
is on the S3 endpoint of
--cloud_report_object_storage_endpoint (the local cloud's MinIO), reached
with boto3 from the PKB host; the dump travels between that host and db1 by
the VM's file copy.
"""

import logging
import os
import shlex
import tempfile

from benchmarks.cloud_report.tpcc import fixtures as tpcc_fixtures
from pkb_ext import object_storage_endpoints as endpoints

PREFIX = 'cloud_report/tpcc/postgres/'
REMOTE_FILE = 'cloud_report_tpcc.dump'  # on db1, in the login user's home


def Key(warehouses: int) -> str:
  return f'{PREFIX}warehouses={warehouses}/tpcc.dump'


class Dumps:
  """The dumps in one bucket of an S3 endpoint."""

  def __init__(self, client, bucket: str, where: str = 's3'):
    self.client = client
    self.bucket = bucket
    self.where = where

  @classmethod
  def FromFlags(cls, region: str, bucket: str) -> 'Dumps | None':
    """The bucket on the endpoint flags' S3 endpoint; None without one.

    Args:
      region: the client's region.
      bucket: --cloud_report_tpcc_fixtures_bucket ({region}: region).
    """
    endpoint = endpoints.Endpoint.FromFlags()
    if endpoint is None or endpoint.provider != 's3':
      return None
    backend = endpoints.S3EndpointBuckets(endpoint, region)
    return cls(
        backend.client, tpcc_fixtures.BucketOf(bucket, region), backend.where
    )

  def Url(self, key: str) -> str:
    return f's3://{self.bucket}/{key} ({self.where})'

  def Keys(self) -> list[str]:
    """The dumps stored (none when the bucket does not exist)."""
    try:
      pages = self.client.get_paginator('list_objects_v2').paginate(
          Bucket=self.bucket, Prefix=PREFIX
      )
      return [o['Key'] for p in pages for o in p.get('Contents', ())]
    except self.client.exceptions.NoSuchBucket:
      return []

  def Download(self, key: str, path: str) -> None:
    self.client.download_file(self.bucket, key, path)

  def Upload(self, path: str, key: str) -> None:
    """Stores the file, making the bucket first when there is none."""
    try:
      self.client.head_bucket(Bucket=self.bucket)
    except self.client.exceptions.ClientError:
      self.client.create_bucket(Bucket=self.bucket)
    self.client.upload_file(path, self.bucket, key)


def RestoreCommand(ctl, database: str) -> str:
  """pg_restore of REMOTE_FILE into the (empty) database, as postgres."""
  d = shlex.quote(ctl.data_dir)
  return (
      f'cat {REMOTE_FILE} | sudo -u postgres {ctl.bin_dir}/pg_restore -h {d}'
      f' -p {ctl.port} -d {database} --no-owner --exit-on-error'
      f' && rm -f {REMOTE_FILE}'
  )


def DumpCommand(ctl, database: str) -> str:
  """pg_dump of the database to REMOTE_FILE (custom format)."""
  d = shlex.quote(ctl.data_dir)
  return (
      f'sudo -u postgres {ctl.bin_dir}/pg_dump -h {d} -p {ctl.port} -Fc'
      f' {database} > {REMOTE_FILE}'
  )


def Restore(db, ctl, dumps: Dumps, warehouses: int, database: str) -> str:
  """Restores the dump of `warehouses` onto db; '' when done, else why not.

  The database must be empty (the engine's SetUpCommands made it); when the
  restore fails it may hold part of the dump, and the caller starts again
  from SetUpCommands.
  """
  key = Key(warehouses)
  keys = dumps.Keys()
  if key not in keys:
    others = sorted(k[len(PREFIX) :].split('/')[0] for k in keys)
    return f'no dump at {dumps.Url(key)}' + (
        f' (there: {", ".join(others)})' if others else ''
    )
  with tempfile.TemporaryDirectory(prefix='pkb-ext-tpcc-dump-') as tmp:
    local = os.path.join(tmp, 'tpcc.dump')
    dumps.Download(key, local)
    db.PushFile(local, REMOTE_FILE)
  _, err, code = db.RemoteCommandWithReturnCode(
      RestoreCommand(ctl, database), ignore_failure=True
  )
  if code:
    lines = [l for l in err.splitlines() if l.strip()]
    return f'pg_restore of {dumps.Url(key)} exited {code}: ' + (
        lines[-1][:300] if lines else 'no output'
    )
  return ''


def Save(db, ctl, dumps: Dumps, warehouses: int, database: str) -> None:
  """Stores a dump of db's database as the fixture of `warehouses`."""
  key = Key(warehouses)
  db.RemoteCommand(DumpCommand(ctl, database))
  with tempfile.TemporaryDirectory(prefix='pkb-ext-tpcc-dump-') as tmp:
    local = os.path.join(tmp, 'tpcc.dump')
    db.RemoteCopy(local, REMOTE_FILE, copy_to=False)
    dumps.Upload(local, key)
    size = os.path.getsize(local)
  db.RemoteCommand(f'rm -f {REMOTE_FILE}')
  logging.info(
      'tpcc: fixtures: stored the dump of %d warehouses (%d bytes) at %s',
      warehouses,
      size,
      dumps.Url(key),
  )
