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
is on it but `sleep` and `cat`), printing what the real CLIs print; AWS's is the real
AWS CLI, talking to a stand-in STS on 127.0.0.1 (fake_sts). The environment
is emptied, and the AWS CLI reads credential files that do not exist, with
instance metadata off, so no test can find real credentials or reach a
cloud.
"""

import os
import shutil
import sys
import time
from unittest import mock

from absl import flags
from absl.testing import flagsaver
from perfkitbenchmarker import errors

from pkb_ext import cloud_access
from pkb_ext.plan import pkb_config
from pkb_ext.suite import preflight
from pkb_ext_dev import fake_sts
from pkb_ext_dev import pkb_tests
from tests.pkb import test_cloud_setup

pkb_common_test_case = pkb_tests.Import('pkb_common_test_case')

FLAGS = flags.FLAGS
REFUSED = errors.Setup.InvalidFlagConfigurationError
SECRET = 'wJalrXUtnFEMI-not-a-real-secret-K7MDENG'
WRONG_KEY_ID = 'AKIAWRONGKEYID000000'
# The AWS CLI of this interpreter's environment, as `make cloud-setup
# CLOUD=AWS` installs it (setUpModule runs that when it is missing).
REAL_AWS = os.path.join(os.path.dirname(sys.executable), 'aws')
# What the real CLIs print on standard error.
GCLOUD_NO_ACCOUNT = """ERROR: (gcloud.auth.print-access-token) You do not currently have an active account selected.
Please run:

  $ gcloud auth login

to obtain new credentials."""
GCLOUD_EXPIRED = """ERROR: (gcloud.auth.print-access-token) There was a problem refreshing your current auth tokens: ('invalid_grant: Bad Request', {'error': 'invalid_grant', 'error_description': 'Bad Request'})
Please run:

  $ gcloud auth login

