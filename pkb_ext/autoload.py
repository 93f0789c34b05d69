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
"""Loads pkb_ext into stock PKB, from a .pth file, at no start-up cost.

The .pth file that setup.py installs runs `import pkb_ext.autoload` in every
interpreter of the environment. This module imports nothing heavy: it puts a
finder on sys.meta_path that waits for PKB's benchmark_sets module and, once
that module has run (PKB's own benchmarks and packages are loaded then, and no
flags are parsed yet), calls pkb_ext.registry.Register().

Set PKB_EXT_AUTOLOAD=0 to turn it off.
"""

import importlib.abc
import importlib.util
import os
import sys

ENV_VAR = 'PKB_EXT_AUTOLOAD'
TRIGGER_MODULE = 'perfkitbenchmarker.benchmark_sets'
_OFF_VALUES = frozenset({'0', 'false', 'no', 'off'})


def Enabled(environ=os.environ):
  """Returns whether the autoload is on for this environment."""
  return environ.get(ENV_VAR, '1').strip().lower() not in _OFF_VALUES


class _RegisterAfterExec(importlib.abc.Loader):
  """Runs the trigger module with its own loader, then registers pkb_ext."""

  def __init__(self, loader):
    self._loader = loader

  def create_module(self, spec):
    return self._loader.create_module(spec)

  def exec_module(self, module):
    self._loader.exec_module(module)
    from pkb_ext import registry  # pylint: disable=g-import-not-at-top

    registry.Register()


class _Finder(importlib.abc.MetaPathFinder):
  """Finds the trigger module through the other finders and wraps it."""

  def find_spec(self, fullname, path, target=None):
    if fullname != TRIGGER_MODULE:
      return None
    sys.meta_path.remove(self)
    spec = importlib.util.find_spec(fullname)
    if spec is not None and spec.loader is not None:
      spec.loader = _RegisterAfterExec(spec.loader)
    return spec


def Install():
  """Puts the finder on sys.meta_path once, unless turned off or too late."""
  if not Enabled() or TRIGGER_MODULE in sys.modules:
    return
  if not any(isinstance(f, _Finder) for f in sys.meta_path):
    sys.meta_path.insert(0, _Finder())


Install()
