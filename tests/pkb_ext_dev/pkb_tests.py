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
"""Imports PKB's own test helpers from the pinned checkout.

PKB's helpers (tests/pkb_common_test_case.py, tests/mock_command.py, ...) are
not part of its installed package, and under pytest's importlib mode the name
`tests` belongs to our own test tree. Import(name) loads PKB's
tests/<name>.py with `tests` pointing at PKB's directory for the duration of
the import (its own `from tests import ...` lines need that), then puts the
previous `tests` module back.
"""

import importlib
import importlib.util
import pathlib
import sys
import threading
import types

import perfkitbenchmarker

PKB_TESTS_DIR = (
    pathlib.Path(perfkitbenchmarker.__file__).resolve().parent.parent / 'tests'
)
_lock = threading.Lock()


def Import(name: str) -> types.ModuleType:
  """Returns PKB's tests/<name>.py module, e.g. Import('pkb_common_test_case')."""
  if not (PKB_TESTS_DIR / f'{name}.py').is_file():
    raise ImportError(f'PKB has no tests/{name}.py under {PKB_TESTS_DIR}')
  full_name = f'tests.{name}'
  with _lock:
    module = sys.modules.get(full_name)
    if module is not None and str(PKB_TESTS_DIR) in str(
        getattr(module, '__file__', '')
    ):
      return module
    saved = sys.modules.get('tests')
    package = types.ModuleType('tests')
    package.__path__ = [str(PKB_TESTS_DIR)]
    sys.modules['tests'] = package
    try:
      return importlib.import_module(full_name)
    finally:
      if saved is not None:
        sys.modules['tests'] = saved
      else:
        sys.modules.pop('tests', None)


SCRIPTS_PACKAGE = 'perfkitbenchmarker.scripts'
CONFIGS_DIR = pathlib.Path(__file__).resolve().parents[2] / 'configs'


def ImportScript(path: str) -> types.ModuleType:
  """Loads configs/<path> as PKB's perfkitbenchmarker.scripts.<path> module.

  A script the series adds to PKB's scripts package is a data file here
  (PKB's data search path finds it under configs/); its exported tests
  import it by PKB's module name, e.g.
  ImportScript('object_storage_api_test_scripts/ttfb.py').
  """
  full_name = f'{SCRIPTS_PACKAGE}.{path.removesuffix(".py").replace("/", ".")}'
  with _lock:
    module = sys.modules.get(full_name)
    if module is not None:
      return module
    importlib.import_module(full_name.rpartition('.')[0])
    return _Load(full_name, CONFIGS_DIR / path)


UPSTREAM_TESTS_DIR = pathlib.Path(__file__).resolve().parents[1] / 'upstream'
_EXPORTED_PACKAGE = 'pkb_ext_exported_tests'


def ExportedTest(path: str) -> types.ModuleType:
  """Loads tests/upstream/<path>, an exported test, for its helpers.

  A pkb_ext test of what runs the exported pieces differently (the suite)
  uses the exported test's mocked VMs rather than a copy. The module gets a
  private name, so pytest's own import of the file is another module and
  its test cases are collected only there.
  """
  full_name = (
      f'{_EXPORTED_PACKAGE}.{path.removesuffix(".py").replace("/", ".")}'
  )
  with _lock:
    module = sys.modules.get(full_name)
    if module is not None:
      return module
    return _Load(full_name, UPSTREAM_TESTS_DIR / path)


def _Load(full_name: str, path: pathlib.Path) -> types.ModuleType:
  """Executes the file at path as module full_name (in sys.modules)."""
  spec = importlib.util.spec_from_file_location(full_name, path)
  module = importlib.util.module_from_spec(spec)
  sys.modules[full_name] = module
  try:
    spec.loader.exec_module(module)
  except BaseException:
    sys.modules.pop(full_name, None)
    raise
  return module
