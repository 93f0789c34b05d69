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
"""The one way a pkb-ext command runs.

A command is a function of its argument list that returns an exit status
and raises errors.Error (or the exported modules' base, which exits 1) for
anything it refuses. Run calls it and maps such an error to one line,
`PROG: MESSAGE`, on standard error with the error's exit status;
ArgumentParser makes argparse's own refusals the same kind of line (status
2, as errors.UsageError), instead of a usage block.
"""

import argparse
import math
import sys
from typing import Callable, NoReturn, Sequence

from benchmarks.cloud_report import errors as exported_errors
from pkb_ext import errors
from pkb_ext import inputs


class ArgumentParser(argparse.ArgumentParser):
  """argparse whose refusals raise errors.UsageError (one line, exit 2).

  -h and --help still print the help and exit 0.
  """

  def error(self, message: str) -> NoReturn:
    raise errors.UsageError(
        f'{message} (see {self.prog} --help)'.replace('\n', ' ')
    )


def Number(
    kind: type[int] | type[float],
    above: float | None = None,
    unit: str = '',
) -> Callable[[str], int | float]:
  """argparse type: a finite number of `kind`, greater than `above` if given.

  Refuses with e.g. `must be an integer > 0, got '1.5'` (the text shortened),
  or with a unit, `must be a finite number of seconds > 0, got 'x'`.
  """

  def Parse(text: str) -> int | float:
    try:
      value = kind(text)
    except ValueError:
      value = math.nan
    if not math.isfinite(value) or (above is not None and value <= above):
      name = 'an integer' if kind is int else 'a finite number'
      of = f' of {unit}' if unit else ''
      bound = '' if above is None else f' > {above}'
      raise argparse.ArgumentTypeError(
          f'must be {name}{of}{bound}, got {inputs.Shorten(text, 40)}'
      )
    return value

  return Parse


# What a command refuses: pkb_ext's errors and the exported modules' errors.
REFUSALS = (errors.Error, exported_errors.Error)


def Run(
    prog: str, body: Callable[[Sequence[str]], int], argv: Sequence[str]
) -> int:
  """Runs body(argv); an errors.Error becomes one line and its status.

  Args:
    prog: the command's name as the user typed it, e.g. 'pkb-ext plan'.
    body: the command; returns its exit status, raises errors.Error.
    argv: the command's arguments (after its name).

  Returns:
    The exit status: body's, or the error's.
  """
  try:
    return body(list(argv))
  except REFUSALS as e:
    print(f'{prog}: {errors.OneLine(e)}', file=sys.stderr)
    return getattr(e, 'exit_status', 1)  # the exported base's: 1
