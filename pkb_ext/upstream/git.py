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
"""Git plumbing: a scratch tree of PKB, its commits and format-patch.

The export commits each patch of the series in a scratch git tree that holds
PKB's files the series edits, and git format-patch writes the series from
those commits. Author and committer are the git user configured where the
export runs (ConfiguredAuthor); no other configuration is read, so the series
depends only on its content, its author and the clock.
"""

import dataclasses
import os
import re
import shutil
import subprocess
from typing import Callable, Sequence

from pkb_ext.upstream import errors

# What a user without a git identity is told to run.
_SET_AUTHOR = (
    'git config --global user.email you@example.com && git config --global'
    " user.name 'Your Name'"
)
# (PKB path, function of its text giving the new text)
Edit = tuple[str, Callable[[str], str]]


@dataclasses.dataclass(frozen=True)
class PatchFile:
  """What one written .patch file holds."""

  name: str  # its file name (0001-*.patch)
  subject: str
  lines: int  # lines of the whole patch text
  added: tuple[str, ...]  # PKB paths it adds
  modified: tuple[str, ...]  # PKB paths it changes


def _Config(where: str, key: str) -> str:
  """git config --get key, as git run in where sees it ('' if unset)."""
  try:
    result = subprocess.run(
        ['git', 'config', '--get', key],
        cwd=where,
        capture_output=True,
        text=True,
        check=False,
    )
  except OSError as e:
    raise errors.ExportError(f'cannot run git: {e.strerror or e}') from e
  return result.stdout.strip() if result.returncode == 0 else ''


def ConfiguredAuthor(where: str) -> tuple[str, str]:
  """(user.name, user.email) of git's configuration as seen in where.

  Raises:
    ExportError: either is not configured; the message says how to set it.
  """
  name, email = _Config(where, 'user.name'), _Config(where, 'user.email')
  if not name or not email:
    unset = ' and '.join(
        k for k, v in (('user.name', name), ('user.email', email)) if not v
    )
    raise errors.ExportError(
        f"no git {unset} configured, and the series' patches need an"
        f' author; set one: {_SET_AUTHOR}'
    )
  return name, email


class Tree:
  """A scratch git tree, its first commit the files it holds at start."""

  def __init__(self, path: str, author: tuple[str, str]):
    """path: the tree's directory; author: (name, email) of its commits."""
    self.path = path
    self._env = dict(
        os.environ,
        GIT_AUTHOR_NAME=author[0],
        GIT_AUTHOR_EMAIL=author[1],
        GIT_COMMITTER_NAME=author[0],
        GIT_COMMITTER_EMAIL=author[1],
        GIT_CONFIG_GLOBAL=os.devnull,
        GIT_CONFIG_NOSYSTEM='1',
    )

  def Git(self, *args: str, stdin: str | None = None) -> str:
    """Runs git in the tree (stdin its input); returns its output."""
    result = subprocess.run(
        ['git', '-C', self.path, *args],
        input=stdin,
        capture_output=True,
        text=True,
        env=self._env,
        check=False,
    )
    if result.returncode:
      raise errors.ExportError(
          f'git {" ".join(args)} failed ({result.returncode}): {result.stderr}'
      )
    return result.stdout

  def Init(self, message: str) -> None:
    """Makes the tree a repository and commits what it holds."""
    self.Git('init', '-q')
    self.Commit([], message)

  def Original(self, rel: str) -> str:
    """The text of rel in the tree's first commit."""
    first = self.Git('rev-list', '--max-parents=0', 'HEAD').split()[0]
    return self.Git('show', f'{first}:{rel}')

  def Write(self, dest: str, content: bytes, mode_of: str) -> None:
    """Writes a new file at dest, with the file mode of mode_of."""
    path = os.path.join(self.path, dest)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, 'wb') as f:
      f.write(content)
    shutil.copymode(mode_of, path)

  def Apply(self, diff: str) -> None:
    """Applies a diff to the tree's files (git apply; all of it or none)."""
    self.Git('apply', '-', stdin=diff)

  def Commit(self, edits: Sequence[Edit], message: str) -> None:
    """Applies edits to the tree's files and commits all changes."""
    for rel, change in edits:
      path = os.path.join(self.path, rel)
      with open(path, encoding='utf-8') as f:
        text = f.read()
      with open(path, 'w', encoding='utf-8') as f:
        f.write(change(text))
    self.Git('add', '-A')
    self.Git('commit', '-q', '-m', message)

  def FormatPatch(self, count: int, out_dir: str) -> list[PatchFile]:
    """Writes the last count commits as patches to out_dir; lists them."""
    self.Git(
        'format-patch',
        '-q',
        '--binary',
        '--full-index',
        '-o',
        out_dir,
        f'HEAD~{count}',
    )
    names = sorted(os.listdir(out_dir))
    if len(names) != count:
      raise errors.ExportError(
          f'git format-patch wrote {len(names)} patches, not {count}'
      )
    return [_Read(out_dir, name) for name in names]


def _Read(out_dir: str, name: str) -> PatchFile:
  """What the patch file out_dir/name says it holds."""
  with open(os.path.join(out_dir, name), encoding='utf-8') as f:
    text = f.read()
  subject = ' '.join(
      re.search(r'^Subject: \[PATCH[^]]*\] (.*(?:\n .*)*)', text, re.M)
      .group(1)
      .split()
  )
  added = re.findall(r'^diff --git a/(\S+) b/\S+\nnew file mode', text, re.M)
  changed = [
      p
      for p in re.findall(r'^diff --git a/(\S+) b/', text, re.M)
      if p not in added
  ]
  return PatchFile(
      name, subject, text.count('\n'), tuple(added), tuple(changed)
  )
