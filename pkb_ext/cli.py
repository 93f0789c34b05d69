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

The commands that read what pkb_ext registers with PKB (REGISTERING) see
what stock pkb.py sees: pkb_ext is registered before they run.

Each command is the Main of its module (COMMANDS), a function of its
arguments run through command.Run: what it refuses is one line on standard
error, `pkb-ext COMMAND: message`, exit status 2 for a bad command line and
1 for anything else (unreadable or bad input, a remote service's refusal).

`pkb-ext bench` needs a source checkout: the harness lives in tests/pkb_ext_dev,
and runs as its own process (python -m pkb_ext_dev.bench).
"""

import importlib
import logging
import os
import subprocess
import sys
import warnings
from typing import Sequence

from pkb_ext import command
from pkb_ext import errors

PROG = 'pkb-ext'
# Each command: name -> (the module whose Main runs it, help).
COMMANDS = {
    'run': ('pkb_ext.run_cli', 'run cloud_report_2021 with stock pkb.py'),
    'list': (
        'pkb_ext.list_cli',
        'show which benchmark modules PKB flags resolve to',
    ),
    'plan': ('pkb_ext.plan.cli', 'what a run would provision, do and cost'),
    'parse': ('pkb_ext.parse_cli', 'parse a raw tool output into samples'),
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
# The commands that read the exported unit's registries (the TPC-C tools
# and engines, the benchmarks and the preflight laid over them, the object
# storage back-ends): before they run, pkb_ext is registered with PKB as the
# autoload registers it for pkb.py (registry.Register). The others never
# import PKB and do not pay for it. `run` execs pkb.py, whose autoload
# registers.
REGISTERING = frozenset({'list', 'plan'})
# Modules of the dev-only package (tests/pkb_ext_dev): run as a process.
_DEV_PACKAGE = 'pkb_ext_dev.'


def _DevPackageDir() -> str | None:
  """Returns tests/ of a source checkout, which holds pkb_ext_dev."""
  from pkb_ext import paths  # pylint: disable=g-import-not-at-top

  tests = os.path.join(paths.RepoRoot(), 'tests')
  if os.path.isdir(os.path.join(tests, 'pkb_ext_dev')):
    return tests
  return None


def _RunDev(module_name: str, argv: Sequence[str]) -> int:
  """Runs a dev-only module of a source checkout as its own process.

  The product never imports tests/: `python -m MODULE ARGV` runs with
  tests/ on PYTHONPATH (its subprocesses import pkb_ext_dev too), and its
  exit status is returned.

  Raises:
    errors.UsageError: no source checkout, so no dev-only package.
  """
  dev = _DevPackageDir()
  if dev is None:
    raise errors.UsageError(
        'needs a source checkout of pkb_ext (its tests/pkb_ext_dev is not'
        ' installed with the package)'
    )
  env = dict(os.environ)
  env['PYTHONPATH'] = os.pathsep.join(
      p for p in (dev, env.get('PYTHONPATH')) if p
  )
  command_line = [sys.executable, '-m', module_name, *argv]
  return subprocess.run(command_line, env=env, check=False).returncode


def BuildParser() -> command.ArgumentParser:
  """The top level's parser: its help lists the commands."""
  parser = command.ArgumentParser(
      prog=PROG, description='The 2021 Cloud Report on PKB.'
  )
  sub = parser.add_subparsers(dest='command', required=True)
  for name, (_, help_text) in COMMANDS.items():
    sub.add_parser(name, help=help_text, add_help=False)
  return parser


def _Dispatch(argv: Sequence[str]) -> int:
  """Runs the command argv names, with the rest of argv."""
  if not argv or argv[0] not in COMMANDS:
    BuildParser().parse_args(argv)  # prints the help, or refuses
    raise errors.UsageError(f'no command (see {PROG} --help)')
  name, rest = argv[0], list(argv[1:])
  module_name = COMMANDS[name][0]
  if name in REGISTERING:
    from pkb_ext import registry  # pylint: disable=g-import-not-at-top

    registry.Register()
  if module_name.startswith(_DEV_PACKAGE):
    return command.Run(
        f'{PROG} {name}', lambda a: _RunDev(module_name, a), rest
    )
  return importlib.import_module(module_name).Main(rest)


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


def main(argv: Sequence[str] | None = None) -> int:
  _SilenceImportWarnings()
  try:
    return command.Run(PROG, _Dispatch, sys.argv[1:] if argv is None else argv)
  except BrokenPipeError:
    # Output piped into e.g. `head`, which closed early: not an error.
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    return 0


if __name__ == '__main__':
  sys.exit(main())