to obtain new credentials."""
GCLOUD_OFFLINE = """ERROR: gcloud crashed (TransportError): HTTPSConnectionPool(host='oauth2.googleapis.com', port=443): Max retries exceeded with url: /token (Caused by NewConnectionError('<urllib3.connection.HTTPSConnection object at 0x7f>: Failed to establish a new connection: [Errno -3] Temporary failure in name resolution'))"""
AZ_NO_ACCOUNT = "Please run 'az login' to setup account."
AZ_EXPIRED = """ERROR: AADSTS700082: The refresh token has expired due to inactivity. The token was issued on 2021-10-05T11:50:24.4394320Z and was inactive for 90.00:00:00. Trace ID: d580793e-e9a6-4b1e-8bcf-a868e4628700
Interactive authentication is needed. Please run:
az login"""
AZ_OFFLINE = """ERROR: HTTPSConnectionPool(host='login.microsoftonline.com', port=443): Max retries exceeded with url: /organizations/oauth2/v2.0/token (Caused by NewConnectionError('<urllib3.connection.HTTPSConnection object at 0x7f>: Failed to establish a new connection: [Errno -3] Temporary failure in name resolution'))"""
TOKEN = 'ya29.not-a-real-access-token'


def setUpModule():
  test_cloud_setup.EnsureAwsCli()


class CloudAccessTest(pkb_common_test_case.PkbCommonTestCase):

  def setUp(self):
    super().setUp()
    self.enter_context(flagsaver.flagsaver())
    home = self.create_tempdir().full_path
    self.bin = self.create_tempdir().full_path
    for tool in ('sleep', 'cat'):
      os.symlink(shutil.which(tool), os.path.join(self.bin, tool))
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

  def _RealAws(self, sts_url, key_id=WRONG_KEY_ID, token=None):
    os.symlink(REAL_AWS, os.path.join(self.bin, 'aws'))
    os.environ['AWS_ENDPOINT_URL_STS'] = sts_url
    os.environ['AWS_ACCESS_KEY_ID'] = key_id
    os.environ['AWS_SECRET_ACCESS_KEY'] = SECRET
    if token:
      os.environ['AWS_SESSION_TOKEN'] = token

  def _AssertNoSecret(self, problems):
    for text in problems:
      for secret in (SECRET, WRONG_KEY_ID, fake_sts.GOOD_KEY_ID, TOKEN):
        self.assertNotIn(secret, text)

  def testAwsWithoutCredentials(self):
    os.symlink(REAL_AWS, os.path.join(self.bin, 'aws'))
    self.assertEqual(
        cloud_access.CloudProblems('AWS'),
        [
            'AWS: no AWS credentials found (environment, shared credentials'
            ' and config files, instance metadata); run `aws configure`, or'
            ' set AWS_PROFILE'
        ],
    )

  def testStsRejectsAWrongKey(self):
    with fake_sts.FakeSts() as sts:
      self._RealAws(sts.url)
      problems = cloud_access.CloudProblems('AWS', 'eu-central-1')
      self.assertEqual(sts.actions, ['GetCallerIdentity'])
    self.assertEqual(
        problems,
        [
            'AWS: STS rejected the AWS credentials (InvalidClientTokenId: a'
            ' wrong, deleted or inactive access key, or a wrong secret); run'
            ' `aws configure` with a valid key, or set AWS_PROFILE'
        ],
    )
    self._AssertNoSecret(problems)

  def testStsSaysASessionTokenHasExpired(self):
    with fake_sts.FakeSts() as sts:
      self._RealAws(sts.url, fake_sts.GOOD_KEY_ID, fake_sts.EXPIRED_TOKEN)
      (problem,) = cloud_access.CloudProblems('AWS')
    self.assertStartsWith(
        problem, 'AWS: the AWS credentials have expired (ExpiredToken'
    )
    self.assertIn('`aws sso login`', problem)
    self._AssertNoSecret([problem])

  def testStsAcceptsGoodCredentials(self):
    with fake_sts.FakeSts() as sts:
      self._RealAws(sts.url, fake_sts.GOOD_KEY_ID)
      self.assertEqual(cloud_access.CloudProblems('AWS'), [])
      self.assertEqual(sts.actions, ['GetCallerIdentity'])

  def testAnUnreachableStsIsNamedWithinTheBound(self):
    url = fake_sts.DeadUrl()
    self._RealAws(url)
    started = time.monotonic()
    (problem,) = cloud_access.CloudProblems('AWS')
    self.assertLess(time.monotonic() - started, cloud_access.PROBE_TIMEOUT_S)
    self.assertEqual(
        problem,
        f'AWS: STS is unreachable from this host (no answer from {url}/);'
        ' check the network and proxy (HTTPS_PROXY), then run again',
    )

  def testAnStsThatNeverAnswersIsCutOff(self):
    self._Cli(
        'aws',
        'case "$1" in --version) echo aws-cli/1.46.3;; *) sleep 60;; esac',
    )
    with mock.patch.object(cloud_access, 'PROBE_TIMEOUT_S', 1):
      (problem,) = cloud_access.CloudProblems('AWS')
    self.assertStartsWith(problem, 'AWS: STS is unreachable from this host')
    self.assertIn('did not answer in 1 s', problem)

  def testAQuotedCliErrorHasNoSecret(self):
    self._Cli(
        'aws',
        'case "$1" in --version) echo aws-cli/1.46.3;;'
        ' *) echo "odd: $AWS_SECRET_ACCESS_KEY" >&2; exit 255;; esac',
    )
    os.environ['AWS_SECRET_ACCESS_KEY'] = SECRET
    (problem,) = cloud_access.CloudProblems('AWS')
    self.assertIn('exit status 255: odd: <AWS_SECRET_ACCESS_KEY>', problem)
    self._AssertNoSecret([problem])

  def _Gcloud(self, token_stderr, token_status=1):
    project = '{"core": {"account": "me@example.com", "project": "p"}}'
    self._Cli(
        'gcloud',
        f"""case "$*" in
  "auth print-access-token") echo {TOKEN}; cat >&2 <<'END'
{token_stderr}
END
    exit {token_status};;
  *) echo '{project}';;
