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
"""pkb_ext_dev.stock_pkb's pure parts; PKB's Main itself is not run.

The tests/pkb tier runs RunMain() for real; here subprocess.run is replaced
by a fake that checks what it was handed and writes the files the driver
would.
"""

import ipaddress
import json
import os
import subprocess
import sys
import types
from unittest import mock

from absl.testing import absltest
from perfkitbenchmarker import publisher

import pkb_ext_dev
from pkb_ext_dev import stock_pkb


def _Published(tmp, metadata_list):
  """Returns the lines PKB's own JSON publisher writes for these metadata."""
  path = os.path.join(tmp, 'published.json')
  pub = publisher.NewlineDelimitedJSONPublisher(path)
  pub.PublishSamples([
      {'metric': f'm{i}', 'value': 1.0, 'unit': 'x', 'metadata': md}
      for i, md in enumerate(metadata_list)
  ])
  with open(path) as f:
    return [json.loads(line) for line in f]


class LabelsTest(absltest.TestCase):

  def testInvertsPkbsJsonPublisher(self):
    metadata = [
        {'phase': 'cpu', 'iteration': 2, 'valid': False},
        {'url': 'http://192.0.2.1:9000/b', 'ratio': 0.5},
        {'empty': '', 'machine_type': 'c5a.4xlarge'},
    ]
    published = _Published(self.create_tempdir().full_path, metadata)
    self.assertEqual(
        [stock_pkb.Labels(s) for s in published],
        [
            {'iteration': '2', 'phase': 'cpu', 'valid': 'False'},
            {'ratio': '0.5', 'url': 'http://192.0.2.1:9000/b'},
            {'empty': '', 'machine_type': 'c5a.4xlarge'},
        ],
    )
    for s in published:  # PKB's own reader agrees
      self.assertEqual(stock_pkb.Labels(s), publisher.LabelsToDict(s['labels']))

  def testNoMetadata(self):
    (published,) = _Published(self.create_tempdir().full_path, [{}])
    self.assertEqual(published['labels'], '')
    self.assertEqual(stock_pkb.Labels(published), {})

  def testNeedsLabels(self):
    with self.assertRaises(KeyError):
      stock_pkb.Labels({'metric': 'm', 'metadata': {'a': 1}})


class StaticVmsTest(absltest.TestCase):

  def testTestNet1Addresses(self):
    vms = stock_pkb.StaticVms(4)
    self.assertLen(vms, 4)
    net = ipaddress.ip_network('192.0.2.0/24')
    self.assertEqual(
        [vm['ip_address'] for vm in vms],
        ['192.0.2.1', '192.0.2.2', '192.0.2.3', '192.0.2.4'],
    )
    for vm in vms:
      self.assertIn(ipaddress.ip_address(vm['ip_address']), net)
      self.assertEqual(vm['internal_ip'], vm['ip_address'])
      self.assertEqual(vm['os_type'], 'ubuntu2404')
      self.assertEqual(vm['keyfile_path'], '/dev/null')
      self.assertNotIn('local_disks', vm)

  def testExtraKeysAddOrReplace(self):
    vms = stock_pkb.StaticVms(2, local_disks=['/dev/vdb'], os_type='debian12')
    self.assertEqual([vm['local_disks'] for vm in vms], [['/dev/vdb']] * 2)
    self.assertEqual({vm['os_type'] for vm in vms}, {'debian12'})
    vms[0]['local_disks'].append('/dev/vdc')  # each entry has its own copy
    self.assertEqual(vms[1]['local_disks'], ['/dev/vdb'])
    self.assertNotIn('local_disks', stock_pkb.StaticVms(1)[0])

  def testCountMustFitTestNet1(self):
    self.assertLen(stock_pkb.StaticVms(254), 254)
    for bad in (0, 255):
      with self.assertRaisesRegex(ValueError, 'TEST-NET-1'):
        stock_pkb.StaticVms(bad)

  def testStaticVmFile(self):
    tmp = self.create_tempdir().full_path
    vms = stock_pkb.StaticVms(2, local_disks=['/dev/loop4'])
    path = stock_pkb.StaticVmFile(tmp, vms)
    self.assertEqual(path, os.path.join(tmp, 'static_vms.json'))
    with open(path) as f:
      self.assertEqual(json.load(f), vms)


