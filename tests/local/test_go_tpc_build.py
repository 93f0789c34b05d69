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
"""go-tpc's build on a VM, run for real: the pinned module builds go-tpc.

The go-tpc package builds on a VM that has no binary in the data search path
(go_tpc.BuildCommand with the module in go_tpc/). Here the same command runs
on this machine with its Go and the setup cache's module and build caches
(linked in, so no download is repeated); Go checks every module against the
committed go.sum, so a changed go.sum line must fail the build.
"""

import os
import shutil
import subprocess

from absl.testing import absltest
from perfkitbenchmarker import data

from pkb_ext.tpcc_postgres import go_tpc
from pkb_ext import paths


def _Go() -> str | None:
  for candidate in ('go', '/usr/local/go/bin/go', '/usr/lib/go/bin/go'):
    found = shutil.which(candidate)
    if found:
      return found
  return None


class GoTpcBuildTest(absltest.TestCase):

  def setUp(self):
    super().setUp()
    self.go = _Go()
    if self.go is None:
      self.skipTest('no Go toolchain (setup installs one)')
    self.dir = self.create_tempdir().full_path
    build = os.path.join(self.dir, 'build')
    os.makedirs(build)
    for name in go_tpc.BUILD_MODULE_FILES:
      shutil.copy(data.ResourcePath(name), build)
    # The setup cache's module downloads and build cache, shared.
    go_cache = os.path.join(paths.CacheDir(), 'go')
    os.makedirs(os.path.join(self.dir, 'gopath', 'pkg'))
    os.symlink(
        os.path.join(go_cache, 'pkg', 'mod'),
        os.path.join(self.dir, 'gopath', 'pkg', 'mod'),
    )
    os.symlink(
        os.path.join(go_cache, 'build'), os.path.join(self.dir, 'gocache')
    )

  def _Build(self):
    return subprocess.run(
        ['bash', '-c', go_tpc.BuildCommand(self.dir, self.go)],
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )

  def testBuildsARunnableGoTpc(self):
    proc = self._Build()
    self.assertEqual(proc.returncode, 0, proc.stderr[-3000:])
    version = subprocess.run(
        [os.path.join(self.dir, 'go-tpc'), 'version'],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    self.assertIn('Release version', version.stdout)

  def testAChangedChecksumFailsTheBuild(self):
    go_sum = os.path.join(self.dir, 'build', 'go.sum')
    with open(go_sum) as f:
      lines = f.read().splitlines()
    prefix = f'{go_tpc.MODULE} {go_tpc.VERSION} h1:'
    (index,) = [i for i, line in enumerate(lines) if line.startswith(prefix)]
    lines[index] = prefix + 'AAAA' + lines[index][len(prefix) + 4 :]
    with open(go_sum, 'w') as f:
      f.write('\n'.join(lines) + '\n')
    proc = self._Build()
    self.assertNotEqual(proc.returncode, 0)
    self.assertIn('checksum mismatch', proc.stderr)
    self.assertFalse(os.path.exists(os.path.join(self.dir, 'go-tpc')))


if __name__ == '__main__':
  absltest.main()
