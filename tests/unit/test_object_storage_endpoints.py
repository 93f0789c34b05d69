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
"""Tests of pkb_ext's object storage endpoints: flags, credentials, source."""

import os
from unittest import mock

from absl import flags
from absl.testing import absltest
from absl.testing import flagsaver
from absl.testing import parameterized

from pkb_ext import object_storage_endpoints as endpoints
from pkb_ext.suite.object_storage import buckets
from pkb_ext.suite.object_storage import stages as os_stages

FLAGS = flags.FLAGS


class FlagsTest(parameterized.TestCase):

  @parameterized.parameters(
      ('cloud_report_object_storage_endpoint', 'ftp://x', 'http'),
      ('cloud_report_object_storage_credentials_file', '/nonexistent', 'read'),
  )
  def testValidatorsNameTheFlag(self, name, value, message):
    with flagsaver.flagsaver():
      with self.assertRaisesRegex(
          flags.IllegalFlagValueError, f'--{name}: .*{message}'
      ):
        setattr(FLAGS, name, value)

  def testCredentialsFileMustBePrivate(self):
    path = self.create_tempfile(
        content='AWS_ACCESS_KEY_ID=ak\nAWS_SECRET_ACCESS_KEY=sk-secret\n'
    ).full_path
    os.chmod(path, 0o644)
    with flagsaver.flagsaver():
      with self.assertRaisesRegex(
          flags.IllegalFlagValueError, 'readable by others.*chmod 600'
      ) as cm:
        FLAGS.cloud_report_object_storage_credentials_file = path
    self.assertNotIn('sk-secret', str(cm.exception))
    os.chmod(path, 0o600)
    with flagsaver.flagsaver(
        cloud_report_object_storage_endpoint='http://m:9000',
        cloud_report_object_storage_credentials_file=path,
    ):
      endpoint = endpoints.Endpoint.FromFlags()
    creds = endpoint.credentials
    self.assertEqual((creds.access_key, creds.secret_key), ('ak', 'sk-secret'))
    self.assertNotIn('sk-secret', repr(endpoint))

  @parameterized.parameters(
      ('AWS_ACCESS_KEY_ID=a\n', 'go together'),
      ('AZURE_STORAGE_KEY=k\n', 'go together'),
      ('just-a-secret-value\n', 'line 1: not NAME=VALUE'),
      (
          '# c\nAWS_SESSION_TOKEN=t\n',
          "line 2: unknown name 'AWS_SESSION_TOKEN'",
      ),
      ('GOOGLE_CLOUD_PROJECT=a\nGOOGLE_CLOUD_PROJECT=b\n', 'given twice'),
  )
  def testBadCredentialsNameTheLineNotTheValue(self, text, message):
    with self.assertRaisesRegex(ValueError, message) as cm:
      endpoints.ParseCredentials(text, 'f')
    self.assertNotIn('secret-value', str(cm.exception))

  def testCredentialsFromTheEnvironment(self):
    creds = endpoints.CredentialsFromEnvironment({
        'AZURE_STORAGE_ACCOUNT': 'acct',
        'AZURE_STORAGE_KEY': 'a2V5',
        'HOME': '/root',
    })
    self.assertEqual(
        creds.WorkerExtra('azure'),
        {'azure_account': 'acct', 'azure_key': 'a2V5'},
    )
    self.assertEqual(creds.WorkerExtra('s3'), {})
    self.assertEqual(creds.Secrets(), ['a2V5'])


class EndpointSourceTest(absltest.TestCase):
  """The endpoint flags' back-end, which the phase's stages ask first."""

  def testThePhaseAsksTheEndpointFirstThenPkbsService(self):
    vm = mock.Mock(CLOUD='AWS')
    made = mock.Mock(name='s3')
    with mock.patch.object(buckets, 'PkbBackend', autospec=True) as pkb:
      self.assertIs(os_stages.Backend(vm, 'r'), pkb.return_value)
      pkb.assert_called_once_with('AWS', 'r')
      with (
          flagsaver.flagsaver(
              cloud_report_object_storage_endpoint='http://m:9000'
          ),
          mock.patch.dict(endpoints.ENDPOINT_BUCKETS, {'s3': made}),
      ):
        self.assertIs(os_stages.Backend(vm, 'r'), made.return_value)
      pkb.assert_called_once()  # not asked again

  def testNoEndpointLeavesTheBucketToPkbsService(self):
    vm = mock.Mock(CLOUD='AWS')
    self.assertFalse(endpoints.ENDPOINTS.Serves())
    self.assertIsNone(endpoints.ENDPOINTS.ForVm(vm, 'us-east-1'))
    with flagsaver.flagsaver(cloud_report_object_storage_provider='s3'):
      self.assertIsNone(endpoints.ENDPOINTS.ForVm(vm, 'us-east-1'))
    with flagsaver.flagsaver(cloud_report_object_storage_provider='gcs'):
      with self.assertRaisesRegex(
          ValueError,
          'provider=gcs needs --cloud_report_object_storage_endpoint',
      ):
        endpoints.ENDPOINTS.ForVm(vm, 'us-east-1')

  def testAnEndpointServesEveryProviderOnAnyVm(self):
    vm = mock.Mock(CLOUD='Static')
    for provider in ('s3', 'gcs', 'azure'):
      with self.subTest(provider=provider):
        made = mock.Mock(name=provider)
        with (
            flagsaver.flagsaver(
                cloud_report_object_storage_endpoint='http://m:9000',
                cloud_report_object_storage_provider=provider,
            ),
            mock.patch.dict(endpoints.ENDPOINT_BUCKETS, {provider: made}),
        ):
          self.assertTrue(endpoints.ENDPOINTS.Serves())
          self.assertIs(endpoints.ENDPOINTS.ForVm(vm, 'r'), made.return_value)
        (endpoint, region), _ = made.call_args
        self.assertEqual(
            (endpoint.url, endpoint.provider), ('http://m:9000', provider)
        )
        self.assertEqual(region, 'r')

  def testTheWorkerGetsTheEndpointAndItsCredentials(self):
    endpoint = endpoints.Endpoint(
        'http://m:9000',
        's3',
        endpoints.Credentials(access_key='a', secret_key='s'),
    )
    backend = endpoints.S3EndpointBuckets(endpoint, '')
    self.assertEqual(
        backend.WorkerExtra(),
        {'endpoint': 'http://m:9000', 'access_key': 'a', 'secret_key': 's'},
    )
    self.assertEqual(backend.where, 's3 at http://m:9000')
    self.assertTrue(backend.reuse_installed_sdk)


if __name__ == '__main__':
  absltest.main()