class RunMainTest(absltest.TestCase):

  def setUp(self):
    super().setUp()
    self.tmp = self.create_tempdir().full_path
    self.seen = {}
    self.enter_context(
        mock.patch.object(subprocess, 'run', side_effect=self._FakeRun)
    )

  def _FakeRun(self, argv, **kwargs):
    """Stands in for the driver: records argv/env, writes its two logs."""
    self.seen['argv'] = argv
    self.seen['env'] = kwargs['env']
    self.seen['timeout'] = kwargs['timeout']
    if self.seen.get('fail'):
      return subprocess.CompletedProcess(argv, 1, '', 'boom')
    log, samples = argv[3], os.path.join(self.tmp, 'samples.json')
    with open(log, 'w') as f:
      f.write(json.dumps({'vm': 'vm-1', 'command': 'uname -m'}) + '\n')
      f.write(json.dumps({'vm': 'vm-2', 'command': 'nproc'}) + '\n')
    with open(samples, 'w') as f:
      f.write(json.dumps({'metric': 'm', 'labels': '|a:1|'}) + '\n')
    return subprocess.CompletedProcess(argv, 0, '', '')

  def testArgvAnswersAndResult(self):
    result = stock_pkb.RunMain(
        self.tmp,
        'cloud_report_fio',
        stock_pkb.StaticVms(1),
        answers=[('lscpu', 'x\n'), ['nproc', '8\n']],
        flags={'cloud_report_fio_runtime_s': 3, 'cloud_report_phases': ''},
        run_uri='abc1',
    )
    argv = self.seen['argv']
    self.assertEqual(argv[:2], [sys.executable, '-c'])
    self.assertEqual(argv[3], os.path.join(self.tmp, 'commands.jsonl'))
    self.assertEqual(
        argv[4:],
        [
            '--benchmarks=cloud_report_fio',
            f'--static_vm_file={self.tmp}/static_vms.json',
            f'--temp_dir={self.tmp}/pkb',
            f'--json_path={self.tmp}/samples.json',
            '--accept_licenses',
            '--ignore_package_requirements',
            '--run_uri=abc1',
            '--cloud_report_fio_runtime_s=3',
            '--cloud_report_phases=',
        ],
    )
    compile(argv[2], '<boot>', 'exec')  # a valid program
    env = self.seen['env']
    with open(env['PKB_EXT_FAKE_ANSWERS']) as f:
      self.assertEqual(json.load(f), [['lscpu', 'x\n'], ['nproc', '8\n']])
    self.assertNotIn('PKB_EXT_STOCK_PKB_EXTRA', env)
    self.assertEqual(self.seen['timeout'], 600)

    self.assertEqual(result.proc.returncode, 0)
    self.assertEqual(result.command_texts, ('uname -m', 'nproc'))
    self.assertEqual(result.commands[1], {'vm': 'vm-2', 'command': 'nproc'})
    self.assertEqual(result.samples, ({'metric': 'm', 'labels': '|a:1|'},))
    self.assertEqual(result.run_dir, os.path.join(self.tmp, 'pkb/runs/abc1'))
    with self.assertRaises(AttributeError):
      result.samples = ()  # frozen

  def testBootRunsBeforeMainWithExtra(self):
    stock_pkb.RunMain(
        self.tmp,
        'b',
        stock_pkb.StaticVms(1),
        run_uri='u',
        boot="driver.FROM_BOOT = extra['n'] * 2\n",
        extra={'n': 3},
    )
    # Run the program in-process against a stand-in driver.
    driver = types.ModuleType('fake_vm_main')
    calls = []
    driver.main = lambda argv: calls.append((argv, driver.FROM_BOOT)) or 7
    self.enter_context(mock.patch.object(pkb_ext_dev, 'fake_vm_main', driver,
                                         create=True))  # fmt: skip
    self.enter_context(
        mock.patch.dict(sys.modules, {stock_pkb.DRIVER_MODULE: driver})
    )
    self.enter_context(mock.patch.dict(os.environ, self.seen['env']))
    argv = ['-c'] + self.seen['argv'][3:]
    self.enter_context(mock.patch.object(sys, 'argv', argv))
    with self.assertRaises(SystemExit) as exit_:
      exec(self.seen['argv'][2], {})  # pylint: disable=exec-used
    self.assertEqual(exit_.exception.code, 7)
    self.assertEqual(calls, [(argv, 6)])

  def testNoExtra(self):
    stock_pkb.RunMain(self.tmp, 'b', stock_pkb.StaticVms(1), run_uri='u')
    self.assertNotIn('PKB_EXT_STOCK_PKB_EXTRA', self.seen['env'])
    self.assertFalse(os.path.exists(os.path.join(self.tmp, 'extra.json')))

  def testFailedRunLeavesEmptyLogs(self):
    self.seen['fail'] = True
    result = stock_pkb.RunMain(
        self.tmp, 'b', stock_pkb.StaticVms(1), run_uri='u'
    )
    self.assertEqual(result.proc.returncode, 1)
    self.assertEqual((result.commands, result.samples), ((), ()))

  def testDriverCommandRunsTheModule(self):
    self.assertEqual(
        stock_pkb.DriverCommand(),
        [sys.executable, '-m', 'pkb_ext_dev.fake_vm_main'],
    )
    self.assertTrue(
        os.path.isfile(
            os.path.join(os.path.dirname(stock_pkb.__file__), 'fake_vm_main.py')
        )
    )


if __name__ == '__main__':
  absltest.main()
