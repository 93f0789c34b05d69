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
"""Loads spooled batches into BigQuery with google-cloud-bigquery.

The table is created (or migrated by adding columns) from schema.json. Each
batch goes in by one NDJSON load job whose id is deterministic (ids.LoadJobId):
before loading, the job id is looked up, and a job that already succeeded
means the batch is in the table, so it is skipped. A failed load job loads
nothing; the next attempt number gets a new id. A job still running is
waited for, never duplicated. (Job ids are remembered only as long as
BigQuery keeps job history, about six months: a spool re-published later than
that would be loaded again.)

google-cloud-bigquery is imported lazily, so PKB starts without it.
"""

import concurrent.futures
import dataclasses
import io
import logging
import time
from typing import Any, Callable, Sequence

from pkb_ext import errors
from pkb_ext.publish import ids
from pkb_ext.publish import schema
from pkb_ext.publish import spool

ANONYMOUS = 'anonymous'
DEFAULT_LOCATION = 'US'
DEFAULT_TIMEOUT_S = 300.0
# New jobs one invocation may submit for a batch (the second only after a
# retryable failure), and how many earlier failed attempts we look past.
_MAX_SUBMISSIONS = 2
_MAX_ATTEMPTS = 100
_RETRYABLE_REASONS = frozenset(
    {'backendError', 'internalError', 'rateLimitExceeded', 'timeout'}
)
_SCOPES = ('https://www.googleapis.com/auth/bigquery',)


class PublishError(errors.Error):
  """Publishing failed; the message names the table and the cause."""


@dataclasses.dataclass(frozen=True)
class Target:
  """Where and how to publish. credentials is a key file path, 'anonymous'
  or None for Application Default Credentials; it is never printed."""

  table: ids.TableId
  location: str = DEFAULT_LOCATION
  credentials: str | None = dataclasses.field(default=None, repr=False)
  endpoint: str | None = None
  timeout_s: float = DEFAULT_TIMEOUT_S


@dataclasses.dataclass(frozen=True)
class Outcome:
  """What happened to one batch."""

  key: str
  rows: int
  job_id: str
  action: str  # 'loaded' or 'skipped' (an earlier job loaded it)
  seconds: float


@dataclasses.dataclass
class Result:
  outcomes: list[Outcome] = dataclasses.field(default_factory=list)

  def Rows(self, action: str) -> int:
    return sum(o.rows for o in self.outcomes if o.action == action)

  def Batches(self, action: str) -> int:
    return sum(1 for o in self.outcomes if o.action == action)


def _Credentials(target: Target):
  """Returns google-auth credentials, or None for ADC."""
  from google.auth import credentials as auth_credentials  # pylint: disable=g-import-not-at-top

  plain_http = (target.endpoint or '').startswith('http://')
  if target.credentials == ANONYMOUS or (plain_http and not target.credentials):
    return auth_credentials.AnonymousCredentials()
  if not target.credentials:
    return None
  from google.oauth2 import service_account  # pylint: disable=g-import-not-at-top

  try:
    return service_account.Credentials.from_service_account_file(
        target.credentials, scopes=_SCOPES
    )
  except OSError as e:
    raise PublishError(
        f'cannot publish to {target.table}: cannot read the credentials key'
        f' file ({e.strerror})'
    ) from None
  except Exception as e:  # pylint: disable=broad-except
    raise PublishError(
        f'cannot publish to {target.table}: the credentials key file is not'
        f' a service account key ({type(e).__name__})'
    ) from None


def MakeClient(target: Target):
  """Returns a bigquery.Client for the target."""
  try:
    from google.cloud import bigquery  # pylint: disable=g-import-not-at-top
  except ImportError as e:
    raise PublishError(
        f'cannot publish to {target.table}: google-cloud-bigquery is not'
        ' installed (pip install "pkb-ext[bigquery]")'
    ) from e
  options = {'api_endpoint': target.endpoint} if target.endpoint else None
  try:
    return bigquery.Client(
        project=target.table.project,
        credentials=_Credentials(target),
        location=target.location,
        client_options=options,
    )
  except PublishError:
    raise
  except Exception as e:  # pylint: disable=broad-except
    raise PublishError(
        f'cannot publish to {target.table}: no BigQuery client'
        f' ({type(e).__name__}: {e})'
    ) from None


