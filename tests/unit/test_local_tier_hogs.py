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
"""Tests for tests/local/conftest.py: the local tier's CPU hog, deferred.

Each test runs a small tier of two tests under a copy of the local tier's
conftest in a child pytest, with PKB_EXT_LOCAL_HOGS_AFTER_PID naming a
process this test started: the hog waits for that process to end.
"""

import os
import pathlib
import shutil
import signal
import subprocess
import sys
import tempfile

from absl.testing import absltest

_TESTS = pathlib.Path(__file__).resolve().parents[1]
_CONFTEST = _TESTS / 'local' / 'conftest.py'
# The first test ends the other process when asked to (and waits, bounded,
# until it has); the second keeps running until the hog, if one started, has
# had a fair share of a core, so that the conftest's check holds under load.
_TIER = """
import os
import signal
import time

import conftest
from pkb_ext_dev import load


def test_1():
  pid = int(os.environ['PKB_EXT_LOCAL_HOGS_AFTER_PID'])
  if os.environ.get('END_IT') == '1':
    os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + 30
    while load.Stat(pid)[0] and time.monotonic() < deadline:
      time.sleep(0.05)
    assert not load.Stat(pid)[0]


def test_2():
  start = time.monotonic()
  deadline = start + 60
  while conftest._hogs is not None and time.monotonic() < deadline:
    used = sum(load.Stat(p)[1] for p in conftest._hogs.pids)
    if time.monotonic() - start > 0.5 and used > 0.5:
      break
    time.sleep(0.1)
"""


class DeferredHogTest(absltest.TestCase):

  def setUp(self):
    super().setUp()
    self.dir = tempfile.mkdtemp(prefix='pkb-ext-hogs-')
    self.addCleanup(shutil.rmtree, self.dir, ignore_errors=True)
    shutil.copy(_CONFTEST, os.path.join(self.dir, 'conftest.py'))
    with open(os.path.join(self.dir, 'test_tier.py'), 'w') as f:
      f.write(_TIER)
    self.other = subprocess.Popen(['sleep', '300'])
    self.addCleanup(self._EndOther)

  def _EndOther(self):
    if self.other.poll() is None:
      self.other.send_signal(signal.SIGTERM)
    self.other.wait(timeout=30)

  def _Tier(self, end_it: bool) -> str:
    env = dict(os.environ)
    env.update(
        PYTHONPATH=os.pathsep.join([str(_TESTS), self.dir]),
        PKB_EXT_LOCAL_HOGS='1',
        PKB_EXT_LOCAL_HOGS_AFTER_PID=str(self.other.pid),
        END_IT='1' if end_it else '0',
    )
    proc = subprocess.run(
        [sys.executable, '-m', 'pytest', '-q', '-p', 'no:cacheprovider',
         f'--rootdir={self.dir}', self.dir],
        cwd=self.dir, env=env, capture_output=True, text=True, timeout=300,
        check=False,
    )  # fmt: skip
    self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
    self.assertIn('2 passed', proc.stdout)
    return proc.stdout

  def testHogStartsAfterTheOtherProcessEnds(self):
    out = self._Tier(end_it=True)
    self.assertIn(
        'local tier under load: 1 CPU hog(s) started after 1 test(s) under'
        f' process {self.other.pid}',
        out,
    )
    self.assertNotIn('no hog started', out)
    self.assertNotIn('FAILED', out)

  def testNoHogWhileTheOtherProcessRuns(self):
    out = self._Tier(end_it=False)
    self.assertIn(
        f'local tier under load: all 2 test(s) under process {self.other.pid};'
        ' no hog started',
        out,
    )
    self.assertNotIn('hog(s) started', out)
    self.assertIsNone(self.other.poll())


if __name__ == '__main__':
  absltest.main()
