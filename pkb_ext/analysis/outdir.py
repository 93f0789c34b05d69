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
"""An output directory that is replaced whole, and only when complete.

`pkb-ext report` and `pkb-ext compare --out` write into a fresh directory
beside the target, then swap it in: a run that fails leaves the previous
output as it was, and a run that succeeds leaves none of the previous
output's files (old charts) behind. A target that exists must be an earlier
output of the same command (only files it writes) or empty: anything else is
refused before a file is written.
"""

import os
import re
import shutil
import tempfile
from typing import Callable

from pkb_ext import errors


class OutputError(errors.Error, OSError):
  """The output directory cannot be used; the message says why."""


def _Check(out_dir: str, own: re.Pattern[str]) -> None:
  if os.path.islink(out_dir):
    raise OutputError(f'--out {out_dir}: a symbolic link; give a directory')
  if not os.path.exists(out_dir):
    return
  if not os.path.isdir(out_dir):
    raise OutputError(f'--out {out_dir}: exists and is not a directory')
  for name in sorted(os.listdir(out_dir)):
    path = os.path.join(out_dir, name)
    if not own.fullmatch(name) or os.path.islink(path) or os.path.isdir(path):
      raise OutputError(
          f'--out {out_dir}: holds {name!r}, which this command does not'
          ' write; give a new or empty directory (it is replaced whole)'
      )


def _Umask() -> int:
  mask = os.umask(0)
  os.umask(mask)
  return mask


def Replace(
    out_dir: str,
    own: re.Pattern[str],
    write: Callable[[str], dict[str, str]],
) -> dict[str, str]:
  """Runs write(fresh directory), then makes that directory out_dir.

  Args:
    out_dir: the output directory; if it exists, it may hold only files
      whose names `own` matches (an earlier output).
    own: the names of the files the command writes.
    write: writes the output into the directory it is given; returns
      {key: path of a file it wrote}.

  Returns:
    write's paths, now in out_dir.

  Raises:
    OutputError: out_dir is not a directory, or holds other files.
    OSError: writing or renaming failed (out_dir is then as it was).
  """
  out_dir = os.path.normpath(out_dir)
  _Check(out_dir, own)
  parent = os.path.dirname(os.path.abspath(out_dir))
  base = os.path.basename(os.path.abspath(out_dir))
  os.makedirs(parent, exist_ok=True)
  fresh = tempfile.mkdtemp(prefix=f'.{base}.new-', dir=parent)
  old = None
  try:
    os.chmod(fresh, 0o777 & ~_Umask())
    paths = write(fresh)
    if os.path.exists(out_dir):
      _Check(out_dir, own)  # again: it may have changed meanwhile
      old = tempfile.mkdtemp(prefix=f'.{base}.old-', dir=parent)
      os.rename(out_dir, old)  # over the empty directory just made
    os.rename(fresh, out_dir)
  except BaseException:
    if old is not None:
      if not os.path.exists(out_dir):
        os.rename(old, out_dir)  # the earlier output, back in place
      else:
        shutil.rmtree(old, ignore_errors=True)
    shutil.rmtree(fresh, ignore_errors=True)
    raise
  if old is not None:
    shutil.rmtree(old, ignore_errors=True)
  return {
      k: os.path.join(out_dir, os.path.relpath(p, fresh))
      for k, p in paths.items()
  }
