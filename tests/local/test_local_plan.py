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
"""The local cloud's pure parts: plan, static VM file, presets, results.

No root and no system change: these run everywhere.
"""

import dataclasses
import json
import os
import tempfile
from unittest import mock

from absl import flags
from absl.testing import absltest
from absl.testing import parameterized

from pkb_ext.local import cloud
from pkb_ext.local import hostfs
from pkb_ext.local import images
from pkb_ext.local import layout
from pkb_ext.local import mirrors
from pkb_ext.local import presets
from pkb_ext.local import results
from pkb_ext.local import services


class PlanTest(parameterized.TestCase):

  def testHostsAndNames(self):
    plan = layout.Plan(state_dir='/srv/x', prefix='pkbt', subnet='10.9.8.0/24')
    self.assertEqual(
        [(h.name, h.role, h.ip, h.netns) for h in plan.hosts],
        [
            ('client', 'client', '10.9.8.10', 'pkbt-client'),
            ('db1', 'db', '10.9.8.11', 'pkbt-db1'),
            ('db2', 'db', '10.9.8.12', 'pkbt-db2'),
            ('db3', 'db', '10.9.8.13', 'pkbt-db3'),
        ],
    )
    self.assertEqual(plan.bridge, 'pkbt0')
    self.assertEqual(plan.bridge_ip, '10.9.8.1')
    self.assertTrue(all(len(h.veth) <= 15 for h in plan.hosts))
    self.assertEqual(plan.disk_bytes, 2 << 30)

  @parameterized.named_parameters(
      ('public_subnet', dict(subnet='8.8.8.0/24'), '--subnet'),
      ('tiny_subnet', dict(subnet='10.0.0.0/30'), '--subnet'),
      ('ipv6', dict(subnet='fd00::/64'), '--subnet'),
      ('long_prefix', dict(prefix='toolongprefix'), '--prefix'),
      ('bad_prefix', dict(prefix='Pkb-1'), '--prefix'),
      ('low_port', dict(ssh_port=22), '--ssh-port'),
      ('huge_disk', dict(disk_gib=5000), '--disk-size'),
      ('state_in_tmp', dict(state_dir='/tmp/x'), '--state-dir'),
      ('state_in_home', dict(state_dir='/home/u/x'), '--state-dir'),
      ('relative_state', dict(state_dir='x'), '--state-dir'),
  )
  def testRejects(self, kwargs, flag):
    kwargs = {'state_dir': '/srv/x', **kwargs}
    with self.assertRaisesRegex(ValueError, flag):
      layout.Plan(**kwargs)


class StaticVmFileTest(absltest.TestCase):

  def testClientFirstNoPackagesDisksOnDb(self):
    plan = layout.Plan(state_dir='/srv/x', image='host')
    state = {
        'hosts': {
            'db1': {'loop': '/dev/loop7'},
            'db2': {'loop': '/dev/loop8'},
            'db3': {'loop': '/dev/loop9'},
        }
    }
    entries = cloud.StaticVmEntries(plan, state)
    self.assertEqual(
        [e['ip_address'] for e in entries],
        ['10.247.73.10', '10.247.73.11', '10.247.73.12', '10.247.73.13'],
    )
    self.assertNotIn('local_disks', entries[0])
    self.assertEqual(
        [e['local_disks'] for e in entries[1:]],
        [['/dev/loop7'], ['/dev/loop8'], ['/dev/loop9']],
    )
    for e in entries:
      self.assertIs(e['install_packages'], False)
      self.assertEqual(e['user_name'], 'pkbext')
      self.assertEqual(e['os_type'], 'debian12')
      self.assertEqual(e['ssh_port'], 2022)
      self.assertEqual(e['keyfile_path'], '/srv/x/ssh/id_ed25519')

  def testOnAnImagePkbInstallsWithTheImagesOsType(self):
    state = {'hosts': {}}
    for name, os_type in (('debian12', 'debian12'), ('debian13', 'debian13')):
      plan = layout.Plan(state_dir='/srv/x', image=name)
      for e in cloud.StaticVmEntries(plan, state):
        self.assertIs(e['install_packages'], True)
        self.assertEqual(e['os_type'], os_type)
    # The default cloud runs on an image.
    self.assertIs(
        cloud.StaticVmEntries(layout.Plan(state_dir='/srv/x'), state)[0][
            'install_packages'
        ],
        True,
    )

  def testUnknownImage(self):
    with self.assertRaisesRegex(ValueError, '--image .*debian13'):
      layout.Plan(state_dir='/srv/x', image='ubuntu2004')