esac""",
    )

  def testGcloudTokenOutcomes(self):
    login = (
        'run `gcloud auth login` (or `gcloud auth activate-service-account`)'
    )
    for stderr, want in (
        (GCLOUD_NO_ACCOUNT, f'GCP: gcloud has no active account; {login}'),
        (
            GCLOUD_EXPIRED,
            (
                'GCP: gcloud could not refresh its login (invalid_grant:'
                f' expired or revoked); {login}'
            ),
        ),
        (
            GCLOUD_OFFLINE,
            (
                "GCP: Google's token service is unreachable from this host"
                ' (ERROR: gcloud crashed (TransportError): HTTPSConnectionPool'
            ),
        ),
    ):
      with self.subTest(want=want):
        self._Gcloud(stderr)
        (problem,) = cloud_access.CloudProblems('GCP')
        self.assertStartsWith(problem, want)
        self._AssertNoSecret([problem])
    self._Gcloud('', 0)
    self.assertEqual(cloud_access.CloudProblems('GCP'), [])

  def testGcloudNeedsAProject(self):
    self._Cli('gcloud', """echo '{"core": {"account": "me@example.com"}}'""")
    self.assertEqual(
        cloud_access.CloudProblems('GCP'),
        [
            'GCP: no project; set --project, or run `gcloud config set'
            ' project PROJECT`'
        ],
    )
    FLAGS.project = 'my-project'
    self.assertEqual(cloud_access.CloudProblems('GCP'), [])

  def testAFailingGcloudIsRefused(self):
    self._Cli('gcloud', 'echo "ERROR: broken" >&2; exit 1')
    self.assertEqual(
        cloud_access.CloudProblems('GCP'),
        [
            (
                'GCP: `gcloud auth print-access-token` failed (exit status 1:'
                ' ERROR: broken); run `gcloud auth login` (or `gcloud auth'
                ' activate-service-account`)'
            ),
            (
                'GCP: `gcloud config list --format=json` failed; check the'
                ' Google Cloud CLI'
            ),
        ],
    )
    with open(os.path.join(self.bin, 'gcloud'), 'w') as f:
      f.write('#!/nonexistent/interpreter\n')
    self.assertEqual(
        cloud_access.CloudProblems('GCP')[-1],
        'GCP: cannot run `gcloud`: No such file or directory',
    )

  def testAHangingCliIsCutOffWithItsChildren(self):
    # The child keeps stdout open: only killing the group ends the wait.
    self._Cli('az', 'sleep 60 & sleep 60')
    started = time.monotonic()
    with mock.patch.object(cloud_access, 'PROBE_TIMEOUT_S', 1):
      problems = cloud_access.CloudProblems('Azure')
    self.assertLess(time.monotonic() - started, 30)
    self.assertEqual(
        problems,
        [
            'Azure: Microsoft Entra ID is unreachable from this host (`az'
            ' account get-access-token` did not answer in 1 s); check the'
            ' network'
        ],
    )

  def testAzureTokenOutcomes(self):
    for stderr, want in (
        (
            AZ_NO_ACCOUNT,
            'Azure: the Azure CLI has no logged-in account; run `az login`',
        ),
        (
            AZ_EXPIRED,
            (
                'Azure: the Azure CLI login has expired or was revoked'
                ' (AADSTS700082); run `az login`'
            ),
        ),
        (
            AZ_OFFLINE,
            (
                'Azure: Microsoft Entra ID is unreachable from this host'
                " (ERROR: HTTPSConnectionPool(host='login.microsoftonline.com'"
            ),
        ),
    ):
      with self.subTest(want=want):
        self._Cli('az', f"cat >&2 <<'END'\n{stderr}\nEND\nexit 1")
        (problem,) = cloud_access.CloudProblems('Azure')
        self.assertStartsWith(problem, want)
    self._Cli('az', f'echo {TOKEN}; test "$*" = "account get-access-token'
                    ' --output none"')  # fmt: skip
    self.assertEqual(cloud_access.CloudProblems('Azure'), [])

  def _Configs(self, argv):
    for module, _, config in pkb_config.BenchmarkConfigs(argv):
      with config.RedirectFlags(FLAGS):
        yield module, config

  def testCheckPrerequisitesListsThemWithTheOtherProblems(self):
    a_file = self.create_tempfile().full_path
    argv = [
        '--cloud=Azure',
        '--cloud_report_phases=cpu',
        f'--cloud_report_spool_dir={a_file}',
    ]
    # Whatever --ignore_package_requirements says (plan sets it).
    for extra in ('--ignore_package_requirements',
                  '--noignore_package_requirements'):  # fmt: skip
      for module, config in self._Configs(argv + [extra]):
        with self.assertRaises(REFUSED) as refused:
          module.CheckPrerequisites(config)
        lines = str(refused.exception).splitlines()
        self.assertEqual(lines[0], preflight.REFUSAL_HEADING)
        self.assertStartsWith(lines[1], '  Azure: PKB runs `az`, which is not')
        self.assertStartsWith(lines[2], '  --cloud_report_spool_dir=')
        self.assertLen(lines, 3)
        # pkb-ext plan, which needs no CLI, asks Problems: no access check.
        problems = preflight.Problems(config, ['cpu'])
        self.assertLen(problems, 1)
        self.assertNotIn('`az`', problems[0])

  def testEachProvisioningCloudIsProbedInItsRegion(self):
    for _, config in self._Configs(['--cloud=AWS', '--zone=eu-west-3b']):
      with mock.patch.object(cloud_access, 'CloudProblems') as probe:
        probe.return_value = []
        cloud_access.Problems(config, [])
      probe.assert_called_once_with('AWS', 'eu-west-3')
    # Static VMs need no cloud's CLI.
    vm_file = self.create_tempfile(content='[]').full_path
    argv = ['--cloud=AWS', f'--static_vm_file={vm_file}']
    for _, config in self._Configs(argv):
      self.assertEqual(cloud_access.Problems(config, []), [])


if __name__ == '__main__':
  pkb_common_test_case.absltest.main()
