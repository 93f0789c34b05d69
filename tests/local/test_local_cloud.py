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
"""The local cloud, for real: OS images, sshd, loop disks, stock pkb.py.

Brings up a test cloud (its own state dir, prefix and subnet, so a `make
local` cloud can stay up) on the Debian 12 image, checks each host over
ssh, runs stock pkb.py's cloud_report_2021 on it (the whole suite with the
smoke preset through scripts/local.sh: PKB's OS mixin, every tool's install
and PKB's package cleanup; object storage on each of the three emulators),
then the whole suite again on the Debian 13 image (object storage on MinIO
only), and checks that this machine's packages did not change and that
`down` leaves nothing.

The two runs also show the suite's overlap (--cloud_report_overlap), from
each host's command log (every ssh command with its start time, UTC ms):

1. on Debian 12, with overlap (the default), while db1 runs the io phase
   (the fill, then the fio jobs), db3 runs CoreMark, db2 netserver for the
   client's netperf, and the client netperf then the TTFB worker:
   commands of each side phase on other hosts start inside the io phase's
   window on db1 (from the fill's start to the end of the last fio job:
   its start + ramp + runtime); the fio jobs run 20 s each (the fill too:
   fio ends it at the job file's runtime), so the io phase outlasts the
   side phases' start;
2. on Debian 13, without overlap, CoreMark runs on db1 and no side phase's
   command starts inside the io phase's window;
3. both runs give the same samples: metrics and the phases' metadata keys
   (the values of phase_vms and overlapped differ, as they should).

The hosts share one machine, so their figures under overlap are not cloud
figures.
Needs root; skipped (with the reason) where the machine cannot do it.
The tests run in order and share the cloud.
"""

import datetime
import glob
import json
import math
import os
import subprocess
import tempfile

from absl.testing import absltest

from pkb_ext.local import presets
from pkb_ext import paths
from pkb_ext.suite import phase_modules
from pkb_ext_dev import local_cloud
from pkb_ext_dev import stock_pkb

_REASON = local_cloud.Unavailable()
_HOSTS = ('client', 'db1', 'db2', 'db3')
# Each fio job's runtime and ramp in the run with overlap (see above).
_FIO_RUNTIME_S = 20
_FIO_RAMP_S = 1
_FILL = '--section=fill-disk-ignore'
# Commands of the side phases: CoreMark's build and runs, netperf and
# netserver, the TTFB worker.
_SIDE = ('coremark', 'netperf', 'netserver', 'ttfb_worker')
_PROVIDERS = ('s3', 'gcs', 'azure')  # MinIO, fake-gcs-server, Azurite
_APT_INSTALL = (
    "sudo DEBIAN_FRONTEND='noninteractive' /usr/bin/apt-get -y install"
)


