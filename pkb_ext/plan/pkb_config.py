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
"""PKB's flags and benchmark configurations, read as pkb.py reads them.

Through pkb_ext.pkb_door (the registry's second half), with no VM, no
network and no temp directory: the flags parsed (benchmark sets, aliases),
non-finite numbers and disk flags out of range refused, the config file of
--benchmark_config_file (and the files it imports) checked before PKB reads
it, and each benchmark's configuration built as pkb.py builds it (the flag
matrix expanded).
"""

import contextlib
import math
import os
import stat
from typing import Any, Iterator, Sequence

import yaml

from pkb_ext import inputs
from pkb_ext import pkb_door
from pkb_ext import registry
from pkb_ext.plan import errors

# Far above any real benchmark config or price file.
MAX_INPUT_BYTES = 64 * 1024 * 1024

# Keys of a benchmark's entry in a config file that PKB reads as mappings;
# True: each of its values is a mapping too.
_MAPPING_KEYS = {
    'flags': False,
    'vm_groups': True,
    'flag_matrix_defs': True,
    'flag_zip_defs': True,
    'flag_matrix_filters': False,
}


def ReadText(path: str) -> str:
  """Returns the text of a regular UTF-8 file of MAX_INPUT_BYTES or less.

  Raises:
    errors.PlanError: not so.
  """
  try:
    info = os.stat(path)
    if not stat.S_ISREG(info.st_mode):
      raise errors.PlanError(
          f'{path}: not a regular file (a FIFO, device or directory)'
      )
    if info.st_size > MAX_INPUT_BYTES:
      raise errors.PlanError(
          f'{path}: {info.st_size:,} bytes, larger than the'
          f' {MAX_INPUT_BYTES:,} a config or price file may have'
      )
    return inputs.ReadText(path, MAX_INPUT_BYTES, 'a config or price file')
  except OSError as e:
    raise errors.PlanError(f'{path}: {e.strerror or e}') from e
  except inputs.InputError as e:
    raise errors.PlanError(str(e)) from e


def _Where(line: int, files: Sequence[tuple[str, int]]) -> str:
  """'FILE line N' of a 0-based line of files concatenated by newlines."""
  for path, lines in files:
    if line < lines:
      return f'{path} line {line + 1}'
    line -= lines
  return files[-1][0]


def _YamlProblem(e: yaml.YAMLError, files: Sequence[tuple[str, int]]) -> str:
  """Names the file and line of a YAML error in concatenated files."""
  mark = getattr(e, 'problem_mark', None)
  problem = getattr(e, 'problem', None) or type(e).__name__
  where = files[-1][0] if mark is None else _Where(mark.line, files)
  return f'{where}: not YAML ({problem})'


def _CheckConfigShape(root, files: Sequence[tuple[str, int]]) -> None:
  """Refuses a config whose parts PKB reads as mappings are not.

  Args:
    root: the composed YAML node of the config.
    files: (path, line count) of the concatenated files, for messages.

  Raises:
    errors.PlanError: naming the file, line and key.
  """

  def Check(node, what: str) -> None:
    if not isinstance(node, yaml.MappingNode):
      raise errors.PlanError(
          f'{_Where(node.start_mark.line, files)}: {what} must be a mapping'
      )

  if root is None:
    return
  Check(root, 'a benchmark config')
  for key, entry in root.value:
    Check(entry, f'benchmark {key.value}')
    for sub_key, sub in entry.value:
      nested = _MAPPING_KEYS.get(sub_key.value)
      if nested is None:
        continue
      Check(sub, f'{key.value}.{sub_key.value}')
      if nested:
        for name, value in sub.value:
          Check(value, f'{key.value}.{sub_key.value}.{name.value}')


def CheckConfigFile(path: str) -> None:
  """Checks --benchmark_config_file as PKB will read it, imports included.

  PKB blocks on a FIFO, reads any size, and raises tracebacks on a missing
  file, a directory or bad YAML; this reads what it would read first.

  Raises:
    errors.PlanError: a file is missing, not a regular file, too large, not
      UTF-8 or YAML, nested too deeply, or not a mapping.
  """
  files, texts, queue, seen = [], [], [path], set()
  while queue:
    name = queue.pop(0)
    resolved = pkb_door.ResourcePath(name)
    if resolved is None:
      raise errors.PlanError(
          f'{name}: no such config file (a relative path is looked up from'
          f" {os.getcwd()} and PKB's data directories)"
      )
    if resolved in seen:
      continue
    seen.add(resolved)
    text = ReadText(resolved)
    for line in text.splitlines():
      imported = pkb_door.ConfigImport(line)
      if imported is None:
        break
      queue.append(imported)
    files.append((resolved, text.count('\n') + 1))
    texts.append(text)
  text = '\n'.join(texts)
  try:
    _CheckConfigShape(yaml.compose(text, Loader=yaml.SafeLoader), files)
    yaml.safe_load(text)  # what PKB will do: tags, duplicate anchors, ...
  except yaml.YAMLError as e:
    raise errors.PlanError(_YamlProblem(e, files)) from e
  except RecursionError as e:
    raise errors.PlanError(f'{path}: YAML nested too deeply') from e


