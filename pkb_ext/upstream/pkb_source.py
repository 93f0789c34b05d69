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
"""PKB's source at the pinned commit: the pin, and the tar setup stores.

scripts/setup.sh stores PKB's source at the commit its 30-pkb.sh pins as a
tar in the setup cache; the export starts from that tree.
"""

import os
import re
import tarfile
import zlib

from pkb_ext import paths
from pkb_ext.upstream import errors

PIN_SCRIPT = os.path.join('scripts', 'setup.d', '30-pkb.sh')


def PinnedCommit(source_root: str | None = None) -> str:
  """Returns the PKB commit setup pins (PKB_COMMIT= in 30-pkb.sh)."""
  path = os.path.join(source_root or paths.RepoRoot(), PIN_SCRIPT)
  try:
    with open(path, encoding='utf-8') as f:
      text = f.read()
  except OSError as e:
    raise errors.ExportError(f'cannot read the PKB pin from {path}: {e}') from e
  match = re.search(r'^PKB_COMMIT=([0-9a-f]{40})$', text, re.MULTILINE)
  if not match:
    raise errors.ExportError(f'{path} has no PKB_COMMIT=<40 hex digits> line')
  return match.group(1)


def SourceArchive(commit: str) -> str:
  """Returns the cache's tar of PKB's source at commit (made by setup)."""
  return os.path.join(paths.CacheDir(), f'pkb-{commit}-src.tar')


def ExtractPkb(archive: str, dest: str, members: list[str] | None = None):
  """Extracts PKB's source (all of it, or the named files) into dest."""
  if not os.path.isfile(archive):
    raise errors.ExportError(
        f'no PKB source archive at {archive}: run scripts/setup.sh, which'
        ' stores PKB at the pinned commit there'
    )
  try:
    with tarfile.open(archive) as tar:
      if members is None:
        tar.extractall(dest, filter='data')
        return
      for name in members:
        try:
          tar.extract(name, dest, filter='data')
        except KeyError as e:
          raise errors.ExportError(f'{archive} has no {name}') from e
  except (tarfile.TarError, EOFError, OSError, zlib.error) as e:
    raise _BadArchive(archive, e) from e


def _BadArchive(archive: str, error: BaseException) -> errors.ExportError:
  detail = (str(error).strip().splitlines() or [''])[0].rstrip(':')[:200]
  return errors.ExportError(
      f'{archive}: not a readable tar of PKB source'
      f' ({type(error).__name__}: {detail}); run scripts/setup.sh'
      ' to store PKB at the pinned commit again, or give another'
      ' --pkb-archive'
  )


def ArchiveNames(archive: str) -> set[str]:
  """The member names of a tar of PKB's source.

  Raises:
    ExportError: the archive cannot be read as a tar.
  """
  try:
    with tarfile.open(archive) as tar:
      return {m.name.rstrip('/') for m in tar.getmembers()}
  except (tarfile.TarError, EOFError, OSError, zlib.error) as e:
    raise _BadArchive(archive, e) from e
