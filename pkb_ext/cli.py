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
"""pkb-ext: the command line of pkb_ext.

  pkb-ext run [PKB FLAGS...]           stock pkb.py with --benchmarks=cloud_report_2021
  pkb-ext list [PKB FLAGS...]          which benchmark modules those flags run
  pkb-ext plan [PKB FLAGS...]          VMs, disks, phases, time and cost of a run
  pkb-ext local up|down|status         the local cloud
  pkb-ext parse TOOL FILE|-            an archived tool output -> JSON samples
  pkb-ext publish SPOOL --table T      re-publish an NDJSON spool to BigQuery
  pkb-ext report ...                   the report's tables and charts
  pkb-ext compare A B | --baseline=2021 B   what changed between two runs
  pkb-ext bench --out FILE             the harness's own benchmarks
  pkb-ext upstream --out DIR           the benchmarks as a patch to the PKB pin

`pkb-ext bench` needs a source checkout: the harness lives in tests/pkb_ext_dev,
and runs as its own process (python -m pkb_ext_dev.bench).

`parse` reads a regular file (or standard input, `-`) of at most
MAX_INPUT_BYTES; any input it cannot parse is a one-line error naming the
problem, exit 1. netperf -k output (KEY=value lines, where a cut at a line
boundary leaves nothing garbled) must carry every selector the net phase
asks for in its test, as in the phase (--any-selectors accepts -k output of
other selectors); the other styles show a cut themselves.
"""

import argparse
import importlib
import json
import logging
import os
import subprocess
import sys
import warnings

from benchmarks.cloud_report import parsers
from pkb_ext import inputs

MAX_INPUT_BYTES = inputs.MAX_TOOL_OUTPUT_BYTES
STDIN = inputs.STDIN
_HELP_TOPICS = ('-h', '--help', '-help', '--helpshort')
_DEFAULT_BENCHMARK = '--benchmarks=cloud_report_2021'

# Subcommands implemented in their own modules: name -> (module, help).
_DELEGATED = {
    'plan': ('pkb_ext.plan', 'what a run would provision, do and cost'),
    'local': ('pkb_ext.local.cli', 'manage the local cloud (up|down|status)'),
    'publish': ('pkb_ext.publish.cli', 'publish an NDJSON spool to BigQuery'),
    'report': ('pkb_ext.analysis.cli', 'build the report from samples'),
    'compare': (
        'pkb_ext.analysis.compare_cli',
        'compare two runs (or the 2021 baseline and a run)',
    ),
    'bench': ('pkb_ext_dev.bench', 'benchmark the harness itself'),
    'upstream': (
        'pkb_ext.upstream.cli',
        'write the PKB patch of the benchmarks',
    ),
}


def _NetperfRequired(text: str) -> list[str]:
  """The selectors the net phase would require of this output."""
  from benchmarks.cloud_report.net import stages as network  # pylint: disable=g-import-not-at-top
  from benchmarks.cloud_report.net import parser as netperf  # pylint: disable=g-import-not-at-top

  result = netperf.Parse(text)
  if result.style != 'keyval':
    return []  # a cut -O, -o or classic table is garbled, and rejected
  test = result.test
  if test not in network.TESTS:
    raise parsers.ParseError(
        f'netperf test {test!r} is not one the net phase runs'
        f' ({", ".join(network.TESTS)}): no banner and no PROTOCOL/DIRECTION'
        ' (truncated?); use --any-selectors for output of other selectors'
    )
  return network.RequiredSelectors(test)


def _TpccDuration(text: str) -> str:
  """argparse type of parse's --duration: a duration such as 30m."""
  from benchmarks.cloud_report.tpcc import engines as tpcc_engines  # pylint: disable=g-import-not-at-top

  try:
    tpcc_engines.DurationSeconds(text)
  except ValueError as e:
    raise argparse.ArgumentTypeError(str(e)) from e
  return text