def CheckNumericFlags(flag_values) -> None:
  """Refuses a non-finite float flag, and disk flags out of range.

  Raises:
    errors.PlanUsageError: naming the flag.
  """
  for name in flag_values:
    flag = flag_values[name]
    value = flag.value
    if flag.present and isinstance(value, float) and not math.isfinite(value):
      raise errors.PlanUsageError(f'--{name}={value}: not a finite number')
  for name, low in (('data_disk_size', 1), ('provisioned_iops', 0),
                    ('provisioned_throughput', 0)):  # fmt: skip
    if name in flag_values and flag_values[name].present:
      value = flag_values[name].value
      if value is not None and (not math.isfinite(float(value)) or value < low):
        raise errors.PlanUsageError(f'--{name}={value}: must be >= {low}')


def ParseFlags(pkb_argv: Sequence[str]):
  """Parses PKB flags as pkb.py does; returns absl's FLAGS.

  Raises:
    errors.PlanUsageError: the flags do not parse, or a number is out of range.
  """
  argv = list(pkb_argv)
  if not any(a.startswith('--benchmarks') for a in argv):
    argv.insert(0, '--benchmarks=' + registry.SUITE_BENCHMARK)
  # Planning installs nothing, so the providers' Python packages (awscli,
  # ...) are not needed here.
  if not any('package_requirements' in a for a in argv):
    argv.append('--ignore_package_requirements')
  try:
    flag_values, rest = pkb_door.ParseFlags(argv)
  except pkb_door.FlagError as e:
    raise errors.PlanUsageError(errors.OneLine(e)) from e
  if len(rest) > 1:
    raise errors.PlanUsageError(f'unexpected arguments: {" ".join(rest[1:])}')
  CheckNumericFlags(flag_values)
  return flag_values


def BenchmarkConfigs(pkb_argv: Sequence[str]) -> list[tuple[Any, dict, Any]]:
  """Parses PKB flags into configurations, as pkb.py builds them.

  Args:
    pkb_argv: PKB flags; --benchmarks defaults to cloud_report_2021.

  Returns:
    (benchmark module, the configuration's flags, its BenchmarkConfigSpec)
    for every configuration, in pkb.py's order. The process's flags stay
    parsed from pkb_argv.

  Raises:
    errors.PlanError: the flags or a configuration are invalid.
  """
  flag_values = ParseFlags(pkb_argv)
  if flag_values.benchmark_config_file:
    CheckConfigFile(flag_values.benchmark_config_file)
  return ConfigsFromFlags(flag_values)


def ConfigsFromFlags(flag_values) -> list[tuple[Any, dict, Any]]:
  """BenchmarkConfigs of flags already parsed (and checked) by it.

  Raises:
    errors.PlanError: a configuration is invalid.
  """
  config_file = flag_values.benchmark_config_file
  try:
    resolved = pkb_door.BenchmarksFromFlags()
  except pkb_door.ConfigError as e:
    where = f'{config_file}: ' if config_file else ''
    raise errors.PlanError(where + errors.OneLine(e)) from e
  ours = {m.BENCHMARK_NAME for m in registry.BenchmarkModules()}
  out = []
  for module, user_config in resolved:
    name = module.BENCHMARK_NAME
    if name not in ours:
      raise errors.PlanError(
          f'{name} is not a pkb_ext benchmark; plan knows only ours'
      )
    config_flags = dict(user_config.get('flags') or {})
    try:
      config = pkb_door.BuildConfig(module, user_config, flag_values)
    except pkb_door.ConfigError as e:
      raise errors.PlanError(
          f'{name} {config_flags}: {errors.OneLine(e)}'
      ) from e
    out.append((module, config_flags, config))
  return out


@contextlib.contextmanager
def FlagAsGiven(flag_values, name: str, value: Any) -> Iterator[None]:
  """Sets a flag as the command line would, then restores it.

  A flag the command line gives wins over a configuration's own flags
  (PKB's OverrideFlags), so configurations built inside see value.
  """
  flag = flag_values[name]
  saved = (flag.value, flag.present, flag.using_default_value)
  try:
    flag.parse(value)
    yield
  finally:
    flag.value, flag.present, flag.using_default_value = saved
