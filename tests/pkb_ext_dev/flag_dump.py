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
"""A JSON dump of the cloud_report_* flags of the benchmarks and phases.

The upstream unit's modules, pkb_ext's suite and its cpu, io and net phases
(pkb_ext.suite: their flags were the unit's before), and the postgres TPC-C
engine that pkb_ext plugs into the unit (pkb_ext.tpcc_postgres: likewise).

For each flag: its class, parser, default, help text, bounds, enum values,
and what its parser and its single-flag validators say about a fixed set of
probe values (a probe passes, or the error message). Two dumps taken of two
versions of the code are equal when the flag set behaves the same.

  python -m pkb_ext_dev.flag_dump > FILE
"""

import json
import sys

from absl import flags

PREFIX = 'cloud_report_'
UNIT_PACKAGE = (
    'benchmarks.',
    'linux_packages.',
    'pkb_ext.suite.',
    'pkb_ext.tpcc_postgres.',
)
# Strings every flag's parser and validators are asked about.
PROBES = (
    '', '0', '-1', '1', '3', '0.5', '1e999', 'nan', '99999999', 'x', 'a,b',
    'auto', '5s', '0s', '4k', '1M', '7%', '100%', 'pthread', 'rd-iops',
    'single', 'TCP_RR', 'A=B', 'custom:p90_ms<5', 'true',
)  # fmt: skip


def _Jsonable(value):
  if isinstance(value, (list, tuple)):
    return [_Jsonable(v) for v in value]
  if isinstance(value, float) and value != value:  # nan
    return 'nan'
  if isinstance(value, (str, int, float, bool)) or value is None:
    return value
  return repr(value)


def _Verdict(flag, validators, probe: str) -> str:
  """What the flag's parser, then its validators, say about `probe`."""
  try:
    value = flag.parser.parse(probe)
  except (ValueError, TypeError) as e:
    return f'parse: {e}'
  for validator in validators:
    try:
      if not validator.checker(value):
        return f'invalid: {validator.message}'
    except flags.ValidationError as e:
      return f'invalid: {e}'
    except (ValueError, TypeError, AttributeError) as e:
      return f'error: {type(e).__name__}: {e}'
  return 'ok'


def Dump(flag_values=flags.FLAGS) -> dict:
  """Returns {flag name: description} for every cloud_report_* flag."""
  dump = {}
  for name in sorted(flag_values):
    module = flag_values.find_module_defining_flag(name) or ''
    if not (name.startswith(PREFIX) and module.startswith(UNIT_PACKAGE)):
      continue
    flag = flag_values[name]
    parser = flag.parser
    single = [v for v in flag.validators if len(v.get_flags_names()) == 1]
    multi = [v for v in flag.validators if len(v.get_flags_names()) > 1]
    dump[name] = {
        'class': type(flag).__name__,
        'parser': type(parser).__name__,
        'default': _Jsonable(flag.default),
        'default_as_str': flag.default_as_str,
        'help': flag.help,
        'lower_bound': _Jsonable(getattr(parser, 'lower_bound', None)),
        'upper_bound': _Jsonable(getattr(parser, 'upper_bound', None)),
        'enum_values': _Jsonable(getattr(parser, 'enum_values', None)),
        'validators': len(single),
        'multi_flag_validators': sorted(
            ','.join(sorted(v.get_flags_names())) for v in multi
        ),
        'probes': {p: _Verdict(flag, single, p) for p in PROBES},
    }
  return dump


def LoadUpstreamUnit() -> None:
  """Imports every benchmark and package module, and registers pkb_ext's
  (the postgres engine's flags; its name is one the engine flag accepts), as
  a run does."""
  from pkb_ext import registry  # pylint: disable=g-import-not-at-top

  registry.Register()


def main() -> int:
  LoadUpstreamUnit()
  json.dump(Dump(), sys.stdout, indent=1, sort_keys=True)
  sys.stdout.write('\n')
  return 0


if __name__ == '__main__':
  sys.exit(main())