class ImagesTest(absltest.TestCase):
  """The images' recipes (no build here: see test_local_cloud)."""

  def testPythonIsPreflightsForTheOsType(self):
    from pkb_ext.suite import preflight  # pylint: disable=g-import-not-at-top

    for image in images.IMAGES.values():
      self.assertEqual(
          preflight.OS_PYTHON[image.os_type],
          tuple(int(v) for v in image.python.split('.')),
          image.name,
      )

  def testKeyNamesTheRecipe(self):
    base = images.IMAGES['debian12']
    key = base.key
    self.assertNotEqual(key, dataclasses.replace(base, suite='trixie').key)
    with mock.patch.object(images, 'PACKAGES', images.PACKAGES + ('fio',)):
      self.assertNotEqual(key, base.key)
    self.assertEqual(key, base.key)
    self.assertNotEqual(
        images.RootDir(base), images.RootDir(images.IMAGES['debian13'])
    )

  def testImagesReachRegistriesOnlyThroughTheBridge(self):
    for image in images.IMAGES.values():
      files = dict(image.Files())
      proxy = files['etc/apt/apt.conf.d/01pkb-ext-proxy']
      self.assertIn(
          f'http://{images.MIRROR_HOST}:{images.APT_PROXY_PORT}', proxy
      )
      self.assertIn(
          f'index-url = http://{images.MIRROR_HOST}:{images.PIP_INDEX_PORT}/',
          files['etc/pip.conf'],
      )
      self.assertIn(f'Suites: {image.suite} ', image.Sources())
      self.assertIn('exit 101', files['usr/sbin/policy-rc.d'])

  def testAptCacherServesDebianOnlyOnTheBridge(self):
    plan = layout.Plan(state_dir='/srv/x', subnet='10.9.8.0/24')
    conf = mirrors.AptCacherConfig(plan)
    self.assertIn('BindAddress: 10.9.8.1\n', conf)
    self.assertIn('ForceManaged: 1\n', conf)
    remaps = [l for l in conf.splitlines() if l.startswith('Remap-')]
    self.assertLen(remaps, 2)
    for line in remaps:
      self.assertRegex(line, r'; http://deb\.debian\.org/debian(-security)?/$')
    argv, env = mirrors.Argv(plan, 'proxpi')
    self.assertEqual(argv[-4:], ['--host', '10.9.8.1', '--port', '23141'])
    self.assertNotIn('PROXPI_EXTRA_INDEX_URLS', env)


class HostFilesTest(absltest.TestCase):

  def testSshdConfig(self):
    plan = layout.Plan(state_dir='/srv/x')
    config = hostfs.SshdConfig(plan, plan.Host('db2'))
    self.assertIn('ListenAddress 10.247.73.12\n', config)
    self.assertIn('Port 2022\n', config)
    self.assertIn('ForceCommand /opt/pkb-ext/lib/cmdlog\n', config)
    self.assertIn('PermitRootLogin no\n', config)
    self.assertIn('PasswordAuthentication no\n', config)

  def testGuardedToolsIncludePackageManagers(self):
    self.assertContainsSubset({'apt', 'apt-get', 'dpkg'}, hostfs.GUARDED)
    self.assertIn('exit 100', hostfs.GUARD_SH)


