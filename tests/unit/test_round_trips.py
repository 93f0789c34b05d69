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
"""How many ssh round trips the phases' remote steps take.

A recording VM answers commands by fragment and counts every RemoteCommand
and RobustRemoteCommand (each is at least one ssh; PKB's robust one is at
least three: the start, one or more waits, and the wait that prints the
output).
"""

import pathlib
from unittest import mock

from absl.testing import absltest
from perfkitbenchmarker import errors

from pkb_ext.suite.disk import commands as storage_commands
from pkb_ext.suite import phases
from benchmarks.cloud_report.tpcc import params as tpcc_params
from pkb_ext import coremark
from pkb_ext.suite.disk import stages as io
from pkb_ext.tpcc_postgres import engine as tpcc_postgres
from pkb_ext.tpcc_postgres import params as pg_params

FIO_DATA = pathlib.Path(__file__).parent.parent / 'data' / 'fio'


class RecordingVm:
  """Answers by command fragment (first match wins); records every call."""

  def __init__(self, answers=(), name='db1', internal_ip='10.0.0.1'):
    self.name = name
    self.internal_ip = internal_ip
    self.install_packages = False
    self.answers = list(answers)
    self.remote = []  # RemoteCommand's commands
    self.robust = []  # RobustRemoteCommand's commands
    self.pushed = []

  def _Answer(self, command):
    for fragment, stdout in self.answers:
      if fragment in command:
        return stdout
    return ''

  def RemoteCommand(self, command, **kwargs):
    del kwargs
    self.remote.append(command)
    return self._Answer(command), ''

  def RobustRemoteCommand(self, command, **kwargs):
    del kwargs
    self.robust.append(command)
    return self._Answer(command), ''

  def PushFile(self, local, remote):
    self.pushed.append((pathlib.Path(local).read_text(), remote))


class IoRoundTripsTest(absltest.TestCase):

  def _Vm(self):
    answers = [('blockdev --getsize64', f'{1 << 30}\n')]
    for job in (io.FILL_JOB,) + io.REPORTED_JOBS:
      json_text = (FIO_DATA / f'job_{job}.json').read_text()
      answers.append((f'--section={job} ', json_text))
    return RecordingVm(answers)

  def testEachJobIsOneRobustCommandThatPrintsItsJson(self):
    vm = self._Vm()
    params = io.Params()
    samples = io.RunJobs(vm, params, '/dev/loop4', 'fio')
    jobs = (io.FILL_JOB,) + tuple(
        j for j in io.REPORTED_JOBS if j in params.jobs
    )
    # One size probe; no `cat` of any job's output: it is the job's stdout.
    self.assertEqual(vm.remote, [vm.remote[0]])
    self.assertIn('blockdev --getsize64', vm.remote[0])
    self.assertLen(vm.robust, len(jobs))
    for command, job in zip(vm.robust, jobs):
      self.assertIn(f'--section={job} ', command)
      self.assertTrue(
          command.endswith(f' && cat {storage_commands.OutputFile(job)}')
      )
    self.assertEqual(
        sorted({s.metadata['fio_job'] for s in samples}),
        sorted(io.REPORTED_JOBS),
    )

  def testAFailedJobIsNamed(self):
    vm = self._Vm()

    def Fail(command, **kwargs):
      del command, kwargs
      raise errors.VirtualMachine.RemoteCommandError(
          'Got non-zero return code (1) ... STDERR: fio: bad job'
      )

    vm.RobustRemoteCommand = Fail
    with self.assertRaisesRegex(
        errors.Benchmarks.RunError, r'fio job fill-disk-ignore .* fio: bad job'
    ):
      io.RunJobs(vm, io.Params(), '/dev/loop4', 'fio')


