# Copyright 2026 PerfKitBenchmarker Authors. All rights reserved.
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
"""TPC-C data from prebuilt fixtures in the run's cloud and region.

With --cloud_report_tpcc_fixtures=auto the cockroach engine first runs
`cockroach workload fixtures load tpcc --warehouses=N` (a RESTORE of the
BACKUP that `fixtures make` stored) from --cloud_report_tpcc_fixtures_bucket,
a bucket of the user's own in the client's cloud ({region} in its name
becomes the client's region). Bucket names are global, so there is no
default: one would load whatever that bucket's owner stored. Only when that
fails (no fixture for N
warehouses: the fixture's folder names its warehouse count, so one made for
another count is not found either; a release or cloud the commands cannot
reach; a failed restore) is the data generated as before (`fixtures
import`), after the partial restore is dropped. With
--cloud_report_tpcc_fixtures_make a missing fixture is made first (`fixtures
make`: IMPORT, then a BACKUP to the bucket) and then loaded, so the next
configuration in that cloud and region loads it.

The fixtures commands reach a bucket of the client's own cloud: before
CockroachDB v22.1 only GCS (--gcs-bucket-override); from v22.1 S3, GCS or
Azure (--provider-override, --bucket-override, --auth-params-override).
Azure needs an account name in the auth parameters, which the phase does not
have, so Azure always generates.
"""

import dataclasses
import logging
import re
import shlex

from benchmarks.cloud_report import RegionOf
from benchmarks.cloud_report import errors as report_errors
from benchmarks.cloud_report.tpcc import cockroach as cockroach_cluster
from linux_packages import cloud_report_cockroachdb as cockroachdb

AUTO = 'auto'
OFF = 'off'
MODES = (AUTO, OFF)
DATABASE = 'tpcc'
PREFIX = 'cloud_report'  # the folder under the bucket (--prefix-override)
# The fixtures commands' storage provider of each cloud.
PROVIDER_OF_CLOUD = {'AWS': 's3', 'GCP': 'gs', 'Azure': 'azure'}
# The first release whose fixtures commands take --provider-override.
FIRST_MULTI_PROVIDER_RELEASE = (22, 1, 0)
# In --cloud_report_tpcc_fixtures_bucket, what stands for the region.
REGION = '{region}'
# A bucket name valid on S3 and GCS (and an Azure container's, without dots).
_BUCKET = re.compile(r'^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$')
# What `fixtures load` prints when the bucket has no fixture for the
# generator's options (tests/data/tpcc/PROVENANCE.md).
_NOT_FOUND = re.compile(r'fixture not found|expected non zero files')


class Unsupported(report_errors.Error):
  """The fixtures commands cannot reach this cloud's bucket."""


@dataclasses.dataclass(frozen=True)
class Location:
  """Where a cloud and region keep their TPC-C fixtures."""

  provider: str  # s3, gs or azure
  bucket: str
  region: str
  prefix: str = PREFIX

  @property
  def url(self) -> str:
    return f'{self.provider}://{self.bucket}/{self.prefix}'


def BucketProblem(template: str) -> str | None:
  """Why a --cloud_report_tpcc_fixtures_bucket value names no bucket."""
  name = template.replace(REGION, 'region')
  if not _BUCKET.match(name):
    return (
        f'{template!r} is not a bucket name: 3 to 63 lowercase letters,'
        f' digits, dots and hyphens, {REGION} for the region'
    )
  return None


def BucketOf(template: str, region: str) -> str:
  """The bucket of a region: template with REGION replaced by it."""
  return template.replace(REGION, re.sub(r'[^a-z0-9-]', '', region.lower()))


def LocationOf(vm, bucket: str) -> Location:
  """The fixture location of the VM's cloud and region.

  Args:
    vm: the VM that runs the fixtures commands.
    bucket: --cloud_report_tpcc_fixtures_bucket (REGION: the VM's region).

  Raises:
    Unsupported: no bucket, or the VM's cloud has no object storage the
      commands reach.
  """
  if not bucket:
    raise Unsupported('no --cloud_report_tpcc_fixtures_bucket')
  cloud = getattr(vm, 'CLOUD', None)
  provider = PROVIDER_OF_CLOUD.get(cloud)
  if provider is None:
    raise Unsupported(f'cloud {cloud} has no fixture bucket')
  region = RegionOf(vm)
  return Location(provider, BucketOf(bucket, region), region)


