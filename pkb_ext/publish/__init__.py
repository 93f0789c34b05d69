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
"""Publishing: NDJSON spool and BigQuery.

schema.json   the table's columns, partitioning and clustering
schema        sample -> row, migration plan (pure)
spool         the NDJSON spool, with stable batch keys
ids           table ids and deterministic load job ids
bigquery      table creation/migration and idempotent load jobs
summary       the results summary a run ends with (pure), read from its spool
publisher     PKB's SamplePublisher and its flags
cli           pkb-ext publish SPOOL --table T [--dry-run]
"""


def PublisherClasses() -> list[type]:
  """Returns the PKB SamplePublisher classes pkb_ext registers.

  Each class must take no __init__ arguments and do nothing unless its flags
  turn it on, since PKB calls every external publisher unconditionally.
  """
  from pkb_ext.publish import publisher  # pylint: disable=g-import-not-at-top

  return [publisher.CloudReportPublisher]