class CoreMarkRoundTripsTest(absltest.TestCase):

  TAR = '/opt/pkb/coremark-v1.01.tar.gz'

  def _Vm(self, tar_sha=coremark.TARBALL_SHA256):
    return RecordingVm([
        ('xargs -0 sha256sum', f'{coremark.TREE_SHA256}  -\n'),
        (
            f'sha256sum {self.TAR}',
            f'{tar_sha}  {self.TAR}\ncomment={coremark.COMMIT}\n',
        ),
    ])

  def testVerifyIsTwoCommands(self):
    vm = self._Vm()
    coremark.Verify(vm, self.TAR)
    checks, extract = vm.remote
    self.assertIn(f'sha256sum {self.TAR} && ', checks)
    self.assertIn("grep -ao 'comment=[0-9a-f]*'", checks)
    self.assertNotIn('tar -xzf', checks)
    self.assertIn('--strip-components=1 && cd ', extract)
    self.assertTrue(extract.endswith('xargs -0 sha256sum | sha256sum'))

  def testABadTarballIsNotExtracted(self):
    vm = self._Vm(tar_sha='0' * 64)
    with self.assertRaisesRegex(
        errors.Setup.BadPreprovisionedDataError, 'sha256 is 0{64}'
    ):
      coremark.Verify(vm, self.TAR)
    self.assertLen(vm.remote, 1)


def _Engine(**overrides):
  params = tpcc_params.Params(start=1, step=1, max_warehouses=3)
  own = pg_params.PostgresParams(postgres_data_dir='/srv/pg', **overrides)
  return tpcc_postgres.PostgresEngine(params, own)


class PostgresRoundTripsTest(absltest.TestCase):

  def _Topology(self, db):
    client = RecordingVm(
        [('tpcc prepare', 'Finished\ncloud_report_tpcc_exit_status=0\n')],
        name='client',
        internal_ip='10.0.0.9',
    )
    client.Install = lambda name: None
    return phases.Topology(db_vms=(db,), client_vm=client, run_metadata=None)

  def _Db(self, probe='bin_dir=/usr/lib/postgresql/15/bin\nmem_kb=16000000\n'):
    return RecordingVm([('MemTotal', probe)])

  def testPrepareIsAProbeAResumeCheckAndOneSetUpCommand(self):
    db = self._Db()
    topology = self._Topology(db)
    engine = _Engine()
    with mock.patch.object(
        tpcc_postgres.go_tpc, 'Path', return_value='/b/go-tpc'
    ):
      engine.Install(topology)
      engine.Setup(topology)
    self.assertLen(db.remote, 3)
    probe, resume, setup = db.remote
    self.assertIn('SELECT count(*) FROM warehouse', resume)
    self.assertIn('/usr/lib/postgresql/*/bin', probe)
    self.assertIn('MemTotal', probe)
    ctl = tpcc_postgres.PostgresCommands(
        '/usr/lib/postgresql/15/bin', '/srv/pg', engine.own.postgres_port
    )
    settings = [
        'listen_addresses=10.0.0.1',
        f'max_connections={engine.Threads(3) + 20}',
        'shared_buffers=4000000kB',  # a quarter of MemTotal
    ]
    self.assertEqual(
        setup, ' && '.join(ctl.SetUpCommands('10.0.0.9', settings))
    )
    self.assertLen(topology.client_vm.robust, 1)  # the load

  def testProbeHonoursTheBinDirFlag(self):
    db = self._Db('bin_dir=\nmem_kb=1000\n')
    with self.assertRaisesRegex(
        errors.Setup.InvalidSetupError, 'no PostgreSQL server'
    ):
      _Engine().Probe(db)
    self.assertEqual(
        _Engine(postgres_bin_dir='/opt/pg/bin').Probe(db), ('/opt/pg/bin', 1000)
    )
    with self.assertRaisesRegex(
        errors.VirtualMachine.RemoteCommandError, 'no MemTotal'
    ):
      _Engine().Probe(self._Db('bin_dir=/b\n'))

  def testCleanupIsOneCommand(self):
    db = self._Db()
    _Engine().Cleanup(self._Topology(db))
    (command,) = db.remote
    # The bin dir is looked up in the same command; stop, then remove.
    self.assertIn('$(ls -d /usr/lib/postgresql/*/bin', command)
    self.assertLess(
        command.index('pg_ctl -D /srv/pg -m fast -w stop'),
        command.index(' && sudo rm -rf /srv/pg'),
    )
    db = self._Db()
    _Engine(postgres_bin_dir='/opt/pg/bin').Cleanup(self._Topology(db))
    (command,) = db.remote
    self.assertIn('/opt/pg/bin/pg_ctl -D /srv/pg', command)


if __name__ == '__main__':
  absltest.main()
