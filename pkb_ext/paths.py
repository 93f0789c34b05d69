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
"""Where pkb_ext keeps things outside the repository.

Nothing here imports PKB. The cache holds upstream checkouts and tarballs that
setup fetched (never committed to the repo); PKB_EXT_CACHE moves it.
"""

import os

CACHE_ENV = 'PKB_EXT_CACHE'


def CacheDir() -> str:
  """Returns the cache directory (it may not exist yet)."""
  default = os.path.join(
      os.environ.get('XDG_CACHE_HOME') or os.path.expanduser('~/.cache'),
      'pkb-ext',
  )
  return os.path.abspath(os.environ.get(CACHE_ENV) or default)


def CacheDataDir() -> str:
  """Returns the cache's data directory, a PKB data search path."""
  return os.path.join(CacheDir(), 'data')


def RepoRoot() -> str:
  """Returns the source tree root (valid for editable installs)."""
  return os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
