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
"""pkb-ext parse TOOL FILE|-: an archived tool output -> JSON samples.

Reads a regular file (or standard input, `-`) of at most MAX_INPUT_BYTES
and prints its samples, one JSON object a line. Input it cannot read or
parse is a one-line error naming the problem, exit 1. What the phase itself
would refuse is refused too, by the phase's own rules: netperf -o output
must carry every selector the net phase asks for in its test
(--any-selectors accepts -o output of other selectors), and with --duration
a TPC-C run that ended well before it is cut short.
"""

import argparse
import json
from typing import Sequence

from absl import flags

from benchmarks.cloud_report import parsers
from pkb_ext.suite import phase_table
from pkb_ext import command
from pkb_ext import errors
from pkb_ext import inputs

PROG = 'pkb-ext parse'
MAX_INPUT_BYTES = inputs.MAX_TOOL_OUTPUT_BYTES
_ANY_SELECTORS_HINT = 'use --any-selectors for output of other selectors'


def _TpccDuration(text: str) -> str:
  """argparse type of --duration: a duration such as 30m."""
  from benchmarks.cloud_report.tpcc import engines  # pylint: disable=g-import-not-at-top

  try:
    engines.DurationSeconds(text)
  except ValueError as e:
    raise argparse.ArgumentTypeError(str(e)) from e
  return text


def BuildParser() -> argparse.ArgumentParser:
  parser = command.ArgumentParser(
      prog=PROG,
      description=(
          'Parses one archived tool output (a regular file, or - for standard'
          ' input) into JSON samples, one per line.'
      ),
  )
  parser.add_argument('tool', choices=sorted(phase_table.TOOLS))
  parser.add_argument('file', help='the output file, or - for standard input')
  parser.add_argument(
      '--any-selectors',
      action='store_true',
      help=(
          'netperf: accept -o output of any selectors, not only of those'
          ' the net phase asks for'
      ),
  )
  parser.add_argument(
      '--duration',
      type=_TpccDuration,
      help=(
          'tpcc: the measured time the run was asked for (e.g. 30m); an'
          ' output whose run ended before 90 %% of it is refused as cut short'
      ),
  )
  return parser


def _Required(args, text: str) -> list[str]:
  """The netperf selectors the net phase would require of this output."""
  if args.tool != 'netperf' or args.any_selectors:
    return []
  from pkb_ext.suite.net import stages  # pylint: disable=g-import-not-at-top

  try:
    return stages.ArchivedRequiredSelectors(text)
  except parsers.ParseError as e:
    raise parsers.ParseError(f'{e}; {_ANY_SELECTORS_HINT}') from e


def _Samples(args, text: str) -> list:
  """The output's samples, refused as the phase would refuse it."""
  required = _Required(args, text)
  kwargs = {'required': required} if required else {}
  # Imported here: it imports every phase, which only parse needs.
  from pkb_ext.suite import phase_modules  # pylint: disable=g-import-not-at-top

  try:
    out = phase_modules.ParseText(args.tool, text, **kwargs)
  except parsers.ParseError as e:
    if required and 'missing from netperf output' in str(e):
      raise parsers.ParseError(
          f'{e}; the net phase asks for every selector it reads (use'
          ' --any-selectors for -o output of other selectors)'
      ) from e
    raise
  if args.tool == 'tpcc' and args.duration:
    _CheckComplete(text, args.duration)
  return out


def _CheckComplete(text: str, duration: str) -> None:
  """Refuses a TPC-C output whose run ended well before `duration`.

  The summary of a run stopped early looks complete; only its elapsed time
  tells, against the duration it was asked for (the rule the tpcc phase's
  engines.ToMeasurement applies to each step).

  Raises:
    ParseError: the output is no TPC-C summary, or the run was cut short.
    ValueError: `duration` is not a duration such as 30m.
  """
  # Imported here, as phase_modules is: only tpcc's parse needs them.
  from benchmarks.cloud_report.tpcc import engines  # pylint: disable=g-import-not-at-top
  from pkb_ext.suite.tpcc import parser as tpcc_parser  # pylint: disable=g-import-not-at-top

  seconds = engines.DurationSeconds(duration)
  elapsed = tpcc_parser.Parse(text).elapsed_s
  if engines.CutShort(elapsed, seconds):
    raise parsers.ParseError(
        f'the run ended after {elapsed:g} s of the {seconds} s asked for'
        f' ({duration}): cut short, not a complete run'
    )


def _Print(args, text: str) -> int:
  name = 'standard input' if args.file == inputs.STDIN else args.file
  try:
    out = _Samples(args, text)
  except parsers.ParseError as e:
    raise errors.Error(f'{name}: {e}') from e
  from pkb_ext.suite import samples  # pylint: disable=g-import-not-at-top

  for s in out:
    print(json.dumps(samples.ToJsonDict(s), sort_keys=True, allow_nan=False))
  return 0


def _Parse(argv: Sequence[str]) -> int:
  args = BuildParser().parse_args(argv)
  # PKB's parsers may read PKB's flags (CoreMark's its method, into its
  # metadata): here they keep their defaults.
  if not flags.FLAGS.is_parsed():
    flags.FLAGS.mark_as_parsed()
  try:
    text = inputs.ReadText(args.file)
  except inputs.InputError as e:
    raise inputs.InputError(f'cannot read {e}') from e
  # What the tool's output says is reported as the tool's: pkb-ext parse TOOL.
  return command.Run(f'{PROG} {args.tool}', lambda _: _Print(args, text), [])


def Main(argv: Sequence[str]) -> int:
  return command.Run(PROG, _Parse, argv)
