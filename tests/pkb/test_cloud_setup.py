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
"""The README's cloud commands, run for real: set-up, then an AWS run.

The README's set-up command (`make cloud-setup CLOUD=AWS`) installs PKB's AWS
requirements into this repo's .venv, as it would for a user (the first time
it downloads awscli from PyPI; later it finds them present). Then the
README's AWS command runs with .venv/bin first on PATH (as after `source
.venv/bin/activate`) and no AWS credentials anywhere: a home, temp directory
and AWS config files of the test's own, instance metadata off, and only a
secret access key (no key id) in the environment. It must get past PKB's
requirement check and stop at preflight with the one message, printed once,
with nothing provisioned and the secret in no output or log.
"""

import glob
import os
import shlex
import subprocess

from absl.testing import absltest

from pkb_ext import paths

ROOT = paths.RepoRoot()
VENV_BIN = os.path.join(ROOT, '.venv', 'bin')
SECRET = 'wJalrXUtnFEMI-not-a-real-secret-K7MDENG'


def ReadmeCloudCommands() -> tuple[list[str], list[str]]:
  """The README's cloud set-up command and its AWS pkb.py command."""
  with open(os.path.join(ROOT, 'README.md')) as f:
    section = f.read().split('## On a cloud', 1)[1].split('\n## ', 1)[0]
  block = section.split('```sh', 1)[1].split('```', 1)[0]
  commands = [
      shlex.split(c, comments=True)
      for c in block.replace('\\\n', ' ').splitlines()
  ]
  setup = next(c for c in commands if c[:1] == ['make'])
  run = next(c for c in commands if c[:1] == ['pkb.py'])
  return setup, run


def _Run(argv, cwd, timeout, env=None) -> subprocess.CompletedProcess:
  return subprocess.run(
      argv,
      cwd=cwd,
      env=env,
      stdin=subprocess.DEVNULL,
      capture_output=True,
      text=True,
      timeout=timeout,
      check=False,
  )


def EnsureAwsCli() -> None:
  """Runs the README's AWS set-up command unless .venv already has `aws`.

  For the tests that need the real AWS CLI (make test runs them after this
  file's set-up test, in the same pytest process).

  Raises:
    AssertionError: if the set-up command fails.
  """
  if os.path.exists(os.path.join(VENV_BIN, 'aws')):
    return
  setup, _ = ReadmeCloudCommands()
  done = _Run(setup, ROOT, 600)
  if done.returncode != 0:
    raise AssertionError(
        f'{shlex.join(setup)} failed ({done.returncode}):'
        f' {(done.stdout + done.stderr)[-2000:]}'
    )


def _Read(path: str) -> str:
  with open(path) as f:
    return f.read()


class CloudSetupTest(absltest.TestCase):

  def testReadmeCommandsAreTheExpectedOnes(self):
    setup, run = ReadmeCloudCommands()
    self.assertEqual(setup, ['make', 'cloud-setup', 'CLOUD=AWS'])
    self.assertIn('--cloud=AWS', run)
    self.assertIn('--benchmarks=cloud_report_2021', run)

  def testUsageErrors(self):
    script = os.path.join(ROOT, 'scripts', 'cloud-setup.sh')
    for argv in ([], ['Oracle'], ['AWS', 'GCP']):
      with self.subTest(argv=argv):
        done = _Run(['bash', script, *argv], ROOT, 60)
        self.assertEqual(done.returncode, 2)
        self.assertEqual(done.stdout, '')
        self.assertRegex(done.stderr, r'^usage: \S+ AWS\|GCP\|Azure.*\n$')

  def testAwsSetUpThenTheReadmeRunStopsAtPreflight(self):
    setup, run = ReadmeCloudCommands()
    done = _Run(setup, ROOT, 600)
    self.assertEqual(done.returncode, 0, done.stdout + done.stderr)
    self.assertRegex(done.stdout, r"PKB's AWS requirements (present|into)")
    for step in ('step 1/3', 'step 2/3', 'step 3/3'):
      self.assertIn(f'[cloud-setup] {step}: ', done.stdout)

    home = self.create_tempdir().full_path
    env = {
        'PATH': f'{VENV_BIN}:/usr/bin:/bin',
        'VIRTUAL_ENV': os.path.dirname(VENV_BIN),
        'HOME': home,
        'TMPDIR': home,
        'AWS_CONFIG_FILE': os.path.join(home, 'no-config'),
        'AWS_SHARED_CREDENTIALS_FILE': os.path.join(home, 'no-credentials'),
        'AWS_EC2_METADATA_DISABLED': 'true',
        'AWS_SECRET_ACCESS_KEY': SECRET,
    }
    done = _Run(run, home, 120, env)
    output = done.stdout + done.stderr
    self.assertEqual(done.returncode, 1, output[-3000:])
    self.assertNotIn('A Python package requirement was not met', output)
    self.assertIn(
        'InvalidFlagConfigurationError: cloud_report preflight (nothing was'
        ' provisioned):\n  AWS: no AWS credentials found',
        output,
    )
    self.assertEqual(output.count('cloud_report preflight (nothing'), 1)
    logs = glob.glob(
        os.path.join(home, 'perfkitbenchmarker', 'runs', '*', '*.log')
    )
    self.assertNotEmpty(logs)
    for text in [output] + [_Read(p) for p in logs]:
      self.assertNotIn(SECRET, text)
      self.assertNotRegex(text, r'Running: aws .*ec2 (run|create)')


if __name__ == '__main__':
  absltest.main()
