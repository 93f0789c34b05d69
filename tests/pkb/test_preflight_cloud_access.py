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
"""Preflight's check of each cloud's CLI and credentials, on real PKB.

The CLIs are small shell scripts on a PATH of the test's own (nothing else
is on it but `sleep`), the environment is emptied, and botocore reads
credential files that do not exist, with instance metadata off, so no test
can find real credentials or reach a cloud.
"""

import os
import shutil
import sys
import time
from unittest import mock

from absl import flags
from absl.testing import flagsaver
from perfkitbenchmarker import errors

from benchmarks.cloud_report import cloud_access
from benchmarks.cloud_report import preflight
from pkb_ext.plan import pkb_config
from pkb_ext_dev import pkb_tests

pkb_common_test_case = pkb_tests.Import('pkb_common_test_case')

FLAGS = flags.FLAGS
REFUSED = errors.Setup.InvalidFlagConfigurationError
SECRET = 'wJalrXUtnFEMI-not-a-real-secret-K7MDENG'


def _Group(cloud, static=False):
  return preflight.Group(
      name='db',
      cloud=cloud,
      machine_type=None,
      disk_type=None,
      num_striped_disks=1,
      static=static,
  )


class CloudAccessTest(pkb_common_test_case.PkbCommonTestCase):

  def setUp(self):
    super().setUp()
    self.enter_context(flagsaver.flagsaver())
    home = self.create_tempdir().full_path
    self.bin = self.create_tempdir().full_path
    os.symlink(shutil.which('sleep'), os.path.join(self.bin, 'sleep'))
    # This interpreter's own bin directory, which has no CLI in it.
    self.enter_context(
        mock.patch.object(
            sys, 'executable', os.path.join(self.create_tempdir(), 'python')
        )
    )
    self.enter_context(
        mock.patch.dict(
            os.environ,
            {
                'PATH': self.bin,
                'HOME': home,
                'AWS_CONFIG_FILE': os.path.join(home, 'no-config'),
                'AWS_SHARED_CREDENTIALS_FILE': os.path.join(home, 'no-creds'),
                'AWS_EC2_METADATA_DISABLED': 'true',
            },
            clear=True,
        )
    )

  def _Cli(self, name, script, directory=None):
    path = os.path.join(directory or self.bin, name)
    with open(path, 'w') as f:
      f.write('#!/bin/sh\n' + script + '\n')
    os.chmod(path, 0o755)

  def testACliMissingFromPathIsNamedWithWhereToGetIt(self):
    self.assertEqual(
        cloud_access.CloudProblems('AWS'),
        [
            'AWS: PKB runs `aws`, which is not on PATH; install the AWS CLI'
            ' (PyPI: awscli)'
        ],
    )
    (gcp,) = cloud_access.CloudProblems('GCP')
    self.assertIn('`gcloud`, which is not on PATH', gcp)
    self.assertIn('on no package registry', gcp)
    (azure,) = cloud_access.CloudProblems('Azure')
    self.assertIn('`az`, which is not on PATH; install the Azure CLI', azure)
    self.assertIn('PyPI: azure-cli', azure)

  def testACliInThisVenvButNotOnPathSaysSo(self):
    venv_bin = os.path.dirname(sys.executable)
    self._Cli('aws', 'exit 0', venv_bin)
    (problem,) = cloud_access.CloudProblems('AWS')
    self.assertIn(
        f'PATH, which lacks {venv_bin} where it is installed', problem
    )
    self.assertIn(f'source {venv_bin}/activate', problem)

  def testAnAwsThatDoesNotRunIsRefused(self):
    self._Cli('aws', 'echo "aws: command not found" >&2; exit 127')
    (problem,) = cloud_access.CloudProblems('AWS')
    self.assertIn('`aws --version` failed (exit status 127)', problem)
    self.assertIn(os.path.join(self.bin, 'aws'), problem)

  def testAwsWithoutCredentials(self):
    self._Cli('aws', 'echo aws-cli/1.46.3')
    self.assertEqual(
        cloud_access.CloudProblems('AWS'),
        [
            'AWS: no AWS credentials found (environment, shared credentials'
            ' and config files, instance metadata); run `aws configure`, or'
            ' set AWS_PROFILE'
        ],
    )

  def testAwsCredentialsAreFoundAndNeverShown(self):
    self._Cli('aws', 'echo aws-cli/1.46.3')
    os.environ['AWS_ACCESS_KEY_ID'] = 'AKIAFAKEKEYID'
    os.environ['AWS_SECRET_ACCESS_KEY'] = SECRET
    self.assertEqual(cloud_access.CloudProblems('AWS'), [])
    del os.environ['AWS_SECRET_ACCESS_KEY']
    (problem,) = cloud_access.CloudProblems('AWS')
    self.assertIn('cannot read the AWS credentials: PartialCredentialsError',
                  problem)  # fmt: skip
    self.assertNotIn('AKIAFAKEKEYID', problem)
    os.environ['AWS_PROFILE'] = 'nosuchprofile'
    os.environ['AWS_SECRET_ACCESS_KEY'] = SECRET
    del os.environ['AWS_ACCESS_KEY_ID']
    (problem,) = cloud_access.CloudProblems('AWS')
    self.assertIn('ProfileNotFound', problem)
    self.assertNotIn(SECRET, problem)

  def testGcloudNeedsAnAccountAndAProject(self):
    self._Cli(
        'gcloud', """echo '{"core": {"disable_usage_reporting": true}}'"""
    )
    self.assertEqual(
        cloud_access.CloudProblems('GCP'),
        [
            (
                'GCP: gcloud has no account; run `gcloud auth login` (or'
                ' `gcloud auth activate-service-account`)'
            ),
            (
                'GCP: no project; set --project, or run `gcloud config set'
                ' project PROJECT`'
            ),
        ],
    )
    FLAGS.project = 'my-project'
    self.assertLen(cloud_access.CloudProblems('GCP'), 1)
    self._Cli(
        'gcloud',
        """echo '{"core": {"account": "me@example.com", "project": "p"}}'""",
    )
    FLAGS.project = None
    self.assertEqual(cloud_access.CloudProblems('GCP'), [])

  def testAFailingGcloudIsRefused(self):
    self._Cli('gcloud', 'echo "ERROR: broken" >&2; exit 1')
    self.assertEqual(
        cloud_access.CloudProblems('GCP'),
        [
            'GCP: `gcloud config list --format=json` failed; check the Google'
            ' Cloud CLI'
        ],
    )
    self._Cli('gcloud', 'echo "not json"')
    self.assertIn('failed', cloud_access.CloudProblems('GCP')[0])
    with open(os.path.join(self.bin, 'gcloud'), 'w') as f:
      f.write('#!/nonexistent/interpreter\n')
    self.assertEqual(
        cloud_access.CloudProblems('GCP'),
        ['GCP: cannot run `gcloud`: No such file or directory'],
    )

  def testAHangingCliIsCutOffWithItsChildren(self):
    # The child keeps stdout open: only killing the group ends the wait.
    self._Cli('gcloud', 'sleep 60 & sleep 60')
    started = time.monotonic()
    with mock.patch.object(cloud_access, 'CLI_TIMEOUT_S', 1):
      problems = cloud_access.CloudProblems('GCP')
    self.assertLess(time.monotonic() - started, 30)
    self.assertEqual(
        problems,
        ['GCP: `gcloud config list --format=json` did not answer in 1 s'],
    )

  def testAzureNeedsALoggedInAccount(self):
    self._Cli(
        'az',
        """echo "Please run 'az login' to setup account." >&2
exit 1""",
    )
    self.assertEqual(
        cloud_access.CloudProblems('Azure'),
        [
            'Azure: the Azure CLI has no logged-in account (`az account show`'
            ' failed); run `az login`'
        ],
    )
    self._Cli('az', 'test "$*" = "account show --output none"')
    self.assertEqual(cloud_access.CloudProblems('Azure'), [])

  def testOnlyProvisioningCloudsAreChecked(self):
    groups = [_Group('Azure'), _Group('GCP', static=True), _Group('Kubernetes')]
    (problem,) = preflight.CloudAccessProblems(groups)
    self.assertStartsWith(problem, 'Azure: PKB runs `az`')
    FLAGS.ignore_package_requirements = True
    self.assertEqual(preflight.CloudAccessProblems(groups), [])

  def testCheckPrerequisitesListsThemWithTheOtherProblems(self):
    a_file = self.create_tempfile().full_path
    argv = [
        '--cloud=Azure',
        '--cloud_report_phases=cpu',
        f'--cloud_report_spool_dir={a_file}',
        '--noignore_package_requirements',
    ]
    for module, _, config in pkb_config.BenchmarkConfigs(argv):
      with config.RedirectFlags(FLAGS):
        with self.assertRaisesRegex(
            REFUSED,
            r'nothing was provisioned\): Azure: PKB runs `az`, which is not'
            r' on PATH.*; --cloud_report_spool_dir=',
        ):
          module.CheckPrerequisites(config)
    # pkb-ext plan, which needs no CLI, skips the check.
    for module, _, config in pkb_config.BenchmarkConfigs(argv[:-1]):
      with config.RedirectFlags(FLAGS):
        with self.assertRaises(REFUSED) as refused:
          module.CheckPrerequisites(config)
        self.assertNotIn('`az`', str(refused.exception))


if __name__ == '__main__':
  pkb_common_test_case.absltest.main()
