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
"""The registry's second half: PKB's command line and configurations.

registry.py registers pkb_ext with PKB; this module reads what PKB would
read, as pkb.py does, without running anything: its flags (aliases
included), the benchmarks and configurations they name, and the files of
--benchmark_config_file. The two modules are the only ones of pkb_ext that
import PKB's internals at run time; `pkb-ext plan` reaches PKB through them.

What PKB refuses comes back as one of this module's errors, its message
PKB's on one line: FlagError (the flags do not parse, a usage error) and
ConfigError (a benchmark, flag matrix or configuration PKB cannot build).
"""

from typing import Any, Sequence

from pkb_ext import errors
from pkb_ext import registry

# PKB modules are imported inside the functions, as in registry.py.
# pylint: disable=g-import-not-at-top


class FlagError(errors.UsageError):
  """PKB's flags do not parse; the message is absl's."""


class ConfigError(errors.Error):
  """PKB cannot resolve or build a configuration; the message is PKB's."""


def ParseFlags(argv: Sequence[str]) -> tuple[Any, list[str]]:
  """Registers pkb_ext and parses argv as pkb.py does (aliases included).

  Args:
    argv: PKB flags, without the program name.

  Returns:
    (absl's FLAGS, now parsed from argv; the arguments that are not flags,
    the program name first).

  Raises:
    FlagError: a flag is unknown or its value does not parse.
  """
  from absl import flags
  from perfkitbenchmarker import flag_alias

  registry.Register()
  try:
    rest = flags.FLAGS(['pkb.py'] + flag_alias.AliasFlagsFromArgs(list(argv)))
  except flags.Error as e:
    raise FlagError(errors.OneLine(e)) from e
  return flags.FLAGS, rest


def BenchmarksFromFlags() -> list[tuple[Any, dict]]:
  """(benchmark module, user config) of every run the parsed flags name.

  Raises:
    ConfigError: PKB refuses the benchmarks, the config file or the flag
      matrix (it raises ValueError, its FlagMatrixNotFoundException, YAML
      and resource errors, ...).
  """
  from perfkitbenchmarker import benchmark_sets

  try:
    return benchmark_sets.GetBenchmarksFromFlags()
  except Exception as e:  # pylint: disable=broad-except
    raise ConfigError(errors.OneLine(e)) from e


def BuildConfig(module, user_config: dict, flag_values) -> Any:
  """A benchmark's BenchmarkConfigSpec, as pkb.py builds it.

  Args:
    module: the benchmark module.
    user_config: its entry of the config file (its `flags` override the
      command line's while the module's GetConfig runs).
    flag_values: absl's FLAGS, parsed.

  Raises:
    ConfigError: GetConfig or the config spec refuses the configuration.
  """
  from perfkitbenchmarker import flag_util
  from perfkitbenchmarker import os_types
  from perfkitbenchmarker.configs import benchmark_config_spec

  config_flags = dict(user_config.get('flags') or {})
  try:
    with flag_util.OverrideFlags(flag_values, config_flags):
      config_dict = module.GetConfig(user_config)
    return benchmark_config_spec.BenchmarkConfigSpec(
        module.BENCHMARK_NAME,
        expected_os_types=os_types.ALL,
        flag_values=flag_values,
        **config_dict,
    )
  except Exception as e:  # pylint: disable=broad-except
    raise ConfigError(errors.OneLine(e)) from e


def ResourcePath(name: str) -> str | None:
  """The file PKB's data loaders find for name; None: none finds it."""
  from perfkitbenchmarker import data

  try:
    return data.ResourcePath(name)
  except data.ResourceNotFound:
    return None


def ConfigImport(line: str) -> str | None:
  """The file a benchmark config's `#import FILE` line names; None: none."""
  from perfkitbenchmarker import configs

  match = configs.IMPORT_REGEX.match(line + '\n')
  return match.group(1) if match else None
