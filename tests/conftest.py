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
"""Shared pytest set-up for every tier.

Tiers are directories: unit/, pkb/, local/, matrix/, emulator/. Each test gets its
tier's marker, so `pytest -m unit` runs one tier.

PKB's own test helpers (tests/pkb_common_test_case.py, mock_command, ...)
live in the pinned PKB checkout, not in its installed package; load them with
pkb_ext_dev.pkb_tests.Import('pkb_common_test_case') (under pytest's
importlib mode the name `tests` is our own test tree).
"""

import os
import pathlib

import pytest

TESTS_DIR = pathlib.Path(__file__).resolve().parent
DATA_DIR = TESTS_DIR / 'data'
_TIERS = ('unit', 'pkb', 'local', 'matrix', 'emulator')
# pkb_ext_dev (test helpers) is not installed: pytest's pythonpath finds it
# here, and subprocesses the tests start (python -m pkb_ext_dev...) too.
os.environ['PYTHONPATH'] = os.pathsep.join(
    p for p in (str(TESTS_DIR), os.environ.get('PYTHONPATH')) if p
)


def pytest_collection_modifyitems(config, items):
  del config
  for item in items:
    rel = pathlib.Path(str(item.fspath)).resolve().relative_to(TESTS_DIR)
    tier = rel.parts[0]
    if tier in _TIERS:
      item.add_marker(getattr(pytest.mark, tier))


@pytest.fixture
def data_dir() -> pathlib.Path:
  """The directory of captured tool outputs (see data/*/PROVENANCE.md)."""
  return DATA_DIR


@pytest.fixture(scope='session', autouse=True)
def _pkb_ext_registered():
  """Registers pkb_ext with PKB, as the .pth autoload does for pkb.py."""
  os.environ.setdefault('PKB_EXT_AUTOLOAD', '1')
  from absl import flags  # pylint: disable=g-import-not-at-top
  from pkb_ext import registry  # pylint: disable=g-import-not-at-top

  registry.Register()
  # As PKB's own tests do (pkb_common_test_case): flags keep their defaults.
  if not flags.FLAGS.is_parsed():
    flags.FLAGS.mark_as_parsed()
