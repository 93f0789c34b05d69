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
"""pkb-ext run [PKB FLAGS...]: stock pkb.py, cloud_report_2021 by default."""

import os
import sys
from typing import Sequence

from pkb_ext import command

PROG = 'pkb-ext run'
HELP_TOPICS = ('-h', '--help', '-help', '--helpshort')
DEFAULT_BENCHMARK = '--benchmarks=cloud_report_2021'
FLAGS_NOTE = (
    'PKB FLAGS are stock pkb.py flags; without --benchmarks,'
    ' --benchmarks=cloud_report_2021 is added. `pkb-ext run'
    ' --helpmatch=cloud_report` lists every cloud_report flag.'
)


def WithDefaultBenchmark(pkb_args: Sequence[str]) -> list[str]:
  """PKB flags with --benchmarks=cloud_report_2021 unless they name some."""
  argv = list(pkb_args)
  if not any(a.startswith('--benchmarks') for a in argv):
    argv.insert(0, DEFAULT_BENCHMARK)
  return argv


def PrintHelpIfAsked(prog: str, description: str, argv: Sequence[str]) -> None:
  """Prints a PKB pass-through command's help and exits 0 when asked.

  Only a first argument of -h, --help, -help or --helpshort asks: every
  other argument is PKB's (its flags start with '--', which argparse
  would take as its own).
  """
  if set(argv[:1]) & set(HELP_TOPICS):
    parser = command.ArgumentParser(
        prog=prog,
        description=f'{description} {FLAGS_NOTE}',
        usage=f'{prog} [PKB FLAGS...]',
    )
    parser.parse_args(['--help'])


def _Run(argv: Sequence[str]) -> int:
  PrintHelpIfAsked(PROG, 'Runs stock pkb.py with PKB FLAGS.', argv)
  pkb = os.path.join(os.path.dirname(sys.executable), 'pkb.py')
  pkb_argv = WithDefaultBenchmark(argv)
  os.execv(sys.executable, [sys.executable, pkb] + pkb_argv)
  return 1  # not reached


def Main(argv: Sequence[str]) -> int:
  return command.Run(PROG, _Run, argv)