class PresetsTest(absltest.TestCase):

  def testReportPassesNothing(self):
    self.assertEqual(presets.PresetFlags('report'), [])

  def testUnknownPreset(self):
    with self.assertRaisesRegex(ValueError, '--preset'):
      presets.PresetFlags('quick')

  def testSmokeOnlyDefinedFlags(self):
    for flag in presets.PresetFlags('smoke'):
      name = flag[2:].split('=', 1)[0]
      self.assertIn(name, flags.FLAGS)

  def testLocalCloudFlags(self):
    state = {
        'static_vm_file': '/srv/x/static_vms.json',
        'services': {
            'minio': {
                'endpoint': 'http://10.247.73.10:9000',
                'access_key': 'a',
                'secret_key': 'minio-secret',
            },
            'azurite': {
                'endpoint': 'http://10.247.73.10:10000/pkbextlocal',
                'account': 'pkbextlocal',
                'key': 'azurite-secret',
            },
        },
        'object_storage': {
            'credentials_file': '/srv/x/object-storage.env',
            'python': '/opt/pkb-ext/bin/object-storage-sdk/bin/python',
        },
    }
    out = presets.LocalCloudFlags(state)
    self.assertEqual(out[0], '--static_vm_file=/srv/x/static_vms.json')
    # Product code has cloud defaults; the hosts' tools come as flags.
    for flag in (
        '--cloud_report_fio_install=os',
        '--cloud_report_netperf_install=distro',
        '--cloud_report_tpcc_engine=postgres',
        '--cloud_report_go_tpc_path=/opt/pkb-ext/bin/go-tpc',
    ):
      self.assertIn(flag, out)
    self.assertIn(
        '--cloud_report_object_storage_endpoint=http://10.247.73.10:9000', out
    )
    self.assertIn('--cloud_report_object_storage_provider=s3', out)
    self.assertIn(
        '--cloud_report_object_storage_credentials_file='
        '/srv/x/object-storage.env',
        out,
    )
    azure = presets.LocalCloudFlags(state, 'azure')
    self.assertIn('--cloud_report_object_storage_provider=azure', azure)
    self.assertIn(
        '--cloud_report_object_storage_endpoint='
        'http://10.247.73.10:10000/pkbextlocal',
        azure,
    )
    for flag in out + azure:  # keys never travel as flag values
      self.assertNotIn('secret', flag)
    with self.assertRaisesRegex(ValueError, 'runs no fake-gcs'):
      presets.LocalCloudFlags(state, 'gcs')

  def testLocalCloudFlagsOnAnImage(self):
    state = {
        'static_vm_file': '/srv/x/static_vms.json',
        'plan': {'image': 'debian13'},
    }
    out = presets.LocalCloudFlags(state)
    # PKB pushes go-tpc from its data path; netperf comes from the OS.
    self.assertIn('--cloud_report_netperf_install=distro', out)
    self.assertIn('--cloud_report_fio_install=os', out)
    self.assertFalse([f for f in out if 'go_tpc_path' in f], out)


