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
"""pkb-ext compare: what changed between two runs, and is the change real.

  pkb-ext compare A B [--by machine_type,disk_type] [--out DIR]
      A and B are NDJSON sample files, spool directories (their *.ndjson)
      or BigQuery tables bq:PROJECT.DATASET.TABLE (both sides the same
      kind; a side that is neither an existing file nor bq:... is an
      error);
  pkb-ext compare --baseline=2021 B
      sets the figures the 2021 report's text states beside B.

Prints one row per benchmark and matched configuration: value A, value B,
the change in %, the direction, each side's repetitions and a verdict from a
named test; --out DIR also writes compare.html, compare.md and a chart per
benchmark. Exit status 1 when the sides cannot be compared or read (the
message says why), 2 for bad arguments: a setting the user gave that cannot
be used (a test level, a side that is no BigQuery table id, sides of two
kinds, an option that does not apply) is a bad argument.
"""

import argparse
import os
import re
import sys
from typing import Sequence

from pkb_ext import command
from pkb_ext import errors
from pkb_ext import inputs
from pkb_ext import pricing
from pkb_ext.analysis import backends
from pkb_ext.analysis import baseline as baseline_lib
from pkb_ext.analysis import cli as report_cli
from pkb_ext.analysis import compare
from pkb_ext.analysis import compare_report
from pkb_ext.analysis import runner

PROG = 'pkb-ext compare'
_TABLE_ID = re.compile(r'^[A-Za-z0-9_-]+\.[A-Za-z0-9_]+\.[A-Za-z0-9_$-]+$')
BQ_PREFIX = 'bq:'


def BuildParser() -> argparse.ArgumentParser:
  parser = command.ArgumentParser(
      prog=PROG,
      description=(
          'Compare two runs of the report (or the 2021 baseline and a run).'
      ),
  )
  parser.add_argument(
      'sides',
      nargs='+',
      metavar='A B',
      help=(
          'NDJSON file, spool directory or BigQuery table'
          f' {BQ_PREFIX}PROJECT.DATASET.TABLE, per side (one side with'
          ' --baseline)'
      ),
  )
  parser.add_argument(
      '--baseline',
      metavar='NAME',
      help='compare B with configs/baselines/report<NAME>.yaml, e.g. 2021',
  )
  parser.add_argument(
      '--by',
      default=','.join(compare.DIMENSIONS),
      help='dimensions that match A to B (default: %(default)s)',
  )
  parser.add_argument(
      '--test',
      default='welch_t',
      choices=sorted(compare.TESTS),
      help='the test over repetitions behind the verdict (%(default)s)',
  )
  parser.add_argument(
      '--alpha',
      type=command.Number(float),
      default=0.05,
      help='significance level',
  )
  parser.add_argument(
      '--min-change',
      type=command.Number(float),
      default=2.0,
      metavar='PCT',
      help='smallest change in %% that is called better or worse',
  )
  parser.add_argument(
      '--min-repetitions',
      type=command.Number(int),
      default=3,
      help='fewer on a side: the verdict compares CI95 intervals instead',
  )
  parser.add_argument('--out', help='write compare.html, compare.md, charts')
  parser.add_argument('--project', help='BigQuery project to bill queries to')
  parser.add_argument(
      '--bigquery-endpoint', help='BigQuery API endpoint (an emulator)'
  )
  report_cli.AddTimeout(parser)
  parser.add_argument(
      '--create-views',
      metavar='PROJECT.DATASET',
      help='with BigQuery sides: create the comparison views there',
  )
  parser.add_argument(
      '--view-prefix',
      default='cloud_report_compare_',
      help='prefix of created view names',
  )
  parser.add_argument(
      '--pricing-dir', help='price tables (default: configs/pricing)'
  )
  parser.add_argument(
      '--print-sql',
      metavar='VIEW',
      help='print the query of one comparison view and exit',
  )
  return parser


