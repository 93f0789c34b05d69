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
"""pkb-ext plan [--prices=FILE] [PKB FLAGS]: the command line.

Splits --prices=FILE off PKB's flags, loads the price tables, answers
--help and --helpmatch, and prints the plan; errors become one line and
their exit status through pkb_ext.command.Run.
"""

import datetime
import logging
import re
from typing import Sequence
import warnings

from pkb_ext import command
from pkb_ext import pricing
from pkb_ext.plan import configurations
from pkb_ext.plan import cost
from pkb_ext.plan import errors
from pkb_ext.plan import pkb_config
from pkb_ext.plan import render

PROG = 'pkb-ext plan'
PRICES_OPTION = cost.PRICES_OPTION
HELP_ARGS = frozenset(('-h', '--help', '-help', '--helpshort', '--helpfull'))
USAGE = f"""\
usage: {PROG} [{PRICES_OPTION}=FILE] [PKB FLAGS...]

What a pkb.py run with PKB FLAGS would provision, do and cost, before it
does anything: each configuration's VMs and disks, its phases with expected
wall times (the TPC-C import included), VM-hours and on-demand dollars, what
preflight would refuse, then the totals. Without --benchmarks,
--benchmarks=cloud_report_2021 is added.

  {PRICES_OPTION}=FILE   a dated price table of one cloud, in the form of
                   configs/pricing/<cloud>.yaml, for the run's cost (the
                   report's tables stay the basis of $/tpm)
  --helpmatch=RE   PKB's help for the flags of modules matching RE

Exit status: 0 a plan, 1 input that makes no plan or a configuration
preflight would refuse, 2 a usage error.
"""
# PKB imports pkg_resources, whose deprecation warnings are not the plan's.
_PKB_IMPORT_WARNINGS = (
    r'pkg_resources is deprecated',
    r'Module \S+ was already imported from',
)


def SplitPricesOption(argv: Sequence[str]) -> tuple[str | None, list[str]]:
  """Takes --prices=FILE out of argv.

  Raises:
    errors.PlanUsageError: --prices without a file, or given twice.
  """
  prices, rest = None, []
  for arg in argv:
    if arg == PRICES_OPTION or arg.startswith(PRICES_OPTION + '='):
      value = arg.partition('=')[2]
      if not value or prices is not None:
        raise errors.PlanUsageError(
            f'give {PRICES_OPTION}=FILE once, with a file'
        )
      prices = value
    else:
      rest.append(arg)
  return prices, rest


def LoadCatalog(prices_file: str | None) -> pricing.Catalog:
  """configs/pricing, with prices_file's table in place of its cloud's.

  Raises:
    errors.PlanError: the file cannot be read.
    pricing.PricingError: a table cannot be parsed.
  """
  catalog = pricing.Load()
  if prices_file is None:
    return catalog
  text = pkb_config.ReadText(prices_file)
  return catalog.WithTable(
      pricing.ParseTable(text, prices_file, catalog.method)
  )


def PrintHelpMatch(flag_values, pattern: str) -> None:
  """Prints PKB's help of the flags of modules matching pattern.

  Raises:
    errors.PlanUsageError: pattern is not a regular expression.
  """
  try:
    regex = re.compile(pattern)
  except re.error as e:
    raise errors.PlanUsageError(
        f'--helpmatch={pattern}: not a regular expression ({e})'
    )
  for module_name in sorted(flag_values.flags_by_module_dict()):
    if regex.search(module_name):
      print(flag_values.module_help(module_name))


def Main(argv: Sequence[str]) -> int:
  """pkb-ext plan [--prices=FILE] [PKB FLAGS]; see USAGE for exit codes."""
  if HELP_ARGS & set(argv):
    print(USAGE, end='')
    return 0
  with warnings.catch_warnings():
    for message in _PKB_IMPORT_WARNINGS:
      warnings.filterwarnings('ignore', message=message)
    return command.Run(PROG, _Plan, argv)


def _Plan(argv: Sequence[str]) -> int:
  """Prints the plan; returns 1 if preflight would refuse a configuration."""
  # PKB's config chatter, and errors that a PlanError says in one line.
  logging.getLogger().setLevel(logging.CRITICAL)
  prices_file, pkb_argv = SplitPricesOption(argv)
  catalog = LoadCatalog(prices_file)
  flag_values = pkb_config.ParseFlags(pkb_argv)
  if flag_values.helpmatch:
    PrintHelpMatch(flag_values, flag_values.helpmatch)
    return 0
  configs = configurations.Configurations(pkb_argv, catalog)
  note = render.PricesNote(configs, datetime.date.today(), prices_file)
  quota_lines, over = render.QuotaLines(
      configs,
      flag_values.run_processes,
      flag_values.cloud_report_vcpu_quota,
  )
  quota_lines += [f'REFUSED quota: {line}' for line in over]
  print(render.Format(configs, flag_values.run_processes, note, quota_lines))
  return 1 if over or any(c.problems for c in configs) else 0