def _CheckTpccDuration(text: str, duration: str) -> None:
  """Refuses a TPC-C output whose run ended well before `duration`.

  The summary of a run stopped early looks complete; only its elapsed time
  tells, against the duration it was asked for (the phase's own rule).

  Raises:
    parsers.ParseError: the run was cut short.
  """
  from benchmarks.cloud_report.tpcc import engines as tpcc_engines  # pylint: disable=g-import-not-at-top
  from benchmarks.cloud_report.tpcc import parser as tpcc  # pylint: disable=g-import-not-at-top

  seconds = tpcc_engines.DurationSeconds(duration)
  elapsed = tpcc.Parse(text).elapsed_s
  if elapsed < tpcc_engines.MIN_ELAPSED_FRACTION * seconds:
    raise parsers.ParseError(
        f'the run ended after {elapsed:g} s of the {seconds} s asked for'
        f' (--duration {duration}): cut short, not a complete run'
    )


def _Parse(args) -> int:
  name = 'standard input' if args.file == STDIN else args.file
  try:
    text = inputs.ReadText(args.file)
  except inputs.InputError as e:
    print(f'pkb-ext parse: cannot read {e}', file=sys.stderr)
    return 1
  try:
    kwargs = {}
    if args.tool == 'netperf' and not args.any_selectors:
      kwargs['required'] = _NetperfRequired(text)
    out = parsers.ParseText(args.tool, text, **kwargs)
    if args.tool == 'tpcc' and args.duration:
      _CheckTpccDuration(text, args.duration)
  except parsers.ParseError as e:
    hint = ''
    if kwargs.get('required') and 'missing from netperf output' in str(e):
      hint = (
          '; the net phase asks for every selector it reads (use'
          ' --any-selectors for -k output of other selectors)'
      )
    print(f'pkb-ext parse {args.tool}: {name}: {e}{hint}', file=sys.stderr)
    return 1
  from benchmarks.cloud_report import samples  # pylint: disable=g-import-not-at-top

  for s in out:
    print(json.dumps(samples.ToJsonDict(s), sort_keys=True, allow_nan=False))
  return 0


def _WithDefaultBenchmark(pkb_args: list[str]) -> list[str]:
  """PKB flags with --benchmarks=cloud_report_2021 unless they name some."""
  argv = list(pkb_args)
  if not any(a.startswith('--benchmarks') for a in argv):
    argv.insert(0, _DEFAULT_BENCHMARK)
  return argv


def _Run(pkb_args: list[str]) -> int:
  pkb = os.path.join(os.path.dirname(sys.executable), 'pkb.py')
  argv = _WithDefaultBenchmark(pkb_args)
  os.execv(sys.executable, [sys.executable, pkb] + argv)
  return 1  # not reached


def _List(pkb_args: list[str]) -> int:
  from pkb_ext import registry  # pylint: disable=g-import-not-at-top

  argv = _WithDefaultBenchmark(pkb_args)
  try:
    resolved = registry.ResolveBenchmarks(argv)
  except Exception as e:  # pylint: disable=broad-except
    print(f'pkb-ext list: {type(e).__name__}: {e}', file=sys.stderr)
    return 1
  for name, module in resolved:
    print(f'{name}\t{module}')
  return 0


_PASS_THROUGH = {'run': _Run, 'list': _List}


def _DevPackageDir() -> str | None:
  """Returns tests/ of a source checkout, which holds pkb_ext_dev."""
  from pkb_ext import paths  # pylint: disable=g-import-not-at-top

  tests = os.path.join(paths.RepoRoot(), 'tests')
  if os.path.isdir(os.path.join(tests, 'pkb_ext_dev')):
    return tests
  return None


def _RunDev(name: str, module_name: str, argv: list[str]) -> int:
  """Runs a dev-only module of a source checkout as its own process.

  The product never imports tests/: `python -m MODULE ARGV` runs with
  tests/ on PYTHONPATH (its subprocesses import pkb_ext_dev too), and its
  exit status is returned.
  """
  dev = _DevPackageDir()
  if dev is None:
    print(
        f'pkb-ext {name}: needs a source checkout of pkb_ext (its'
        ' tests/pkb_ext_dev is not installed with the package)',
        file=sys.stderr,
    )
    return 2
  env = dict(os.environ)
  env['PYTHONPATH'] = os.pathsep.join(
      p for p in (dev, env.get('PYTHONPATH')) if p
  )
  command = [sys.executable, '-m', module_name, *argv]
  return subprocess.run(command, env=env, check=False).returncode


