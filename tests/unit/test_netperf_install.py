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
"""Tests for pkb_ext.netperf: the OS's netperf at PKB's paths.

The install runs its commands in a real shell (pkb_ext_dev.local_vm) with
fake `netperf`, `netserver` and `sudo` scripts first on the PATH; the fake
netperf prints the real `netperf -V` text of tests/data/netperf (see its
PROVENANCE.md), or that text with another version. PKB's NETPERF_PATH and
NETSERVER_PATH point into a temporary directory.
"""

import os
import shutil
from unittest import mock

from absl import flags
from absl.testing import absltest
from absl.testing import flagsaver
from perfkitbenchmarker import errors
from perfkitbenchmarker import stages as pkb_stages
from perfkitbenchmarker.linux_packages import netperf as pkb_netperf

from pkb_ext import netperf
from pkb_ext import paths
from pkb_ext.suite.net import parser
from pkb_ext.suite.net import stages as net
from pkb_ext_dev import local_vm

FLAGS = flags.FLAGS
VERSION_FILE = os.path.join(
    paths.RepoRoot(), 'tests', 'data', 'netperf', 'netperf_version.txt'
)


def _VersionText() -> str:
  with open(VERSION_FILE) as f:
    return f.read()


class _Vm(local_vm.LocalVm):
  """A LocalVm whose InstallPackages records and calls `os_package`."""

  def __init__(self, work_dir, os_package=None):
    super().__init__('vm-1', work_dir=work_dir)
    self.os_packages = []
    self._os_package = os_package

  def InstallPackages(self, names):
    self.os_packages.append(names)
    if self._os_package:
      self._os_package()


class FlagTest(absltest.TestCase):

  def setUp(self):
    super().setUp()
    if not FLAGS.is_parsed():
      FLAGS.mark_as_parsed()

  def testDefaultIsPkbsPackage(self):
    self.assertEqual(FLAGS.cloud_report_netperf_install, 'pkb')
    with flagsaver.flagsaver(cloud_report_netperf_install='distro'):
      self.assertEqual(FLAGS.cloud_report_netperf_install, 'distro')

  def testAutoIsRetiredNamingItsReplacements(self):
    with self.assertRaises(flags.IllegalFlagValueError) as e:
      with flagsaver.flagsaver(cloud_report_netperf_install='auto'):
        pass
    self.assertIn(netperf.RETIRED_AUTO, str(e.exception))
    self.assertNotIn('\n', str(e.exception))

  def testUnknownModeIsRefused(self):
    with self.assertRaisesRegex(
        flags.IllegalFlagValueError, "got 'brew'; give pkb or distro"
    ):
      with flagsaver.flagsaver(cloud_report_netperf_install='brew'):
        pass


class VersionTest(absltest.TestCase):

  def testParseVersion(self):
    self.assertEqual(parser.ParseVersion(_VersionText()), (2, 7, 0))
    self.assertEqual(parser.ParseVersion('Netperf version 2.6'), (2, 6, 0))
    self.assertIsNone(parser.ParseVersion('bash: netperf: command not found'))
    self.assertIsNone(parser.ParseVersion(''))
    self.assertGreaterEqual(
        parser.ParseVersion('Netperf version 2.6.0'), netperf.MIN_VERSION
    )
    self.assertLess(
        parser.ParseVersion('Netperf version 2.5.0'), netperf.MIN_VERSION
    )


