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
"""The PKB sample publisher: spool to NDJSON, then load into BigQuery.

PKB instantiates every class in publisher.EXTERNAL_PUBLISHERS with no
arguments and calls it for every run. Every run's samples are spooled: to
--cloud_report_spool_dir, or else to PKB's run directory
(vm_util.GetTempDir(), which a resumed run shares, so its samples join the
same spool). They are loaded into BigQuery only with --cloud_report_bq_table.
Importing this module defines its flags.

Samples are appended to the spool (and fsync'd) before any network call. A
failed publish is logged as an error naming the table, the cause and the
command that publishes the spool later; it never fails the run or keeps
PKB's other publishers from running.

When the process that spooled exits (after PKB's own results summary), the
spool's headline figures are logged with its path and the commands that
build the report and publish it (summary.Format). Processes that PKB's
--run_processes starts spool without a summary: the main one reads the
spool they share when it exits.
"""

import atexit
import dataclasses
import logging
import math
import multiprocessing
import os
import shlex
import threading

from absl import flags
from perfkitbenchmarker import publisher as pkb_publisher
from perfkitbenchmarker import vm_util

from pkb_ext.publish import bigquery
from pkb_ext.publish import ids
from pkb_ext.publish import schema
from pkb_ext.publish import spool
from pkb_ext.publish import summary

_TABLE = flags.DEFINE_string(
    'cloud_report_bq_table',
    None,
    'BigQuery table (project.dataset.table) that pkb_ext loads samples into'
    ' with load jobs; created from schema.json if missing. Unset: no BigQuery.',
)
_LOCATION = flags.DEFINE_string(
    'cloud_report_bq_location',
    bigquery.DEFAULT_LOCATION,
    'BigQuery location of the dataset and the load jobs.',
)
_CREDENTIALS = flags.DEFINE_string(
    'cloud_report_bq_credentials',
    None,
    'Service account key file for BigQuery. Unset: Application Default'
    ' Credentials (anonymous with a plain http endpoint); "anonymous" for an'
    ' emulator.',
)
_ENDPOINT = flags.DEFINE_string(
    'cloud_report_bq_endpoint',
    None,
    'BigQuery API endpoint override, e.g. http://127.0.0.1:9050 for an'
    ' emulator.',
)
_SPOOL_DIR = flags.DEFINE_string(
    'cloud_report_spool_dir',
    None,
    'Directory of the NDJSON spool of samples (every run spools). Default:'
    ' the PKB run directory (vm_util.GetTempDir()).',
)
_BATCH_SIZE = flags.DEFINE_integer(
    'cloud_report_bq_batch_size',
    spool.DEFAULT_BATCH_SIZE,
    'Rows per BigQuery load job.',
    lower_bound=1,
    upper_bound=1_000_000,
)
_TIMEOUT = flags.DEFINE_float(
    'cloud_report_bq_timeout',
    bigquery.DEFAULT_TIMEOUT_S,
    'Seconds to keep retrying a BigQuery call or waiting for a load job.',
    lower_bound=1.0,
)


def _Validator(parse):
  def Check(value):
    if value is None:
      return True
    try:
      parse(value)
    except ids.InvalidIdError as e:
      raise flags.ValidationError(str(e)) from None
    return True

  return Check


def _CheckCredentials(value):
  if value in (None, '', bigquery.ANONYMOUS) or os.path.isfile(value):
    return True
  raise flags.ValidationError(
      '--cloud_report_bq_credentials must be a key file that exists, or'
      f' {bigquery.ANONYMOUS!r}'
  )


flags.register_validator(
    'cloud_report_bq_table',
    _Validator(ids.ParseTableId),
    message='--cloud_report_bq_table is invalid',
)
flags.register_validator(
    'cloud_report_bq_location',
    _Validator(ids.ValidateLocation),
    message='--cloud_report_bq_location is invalid',
)
flags.register_validator(
    'cloud_report_bq_endpoint',
    _Validator(ids.ValidateEndpoint),
    message='--cloud_report_bq_endpoint is invalid',
)
flags.register_validator(
    'cloud_report_bq_timeout',
    lambda value: value is None or math.isfinite(value),
    message='--cloud_report_bq_timeout must be a finite number of seconds',
)
flags.register_validator(
    'cloud_report_bq_credentials',
    _CheckCredentials,
    message='--cloud_report_bq_credentials is invalid',
)


def _NearestExisting(path: str) -> str:
  path = os.path.abspath(path)
  while not os.path.exists(path):
    parent = os.path.dirname(path)
    if parent == path:
      break
    path = parent
  return path


def SpoolProblems(spool_dir: str | None) -> list[str]:
  """Problems of a spool directory that could not take the samples."""
  if not spool_dir:
    return []
  name = _SPOOL_DIR.name
  fix = f'set --{name} to a writable directory'
  existing = _NearestExisting(spool_dir)
  if existing != os.path.abspath(spool_dir) and not os.path.isdir(existing):
    return [f'--{name}={spool_dir}: {existing} is not a directory; {fix}']
  if not os.path.isdir(existing):
    return [f'--{name}={spool_dir} is not a directory; {fix}']
  if not os.access(existing, os.W_OK | os.X_OK):
    return [
        f'--{name}={spool_dir}: {existing} is not writable by this user; {fix}'
    ]
  return []