def _Delegate(name: str, argv: list[str]) -> int:
  module_name = _DELEGATED[name][0]
  if module_name.startswith('pkb_ext_dev.'):
    return _RunDev(name, module_name, argv)
  module = importlib.import_module(module_name)
  return module.Main(argv)


def BuildParser() -> argparse.ArgumentParser:
  parser = argparse.ArgumentParser(
      prog='pkb-ext', description='The 2021 Cloud Report on PKB.'
  )
  sub = parser.add_subparsers(dest='command', required=True)
  flags_note = (
      'PKB FLAGS are stock pkb.py flags; without --benchmarks,'
      ' --benchmarks=cloud_report_2021 is added. `pkb-ext run'
      ' --helpmatch=cloud_report` lists every cloud_report flag.'
  )
  run = sub.add_parser(
      'run',
      help='run cloud_report_2021 with stock pkb.py',
      description='Runs stock pkb.py with PKB FLAGS. ' + flags_note,
      usage='pkb-ext run [PKB FLAGS...]',
  )
  run.add_argument('pkb_args', nargs=argparse.REMAINDER, metavar='PKB FLAGS')
  listing = sub.add_parser(
      'list',
      help='show which benchmark modules PKB flags resolve to',
      description=(
          'Prints the benchmark modules PKB FLAGS resolve to, without running'
          ' anything. '
          + flags_note
      ),
      usage='pkb-ext list [PKB FLAGS...]',
  )
  listing.add_argument(
      'pkb_args', nargs=argparse.REMAINDER, metavar='PKB FLAGS'
  )
  parse = sub.add_parser(
      'parse',
      help='parse a raw tool output into samples',
      description=(
          'Parses one archived tool output (a regular file, or - for standard'
          ' input) into JSON samples, one per line.'
      ),
  )
  parse.add_argument('tool', choices=sorted(parsers.TOOLS))
  parse.add_argument('file', help='the output file, or - for standard input')
  parse.add_argument(
      '--any-selectors',
      action='store_true',
      help=(
          'netperf: accept -k output of any selectors, not only of those'
          ' the net phase asks for'
      ),
  )
  parse.add_argument(
      '--duration',
      type=_TpccDuration,
      help=(
          'tpcc: the measured time the run was asked for (e.g. 30m); an'
          ' output whose run ended before 90 %% of it is refused as cut short'
      ),
  )
  for name, (_, help_text) in _DELEGATED.items():
    sub.add_parser(name, help=help_text, add_help=False)
  return parser


def _SilenceImportWarnings() -> None:
  """Silences what PKB's imports print on every command (not in pkb.py).

  PKB imports pkg_resources (a deprecation warning of setuptools) and
  redefines pint's 'percent' (a pint log warning); neither is about the
  command run. `pkb-ext run` execs pkb.py, which keeps both.
  """
  warnings.filterwarnings(
      'ignore', message='pkg_resources is deprecated', category=UserWarning
  )
  logging.getLogger('pint').setLevel(logging.ERROR)


def main(argv: list[str] | None = None) -> int:
  _SilenceImportWarnings()
  try:
    return _Main(sys.argv[1:] if argv is None else list(argv))
  except BrokenPipeError:
    # Output piped into e.g. `head`, which closed early: not an error.
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    return 0


def _Main(argv: list[str]) -> int:
  if argv and argv[0] in _DELEGATED:
    return _Delegate(argv[0], argv[1:])
  if (
      argv
      and argv[0] in _PASS_THROUGH
      and not set(argv[1:2]) & set(_HELP_TOPICS)
  ):
    # PKB's flags start with '--', which argparse would take as its own.
    return _PASS_THROUGH[argv[0]](argv[1:])
  args = BuildParser().parse_args(argv)
  return _Parse(args)


if __name__ == '__main__':
  sys.exit(main())