class LinkOsNetperfTest(absltest.TestCase):
  """The distro install in a real shell, against fake tools on the PATH."""

  def setUp(self):
    super().setUp()
    root = self.create_tempdir().full_path
    self.bin = os.path.join(root, 'bin')
    self.pkb = os.path.join(root, 'opt', 'pkb', 'netperf-netperf-2.7.0')
    tools = os.path.join(root, 'tools')
    os.makedirs(self.bin)
    os.makedirs(tools)
    # The fakes, and of this machine's tools only what the commands use:
    # a netperf installed here is not found.
    for tool in ('bash', 'mkdir', 'ln'):
      os.symlink(shutil.which(tool), os.path.join(tools, tool))
    self.enter_context(
        mock.patch.dict(os.environ, {'PATH': f'{self.bin}:{tools}'})
    )
    self.enter_context(
        mock.patch.object(
            pkb_netperf, 'NETPERF_PATH', f'{self.pkb}/src/netperf'
        )
    )
    self.enter_context(
        mock.patch.object(
            pkb_netperf, 'NETSERVER_PATH', f'{self.pkb}/src/netserver'
        )
    )
    self._Script('sudo', 'exec "$@"')  # this test needs no root
    self.work = os.path.join(root, 'home')
    os.makedirs(self.work)

  def _Script(self, name: str, body: str) -> str:
    path = os.path.join(self.bin, name)
    with open(path, 'w') as f:
      f.write(f'#!/bin/sh\n{body}\n')
    os.chmod(path, 0o755)
    return path

  def _FakeNetperf(self, version_text: str) -> None:
    self._Script('netperf', f"printf '%s' '{version_text}'")
    self._Script('netserver', f"printf '%s' '{version_text}'")

  def _Vm(self, os_package=None) -> _Vm:
    return _Vm(self.work, os_package)

  def testLinksTheOsNetperfAtPkbsPathsAndCountsPkbsPackage(self):
    self._FakeNetperf(_VersionText())
    vm = self._Vm()
    netperf.InstallFromOs(vm)
    self.assertEqual(vm.os_packages, [])  # both there: nothing installed
    self.assertEqual(
        os.readlink(pkb_netperf.NETPERF_PATH), f'{self.bin}/netperf'
    )
    self.assertEqual(
        os.readlink(pkb_netperf.NETSERVER_PATH), f'{self.bin}/netserver'
    )
    self.assertIn('netperf', vm._installed_packages)  # pylint: disable=protected-access
    # The net phase then finds them at PKB's paths, with the version.
    self.assertEqual(
        net.Locate(vm),
        net.Binaries(
            pkb_netperf.NETPERF_PATH, pkb_netperf.NETSERVER_PATH, '2.7.0'
        ),
    )
    netperf.InstallFromOs(vm)  # again: the links are replaced, not refused
    self.assertEqual(
        os.readlink(pkb_netperf.NETPERF_PATH), f'{self.bin}/netperf'
    )

  def _Built(self, path: str, version_text: str) -> str:
    """A file (not a link) at one of PKB's paths, as PKB's build leaves."""
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, 'w') as f:
      f.write(f"#!/bin/sh\nprintf '%s' '{version_text}'\n")
    os.chmod(path, 0o755)
    with open(path) as f:
      return f.read()

  def testKeepsPkbsBuiltNetperfAndLinksNothing(self):
    # The OS's netperf says 2.6.0; PKB's built one, 2.7.0.
    self._FakeNetperf(_VersionText().replace('2.7.0', '2.6.0'))
    built = {
        path: self._Built(path, _VersionText())
        for path in (pkb_netperf.NETPERF_PATH, pkb_netperf.NETSERVER_PATH)
    }
    vm = self._Vm()
    with self.assertLogs(level='INFO') as logs:
      netperf.InstallFromOs(vm)
    for path, text in built.items():
      self.assertFalse(os.path.islink(path))
      with open(path) as f:
        self.assertEqual(f.read(), text)
    self.assertEqual(vm.os_packages, [])
    self.assertIn('netperf', vm._installed_packages)  # pylint: disable=protected-access
    self.assertIn(
        "keeping PKB's netperf built at"
        f' {pkb_netperf.NETPERF_PATH} and {pkb_netperf.NETSERVER_PATH} on'
        " vm-1; the OS's is not linked over them",
        '\n'.join(logs.output),
    )
    self.assertEqual(netperf.LinkOsNetperf(vm), '2.7.0')
    self.assertEqual(
        net.Locate(vm).version, '2.7.0'
    )  # the net phase runs PKB's

  def testRefusesHalfABuildInOneLine(self):
    self._FakeNetperf(_VersionText())
    text = self._Built(pkb_netperf.NETPERF_PATH, _VersionText())
    vm = self._Vm()
    with self.assertRaisesRegex(
        errors.Setup.InvalidSetupError,
        r'^--cloud_report_netperf_install=distro: \S+/src/netperf on vm-1 is'
        r' a file, not a link, but \S+/src/netserver is not: a partial build'
        r" of PKB's netperf; remove \S+/src/netperf to link the OS's, or use"
        r' =pkb$',
    ):
      netperf.InstallFromOs(vm)
    self.assertFalse(os.path.lexists(pkb_netperf.NETSERVER_PATH))
    with open(pkb_netperf.NETPERF_PATH) as f:
      self.assertEqual(f.read(), text)
    self.assertNotIn('netperf', vm._installed_packages)  # pylint: disable=protected-access

  def testInstallsTheOsPackageWhenNetperfIsMissing(self):
    vm = self._Vm(os_package=lambda: self._FakeNetperf(_VersionText()))
    self.assertEqual(netperf.LinkOsNetperf(vm), '2.7.0')
    self.assertEqual(vm.os_packages, ['netperf'])
    self.assertTrue(os.path.islink(pkb_netperf.NETSERVER_PATH))

  def testRefusesNetperfOlderThan26InOneLine(self):
    self._FakeNetperf(_VersionText().replace('2.7.0', '2.5.0'))
    vm = self._Vm()
    with self.assertRaisesRegex(
        errors.Setup.InvalidSetupError,
        r'^--cloud_report_netperf_install=distro: \S+/bin/netperf on vm-1 is'
        r' netperf 2.5.0, older than 2.6; install netperf 2.6 or later, or'
        r' use =pkb$',
    ):
      netperf.InstallFromOs(vm)
    self.assertFalse(os.path.lexists(pkb_netperf.NETPERF_PATH))
    self.assertNotIn('netperf', vm._installed_packages)  # pylint: disable=protected-access

  def testRefusesWhenTheOsPackageBringsNoNetperf(self):
    vm = self._Vm()
    with self.assertRaisesRegex(
        errors.Setup.InvalidSetupError,
        'no netperf and netserver on vm-1 after installing the OS package'
        ' netperf',
    ):
      netperf.InstallFromOs(vm)
    self.assertEqual(vm.os_packages, ['netperf'])
    self.assertFalse(os.path.lexists(pkb_netperf.NETPERF_PATH))

  def testANetserverAloneIsNotEnough(self):
    self._Script('netserver', 'exit 0')
    vm = self._Vm()
    with self.assertRaisesRegex(errors.Setup.InvalidSetupError, 'no netperf'):
      netperf.LinkOsNetperf(vm)
    self.assertEqual(vm.os_packages, ['netperf'])

  def testLocateWithoutTheLinksSaysWhatIsMissing(self):
    vm = self._Vm()
    with self.assertRaisesRegex(
        errors.Setup.InvalidSetupError,
        f'no netperf at {pkb_netperf.NETPERF_PATH} or no netserver at'
        f" {pkb_netperf.NETSERVER_PATH} on vm-1 .*PKB's netperf package",
    ):
      net.Locate(vm)


