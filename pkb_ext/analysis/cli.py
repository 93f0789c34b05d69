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
"""pkb-ext report: the report's tables and charts from published samples.

  pkb-ext report --samples S.ndjson|SPOOL_DIR [...] --out DIR
      loads the samples into DuckDB and runs the analysis SQL transpiled;
  pkb-ext report --table PROJECT.DATASET.TABLE --out DIR
      runs the same SQL on BigQuery (application default credentials, or
      --bigquery-endpoint for an emulator);
  --create-views PROJECT.DATASET (with --table) also keeps the views there;
  --print-sql VIEW prints the query of a view for the chosen backend.

DIR receives report.html, report.md and chart_*.png: they are written into
a fresh directory that replaces DIR only when complete (DIR, if it exists,
may hold only an earlier report). Samples that cannot be right (a value that
is not a finite number, a timestamp that is not a time, metadata that is not
an object, several report versions, none at all) are refused with a one-line
error naming the file and line, exit status 1; a BigQuery call gives up after
--timeout seconds.
"""

import argparse
import sys
from typing import Sequence

from pkb_ext import command
from pkb_ext import errors
from pkb_ext import inputs
from pkb_ext import pricing
from pkb_ext.analysis import backends
from pkb_ext.analysis import report
from pkb_ext.analysis import runner

PROG = 'pkb-ext report'


def BuildParser() -> argparse.ArgumentParser:
  parser = command.ArgumentParser(
      prog=PROG,
      description='Rebuild the 2021 Cloud Report from samples.',
  )
  source = parser.add_mutually_exclusive_group(required=True)
  source.add_argument(
      '--samples',
      nargs='+',
      metavar='NDJSON',
      help=(
          'NDJSON sample files (spool, `pkb-ext local results` output, PKB'
          ' JSON output) or spool directories (their *.ndjson)'
      ),
  )
  source.add_argument(
      '--table',
      metavar='PROJECT.DATASET.TABLE',
      help='a BigQuery samples table',
  )
  parser.add_argument('--out', help='output directory for the report')
  parser.add_argument('--project', help='BigQuery project to bill queries to')
  parser.add_argument(
      '--bigquery-endpoint',
      help='BigQuery API endpoint (an emulator), anonymous',
  )
  AddTimeout(parser)
  parser.add_argument(
      '--create-views',
      metavar='PROJECT.DATASET',
      help='with --table: create the views in this dataset',
  )
  parser.add_argument(
      '--view-prefix',
      default='cloud_report_',
      help='prefix of created view names',
  )
  parser.add_argument(
      '--pricing-dir', help='price tables (default: configs/pricing)'
  )
  parser.add_argument(
      '--print-sql', metavar='VIEW', help='print the query of one view and exit'
  )
  return parser


def BigQueryClient(project: str | None, endpoint: str | None):
  """A bigquery.Client: anonymous at an emulator endpoint, else ADC.

  Raises:
    backends.QueryError: no credentials, or the client cannot be made.
  """
  from google.cloud import bigquery  # pylint: disable=g-import-not-at-top

  try:
    if endpoint:
      from google.api_core import client_options  # pylint: disable=g-import-not-at-top
      from google.auth import credentials  # pylint: disable=g-import-not-at-top

      return bigquery.Client(
          project=project or 'local',
          credentials=credentials.AnonymousCredentials(),
          client_options=client_options.ClientOptions(api_endpoint=endpoint),
      )
    return bigquery.Client(project=project)
  except backends._BigQueryErrors() as e:  # pylint: disable=protected-access
    raise backends.QueryError(
        f'BigQuery: cannot make a client: {type(e).__name__}: {e}'
    ) from e


def AddTimeout(parser: argparse.ArgumentParser) -> None:
  parser.add_argument(
      '--timeout',
      type=command.Number(float, above=0, unit='seconds'),
      default=backends.DEFAULT_TIMEOUT_S,
      metavar='SECONDS',
      help=(
          'give up a BigQuery call (with its retries) after this long'
          ' (default: %(default)g)'
      ),
  )


def PrintOrCreateViews(args, backend, views, local: bool) -> bool:
  """--print-sql and --create-views, for the views of `views`.

  Args:
    args: the parsed arguments (print_sql, create_views, view_prefix).
    backend: where the views' queries run.
    views: what has the views: Sql(view) and ViewStatements(dataset, prefix).
    local: whether the backend is DuckDB (the printed query is transpiled).

  Returns:
    True when it printed a view's query: the command ends there.
  """
  if args.print_sql:
    sql = views.Sql(args.print_sql)
    print(backend.Transpile(sql) if local else sql)
    return True
  if args.create_views:
    backend.Execute(views.ViewStatements(args.create_views, args.view_prefix))
  return False


def _Backend(args):
  if args.samples:
    files = inputs.ExpandSampleFiles(args.samples)
    backend = backends.DuckDbBackend()
    count = backend.LoadNdjson(files)
    return backend, f'{count} samples from {", ".join(files)}'
  project = args.project or args.table.split('.')[0]
  client = BigQueryClient(project, args.bigquery_endpoint)
  backend = backends.BigQueryBackend(client, args.table, args.timeout)
  return backend, f'BigQuery {args.table}'


def _Report(argv: Sequence[str]) -> int:
  args = BuildParser().parse_args(argv)
  if not args.print_sql and not args.out:
    raise errors.UsageError('--out DIR is required')
  if args.create_views and not args.table:
    raise errors.UsageError('--create-views needs --table')
  catalog = pricing.Load(args.pricing_dir)
  backend, source = _Backend(args)
  analysis = runner.Analysis(backend, catalog)
  if PrintOrCreateViews(args, backend, analysis, local=bool(args.samples)):
    return 0
  paths = report.Write(analysis, args.out, source)
  for message in analysis.unpriced:
    print(f'{PROG}: no price: {message}', file=sys.stderr)
  print(
      f'wrote {paths["html"]} and {paths["md"]} '
      f'({len(paths) - 2} charts) from {source}'
  )
  return 0


def Main(argv: Sequence[str]) -> int:
  return command.Run(PROG, _Report, argv)


if __name__ == '__main__':
  sys.exit(Main(sys.argv[1:]))