class Publisher:
  """Creates/migrates the table and loads batches, idempotently."""

  def __init__(
      self,
      target: Target,
      client: Any = None,
      spec: schema.TableSpec | None = None,
      progress: Callable[[int, int, Outcome], None] | None = None,
  ):
    self.target = target
    self.client = client if client is not None else MakeClient(target)
    from google.cloud import bigquery  # pylint: disable=g-import-not-at-top

    self._bq = bigquery
    self.spec = spec or schema.Load()
    self._progress = progress
    self._retry = bigquery.DEFAULT_RETRY.with_timeout(target.timeout_s)
    self._table = None

  def _Error(self, what: str, e: Exception) -> PublishError:
    logging.debug('BigQuery error', exc_info=True)
    return PublishError(
        f'cannot {what} {self.target.table}: {type(e).__name__}: {e}'
    )

  def _Fields(self, fields: Sequence[schema.Field]):
    return [
        self._bq.SchemaField(
            f.name, f.type, mode=f.mode, description=f.description or None
        )
        for f in fields
    ]

  def EnsureTable(self):
    """Creates the dataset and table if missing; adds missing columns."""
    from google.api_core import exceptions  # pylint: disable=g-import-not-at-top

    bq, spec, target = self._bq, self.spec, self.target
    kw = {'retry': self._retry, 'timeout': target.timeout_s}
    try:
      try:
        self.client.get_dataset(target.table.dataset_id, **kw)
      except exceptions.NotFound:
        dataset = bq.Dataset(target.table.dataset_id)
        dataset.location = target.location
        self.client.create_dataset(dataset, exists_ok=True, **kw)
      try:
        table = self.client.get_table(str(target.table), **kw)
      except exceptions.NotFound:
        table = bq.Table(str(target.table), schema=self._Fields(spec.fields))
        table.time_partitioning = bq.TimePartitioning(
            type_=spec.partition_type, field=spec.partition_field
        )
        table.clustering_fields = list(spec.clustering)
        table.description = spec.description
        table = self.client.create_table(table, exists_ok=True, **kw)
        logging.info('Created BigQuery table %s', target.table)
      added = schema.PlanMigration(
          [(f.name, f.field_type) for f in table.schema], spec
      )
      if added:
        table.schema = list(table.schema) + self._Fields(added)
        table = self.client.update_table(table, ['schema'], **kw)
        logging.info(
            'Migrated %s: added column(s) %s',
            target.table,
            ', '.join(f.name for f in added),
        )
      if list(table.clustering_fields or []) != list(spec.clustering):
        table.clustering_fields = list(spec.clustering)
        table = self.client.update_table(table, ['clustering_fields'], **kw)
      partitioning = table.time_partitioning
      if partitioning is None or partitioning.field != spec.partition_field:
        logging.warning(
            '%s is not partitioned by day on %s (an older table?); BigQuery'
            ' cannot change that in place',
            target.table,
            spec.partition_field,
        )
    except schema.SchemaError as e:
      raise PublishError(f'cannot migrate {target.table}: {e}') from None
    except Exception as e:  # pylint: disable=broad-except
      raise self._Error('create or migrate', e) from None
    self._table = table
    return table

  def _GetJob(self, job_id: str):
    from google.api_core import exceptions  # pylint: disable=g-import-not-at-top

    try:
      return self.client.get_job(
          job_id,
          location=self.target.location,
          retry=self._retry,
          timeout=self.target.timeout_s,
      )
    except exceptions.NotFound:
      return None

  def _Submit(self, job_id: str, batch: spool.Batch):
    """Starts a load job; returns (job, True), or (existing job, False)."""
    from google.api_core import exceptions  # pylint: disable=g-import-not-at-top

    config = self._bq.LoadJobConfig(
        schema=self._table.schema,
        source_format=self._bq.SourceFormat.NEWLINE_DELIMITED_JSON,
        write_disposition=self._bq.WriteDisposition.WRITE_APPEND,
        create_disposition=self._bq.CreateDisposition.CREATE_NEVER,
        max_bad_records=0,
        ignore_unknown_values=False,
    )
    try:
      job = self.client.load_table_from_file(
          io.BytesIO(batch.payload),
          str(self.target.table),
          size=len(batch.payload),
          num_retries=2,
          job_id=job_id,
          location=self.target.location,
          job_config=config,
          timeout=self.target.timeout_s,
      )
      return job, True
    except exceptions.Conflict:
      return self._GetJob(job_id), False

  def _Wait(self, job) -> dict[str, Any] | None:
    """Waits for a job; returns its error result, or None if it succeeded."""
    from google.api_core import exceptions  # pylint: disable=g-import-not-at-top

    try:
      job.result(retry=self._retry, timeout=self.target.timeout_s)
    except concurrent.futures.TimeoutError:
      raise PublishError(
          f'cannot publish to {self.target.table}: load job {job.job_id} is'
          f' still {job.state} after {self.target.timeout_s:g} s; re-run later'
          ' (a new job could duplicate its rows)'
      ) from None
    except exceptions.GoogleAPICallError:
      if not job.error_result:
        raise
    return job.error_result

  def _LoadBatch(self, batch: spool.Batch) -> Outcome:
    started = time.monotonic()
    submitted, last_error = 0, None
    for attempt in range(_MAX_ATTEMPTS):
      table, key, payload = self.target.table, batch.key, batch.payload
      job_id = ids.LoadJobId(table, batch.run_uri, key, payload, attempt)
      job, ours = self._GetJob(job_id), False
      if job is None:
        if submitted >= _MAX_SUBMISSIONS:
          break
        job, ours = self._Submit(job_id, batch)
        submitted += ours
      error = self._Wait(job)
      if error is None:
        loaded = job.output_rows
        if loaded is not None and loaded != len(batch.rows):
          raise PublishError(
              f'cannot publish to {table}: load job {job_id} loaded'
              f' {loaded} rows, expected {len(batch.rows)}'
          )
        return Outcome(
            key=key,
            rows=len(batch.rows),
            job_id=job_id,
            action='loaded' if ours else 'skipped',
            seconds=time.monotonic() - started,
        )
      last_error = f'load job {job_id} failed: {error.get("message", error)}'
      logging.warning('%s (batch %s of %s)', last_error, key, table)
      if ours and error.get('reason') not in _RETRYABLE_REASONS:
        break
    raise PublishError(f'cannot publish to {self.target.table}: {last_error}')

  def Publish(self, batches: Sequence[spool.Batch]) -> Result:
    """Loads every batch that is not yet in the table.

    Raises:
      PublishError: at the first batch that cannot be loaded; batches before
        it are in the table, and a re-run skips them.
    """
    if self._table is None:
      self.EnsureTable()
    result = Result()
    for index, batch in enumerate(batches):
      try:
        outcome = self._LoadBatch(batch)
      except PublishError:
        raise
      except Exception as e:  # pylint: disable=broad-except
        raise self._Error(f'load batch {batch.key} into', e) from None
      result.outcomes.append(outcome)
      if self._progress:
        self._progress(index, len(batches), outcome)
    return result


def PublishFiles(
    target: Target,
    paths: Sequence[str],
    batch_size: int = spool.DEFAULT_BATCH_SIZE,
    progress: Callable[[int, int, Outcome], None] | None = None,
    client: Any = None,
) -> tuple[spool.Contents, Result]:
  """Reads spool files and publishes every batch not yet in the table."""
  contents = spool.Read(paths, batch_size)
  publisher = Publisher(target, client=client, progress=progress)
  return contents, publisher.Publish(contents.batches)
