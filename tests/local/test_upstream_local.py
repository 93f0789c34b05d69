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
"""The series' changed PKB benchmarks, run once on the local test cloud.

One PKB tree at the pin with the series applied (pkb_ext_dev.upstream_tree),
one local test cloud (pkb_ext_dev.local_cloud) with its MinIO; the patched
tree's pkb.py runs in an interpreter where pkb_ext is not importable
(upstream_tree.Isolated: -I -S, and PKB_EXT_AUTOLOAD=0), which each run
checks again at its end: no module of ours in sys.modules, no `pkb_ext` in
its log. The hosts run this machine's software, so PKB installs nothing
there (install_packages is false in the cloud's static VM file); before the
runs, the files PKB's installs would fetch are staged as the vs_pkb bench
stages them for stock PKB (pkb_ext_dev.bench_vs_pkb: CoreMark's verified
v1.01 tree, PKB's fio, netperf and netserver paths as links to the hosts'
binaries).

  coremark  db1, one thread, --coremark_iterations_per_cpu=0 (CoreMark
            picks the smallest count that runs the 10 seconds a valid
            result needs) and --run_stage_iterations=2: one sample per
            Run stage, numbered 0 and 1 (run_number).
  fio       db1's raw data disk, --fio_jobfile with the report's job file
            (the io phase's template, 1 s runtime, no ramp) as the report
            wrote it: without the percentile_list line the io phase adds for
            stock PKB's parser, so fio reports its default percentiles,
            which lack 25 and 75 (PKB's parser at the pin raises KeyError
            there), and without comments (PKB passes the device as
            --filename only when the job file's text never says filename):
            every job's samples, finite, p50 but no p25 or p75.
  netperf   client -> db1, TCP_RR and TCP_STREAM, 2 s each, whole run
            including PKB's Cleanup: samples of both, and a netserver
            started on db1 before the run, in its own process group, is
            alive after it, while PKB's own netservers are gone and db1 ran
            no killall.
  object storage, time to first byte on MinIO: PKB's object_storage_service
            benchmark itself cannot run here without changing PKB: its S3
            service's PrepareVM reads vm.instance_profile, an attribute
            only PKB's AWS VMs set (neither PKB's static VM module nor its
            base VM module names it; the test checks both, and that
            PrepareVM fails on a VM without it). So the test runs what the
            benchmark's Run
            stage runs for --object_storage_scenario=api_ttfb: the patched
            benchmark's TimeToFirstByteBenchmark, with PKB's
            APIScriptCommandBuilder and S3 service, on the client host,
            where the API test scripts are pushed as PKB's PrepareVM pushes
            them (/tmp/run, its providers/ package). The host's python3
            runs them with the local cloud's pinned boto3 first on
            PYTHONPATH (the host's own predates AWS_ENDPOINT_URL) and
            AWS_ENDPOINT_URL naming MinIO, from an environment file on the
            host (mode 0600, so the keys are on no command line); the bucket
            is made and removed with boto3 from here. Asserted: time to
            first byte and total time samples of each direction, finite.
"""

import glob
import json
import math
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time

from absl.testing import absltest
import boto3
from perfkitbenchmarker.linux_packages import netperf as pkb_netperf

import pkb_ext
from pkb_ext import labels
from pkb_ext import local
from pkb_ext.local import services
from pkb_ext.local import sshd
import pkb_ext_dev
from pkb_ext_dev import bench_vs_pkb
from pkb_ext_dev import local_cloud
from pkb_ext_dev import upstream_tree

