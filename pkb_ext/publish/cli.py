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
"""pkb-ext publish SPOOL... --table PROJECT.DATASET.TABLE [--dry-run]

Publishes NDJSON spools (the publisher's, the samples file of `pkb-ext
local results`, or PKB's own JSON output) to BigQuery. A SPOOL directory stands for its *.ndjson files. Batches already
loaded by an earlier publish are skipped, so re-running after a failure, or
twice, never duplicates rows. Every row is checked against the table's
schema as a load job would check it (types, ranges, timestamps,
schema_version) before anything is sent; --dry-run does the same and shows
the schema, the batches and their job ids without any network call (a table
name BigQuery would refuse, e.g. a placeholder such as p.d.t, is noted
rather than refused there).
"""

import argparse
import logging
import os
from typing import Sequence

from pkb_ext import command
from pkb_ext import inputs
from pkb_ext.publish import bigquery
from pkb_ext.publish import ids
from pkb_ext.publish import schema
from pkb_ext.publish import spool

PROG = 'pkb-ext publish'


def _Checked(parse):
  def Parse(text):
    try:
      return parse(text)
    except ids.InvalidIdError as e:
      raise argparse.ArgumentTypeError(str(e)) from None

  return Parse


def _Credentials(text: str) -> str:
  if text != bigquery.ANONYMOUS and not os.path.isfile(text):
    raise argparse.ArgumentTypeError(
        f'must be a key file that exists, or {bigquery.ANONYMOUS!r}'
    )
  return text


def BuildParser() -> argparse.ArgumentParser:
  parser = command.ArgumentParser(
      prog=PROG,
      description='Publish NDJSON sample spools to BigQuery, idempotently.',
  )
  parser.add_argument(
      'spools',
      nargs='+',
      metavar='SPOOL',
      help='an NDJSON spool file, or a spool directory (its *.ndjson)',
  )
  parser.add_argument(
      '--table',
      required=True,
      type=_Checked(ids.SplitTableId),
      help=(
          'project.dataset.table (with --dry-run, names BigQuery would refuse'
          ' are only noted)'
      ),
  )
  parser.add_argument(
      '--location',
      default=bigquery.DEFAULT_LOCATION,
      type=_Checked(ids.ValidateLocation),
  )
  parser.add_argument(
      '--credentials',
      type=_Credentials,
      help='service account key file (default: ADC; "anonymous")',
  )
  parser.add_argument(
      '--endpoint',
      type=_Checked(ids.ValidateEndpoint),
      help='API endpoint override, e.g. an emulator',
  )
  parser.add_argument(
      '--batch-size',
      type=command.Number(int, above=0),
      default=spool.DEFAULT_BATCH_SIZE,
      help='rows per load job, for lines without a batch key',
  )
  parser.add_argument(
      '--timeout',
      type=command.Number(float, above=0),
      default=bigquery.DEFAULT_TIMEOUT_S,
      help='seconds to retry a call or wait for a job',
  )
  parser.add_argument(
      '--dry-run',
      action='store_true',
      help='show what would be published; no network',
  )
  parser.add_argument('-q', '--quiet', action='store_true')
  return parser


def _TableProblem(parser, args) -> str | None:
  """What is wrong with --table's parts; refused unless --dry-run.

  Raises:
    errors.UsageError: an invalid part without --dry-run (exit 2).
  """
  try:
    ids.ParseTableId(str(args.table))
  except ids.InvalidIdError as e:
    if not args.dry_run:
      parser.error(f'argument --table: {e}')
    return str(e)
  return None


def _DryRun(args, contents: spool.Contents, table_problem: str | None):
  spec = schema.Load()
  print(f'table: {args.table} (location {args.location})')
  if table_problem:
    print(f'note: {table_problem}; publishing there would be refused')
  print(
      f'schema: version {spec.version}, partitioned by {spec.partition_type}'
      f' on {spec.partition_field}, clustered by {", ".join(spec.clustering)}'
  )
  for field in spec.fields:
    print(f'  {field.name} {field.type} {field.mode}')
  n = len(contents.batches)
  for i, batch in enumerate(contents.batches, 1):
    job_id = ids.LoadJobId(
        args.table, batch.run_uri, batch.key, batch.payload, 0
    )
    print(f'batch {i}/{n}: {len(batch.rows)} rows, job {job_id}')
  print(
      f'would publish {contents.rows} rows in {n} load jobs'
      f' ({contents.duplicate_lines} duplicate lines ignored);'
      ' batches already loaded would be skipped'
  )
  print('dry run: nothing was sent')


def _Publish(argv: Sequence[str]) -> int:
  parser = BuildParser()
  args = parser.parse_args(argv)
  table_problem = _TableProblem(parser, args)
  logging.basicConfig(
      level=logging.WARNING if args.quiet else logging.INFO,
      format='%(levelname)s %(message)s',
  )
  files = inputs.ExpandSampleFiles(args.spools)
  contents = spool.Read(files, args.batch_size)
  if args.dry_run:
    _DryRun(args, contents, table_problem)
    return 0
  target = bigquery.Target(
      table=args.table,
      location=args.location,
      credentials=args.credentials,
      endpoint=args.endpoint,
      timeout_s=args.timeout,
  )

  def Progress(index: int, total: int, outcome: bigquery.Outcome) -> None:
    if not args.quiet:
      print(
          f'batch {index + 1}/{total}: {outcome.action} {outcome.rows} rows'
          f' (job {outcome.job_id}) in {outcome.seconds:.2f} s',
          flush=True,
      )

  try:
    publisher = bigquery.Publisher(target, progress=Progress)
    result = publisher.Publish(contents.batches)
  except bigquery.PublishError as e:
    raise bigquery.PublishError(
        f'{e}. The spool is unchanged; re-run the same command to publish'
        ' the rest (loaded batches are skipped).'
    ) from e
  print(
      f'published {contents.rows} rows to {args.table}:'
      f' {result.Rows("loaded")} rows loaded in {result.Batches("loaded")}'
      f' load jobs, {result.Rows("skipped")} rows already loaded'
      f' ({result.Batches("skipped")} batches skipped)',
      flush=True,
  )
  return 0


def Main(argv: Sequence[str]) -> int:
  return command.Run(PROG, _Publish, argv)