def _Kind(arg: str) -> tuple[str, list[str] | str]:
  """('ndjson', files) or ('bigquery', table id) for one side's argument.

  Only bq:PROJECT.DATASET.TABLE names a table: any other argument is a file
  or a spool directory, which must exist.

  Raises:
    errors.UsageError: bq:... names no table.
    compare.CompareError: the file or spool cannot be read.
  """
  if arg.startswith(BQ_PREFIX):
    table = arg[len(BQ_PREFIX) :]
    if not _TABLE_ID.match(table):
      raise errors.UsageError(
          f'{inputs.Shorten(arg)}: not a BigQuery table'
          f' {BQ_PREFIX}PROJECT.DATASET.TABLE'
      )
    return 'bigquery', table
  try:
    return 'ndjson', inputs.SampleFiles(arg)
  except inputs.InputError as e:
    hint = ''
    if _TABLE_ID.match(arg) and not os.path.lexists(arg):
      hint = f' (a BigQuery table is written {BQ_PREFIX}{arg})'
    raise compare.CompareError(f'{e}{hint}') from None


def _Sides(args, catalog):
  """Returns (backend, side A or None for a baseline, side B, kind)."""
  kinds = [_Kind(a) for a in args.sides]
  if len({k for k, _ in kinds}) > 1:
    raise errors.UsageError(
        'A and B must both be NDJSON (files or spools) or both BigQuery tables'
    )
  kind = kinds[0][0]
  names = ['a', 'b'][-len(kinds) :]
  sides = []
  if kind == 'ndjson':
    backend = backends.DuckDbBackend()
    for name, (_, files) in zip(names, kinds):
      table = backend.AddTable(f'samples_{name}')
      count = backend.LoadNdjson(files, table)
      analysis = runner.Analysis(backend, catalog, samples_ref=table)
      sides.append(
          compare.SamplesSide(
              analysis, f'{count} samples from {", ".join(files)}'
          )
      )
  else:
    project = args.project or kinds[0][1].split('.')[0]
    client = report_cli.BigQueryClient(project, args.bigquery_endpoint)
    backend = backends.BigQueryBackend(client, kinds[-1][1], args.timeout)
    for _, table in kinds:
      analysis = runner.Analysis(backend, catalog, samples_ref=f'`{table}`')
      sides.append(compare.SamplesSide(analysis, f'BigQuery {table}'))
  return backend, sides, kind


def _Compare(argv: Sequence[str]) -> int:
  parser = BuildParser()
  args = parser.parse_args(argv)
  if args.baseline is not None and not args.baseline.strip():
    raise errors.UsageError('--baseline needs a NAME, e.g. --baseline=2021')
  want = 1 if args.baseline else 2
  if len(args.sides) != want:
    how = (
        'with --baseline, give one side B'
        if args.baseline
        else ('give two sides A B (or --baseline=NAME and one side B)')
    )
    raise errors.UsageError(f'{how}; got {len(args.sides)} side(s)')
  by = tuple(d.strip() for d in args.by.split(',') if d.strip())
  if args.baseline and args.by != parser.get_default('by'):
    raise errors.UsageError(
        '--by does not apply to --baseline (a baseline matches by machine'
        ' type, and disk type where it names one)'
    )
  if args.create_views and not all(a.startswith(BQ_PREFIX) for a in args.sides):
    raise errors.UsageError('--create-views needs BigQuery sides')
  settings = compare.Settings(
      by=('machine_type', 'disk_type') if args.baseline else by,
      test=args.test,
      alpha=args.alpha,
      min_change_pct=args.min_change,
      min_repetitions=args.min_repetitions,
  )
  try:
    settings.Validate()
  except compare.CompareError as e:
    # The settings are the user's options: a bad one is a bad argument.
    raise errors.UsageError(str(e)) from e
  catalog = pricing.Load(args.pricing_dir)
  backend, sides, kind = _Sides(args, catalog)
  if args.baseline:
    benchmarks = {r['benchmark'] for r in sides[0].analysis.Query('benchmarks')}
    figures = baseline_lib.Load(args.baseline, benchmarks)
    sides.insert(0, compare.BaselineSide(figures, sides[0]))
  comparison = compare.Comparison(backend, sides[0], sides[1], settings)
  if report_cli.PrintOrCreateViews(
      args, backend, comparison, local=kind == 'ndjson'
  ):
    return 0
  result = comparison.Run()
  print(compare_report.Text(result))
  if args.out:
    paths = compare_report.Write(result, args.out)
    print(f'wrote {paths["html"]} and {paths["md"]} ({len(paths) - 2} charts)')
  return 0


def Main(argv: Sequence[str]) -> int:
  return command.Run(PROG, _Compare, argv)


if __name__ == '__main__':
  sys.exit(Main(sys.argv[1:]))