SENTINEL_PORT = 23978  # not a port PKB's netperf or test_vs_pkb uses
_UNAVAILABLE = local_cloud.Unavailable()
# Each pkb.py run's bound (seconds); the test's budget is a few minutes.
RUN_TIMEOUT_S = {'coremark': 240, 'fio': 180, 'netperf': 120, 'ttfb': 180}
# Runs pkb.py from the patched tree; at exit, prints our modules it loaded.
_PKB = """\
import json, runpy
try:
  sys.argv = ['pkb.py', *sys.argv[1:]]
  runpy.run_path('pkb.py', run_name='__main__')
finally:
  ours = sorted(m for m in sys.modules if m.split('.')[0] in {ours!r})
  print('OUR MODULES: ' + json.dumps(ours), file=sys.stderr)
""".format(ours=upstream_tree.OUR_PACKAGES)
# Stages, with stock PKB's static VMs of the cloud (argv: static VM file,
# PKB temp dir, fio device), what PKB's installs would fetch; checks the
# device with the io phase's guard; prints the staging and the io phase's job
# file for the device (1 s runtime, no ramp).
_STAGE = """\
import dataclasses, json, sys
from pkb_ext.suite.disk import guard
from pkb_ext.suite.disk import stages
from pkb_ext_dev import bench_fidelity, bench_vs_pkb
vms = bench_fidelity.LocalCloudVms(sys.argv[1], sys.argv[2], 'ulstage')
try:
  client, db = vms[0], vms[1]
  out = {
      'coremark': bench_vs_pkb.StageCoreMark(db),
      'fio': bench_vs_pkb.StageFio(db),
      'netperf': bench_vs_pkb.StageNetperf([client, db]),
  }
  guard.Check(db, sys.argv[3])
  size = int(db.RemoteCommand('sudo blockdev --getsize64 ' + sys.argv[3])[0])
  params = dataclasses.replace(stages.Params(), runtime_s=1, ramp_time_s=0)
  out['job_file'] = stages.RenderJobFile(stages.JobFileContext(params, size))
finally:
  bench_fidelity.CloseSshMasters(vms)
print(json.dumps(out))
"""
# In the patched tree: the object storage benchmark's time to first byte
# Run step (argv: ssh argv prefix as JSON, the env file, the bucket).
_TTFB = """\
import json, subprocess
from absl import flags
from perfkitbenchmarker import sample
from perfkitbenchmarker.linux_benchmarks import object_storage_service_benchmark as osb
from perfkitbenchmarker.providers.aws import s3
ssh, env_file, bucket = json.loads(sys.argv[1]), sys.argv[2], sys.argv[3]
flags.FLAGS(['ttfb'])
class Vm:
  def RemoteCommand(self, command):
    p = subprocess.run(ssh + [f'set -a; . ~/{env_file}; set +a; {command}'],
                       capture_output=True, text=True, timeout=150)
    if p.returncode:
      raise RuntimeError(f'{command}: exit {p.returncode}: {p.stderr[-3000:]}')
    return p.stdout, p.stderr
import inspect
from perfkitbenchmarker import static_virtual_machine, virtual_machine
for module in (static_virtual_machine, virtual_machine):
  assert 'instance_profile' not in inspect.getsource(module), module
service = s3.S3Service()
service.PrepareService('us-east-1')
try:
  service.PrepareVM(object())
  raise SystemExit('S3Service.PrepareVM took a VM without instance_profile')
except AttributeError as e:
  assert 'instance_profile' in str(e), e
builder = osb.APIScriptCommandBuilder(
    '/tmp/run/' + osb.API_TEST_SCRIPT, osb.STORAGE_TO_API_SCRIPT_DICT['AWS'],
    service)
results = []
osb.TimeToFirstByteBenchmark(
    results, {'storage_provider': 'AWS'}, Vm(), builder, service, bucket)
print(json.dumps({
    'samples': [s.asdict() for s in results],
    'files': [osb.API_TEST_SCRIPT],
    'package_files': osb.API_TEST_SCRIPT_PACKAGE_FILES
                     + s3.S3Service.APIScriptFiles(),
}))
"""
# Only the file lists (the scripts must be on the host before the run).
_TTFB_FILES = """\
import json
from perfkitbenchmarker.linux_benchmarks import object_storage_service_benchmark as osb
from perfkitbenchmarker.providers.aws import s3
print(json.dumps([osb.API_TEST_SCRIPTS_DIR, osb.API_TEST_SCRIPT,
                  osb.API_TEST_SCRIPT_PACKAGE_FILES
                  + s3.S3Service.APIScriptFiles()]))
"""
_ENV_FILE = 'upstream-ttfb.env'


def _Samples(path: str) -> list[dict]:
  """PKB's --json_path samples, labels decoded into 'metadata'."""
  with open(path) as f:
    out = [json.loads(line) for line in f if line.strip()]
  for s in out:
    s['metadata'] = labels.Decode(s.get('labels'))
  return out