class ServicesTest(absltest.TestCase):
  """The emulators' commands and keys file (pure parts, no root)."""

  def setUp(self):
    super().setUp()
    self.plan = layout.Plan(state_dir='/srv/pkb-ext-test-state')
    self.host = self.plan.Host(services.SERVICE_HOST)

  def testEachEmulatorStartsOfflineOnTheClientWithoutKeysOnItsCommandLine(
      self,
  ):
    record = {'secret_key': 'minio-secret', 'key': 'azurite-secret'}
    for service in services.SERVICES:
      keys, env_text = services._Environment(service, record)
      command = services._Command(service, self.host, 'ENV', '/srv/bin')
      self.assertIn(f'{self.host.ip}', command)
      self.assertIn(str(service.port), command)
      self.assertTrue(command.endswith('< /dev/null & echo $!'), command)
      for secret in ('minio-secret', 'azurite-secret'):
        self.assertNotIn(secret, command)
      if service.name == 'azurite':
        self.assertIn('--disableTelemetry', command)
        self.assertIn('--skipApiVersionCheck', command)
        self.assertEqual(
            env_text, 'AZURITE_ACCOUNTS=pkbextlocal:azurite-secret\n'
        )
        self.assertTrue(
            services.Endpoint(self.plan, service).endswith(':10000/pkbextlocal')
        )
      if service.name == 'minio':
        self.assertEqual(keys['secret_key'], 'minio-secret')

  def testCredentialsFileParsesAsThePhaseReadsIt(self):
    from pkb_ext import object_storage_endpoints  # pylint: disable=g-import-not-at-top

    state = {
        'services': {
            'minio': {'access_key': 'u', 'secret_key': 's3-secret'},
            'azurite': {'account': 'pkbextlocal', 'key': 'YXp1cml0ZQ=='},
            'fake-gcs': {'project': 'pkb-ext-local'},
        }
    }
    creds = object_storage_endpoints.ParseCredentials(
        services.CredentialsText(state)
    )
    self.assertEqual(
        creds.WorkerExtra('s3'), {'access_key': 'u', 'secret_key': 's3-secret'}
    )
    self.assertEqual(
        creds.WorkerExtra('azure'),
        {'azure_account': 'pkbextlocal', 'azure_key': 'YXp1cml0ZQ=='},
    )
    self.assertEqual(creds.WorkerExtra('gcs'), {'project': 'pkb-ext-local'})


class ResultsTest(absltest.TestCase):

  def _Write(self, lines):
    fd, path = tempfile.mkstemp(suffix='.ndjson')
    with os.fdopen(fd, 'w') as f:
      f.write(''.join(lines))
    self.addCleanup(os.remove, path)
    return path

  def testSpoolAndPkbJsonDeduplicated(self):
    spool = self._Write([
        json.dumps({'metric': 'coremark_score', 'value': 1.5, 'unit': 'score',
                    'metadata': {'phase': 'cpu', 'iteration': 1},
                    'sample_uri': 'u1', 'timestamp': 1.0}) + '\n',
        json.dumps({'metric': 'lscpu', 'value': 0, 'unit': '',
                    'metadata': {}, 'sample_uri': 'u2'}) + '\n',
    ])  # fmt: skip
    pkb = self._Write([
        json.dumps({'metric': 'coremark_score', 'value': 1.5, 'unit': 'score',
                    'labels': '|iteration:1|,|phase:cpu|',
                    'sample_uri': 'u1'}) + '\n',
        json.dumps({'metric': 'fio_iops', 'value': 10, 'unit': 'ops/s',
                    'labels': '|job:rd-iops|,|phase:io|',
                    'sample_uri': 'u3'}) + '\n',
    ])  # fmt: skip
    samples = results.ReadSamples([spool, pkb])
    self.assertEqual(
        [s['metric'] for s in samples], ['coremark_score', 'fio_iops']
    )
    self.assertEqual(samples[0]['metadata'], {'phase': 'cpu', 'iteration': 1})
    self.assertEqual(samples[1]['metadata'], {'job': 'rd-iops', 'phase': 'io'})
    summary = results.Summary(samples)
    self.assertRegex(summary, r'cpu +coremark_score +score +1 +1\.5')

  def testMissingExpectedPhaseFails(self):
    path = self._Write([
        json.dumps({'metric': 'm', 'value': 1, 'unit': 'u',
                    'metadata': {'phase': 'io'}}) + '\n'
    ])  # fmt: skip
    out = path + '.out'
    self.addCleanup(os.remove, out)
    self.assertEqual(results.Main([path], out, ['io']), 0)
    with self.assertRaisesRegex(
        results.ResultsError, r'no samples from phase\(s\): net'
    ):
      results.Main([path], out, ['io', 'net'])
    with open(out) as f:
      self.assertEqual(json.loads(f.readline())['metadata'], {'phase': 'io'})

  def testGarbledInput(self):
    path = self._Write(['{"metric": "m", "value": \n'])
    with self.assertRaisesRegex(ValueError, r':1: not JSON'):
      results.ReadSamples([path])


if __name__ == '__main__':
  absltest.main()
