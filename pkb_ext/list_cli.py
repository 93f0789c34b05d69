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
"""pkb-ext list [PKB FLAGS...]: the benchmark modules PKB flags resolve to."""

from typing import Sequence

from pkb_ext import command
from pkb_ext import errors
from pkb_ext import run_cli

PROG = 'pkb-ext list'


def _List(argv: Sequence[str]) -> int:
  run_cli.PrintHelpIfAsked(
      PROG,
      'Prints the benchmark modules PKB FLAGS resolve to, without running'
      ' anything.',
      argv,
  )
  from absl import flags  # pylint: disable=g-import-not-at-top
  from pkb_ext import registry  # pylint: disable=g-import-not-at-top

  try:
    resolved = registry.ResolveBenchmarks(run_cli.WithDefaultBenchmark(argv))
  except (flags.Error, ValueError) as e:
    # absl's refusal of a flag or its value, or PKB's of a benchmark name.
    raise errors.UsageError(errors.OneLine(e)) from e
  for name, module in resolved:
    print(f'{name}\t{module}')
  return 0


def Main(argv: Sequence[str]) -> int:
  return command.Run(PROG, _List, argv)