@absltest.skipIf(_REASON, _REASON)
class LocalCloudTest(absltest.TestCase):

  @classmethod
  def setUpClass(cls):
    super().setUpClass()
    cls.work = tempfile.mkdtemp(prefix='pkb-ext-local-test-')
    cls.shapes = {}  # image -> the samples' shape (_Labels)
    cls.machine = local_cloud.MachinePackages()
    # Not under /tmp: the hosts have their own /tmp.
    cls.cloud = local_cloud.TestCloud(
        local_cloud.TestStateDir(), image='debian12'
    )
    if cls.cloud.Leftovers():  # a previous run died: its state says what
      cls.cloud.Cli('down')
    if cls.cloud.Leftovers():
      raise AssertionError(f'test cloud not clean: {cls.cloud.Leftovers()}')
    proc = cls.cloud.Cli('up')
    if proc.returncode:
      cls.cloud.Cli('down')
      raise AssertionError(f'up failed: {proc.stdout}\n{proc.stderr}')

  @classmethod
  def tearDownClass(cls):
    cls.cloud.Cli('down')  # a no-op once test_9 ran
    super().tearDownClass()

  def test_1_up_is_idempotent(self):
    before = self.cloud.State()
    proc = self.cloud.Cli('up')
    self.assertEqual(proc.returncode, 0, proc.stderr)
    after = self.cloud.State()
    for host in _HOSTS:
      self.assertEqual(
          before['hosts'][host]['sshd_pid'], after['hosts'][host]['sshd_pid']
      )
    status = self.cloud.Status()
    self.assertTrue(status['up'])
    self.assertTrue(all(h['sshd_alive'] for h in status['hosts']))
    for service in ('minio', 'fake-gcs', 'azurite'):
      self.assertTrue(status['services'][service]['alive'], service)
    keys = self.cloud.State()['object_storage']['credentials_file']
    self.assertEqual(os.stat(keys).st_mode & 0o777, 0o600)

  def test_2_static_vm_file(self):
    with open(self.cloud.State()['static_vm_file']) as f:
      vms = json.load(f)
    # PKB fills vm_groups in alphabetical group order: client, then db.
    self.assertEqual(
        [vm['ip_address'] for vm in vms],
        [self.cloud.plan.Host(h).ip for h in _HOSTS],
    )
    self.assertNotIn('local_disks', vms[0])
    for vm in vms:
      self.assertIs(vm['install_packages'], True)
      self.assertEqual(vm['os_type'], 'debian12')
      self.assertEqual(vm['user_name'], 'pkbext')
    for vm in vms[1:]:
      self.assertRegex(vm['local_disks'][0], r'^/dev/loop\d+$')

  def test_3_each_host_over_ssh(self):
    for host in _HOSTS:
      proc = self.cloud.Ssh(
          host,
          'echo "$(hostname) $(id -un) $(sudo -n id -u) $(ip -4 -o addr show'
          " dev eth0 | awk '{print $4}')\"; ls -A /tmp; for t in fio node"
          ' netperf; do command -v $t; done; python3 -c "import sys;'
          ' print(sys.executable, *sys.version_info[:2])"',
      )
      self.assertEqual(proc.returncode, 0, proc.stderr)
      first, *rest = proc.stdout.splitlines()
      name, user, sudo_uid, addr = first.split()
      self.assertEqual((name, user, sudo_uid), (host, 'pkbext', '0'))
      self.assertEqual(addr.split('/')[0], self.cloud.plan.Host(host).ip)
      # The image's Python; none of this machine's tools.
      self.assertEqual(rest, ['/usr/bin/python3 3 11'])

  def test_4_private_tmp_and_home(self):
    for host in _HOSTS:
      proc = self.cloud.Ssh(
          host, f'echo {host} > /tmp/pkb-ext-whoami && echo {host} > ~/whoami'
      )
      self.assertEqual(proc.returncode, 0, proc.stderr)
    for host in _HOSTS:
      proc = self.cloud.Ssh(host, 'cat /tmp/pkb-ext-whoami ~/whoami')
      self.assertEqual(proc.stdout.split(), [host, host])
    self.assertFalse(os.path.exists('/tmp/pkb-ext-whoami'))

  def test_5_data_disks(self):
    state = self.cloud.State()
    for host in _HOSTS[1:]:
      loop = state['hosts'][host]['loop']
      name = os.path.basename(loop)
      with open(f'/sys/block/{name}/loop/dio') as f:
        self.assertEqual(f.read().strip(), '1', f'{loop} has no direct I/O')
      proc = self.cloud.Ssh(
          host,
          f'test -b {loop} && sudo blockdev --getsize64 {loop} && sudo dd'
          f' if={loop} bs=1M count=1 iflag=direct status=none | od -An -tx1'
          ' -N64 | tr -d " \\n"',
      )
      self.assertEqual(proc.returncode, 0, proc.stderr)
      size, head = proc.stdout.split()
      self.assertEqual(int(size), self.cloud.plan.disk_bytes)
      self.assertNotEqual(head.strip('0'), '', 'disk is not pre-filled')

  def test_6_hosts_reach_each_other_and_their_loopback(self):
    port = 47391
    server = (
        f'nohup python3 -m http.server {port} --bind {{bind}} >/dev/null 2>&1'
        ' </dev/null & echo $!'
    )
    db2 = self.cloud.plan.Host('db2').ip
    started = []
    try:
      for host, bind in (('db2', db2), ('db1', '127.0.0.1')):
        proc = self.cloud.Ssh(host, server.format(bind=bind))
        self.assertEqual(proc.returncode, 0, proc.stderr)
        started.append((host, proc.stdout.strip()))
      fetch = (
          'python3 -c "import sys, time, urllib.request as u\n'
          'for _ in range(50):\n'
          '  try: print(u.urlopen(sys.argv[1], timeout=1).status); break\n'
          '  except OSError: time.sleep(0.1)" '
      )
      for host in ('client', 'db1', 'db3'):
        proc = self.cloud.Ssh(host, fetch + f'http://{db2}:{port}/')
        self.assertEqual(proc.stdout.strip(), '200', (host, proc.stderr))
      proc = self.cloud.Ssh('db1', fetch + f'http://127.0.0.1:{port}/')
      self.assertEqual(proc.stdout.strip(), '200', proc.stderr)
      # db1's loopback is its own: db2 has no server on 127.0.0.1.
      proc = self.cloud.Ssh('db2', fetch + f'http://127.0.0.1:{port}/')
      self.assertEqual(proc.stdout.strip(), '')
    finally:
      for host, pid in started:
        self.cloud.Ssh(host, f'kill {pid}')

  def test_7_apt_installs_on_its_host_only(self):
    installed = ['dpkg-query', '-W', '-f=${Status}', 'hello']
    machine = lambda: subprocess.run(installed, capture_output=True, text=True)
    self.assertNotIn('installed', machine().stdout)
    proc = self.cloud.Ssh(
        'db3',
        'sudo apt-get update -q >/dev/null && sudo'
        ' DEBIAN_FRONTEND=noninteractive apt-get install -y -q hello >/dev/null'
        ' && hello',
        timeout=300,
    )
    self.assertEqual(proc.returncode, 0, proc.stderr)
    self.assertEqual(proc.stdout.strip(), 'Hello, world!')
    proc = self.cloud.Ssh('db2', 'command -v hello || echo none')
    self.assertEqual(proc.stdout.strip(), 'none')
    self.assertNotIn('installed', machine().stdout)

  def test_7b_each_host_sees_only_its_processes(self):
    proc = self.cloud.Ssh('db2', 'nohup sleep 4242 >/dev/null 2>&1 & echo $!')
    pid = proc.stdout.strip()
    try:
      proc = self.cloud.Ssh(
          'db1',
          'sudo killall -q sleep; ps -e -o pid=,comm= | head -1; ps -e |'
          ' grep -c -e minio -e sleep',
      )
      first, count = proc.stdout.split('\n', 1)
      self.assertEqual(first.split(), ['1', 'sshd'])  # the host's PID 1
      self.assertEqual(count.strip(), '0')  # no client MinIO, no db2 sleep
      proc = self.cloud.Ssh('db2', f'kill -0 {pid} && echo alive')
      self.assertEqual(proc.stdout.strip(), 'alive')  # db1's killall missed it
    finally:
      self.cloud.Ssh('db2', f'kill {pid}')

  def _Marks(self):
    return {h: len(self.cloud.CommandLog(h)) for h in _HOSTS}

  def _Ran(self, marks, host):
    """The commands a host ran since marks."""
    return self.cloud.CommandLog(host)[marks[host] :]

  def _WholeSuite(self, image, *pkb_args, providers=_PROVIDERS):
    """scripts/local.sh on an image; returns (PKB's suite samples, its log).

    Checks the samples of every phase and of each object storage provider
    (s3 in the suite's run, the others in a run of object storage each;
    providers=('s3',): --s3-only), and that no secret leaked.
    """
    if providers == ('s3',):
      pkb_args += ('--s3-only',)
    # Two judged TPC-C steps (the smoke preset has three): the search is
    # shown by the tpcc tests; here, that it runs on the image.
    pkb_args += ('--cloud_report_tpcc_max_warehouses=2',)
    landed = phase_modules.LoadAll()
    out = os.path.join(self.work, f'out-{image}')
    env = dict(self.cloud.env, PKB_EXT_OUT=out, PKB_EXT_LOCAL_IMAGE=image)
    proc = subprocess.run(
        ['bash', os.path.join(paths.RepoRoot(), 'scripts', 'local.sh'),
         *pkb_args],
        env=env, capture_output=True, text=True, timeout=3600, check=False,
    )  # fmt: skip
    self.assertEqual(
        proc.returncode, 0, proc.stdout[-4000:] + proc.stderr[-4000:]
    )
    # The console shows a Traceback line only for a real error.
    self.assertNotIn('Traceback', proc.stdout)
    with open(self.cloud.State()['static_vm_file']) as f:
      self.assertEqual({vm['os_type'] for vm in json.load(f)}, {image})
    with open(os.path.join(out, 'samples.ndjson')) as f:
      samples = [json.loads(line) for line in f]
    by_phase = {}
    for s in samples:
      self.assertEqual(set(s) >= {'metric', 'value', 'unit', 'metadata'}, True)
      self.assertTrue(math.isfinite(s['value']), s)
      by_phase.setdefault(s['metadata']['phase'], []).append(s)
    self.assertEqual(sorted(by_phase), sorted(landed))
    for phase, rows in by_phase.items():
      self.assertTrue(any(r['value'] > 0 for r in rows), phase)
      self.assertTrue(all(r['metadata'].get('cloud') for r in rows), phase)
    self._AssertCpuSamples(by_phase.get('cpu', []))
    self._AssertTpccSamples(by_phase.get('tpcc', []))
    self._AssertObjectStorageSamples(
        by_phase.get('object_storage', []), providers
    )
    self._AssertNoSecrets(out)
    logs = glob.glob(os.path.join(out, 'pkb*.log'))
    self.assertLen(logs, len(providers))  # the suite, then gcs, azure
    for path in logs:
      with open(path) as f:
        text = f.read()
      self.assertIn('Success rate: 100.00% (1/1)', text, path)
      # PKB's package cleanup of the static VMs ran to its end.
      self.assertNotIn('exception deleting VMs', text, path)
    with open(os.path.join(out, 'pkb_samples.json')) as f:
      suite = [json.loads(line) for line in f if line.strip()]
    with open(os.path.join(out, 'pkb.log')) as f:
      return suite, f.read()

  def _Timed(self, marks):
    """Each host's (start time, command) since marks."""
    return {h: self.cloud.TimedCommandLog(h)[marks[h] :] for h in _HOSTS}

  @staticmethod
  def _IoWindow(logs, runtime_s):
    """The fill's start on db1 and the end of the last fio job there."""
    db1 = logs['db1']
    (start,) = [i for i, (_, c) in enumerate(db1) if _FILL in c and
                'execute_command' in c]  # fmt: skip
    last = [
        when
        for when, c in db1[start:]
        if '--section=' in c and 'execute_command' in c
    ][-1]
    per_job = datetime.timedelta(seconds=_FIO_RAMP_S + runtime_s)
    return db1[start][0], last + per_job

  @staticmethod
  def _SideInWindow(logs, window):
    start, end = window
    return sorted(
        (when.isoformat(), host, c)
        for host in _HOSTS
        if host != 'db1'
        for when, c in logs[host]
        if any(word in c for word in _SIDE) and start < when < end
    )

  @staticmethod
  def _Labels(samples):
    """{phase: (phase_vms, overlapped)} and the set of (metric, keys).

    The keys are the phase's own: PKB's run labels (each VM group's
    machine facts, which list the machine's loop devices, shared with
    other local clouds) are on every sample, the phases' and PKB's own
    (End to End Runtime), and are left out.
    """
    labels = [stock_pkb.Labels(s) for s in samples]
    run_keys = set().union(*(set(x) for x in labels if 'phase' not in x))
    placed, shape = {}, set()
    for s, x in zip(samples, labels):
      if 'phase' not in x:
        continue
      placed[x['phase']] = (x['phase_vms'], x['overlapped'])
      shape.add((s['metric'], tuple(sorted(set(x) - run_keys))))
    return placed, shape

  def _AssertOverlapped(self, logs, samples, log):
    """io ran on db1 while the side phases ran on the other hosts."""
    window = self._IoWindow(logs, _FIO_RUNTIME_S)
    inside = self._SideInWindow(logs, window)
    for host in ('db2', 'db3'):  # netserver's, CoreMark's
      self.assertTrue(
          any(h == host for _, h, _ in inside),
          f'no side phase command on {host} in the io window {window}:'
          f' {inside}',
      )
    for word in _SIDE:  # every side phase started beside the io phase
      self.assertTrue([c for _, _, c in inside if word in c], (word, inside))
    self.assertFalse([c for _, c in logs['db1'] if 'coremark' in c])
    self.assertIn(
        'overlap: cpu beside net,object_storage run while io runs on db1',
        log,
    )
    self._AssertPlaced(samples, 'db3', 'db2', 'True')

  def _AssertInSeries(self, logs, samples, runtime_s):
    """Without overlap the side phases ran before or after io, CoreMark on db1."""
    window = self._IoWindow(logs, runtime_s)
    self.assertEqual(self._SideInWindow(logs, window), [])
    self.assertTrue([c for _, c in logs['db1'] if 'coremark' in c])
    for host in ('db2', 'db3'):
      self.assertFalse([c for _, c in logs[host] if any(w in c for w in _SIDE)])
    self._AssertPlaced(samples, 'db1', 'db1', 'False')

  def _AssertPlaced(self, samples, cpu_vm, net_vm, overlapped):
    """Each phase's phase_vms and overlapped labels."""
    placed, _ = self._Labels(samples)
    self.assertEqual({p: placed[p] for p in placed if p != 'tpcc'}, {
        'cpu': (cpu_vm, overlapped),
        'io': ('db1', overlapped),
        'net': (f'client,{net_vm}', overlapped),
        'object_storage': ('client', overlapped),
    })  # fmt: skip

  def _AssertOsMixinAndCleanup(self, marks):
    """PKB's OS mixin prepared each host, and its cleanup restored it."""
    for host in _HOSTS:
      ran = self._Ran(marks, host)
      for command in (
          'lscpu',
          'sudo apt-get update',
          f'{_APT_INSTALL} fdisk',
          'dpkg --get-selections',  # the static VM's package snapshot
          'sudo dpkg --set-selections <',  # ... restored at the end
          'apt-get --purge -y dselect-upgrade',
          'sudo rm -rf /opt/pkb',
      ):
        self.assertTrue(any(command in c for c in ran), (host, command, ran))
    # What PKB installed with apt is gone again (pip's installs stay: PKB
    # restores only dpkg's selections).
    for host, package in (('db1', 'fio'), ('db1', 'postgresql'),
                          ('client', 'python3-dev')):  # fmt: skip
      proc = self.cloud.Ssh(
          host, f"dpkg-query -W -f='${{Status}}' {package} || true"
      )
      self.assertNotIn('install ok installed', proc.stdout, (host, package))

  def _AssertInstalled(self, marks, python, overlap, providers=_PROVIDERS):
    """PKB installed each phase's tools on the hosts that run them."""
    client = self._Ran(marks, 'client')
    # With overlap CoreMark runs on db3 while the io phase's fill runs on
    # db1, and netperf goes from the client to db2; without, both use db1.
    cpu_vm, net_vm = ('db3', 'db2') if overlap else ('db1', 'db1')
    for host, packages in (
        ('db1', ('fio', 'postgresql')),
        (cpu_vm, ('build-essential',)),
        (net_vm, ('netperf',)),
        ('client', ('netperf', 'python3-dev', 'curl')),
    ):
      ran = self._Ran(marks, host)
      for package in packages:
        self.assertTrue(
            any(c.startswith(f'{_APT_INSTALL} {package}') for c in ran),
            (host, package),
        )
    # The worker's pins, with pip, on the image's Python (PKB's pip package
    # first removes the image's EXTERNALLY-MANAGED marker).
    pip = [c for c in client if 'python3 -m pip install -q -r' in c]
    self.assertLen(pip, len(providers))  # a pin file for each
    proc = self.cloud.Ssh(
        'client', 'python3 -c "import sys, boto3; print(*sys.version_info[:2])"'
    )
    self.assertEqual(proc.stdout.strip(), python, proc.stderr)

  def test_9a_whole_suite_on_debian12_with_overlap(self):
    marks = self._Marks()
    samples, log = self._WholeSuite(
        'debian12',
        f'--cloud_report_fio_runtime_s={_FIO_RUNTIME_S}',
        f'--cloud_report_fio_ramp_time_s={_FIO_RAMP_S}',
    )
    self._AssertInstalled(marks, '3 11', overlap=True)
    self._AssertOsMixinAndCleanup(marks)
    self._AssertOverlapped(self._Timed(marks), samples, log)
    self.shapes['debian12'] = self._Labels(samples)[1]

  def test_9b_whole_suite_on_debian13_in_series(self):
    marks = self._Marks()
    # Object storage on MinIO only: the other providers' runs differ from
    # it only in the worker's SDK (their pins resolve for Python 3.13:
    # tests/pkb/test_worker_python.py).
    samples, _ = self._WholeSuite(
        'debian13', '--cloud_report_overlap=false', providers=('s3',)
    )
    self._AssertInstalled(marks, '3 13', overlap=False, providers=('s3',))
    self._AssertOsMixinAndCleanup(marks)
    runtime_s = int(
        presets.SMOKE['cloud_report_fio_runtime_s']
    )  # the smoke preset's
    self._AssertInSeries(self._Timed(marks), samples, runtime_s)
    self.shapes['debian13'] = self._Labels(samples)[1]

  def test_9c_the_same_samples_with_and_without_overlap(self):
    if len(self.shapes) < 2:
      self.skipTest(f'needs both whole-suite runs; ran: {sorted(self.shapes)}')
    on, off = self.shapes['debian12'], self.shapes['debian13']
    self.assertNotEmpty(on)
    self.assertEqual(sorted(on - off), [])
    self.assertEqual(sorted(off - on), [])

  def _AssertObjectStorageSamples(self, rows, providers):
    """One run per emulator: the same samples, provider differing."""
    shapes = {}
    for r in rows:
      shapes.setdefault(r['metadata']['provider'], set()).add((
          r['metric'],
          r['unit'],
          # PKB's VM metadata names each block device the client sees
          # (client_/dev/loopN): this machine's loop devices, which other
          # local clouds attach and detach between the runs. The gcs and
          # azure runs select object storage alone, which provisions no db
          # group (provision.ProvisionFor): PKB's db_* VM metadata is the
          # suite run's only.
          tuple(
              sorted(
                  k
                  for k in set(r['metadata']) - {'sdk_version'}
                  if '/dev/' not in k and not k.startswith('db_')
              )
          ),
      ))
    self.assertEqual(sorted(shapes), sorted(providers))
    for provider in providers:
      self.assertEqual(shapes[provider], shapes['s3'], provider)
    for provider in shapes:
      conns = {
          r['metadata'].get('connection')
          for r in rows
          if r['metadata']['provider'] == provider
          and r['metric'] == 'object_storage_ttfb'
      }
      self.assertEqual(conns - {None}, {'new', 'reused'}, provider)

  def _AssertNoSecrets(self, out):
    """No object storage key in any log, sample, spool or report of the run."""
    with open(self.cloud.State()['object_storage']['credentials_file']) as f:
      keys = [
          line.split('=', 1)[1].strip()
          for line in f
          if line.startswith(('AWS_SECRET_ACCESS_KEY=', 'AZURE_STORAGE_KEY='))
      ]
    self.assertLen(keys, 2)
    files = [
        os.path.join(d, name) for d, _, names in os.walk(out) for name in names
    ]
    files += [
        os.path.join(self.cloud.plan.HostDir(h), 'log', name)
        for h in _HOSTS
        for name in ('commands.log', 'guard.log', 'sudo.log')
    ]
    self.assertTrue(any(f.endswith('pkb.log') for f in files), files)
    for path in files:
      if not os.path.exists(path):
        continue
      with open(path, 'rb') as f:
        text = f.read()
      for key in keys:
        self.assertNotIn(key.encode(), text, f'a key is in {path}')

  def _AssertCpuSamples(self, rows):
    """The smoke preset's 1 CoreMark run per mode, each a real score."""
    per_run = [r for r in rows if r['metric'] == 'coremark_score']
    self.assertEqual(
        sorted(r['metadata']['mode'] for r in per_run), ['all', 'single']
    )
    self.assertTrue(all(r['value'] > 0 for r in per_run), per_run)

  def _AssertTpccSamples(self, rows):
    """Judged PostgreSQL steps, each with its pass rule's reason."""
    passed = [r for r in rows if r['metric'] == 'tpcc_step_passed']
    self.assertNotEmpty(passed)
    for r in passed:
      self.assertEqual(r['metadata']['engine'], 'postgres')
      self.assertRegex(
          r['metadata']['pass_reason'], r'^(pass|fail|no result):? '
      )
    used = [r for r in rows if r['metric'] == 'tpcc_steps_used']
    self.assertLen(used, 1)
    self.assertEqual(used[0]['value'], len(passed))

  def test_9d_down_leaves_nothing_and_the_machine_as_it_was(self):
    proc = self.cloud.Cli('down')
    self.assertEqual(proc.returncode, 0, proc.stderr)
    self.assertEqual(self.cloud.Leftovers(), [])
    self.assertEqual(local_cloud.MachinePackages(), self.machine)
    proc = self.cloud.Cli('down')
    self.assertEqual(proc.returncode, 0, proc.stderr)


if __name__ == '__main__':
  absltest.main()
