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
"""Stock pkb.py with the README's AWS flags, refused before provisioning.

Each test runs pkb.py of this interpreter's environment in a home, temp
directory and AWS config of its own, with instance metadata off. Every AWS
service's endpoint is a stand-in STS on 127.0.0.1 (fake_sts), which records
each request: the run asks STS who the caller is and nothing else (no ec2
call). The refusal must come within 60 s, name the problem and its fix, be
the last lines of the console output and appear there once (PKB's own log
line and traceback), and no key may reach any output or log.
"""

import glob
import os
import subprocess
import sys
import time

from absl.testing import absltest

from pkb_ext.suite import preflight
from pkb_ext_dev import fake_sts
from tests.pkb import test_cloud_setup

VENV_BIN = os.path.dirname(sys.executable)
KEY_ID = 'AKIAWRONGKEYID000000'
SECRET = 'wJalrXUtnFEMI-not-a-real-secret-K7MDENG'
BOUND_S = 60


def setUpModule():
  test_cloud_setup.EnsureAwsCli()


class RefusalTest(absltest.TestCase):

  def _Run(self, path, extra_env=None, extra_flags=()):
    _, run = test_cloud_setup.ReadmeCloudCommands()
    home = self.create_tempdir().full_path
    env = {
        'PATH': path,
        'HOME': home,
        'TMPDIR': home,
        'PYTHONPATH': os.environ.get('PYTHONPATH', ''),
        'AWS_CONFIG_FILE': os.path.join(home, 'no-config'),
        'AWS_SHARED_CREDENTIALS_FILE': os.path.join(home, 'no-credentials'),
        'AWS_EC2_METADATA_DISABLED': 'true',
        'AWS_ACCESS_KEY_ID': KEY_ID,
        'AWS_SECRET_ACCESS_KEY': SECRET,
        **(extra_env or {}),
    }
    argv = [sys.executable, os.path.join(VENV_BIN, 'pkb.py')] + run[1:]
    started = time.monotonic()
    done = subprocess.run(
        argv + list(extra_flags),
        cwd=home,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=BOUND_S * 2,
        check=False,
    )
    took = time.monotonic() - started
    output = done.stdout + done.stderr
    self.assertEqual(done.returncode, 1, output[-3000:])
    self.assertLess(took, BOUND_S)
    logs = glob.glob(os.path.join(home, 'perfkitbenchmarker', 'runs', '*',
                                  '*.log'))  # fmt: skip
    self.assertNotEmpty(logs)
    for path in logs:
      with open(path) as f:
        log = f.read()
      if path.endswith('pkb.log'):
        self.assertIn(preflight.REFUSAL_HEADING, log)
      self.assertNotIn(SECRET, log)
      self.assertNotIn(KEY_ID, log)
      self.assertNotRegex(log, r'Running: aws .*ec2')
    self.assertNotIn(SECRET, output)
    self.assertNotIn(KEY_ID, output)
    self.assertNotIn('was not in the default config', output)
    # The problems are the console's last lines, and are there once.
    self.assertEqual(output.count(preflight.REFUSAL_HEADING), 1, output)
    self.assertEqual(output.count('Traceback'), 1, output)
    lines = done.stderr.rstrip('\n').splitlines()
    heading = max(
        i for i, l in enumerate(lines) if l.endswith(preflight.REFUSAL_HEADING)
    )
    return [l.strip() for l in lines[heading + 1 :]]

  def testWrongAwsKeysAreRefusedBeforeAnyEc2Call(self):
    with fake_sts.FakeSts() as sts:
      problems = self._Run(
          f'{VENV_BIN}:/usr/bin:/bin', {'AWS_ENDPOINT_URL': sts.url}
      )
      self.assertEqual(sts.actions, ['GetCallerIdentity'])
    self.assertEqual(
        problems,
        [
            'AWS: STS rejected the AWS credentials (InvalidClientTokenId: a'
            ' wrong, deleted or inactive access key, or a wrong secret); run'
            ' `aws configure` with a valid key, or set AWS_PROFILE'
        ],
    )

  def testAStandaloneBenchmarkRunsTheWholePreflight(self):
    # The exported module checks only its phase; the registry lays pkb_ext's
    # preflight (its access check among the rest) over it.
    with fake_sts.FakeSts() as sts:
      problems = self._Run(
          f'{VENV_BIN}:/usr/bin:/bin',
          {'AWS_ENDPOINT_URL': sts.url},
          ['--benchmarks=cloud_report_tpcc'],
      )
      self.assertEqual(sts.actions, ['GetCallerIdentity'])
    # Every problem at once: pkb_ext's access check, then the phase's own
    # (the exported package pins no CockroachDB sha256).
    self.assertLen(problems, 2, problems)
    self.assertStartsWith(problems[0], 'AWS: STS rejected the AWS credentials')
    self.assertStartsWith(problems[1], 'tpcc: ')
    self.assertIn('--cloud_report_cockroachdb_sha256=amd64=', problems[1])

  def testAMissingAwsIsRefusedWithIgnorePackageRequirements(self):
    with fake_sts.FakeSts() as sts:
      problems = self._Run(
          '/usr/bin:/bin',
          {'AWS_ENDPOINT_URL': sts.url},
          ['--ignore_package_requirements'],
      )
      self.assertEqual(sts.actions, [])
    self.assertEqual(
        problems,
        [
            f'AWS: PKB runs `aws` from PATH, which lacks {VENV_BIN} where it'
            ' is installed; put that directory on PATH (e.g. `source'
            f' {VENV_BIN}/activate`)'
        ],
    )


if __name__ == '__main__':
  absltest.main()