def SpoolCheck(benchmark_config, names) -> list[str]:
  """Preflight's check of --cloud_report_spool_dir (pkb_ext.suite.preflight)."""
  del benchmark_config, names  # the spool serves every benchmark
  return SpoolProblems(_SPOOL_DIR.value)


@dataclasses.dataclass(frozen=True)
class Params:
  """The publisher's flags, read once."""

  table: ids.TableId | None
  location: str
  credentials: str | None = dataclasses.field(repr=False)
  endpoint: str | None
  spool_dir: str | None
  batch_size: int
  timeout_s: float

  @classmethod
  def FromFlags(cls) -> 'Params':
    return cls(
        table=ids.ParseTableId(_TABLE.value) if _TABLE.value else None,
        location=ids.ValidateLocation(_LOCATION.value),
        credentials=_CREDENTIALS.value or None,
        endpoint=(
            ids.ValidateEndpoint(_ENDPOINT.value) if _ENDPOINT.value else None
        ),
        spool_dir=_SPOOL_DIR.value or None,
        batch_size=_BATCH_SIZE.value,
        timeout_s=_TIMEOUT.value,
    )

  def SpoolPath(self, run_uri: str) -> str:
    """The spool of a run: in spool_dir, else in PKB's run directory."""
    return spool.SpoolPath(self.spool_dir or vm_util.GetTempDir(), run_uri)

  def Target(self) -> bigquery.Target:
    return bigquery.Target(
        table=self.table,
        location=self.location,
        credentials=self.credentials,
        endpoint=self.endpoint,
        timeout_s=self.timeout_s,
    )

  def RepublishCommand(self, path: str) -> str:
    """Returns the pkb-ext command that publishes the spool later."""
    argv = ['pkb-ext', 'publish', path, '--table', str(self.table)]
    if self.location != bigquery.DEFAULT_LOCATION:
      argv += ['--location', self.location]
    if self.endpoint:
      argv += ['--endpoint', self.endpoint]
    if self.batch_size != spool.DEFAULT_BATCH_SIZE:
      argv += ['--batch-size', str(self.batch_size)]
    return shlex.join(argv)


_lock = threading.Lock()
_spooled: list[str] = []  # spools this process wrote, in order


def LogSummary(paths: list[str]) -> None:
  """Logs the results summary (summary.Format) of each spool in paths."""
  for path in paths:
    try:
      rows = summary.ReadRows([path])
    except OSError as e:
      logging.warning(
          'pkb_ext: no results summary: cannot read %s: %s', path, e
      )
      continue
    logging.info('\n%s', summary.Format(rows, path))


def _LogSpooled() -> None:
  with _lock:
    paths = list(_spooled)
  LogSummary(paths)


def SummarizeAtExit(path: str) -> None:
  """Has the main process log the summary of the spool path when it exits.

  The first call registers the exit handler. atexit runs handlers last in,
  first out, so it runs after pkb.py's Main returned and before logging's
  own shutdown (registered when logging was first imported).
  """
  if multiprocessing.parent_process() is not None:
    return  # a --run_processes worker: the main process summarizes
  with _lock:
    if path in _spooled:
      return
    if not _spooled:
      atexit.register(_LogSpooled)
    _spooled.append(path)


class CloudReportPublisher(pkb_publisher.SamplePublisher):
  """Spools samples, then loads them into BigQuery (see module docstring)."""

  def __repr__(self):
    return f'<{type(self).__name__}>'

  def PublishSamples(self, samples):
    if not flags.FLAGS.is_parsed() or not samples:
      return
    params = Params.FromFlags()
    path = params.SpoolPath(flags.FLAGS.run_uri)
    try:
      count = spool.AppendSamples(path, samples, params.batch_size)
    except (schema.SchemaError, spool.SpoolError) as e:
      logging.error('pkb_ext cannot spool %d samples: %s', len(samples), e)
      return
    logging.info('pkb_ext spooled %d samples to %s', count, path)
    SummarizeAtExit(path)
    if params.table is None:
      return
    try:
      _, result = bigquery.PublishFiles(
          params.Target(), [path], params.batch_size
      )
    except (bigquery.PublishError, spool.SpoolError) as e:
      logging.error(
          'pkb_ext: %s. The samples are kept in the spool %s; publish them'
          ' later with: %s',
          e,
          path,
          params.RepublishCommand(path),
      )
      return
    except Exception:  # pylint: disable=broad-except
      logging.exception(
          'pkb_ext: publishing to %s failed; the spool %s is kept; publish it'
          ' later with: %s',
          params.table,
          path,
          params.RepublishCommand(path),
      )
      return
    logging.info(
        'pkb_ext published %s to %s: %d rows loaded in %d load jobs, %d rows'
        ' already there',
        path,
        params.table,
        result.Rows('loaded'),
        result.Batches('loaded'),
        result.Rows('skipped'),
    )