class BeforePhaseTest(absltest.TestCase):

  def setUp(self):
    super().setUp()
    if not FLAGS.is_parsed():
      FLAGS.mark_as_parsed()

  def _Spec(self, name):
    db = [mock.Mock(name=f'db{i}') for i in range(1, 4)]
    client = mock.Mock(name='client')
    spec = mock.Mock(
        vms=[client, *db],
        vm_groups={'client': [client], 'db': db},
        config=None,  # no configuration: no phase skipped for it
    )
    spec.name = name
    return spec, client, db

  def testTheVmsThatRunNetperfOrNetserver(self):
    spec, client, db = self._Spec('netperf')  # PKB's own: its first two
    self.assertEqual(netperf.NetperfVms(spec), [client, db[0]])
    spec, client, db = self._Spec('cloud_report_netperf')
    self.assertEqual(netperf.NetperfVms(spec), [db[0], client])
    spec, client, db = self._Spec('cloud_report_2021')
    # With overlap the net phase runs on the second db VM; without, on the
    # first.
    with flagsaver.flagsaver(
        cloud_report_phases=['cpu', 'io', 'net'], cloud_report_overlap=True
    ):
      self.assertEqual(netperf.NetperfVms(spec), [db[1], client])
    with flagsaver.flagsaver(
        cloud_report_phases=['cpu', 'io', 'net'], cloud_report_overlap=False
    ):
      self.assertEqual(netperf.NetperfVms(spec), [db[0], client])
    with flagsaver.flagsaver(cloud_report_phases=['cpu', 'io']):
      self.assertEqual(netperf.NetperfVms(spec), [])
    spec.vm_groups = {'db': db}  # no client: the phase itself refuses
    self.assertEqual(netperf.NetperfVms(spec), [])

  @mock.patch.object(netperf, 'InstallFromOs', autospec=True)
  def testBeforePrepareOnlyWithDistroAndANetperfBenchmark(self, install):
    spec, client, db = self._Spec('cloud_report_netperf')
    netperf.BeforePhase(pkb_stages.PREPARE, benchmark_spec=spec)
    install.assert_not_called()  # --cloud_report_netperf_install=pkb
    with flagsaver.flagsaver(cloud_report_netperf_install='distro'):
      netperf.BeforePhase(pkb_stages.RUN, benchmark_spec=spec)
      netperf.BeforePhase(pkb_stages.PREPARE, benchmark_spec=None)
      spec.name = 'fio'
      netperf.BeforePhase(pkb_stages.PREPARE, benchmark_spec=spec)
      install.assert_not_called()
      spec.name = 'cloud_report_netperf'
      netperf.BeforePhase(pkb_stages.PREPARE, benchmark_spec=spec)
    self.assertEqual(install.call_args_list, [mock.call(db[0]),
                                              mock.call(client)])  # fmt: skip


if __name__ == '__main__':
  absltest.main()
