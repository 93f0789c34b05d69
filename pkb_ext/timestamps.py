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
"""The one timestamp form pkb_ext writes, and the forms it reads.

Every sample file pkb_ext writes (the publisher's spool, the samples file of
`pkb-ext local results`) holds a sample's time as FORM, the UTC text a
BigQuery load job takes: '2021-01-01 01:00:01.000000+00:00'. Readers also
take PKB's epoch seconds (its JSON results file) and other ISO 8601 texts
('T' between date and time, 'Z', ' UTC' or another offset; no offset is UTC).
"""

import datetime
from typing import Any

FORM = 'YYYY-MM-DD hh:mm:ss.ffffff+00:00'
READ_FORMS = f'epoch seconds or a date and time such as {FORM}'
_UTC = datetime.timezone.utc


def ToUtc(value: Any) -> datetime.datetime:
  """Returns the UTC time of epoch seconds or of a date and time text.

  Raises:
    ValueError: neither, or a time outside years 1 to 9999.
  """
  if isinstance(value, (int, float)) and not isinstance(value, bool):
    try:
      return datetime.datetime.fromtimestamp(value, tz=_UTC)
    except (OverflowError, ValueError, OSError):
      raise ValueError('epoch seconds outside years 1 to 9999') from None
  if not isinstance(value, str):
    raise ValueError('not epoch seconds or a date and time')
  text = value.strip()
  if text.endswith('UTC'):
    text = text.removesuffix('UTC').strip() + '+00:00'
  try:
    when = datetime.datetime.fromisoformat(text)
  except ValueError:
    raise ValueError('not a date and time') from None
  if when.tzinfo is None:
    return when.replace(tzinfo=_UTC)
  try:
    return when.astimezone(_UTC)
  except OverflowError:
    raise ValueError('outside years 1 to 9999 in UTC') from None


def Format(value: Any) -> str:
  """Returns the time of epoch seconds or of a date and time text as FORM.

  Raises:
    ValueError: neither, or a time outside years 1 to 9999.
  """
  return ToUtc(value).isoformat(sep=' ', timespec='microseconds')