def StorageFlags(version: str, location: Location) -> list[str]:
  """The fixtures commands' flags that point them at location.

  Raises:
    Unsupported: this release's commands cannot reach that provider.
  """
  if cockroachdb.ReleaseTuple(version) < FIRST_MULTI_PROVIDER_RELEASE:
    if location.provider != 'gs':
      raise Unsupported(
          f'CockroachDB {version} keeps fixtures on GCS only (v22.1 adds'
          f' {location.provider})'
      )
    return [
        f'--gcs-bucket-override={location.bucket}',
        f'--gcs-prefix-override={location.prefix}',
    ]
  if location.provider == 'azure':
    raise Unsupported('Azure fixtures need a storage account name')
  auth = 'AUTH=implicit'
  if location.provider == 's3':
    auth += f'&AWS_REGION={location.region}'
  return [
      f'--provider-override={location.provider}',
      f'--bucket-override={location.bucket}',
      f'--prefix-override={location.prefix}',
      f'--auth-params-override={shlex.quote(auth)}',
  ]


def Command(verb: str, warehouses: int, host_ip: str, flags) -> str:
  """`cockroach workload fixtures VERB tpcc` (make or load) at host_ip."""
  checks = ' --checks=false' if verb == 'load' else ''
  return (
      f'{cockroachdb.BinaryPath()} workload fixtures {verb} tpcc'
      f' --warehouses={warehouses}{checks} {" ".join(flags)}'
      f' {shlex.quote(cockroach_cluster.PgUrl(host_ip))}'
  )


def NotFound(output: str) -> bool:
  """Whether a failed `fixtures load` found no fixture (pure)."""
  return bool(_NOT_FOUND.search(output))


def LastLine(output: str) -> str:
  lines = [l.strip() for l in output.splitlines() if l.strip()]
  return lines[-1][:300] if lines else 'no output'


def LoadOrMake(run, drop, count, warehouses: int, make: bool):
  """Loads the fixture (making it first when asked and missing).

  Args:
    run: run(verb) -> (output tail, exit status) of `fixtures VERB`.
    drop: drops the database (what a failed load or a make left).
    count: count() -> warehouses the database holds (None: no table).
    warehouses: the warehouse count wanted.
    make: make a missing fixture, then load it.

  Returns:
    (loaded, why): loaded when the database holds the fixture's warehouses;
    else the database is dropped, for the data to be generated. why is one
    line.
  """
  tail, status = run('load')
  if not status and count() == warehouses:
    return True, 'found'
  why = f'fixtures load: {LastLine(tail)}'
  if not status:
    why = f'fixtures load left {count()} of {warehouses} warehouses'
  drop()
  if not (make and status and NotFound(tail)):
    return False, why
  tail, status = run('make')
  drop()  # make's tables lack what load adds (foreign keys, splits)
  if status:
    return False, f'{why}; fixtures make: {LastLine(tail)}'
  tail, status = run('load')
  if not status and count() == warehouses:
    return True, 'none was there: made it (fixtures make), then loaded it'
  drop()
  return False, f'made the fixture, then fixtures load: {LastLine(tail)}'


def SetUp(client, host_ip: str, params, bound: int, run_logged, log_dir):
  """Loads the warehouses from the fixture bucket (see the module).

  Args:
    client: the VM that runs the fixtures commands.
    host_ip: a node's address.
    params: the phase's Params (max_warehouses, fixtures_bucket,
      fixtures_make).
    bound: seconds each command may take.
    run_logged: engines.RunLogged.
    log_dir: where the commands' logs go on the client.

  Returns:
    Whether the database now holds the warehouses; when not, it holds no
    TPC-C database and the caller generates the data. Logs one line.
  """
  wanted = params.max_warehouses
  try:
    location = LocationOf(client, params.fixtures_bucket)
    version = cockroachdb.InstalledInfo(client).get('version', '')
    flags = StorageFlags(version, location)
  except Unsupported as e:
    logging.info('tpcc: fixtures: generating %d warehouses: %s', wanted, e)
    return False

  def Run(verb):
    return run_logged(
        client,
        Command(verb, wanted, host_ip, flags),
        f'{log_dir}/fixtures-{verb}.txt',
        bound,
    )

  def Drop():
    client.RemoteCommand(
        cockroach_cluster.SqlCommand(
            host_ip, f'DROP DATABASE IF EXISTS {DATABASE} CASCADE'
        )
    )

  def Count():
    return cockroach_cluster.LoadedWarehouses(client, host_ip, DATABASE)

  loaded, why = LoadOrMake(Run, Drop, Count, wanted, params.fixtures_make)
  where = f'{wanted} warehouses at {location.url}'
  if loaded:
    logging.info('tpcc: fixtures: loaded %s (%s)', where, why)
  else:
    logging.info('tpcc: fixtures: generating %s instead: %s', where, why)
  return loaded
