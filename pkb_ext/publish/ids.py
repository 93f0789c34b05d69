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
"""BigQuery identifiers: validated table ids and deterministic load job ids.

A load job id is a function of the destination table, the batch's key and the
batch's exact NDJSON bytes, plus an attempt number. Publishing the same batch
to the same table again therefore finds the job that already loaded it.
"""

import dataclasses
import hashlib
import re

from pkb_ext import errors

# https://cloud.google.com/resource-manager/docs/creating-managing-projects:
# 6-30 lowercase letters, digits and hyphens, starting with a letter and not
# ending with a hyphen; legacy domain-scoped projects prefix "domain:".
_PROJECT = re.compile(
    r'(?:[a-z][a-z0-9.-]{0,61}[a-z0-9]:)?[a-z][a-z0-9-]{4,28}[a-z0-9]'
)
_DATASET = re.compile(r'[A-Za-z0-9_]{1,1024}')
# BigQuery allows more (Unicode letters, spaces); we accept a safe subset.
_TABLE = re.compile(r'[A-Za-z0-9_][A-Za-z0-9_-]{0,1023}')
_LOCATION = re.compile(r'[A-Za-z][A-Za-z0-9-]{1,39}')
_JOB_UNSAFE = re.compile(r'[^A-Za-z0-9_-]')
JOB_PREFIX = 'pkb_ext_load'


class InvalidIdError(errors.Error, ValueError):
  """An identifier is not a valid BigQuery name."""


@dataclasses.dataclass(frozen=True)
class TableId:
  """A fully qualified BigQuery table."""

  project: str
  dataset: str
  table: str

  def __str__(self) -> str:
    return f'{self.project}.{self.dataset}.{self.table}'

  @property
  def dataset_id(self) -> str:
    return f'{self.project}.{self.dataset}'


def SplitTableId(text: str) -> TableId:
  """Splits 'project.dataset.table' without validating the three parts.

  Raises:
    InvalidIdError: if the text is not three non-empty parts.
  """
  parts = (text or '').rsplit('.', 2)
  if len(parts) != 3 or not all(parts):
    raise InvalidIdError(
        f'table {text!r} must be project.dataset.table (all three parts)'
    )
  return TableId(*parts)


def ParseTableId(text: str) -> TableId:
  """Parses and validates 'project.dataset.table'.

  Args:
    text: the table id.

  Returns:
    A TableId.

  Raises:
    InvalidIdError: naming the part that is wrong.
  """
  split = SplitTableId(text)
  project, dataset, table = split.project, split.dataset, split.table
  for kind, pattern, value, rule in (
      (
          'project',
          _PROJECT,
          project,
          '6-30 lowercase letters, digits or hyphens, starting with a letter',
      ),
      ('dataset', _DATASET, dataset, 'letters, digits or underscores'),
      (
          'table',
          _TABLE,
          table,
          'letters, digits, underscores or hyphens, not starting with "-"',
      ),
  ):
    if not pattern.fullmatch(value):
      raise InvalidIdError(
          f'table {text!r}: {kind} {value!r} is invalid (expected {rule})'
      )
  return TableId(project, dataset, table)


def ValidateLocation(location: str) -> str:
  """Returns a BigQuery location (US, EU, us-central1, ...) or raises."""
  if not _LOCATION.fullmatch(location or ''):
    raise InvalidIdError(
        f'location {location!r} is invalid (expected e.g. US, EU, us-central1)'
    )
  return location


def ValidateEndpoint(endpoint: str) -> str:
  """Returns an API endpoint URL (http or https, no path) or raises."""
  if not re.fullmatch(r'https?://[A-Za-z0-9.\[\]:-]+/?', endpoint or ''):
    raise InvalidIdError(
        f'endpoint {endpoint!r} is invalid (expected http[s]://host[:port])'
    )
  return endpoint.rstrip('/')


def ContentDigest(table: TableId, batch_key: str, payload: bytes) -> str:
  """Returns the hex SHA-256 of a batch bound for a table."""
  digest = hashlib.sha256(f'{table}\n{batch_key}\n'.encode())
  digest.update(payload)
  return digest.hexdigest()


def LoadJobId(
    table: TableId, run_uri: str, batch_key: str, payload: bytes, attempt: int
) -> str:
  """Returns the deterministic id of a load job.

  Args:
    table: the destination table.
    run_uri: the run the batch's rows come from (readability only).
    batch_key: the batch's key in the spool.
    payload: the exact NDJSON bytes loaded.
    attempt: 0 for the first job of the batch; later attempts follow jobs
      that failed (a failed BigQuery load job loads nothing).

  Returns:
    A job id of letters, digits, '_' and '-', under 1024 characters.
  """
  if attempt < 0:
    raise ValueError(f'attempt must be >= 0, got {attempt}')
  run = _JOB_UNSAFE.sub('_', run_uri or 'none')[:64]
  key = _JOB_UNSAFE.sub('_', batch_key)[:64]
  digest = ContentDigest(table, batch_key, payload)[:20]
  return f'{JOB_PREFIX}_{run}_{key}_{digest}_a{attempt}'
