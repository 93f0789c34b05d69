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
  pkb-ext parse TOOL FILE              an archived tool output -> JSON samples
  pkb-ext publish SPOOL --table T      re-publish an NDJSON spool to BigQuery
  pkb-ext report ...                   the report's tables and charts
  pkb-ext compare A B | --baseline=2021 B   what changed between two runs
  pkb-ext bench --out FILE             the harness's own benchmarks
  pkb-ext upstream --out DIR           the benchmarks as a patch to the PKB pin

`pkb-ext bench` needs a source checkout: the harness lives in tests/pkb_ext_dev.
"""

import argparse
import importlib
import json
import os
import sys

from pkb_cloud_report.benchmarks.cloud_report import parsers

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
    'upstream': ('pkb_ext.upstream', 'write the PKB patch of the benchmarks'),
}


def _Parse(args) -> int:
  try:
    with open(args.file, encoding='utf-8', errors='strict') as f:
      text = f.read()
  except (OSError, UnicodeDecodeError) as e:
    print(f'pkb-ext parse: cannot read {args.file}: {e}', file=sys.stderr)
    return 1
  try:
    out = parsers.ParseText(args.tool, text)
  except parsers.ParseError as e:
    print(f'pkb-ext parse {args.tool}: {args.file}: {e}', file=sys.stderr)
    return 1
  from pkb_cloud_report.benchmarks.cloud_report import samples  # pylint: disable=g-import-not-at-top

  for s in out:
    print(json.dumps(samples.ToJsonDict(s), sort_keys=True))
  return 0


def _Run(pkb_args: list[str]) -> int:
  pkb = os.path.join(os.path.dirname(sys.executable), 'pkb.py')
  argv = list(pkb_args)
  if not any(a.startswith('--benchmarks') for a in argv):
    argv.insert(0, '--benchmarks=cloud_report_2021')
  os.execv(sys.executable, [sys.executable, pkb] + argv)
  return 1  # not reached


def _List(pkb_args: list[str]) -> int:
  from pkb_ext import registry  # pylint: disable=g-import-not-at-top

  argv = list(pkb_args) or ['--benchmarks=cloud_report_2021']
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


def _Delegate(name: str, argv: list[str]) -> int:
  module_name = _DELEGATED[name][0]
  if module_name.startswith('pkb_ext_dev.'):
    dev = _DevPackageDir()
    if dev is None:
      print(
          f'pkb-ext {name}: needs a source checkout of pkb_ext (its'
          ' tests/pkb_ext_dev is not installed with the package)',
          file=sys.stderr,
      )
      return 2
    if dev not in sys.path:
      sys.path.insert(0, dev)
    # Subprocesses (fake_vm_main, the bench's own runs) import it too.
    os.environ['PYTHONPATH'] = os.pathsep.join(
        p for p in (dev, os.environ.get('PYTHONPATH')) if p
    )
  module = importlib.import_module(module_name)
  return module.Main(argv)


def BuildParser() -> argparse.ArgumentParser:
  parser = argparse.ArgumentParser(
      prog='pkb-ext', description='The 2021 Cloud Report on PKB.'
  )
  sub = parser.add_subparsers(dest='command', required=True)
  run = sub.add_parser('run', help='run cloud_report_2021 with stock pkb.py')
  run.add_argument('pkb_args', nargs=argparse.REMAINDER)
  listing = sub.add_parser(
      'list', help='show which benchmark modules PKB flags resolve to'
  )
  listing.add_argument('pkb_args', nargs=argparse.REMAINDER)
  parse = sub.add_parser('parse', help='parse a raw tool output into samples')
  parse.add_argument('tool', choices=sorted(parsers.TOOLS))
  parse.add_argument('file')
  for name, (_, help_text) in _DELEGATED.items():
    sub.add_parser(name, help=help_text, add_help=False)
  return parser


def main(argv: list[str] | None = None) -> int:
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
  if argv and argv[0] in _PASS_THROUGH and '-h' not in argv[1:2]:
    # PKB's flags start with '--', which argparse would take as its own.
    return _PASS_THROUGH[argv[0]](argv[1:])
  args = BuildParser().parse_args(argv)
  return _Parse(args)


if __name__ == '__main__':
  sys.exit(main())