@absltest.skipIf(_UNAVAILABLE, _UNAVAILABLE)
class UpstreamLocalTest(absltest.TestCase):
  """The patched PKB's coremark, fio, netperf and TTFB on local hosts."""

  @classmethod
  def setUpClass(cls):
    super().setUpClass()
    cls.times = {}
    cls.work = tempfile.mkdtemp(prefix='pkb-ext-upstream-local-')
    # PKB's temp dirs hold ssh ControlPath sockets: at most 107 bytes.
    cls.short = tempfile.mkdtemp(prefix='ul', dir='/tmp')
    started = time.time()
    cls.export, cls.tree = upstream_tree.Build(os.path.join(cls.work, 'up'))
    cls.times['series'] = time.time() - started
    started = time.time()
    cls.cloud = local_cloud.TestCloud(local_cloud.TestStateDir())
    proc = cls.cloud.Cli('up')
    if proc.returncode:
      cls.cloud.Cli('down')
      raise AssertionError(f'up failed: {proc.stdout}\n{proc.stderr}')
    cls.times['up'] = time.time() - started
    try:
      cls._Stage()
    except BaseException:
      cls.tearDownClass()
      raise

  @classmethod
  def tearDownClass(cls):
    cls.cloud.Cli('down')
    shutil.rmtree(cls.short, ignore_errors=True)
    shutil.rmtree(cls.work, ignore_errors=True)
    print(
        'upstream local step seconds: '
        + ', '.join(f'{k} {v:.1f}' for k, v in cls.times.items()),
        file=sys.stderr,
    )
    super().tearDownClass()

  @classmethod
  def _Stage(cls):
    started = time.time()
    cls.vm_file = cls.cloud.State()['static_vm_file']
    with open(cls.vm_file) as f:
      entries = json.load(f)
    cls.client_entry, cls.db_entry = entries[0], entries[1]
    cls.device = cls.db_entry['local_disks'][0]
    env = dict(
        cls.cloud.env,
        PYTHONPATH=os.pathsep.join([
            os.path.dirname(os.path.dirname(pkb_ext.__file__)),
            os.path.dirname(os.path.dirname(pkb_ext_dev.__file__)),
        ]),
    )
    proc = subprocess.run(
        [sys.executable, '-c', _STAGE, cls.vm_file,
         os.path.join(cls.short, 'stage'), cls.device],
        env=env, capture_output=True, text=True, timeout=180, check=False,
    )  # fmt: skip
    bench_vs_pkb.EndLeftovers(os.path.join(cls.short, 'stage'))
    if proc.returncode:
      raise AssertionError(f'staging failed: {proc.stderr[-4000:]}')
    cls.staged = json.loads(proc.stdout.splitlines()[-1])
    cls.job_text = cls.staged['job_file']
    cls.times['staging'] = time.time() - started

  def _Files(self, name: str, entries) -> str:
    path = os.path.join(self.work, f'vms-{name}.json')
    with open(path, 'w') as f:
      json.dump(list(entries), f, indent=1)
    return path

  def _Pkb(self, name: str, benchmark: str, vm_file: str, flags) -> list:
    """Runs the patched pkb.py, pkb_ext not loaded; returns its samples."""
    started = time.time()
    temp = os.path.join(self.short, name)
    json_path = os.path.join(self.work, f'{name}.json')
    run_uri = 'ul' + format(int(time.time() * 10) % 16**6, 'x')
    try:
      proc = upstream_tree.Isolated(
          self.tree,
          _PKB,
          f'--benchmarks={benchmark}',
          f'--static_vm_file={vm_file}',
          f'--temp_dir={temp}',
          f'--json_path={json_path}',
          f'--run_uri={run_uri}',
          *flags,
          timeout=RUN_TIMEOUT_S[name],
          env={'PKB_EXT_AUTOLOAD': '0'},
      )
    finally:
      bench_vs_pkb.EndLeftovers(temp)
      self.times[name] = time.time() - started
    self.assertEqual(proc.returncode, 0, proc.stderr[-6000:])
    self.assertIn('OUR MODULES: []', proc.stderr)
    (log,) = glob.glob(os.path.join(temp, 'runs', run_uri, 'pkb.log'))
    with open(log) as f:
      text = f.read()
    self.assertNotIn('pkb_ext', text)
    return _Samples(json_path)

  def test_coremark_iterations(self):
    samples = self._Pkb(
        'coremark',
        'coremark',
        self._Files('db1', [self.db_entry]),
        ['--run_stage_iterations=2', '--coremark_iterations_per_cpu=0',
         '--coremark_thread_counts=1',
         '--coremark_parallelism_method=PTHREAD'],
    )  # fmt: skip
    scores = [s for s in samples if s['metric'] == 'Coremark Score']
    self.assertLen(scores, 2, samples)
    self.assertEqual([s['metadata']['run_number'] for s in scores], ['0', '1'])
    for s in scores:
      md = s['metadata']
      self.assertTrue(math.isfinite(s['value']) and s['value'] > 0, s)
      self.assertEqual(md['iterations_per_cpu'], '0')
      self.assertEqual(md['thread_count'], '1')
      self.assertGreater(int(md['iterations']), 0)
      self.assertGreaterEqual(float(md['total_time_sec']), 10, md)

  def test_fio_report_job_file(self):
    lines = self.job_text.splitlines()
    self.assertEqual(
        len([l for l in lines if l.startswith('percentile_list=')]), 1
    )
    job_file = os.path.join(self.work, 'cloud_report_2021.fio')
    # Without comments: PKB's fio passes --filename (the device) only when
    # the job file's text has no "filename" at all, comments included.
    with open(job_file, 'w') as f:
      f.write(
          '\n'.join(
              l for l in lines if not l.startswith(('percentile_list=', '#'))
          )
      )
    jobs = [
        l.strip()[1:-1]
        for l in lines
        if l.strip().startswith('[') and l.strip() != '[global]'
    ]
    db_fio = dict(self.db_entry, local_disks=[self.device])
    samples = self._Pkb(
        'fio',
        'fio',
        self._Files('db1-fio', [db_fio]),
        [f'--fio_jobfile={job_file}',
         '--fio_target_mode=against_device_without_fill',
         '--fio_rng=tausworthe'],
    )  # fmt: skip
    by_job = {}
    for s in samples:
      if s['metadata'].get('fio_job'):
        self.assertTrue(math.isfinite(s['value']), s)
        by_job.setdefault(s['metadata']['fio_job'], set()).add(s['metric'])
    self.assertEqual(sorted(by_job), sorted(jobs))
    latency = {m for metrics in by_job.values() for m in metrics}
    self.assertIn('rd-iops:read:latency:p50', latency)
    self.assertIn('wr-iops:write:latency:p99', latency)
    # fio's default list: no 25th or 75th percentile, and no KeyError.
    self.assertFalse([m for m in latency if m.endswith((':p25', ':p75'))])

  def _Alive(self, pid: int) -> bool:
    proc = self.cloud.Ssh('db1', f'ps -o args= -p {pid}')
    return proc.returncode == 0 and f'-p {SENTINEL_PORT}' in proc.stdout

  def test_netperf_keeps_other_netservers(self):
    proc = self.cloud.Ssh(
        'db1',
        f'setsid nohup netserver -p {SENTINEL_PORT} -D </dev/null'
        ' >/dev/null 2>&1 & echo $!; sleep 0.5',
    )
    self.assertEqual(proc.returncode, 0, proc.stderr)
    sentinel = int(proc.stdout.split()[-1])
    self.addCleanup(self.cloud.Ssh, 'db1', f'kill {sentinel} 2>/dev/null')
    self.assertTrue(self._Alive(sentinel))
    before = len(self.cloud.CommandLog('db1'))
    samples = self._Pkb(
        'netperf',
        'netperf',
        self._Files('client-db1', [self.client_entry, self.db_entry]),
        ['--netperf_benchmarks=TCP_RR,TCP_STREAM',
         '--netperf_test_length=2', '--netperf_warmup_test_length=0',
         '--netperf_num_streams=1', '--netperf_enable_histograms=false'],
    )  # fmt: skip
    for metric in ('TCP_RR_Transaction_Rate', 'TCP_STREAM_Throughput'):
      values = [s['value'] for s in samples if s['metric'] == metric]
      self.assertTrue(values, (metric, sorted({s['metric'] for s in samples})))
      self.assertTrue(all(math.isfinite(v) and v > 0 for v in values))
    self.assertTrue(self._Alive(sentinel), 'the sentinel netserver is gone')
    ps = self.cloud.Ssh('db1', 'ps -eo pid=,args=').stdout
    # The patched netperf starts its netservers with -D.
    started = re.compile(
        rf'^\s*\d+ {re.escape(pkb_netperf.NETSERVER_PATH)}'
        rf' -p {bench_vs_pkb.NETPERF_CONTROL_PORT}( -D)?$',
        re.M,
    )
    self.assertEqual(started.findall(ps), [], ps)
    log = self.cloud.CommandLog('db1')[before:]
    # Started and stopped by the PIDs in the run's own file.
    self.assertTrue([c for c in log if re.search(r'netserver_\w+\.pid', c)])
    self.assertFalse([c for c in log if 'killall' in c], log)

  def _SshArgv(self, host: str) -> list[str]:
    argv = sshd.SshArgv(self.cloud.plan, self.cloud.plan.Host(host), 'x')
    return argv[:-1]

  def test_object_storage_ttfb_on_minio(self):
    started = time.time()
    keys = {}
    with open(services.CredentialsPath(self.cloud.plan)) as f:
      for line in f:
        name, sep, value = line.strip().partition('=')
        if sep and not name.startswith('#'):
          keys[name] = value
    endpoint = services.MinioEndpoint(self.cloud.plan)
    s3 = boto3.client(
        's3',
        endpoint_url=endpoint,
        region_name='us-east-1',
        aws_access_key_id=keys['AWS_ACCESS_KEY_ID'],
        aws_secret_access_key=keys['AWS_SECRET_ACCESS_KEY'],
    )
    bucket = 'pkb-upstream-ttfb-' + format(int(time.time()), 'x')
    s3.create_bucket(Bucket=bucket)
    self.addCleanup(self._EmptyAndDelete, s3, bucket)
    proc = upstream_tree.Isolated(self.tree, _TTFB_FILES, timeout=60)
    self.assertEqual(proc.returncode, 0, proc.stderr[-3000:])
    scripts_dir, script, package_files = json.loads(proc.stdout)
    # PKB's data search path finds them in its scripts/ folder.
    source = os.path.join(
        self.tree, 'perfkitbenchmarker', 'scripts', scripts_dir
    )
    tar_path = os.path.join(self.work, 'api-scripts.tar')
    with tarfile.open(tar_path, 'w') as tar:
      tar.add(os.path.join(source, script), script)
      for name in package_files:
        tar.add(os.path.join(source, name), f'providers/{name}')
    # The local cloud's SDK venv, at local.BIN_DIR on the hosts.
    sdk = os.path.join(self.cloud.plan.bin_dir, 'object-storage-sdk')
    (site,) = [
        d
        for d in os.listdir(os.path.join(sdk, 'lib'))
        if d.startswith('python3')
    ]
    host_site = f'{local.BIN_DIR}/object-storage-sdk/lib/{site}/site-packages'
    env_text = (
        f'AWS_ENDPOINT_URL={endpoint}\n'
        f'AWS_ACCESS_KEY_ID={keys["AWS_ACCESS_KEY_ID"]}\n'
        f'AWS_SECRET_ACCESS_KEY={keys["AWS_SECRET_ACCESS_KEY"]}\n'
        f'PYTHONPATH={host_site}\n'
    )
    ssh = self._SshArgv('client')
    with open(tar_path, 'rb') as f:
      push = subprocess.run(
          ssh + [
              'rm -rf /tmp/run && mkdir -p /tmp/run && tar -x -C /tmp/run'
          ],
          input=f.read(), capture_output=True, timeout=60, check=False,
      )  # fmt: skip
    self.assertEqual(push.returncode, 0, push.stderr)
    env = subprocess.run(
        ssh + [f'umask 077 && cat > ~/{_ENV_FILE}'],
        input=env_text.encode(), capture_output=True, timeout=60,
        check=False,
    )  # fmt: skip
    self.assertEqual(env.returncode, 0, env.stderr)
    self.addCleanup(self.cloud.Ssh, 'client', f'rm -rf /tmp/run ~/{_ENV_FILE}')
    proc = upstream_tree.Isolated(
        self.tree,
        _TTFB,
        json.dumps(ssh),
        _ENV_FILE,
        bucket,
        timeout=RUN_TIMEOUT_S['ttfb'],
    )
    self.times['ttfb'] = time.time() - started
    self.assertEqual(proc.returncode, 0, proc.stderr[-6000:])
    samples = json.loads(proc.stdout.splitlines()[-1])['samples']
    metrics = {s['metric'] for s in samples}
    for direction in ('upload', 'download'):
      for what in ('time to first byte', 'total time'):
        self.assertTrue(
            [m for m in metrics if m.startswith(f'{direction} {what}')],
            sorted(metrics),
        )
    for s in samples:
      self.assertTrue(math.isfinite(s['value']) and s['value'] >= 0, s)
      self.assertEqual(s['metadata']['storage_provider'], 'AWS')

  def _EmptyAndDelete(self, s3, bucket):
    for page in s3.get_paginator('list_objects_v2').paginate(Bucket=bucket):
      for obj in page.get('Contents', []):
        s3.delete_object(Bucket=bucket, Key=obj['Key'])
    s3.delete_bucket(Bucket=bucket)


if __name__ == '__main__':
  absltest.main()
