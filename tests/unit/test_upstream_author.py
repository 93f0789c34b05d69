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
"""The series' author: the git user configured where the export runs."""

import contextlib
import io
import os
import subprocess
from unittest import mock

from absl.testing import absltest

from pkb_ext.upstream import cli
from pkb_ext.upstream import errors
from pkb_ext.upstream import export
from pkb_ext.upstream import git


class AuthorTest(absltest.TestCase):

  def _GitConfig(self, text: str) -> str:
    """A directory outside any repository whose git sees only text."""
    where = self.create_tempdir().full_path
    config = self.create_tempfile(content=text).full_path
    self.enter_context(
        mock.patch.dict(
            os.environ, GIT_CONFIG_GLOBAL=config, GIT_CONFIG_NOSYSTEM='1'
        )
    )
    for key in ('GIT_AUTHOR_NAME', 'GIT_AUTHOR_EMAIL', 'GIT_DIR'):
      self.enter_context(mock.patch.dict(os.environ, {key: ''}))
      del os.environ[key]
    cwd = os.getcwd()
    os.chdir(where)
    self.addCleanup(os.chdir, cwd)
    return where

  def testTheConfiguredUserAuthorsThePatches(self):
    where = self._GitConfig(
        '[user]\n  name = Ada Lovelace\n  email = ada@example.com\n'
    )
    author = git.ConfiguredAuthor(where)
    self.assertEqual(author, ('Ada Lovelace', 'ada@example.com'))
    tree = git.Tree(self.create_tempdir().full_path, author)
    with open(os.path.join(tree.path, 'a'), 'w', encoding='utf-8') as f:
      f.write('a\n')
    tree.Init('pin')
    tree.Commit([('a', lambda t: t + 'b\n')], 'Add b.')
    out = self.create_tempdir().full_path
    (patch,) = tree.FormatPatch(1, out)
    with open(os.path.join(out, patch.name), encoding='utf-8') as f:
      text = f.read()
    self.assertIn('\nFrom: Ada Lovelace <ada@example.com>\n', text)
    self.assertNotIn('cloud-report-export', text)
    committer = tree.Git('log', '-1', '--format=%cn <%ce>').strip()
    self.assertEqual(committer, 'Ada Lovelace <ada@example.com>')

  def testARepositorysOwnUserWins(self):
    where = self._GitConfig('[user]\n  name = A\n  email = a@example.com\n')
    subprocess.run(['git', 'init', '-q', where], check=True)
    subprocess.run(
        ['git', '-C', where, 'config', 'user.email', 'repo@example.com'],
        check=True,
    )
    self.assertEqual(git.ConfiguredAuthor(where), ('A', 'repo@example.com'))

  def testNoConfiguredUserIsRefusedInOneLineBeforeAnythingIsWritten(self):
    for config in ('', '[user]\n  name = Ada Lovelace\n'):
      where = self._GitConfig(config)
      out = os.path.join(where, 'out')
      with self.assertRaisesRegex(
          errors.ExportError,
          r'^no git user\.(name and user\.)?email configured, .*'
          r' git config --global user\.email ',
      ) as raised:
        export.Write(out)
      self.assertNotIn('\n', str(raised.exception))
      self.assertFalse(os.path.exists(out))
      stderr = io.StringIO()
      with contextlib.redirect_stderr(stderr):
        self.assertEqual(cli.Main(['--out', out]), 1)
      (line,) = stderr.getvalue().splitlines()
      self.assertStartsWith(line, 'pkb-ext upstream: no git user.')
      self.assertFalse(os.path.exists(out))


if __name__ == '__main__':
  absltest.main()
