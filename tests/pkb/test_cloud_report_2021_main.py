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
"""cloud_report_2021 through stock PKB's real Main, on fake static VMs.

Runs pkb_ext_dev.fake_vm_main in a subprocess (pkb_ext_dev.stock_pkb;
PKB's Main sets global flags, logging and temp dirs), over 4 static VMs whose
remote commands are answered by its FakeShell and logged. Phases whose tool
outputs the fake shell can play back are run and must produce samples; with
none, the run must still provision, prepare, run and clean up without error.
A phase made to fail, and a kill right after a phase's samples were
published, show the stage model: Prepare installs, Run publishes each phase
as it ends, a failure fails the benchmark with the other phases' samples
kept once, and a resume publishes only what was never published. With no
spool flag, the samples are spooled in PKB's run directory, and the run ends
with their results summary.
"""

import collections
import glob
import json
import os
import shutil
import tempfile

from absl.testing import absltest

from pkb_ext.suite import phase_modules
from pkb_ext_dev import coremark_playback
from pkb_ext_dev import fio_playback
from pkb_ext_dev import netperf_playback
from pkb_ext_dev import stock_pkb

# Phases whose tool runs the fake shell answers with real captured outputs.
_PLAYBACK = {
    'cpu': coremark_playback.Answers,
    'io': fio_playback.Answers,
    'net': netperf_playback.Answers,
}


# Run before PKB's Main: writes the benchmark spec's attribute names when the
# benchmark ends, and SIGKILLs the run right after the samples of phase
# extra['kill_after'] were published.
_BOOT = r"""
import signal
from perfkitbenchmarker import events
from perfkitbenchmarker import publisher

def DumpSpec(sender, benchmark_spec=None, **kwargs):
  with open(os.path.join(extra['dir'], 'spec_attrs.json'), 'w') as f:
    json.dump(sorted(vars(benchmark_spec)), f)

events.benchmark_end.connect(DumpSpec, weak=False)
_publish = publisher.PublishRunStageSamples

def Publish(spec, samples):
  _publish(spec, samples)
  if extra['kill_after'] in {s.metadata.get('phase') for s in samples}:
    os.kill(os.getpid(), signal.SIGKILL)

publisher.PublishRunStageSamples = Publish
"""
_SERIES = ['cpu', 'io', 'net']
# A netperf TCP_RR that prints nothing netperf would: the net phase fails.
_BROKEN_NETPERF = ('-t TCP_RR', 'netperf: send_omni: connection refused\n')


def _Phases(rows):
  """{phase: how many samples}, of spool rows or PKB JSON samples."""
  out = collections.Counter()
  for row in rows:
    md = row.get('metadata') or stock_pkb.Labels(row)
    if 'phase' in md:
      out[md['phase']] += 1
  return dict(out)


def _SpoolPaths(tmp):
  """The spools of runs in tmp: in PKB's run directory, as no flag moved."""
  return glob.glob(
      os.path.join(tmp, 'pkb', 'runs', '*', 'cloud_report_samples-*.ndjson')
  )


def _Spool(tmp):
  rows = []
  for path in _SpoolPaths(tmp):
    with open(path) as f:
      rows.extend(json.loads(line) for line in f if line.strip())
  return rows


class StageModelTest(absltest.TestCase):
  """The suite in stock PKB's stages: failure, kill and resume."""

  @classmethod
  def setUpClass(cls):
    super().setUpClass()
    cls.clean_dir = tempfile.mkdtemp(prefix='clean-')
    cls.clean = cls._Run(cls.clean_dir)
    if cls.clean.proc.returncode:
      raise AssertionError(cls.clean.proc.stderr[-3000:])

  @classmethod
  def tearDownClass(cls):
    shutil.rmtree(cls.clean_dir, ignore_errors=True)
    super().tearDownClass()

  @staticmethod
  def _Run(tmp, broken=False, kill_after=None, **extra_flags):
    answers = [_BROKEN_NETPERF] if broken else []
    answers += [a for p in _SERIES for a in _PLAYBACK[p]()]
    return stock_pkb.RunMain(
        tmp,
        'cloud_report_2021',
        stock_pkb.StaticVms(4, local_disks=['/dev/vdb']),
        answers=answers,
        flags={
            'cloud_report_phases': ','.join(_SERIES),
            'cloud_report_overlap': 'false',
            **extra_flags,
        },
        boot=_BOOT,
        extra={'dir': tmp, 'kill_after': kill_after},
        run_uri='stage1',
    )

  def testTheRunEndsWithItsHeadlineFiguresAndItsSamplesFile(self):
    (path,) = _SpoolPaths(self.clean_dir)
    self.assertEqual(os.path.dirname(path), self.clean.run_dir)
    self.assertEqual(sorted(_Phases(_Spool(self.clean_dir))), _SERIES)
    # The block is the last thing logged (to the console and pkb.log), after
    # PKB's own results summary (on stdout) and PKB's last line.
    self.assertIn('PerfKitBenchmarker Results Summary', self.clean.proc.stdout)
    err = self.clean.proc.stderr.rstrip()
    start = err.rindex('-cloud_report results-')
    self.assertGreater(start, err.rindex('PKB exiting with return_code 0'))
    block = err[start:].splitlines()
    with open(os.path.join(self.clean.run_dir, 'pkb.log')) as f:
      self.assertTrue(f.read().rstrip().endswith(err[start:]))
    self.assertEqual(
        block[-3:],
        [
            f'Samples (NDJSON): {path}',
            f'Build the report: pkb-ext report --samples {path} --out DIR',
            (
                f'Publish them:     pkb-ext publish {path} --table'
                ' PROJECT.DATASET.TABLE'
            ),
        ],
    )
    figures = '\n'.join(block[1:-3])
    for label in (
        'CoreMark single-core',
        'CoreMark all-core',
        'fio read IOPS',
        'fio write IOPS',
        'netperf TCP_RR p50',
        'netperf TCP_RR p99',
        'netperf TCP_STREAM 1 stream',
    ):
      self.assertRegex(figures, rf'\n  {label}  +[0-9,.]+ ')
    # The file holds the samples PKB's JSON publisher got, each once.
    rows = _Spool(self.clean_dir)
    self.assertEqual(_Phases(rows), _Phases(self.clean.samples))
    self.assertLen({r['sample_uri'] for r in rows}, len(rows))

  def testPrepareInstallsEveryPhaseAndRunInstallsNothing(self):
    with open(os.path.join(self.clean.run_dir, 'pkb.log')) as f:
      log = f.read()
    prepare = log.index('Preparing benchmark')
    run = log.index('Running benchmark')
    for phase in _SERIES:
      install = log.index(f'cloud_report: phase {phase}: Install starting')
      self.assertTrue(prepare < install < run, phase)
    self.assertNotIn('Install starting', log[run:])

  def testAFailedPhaseFailsTheRunAndTheOthersAreKeptOnce(self):
    tmp = self.create_tempdir().full_path
    result = self._Run(tmp, broken=True)
    self.assertEqual(result.proc.returncode, 1, result.proc.stderr[-3000:])
    with open(os.path.join(result.run_dir, 'completion_statuses.json')) as f:
      (status,) = [json.loads(line) for line in f]
    self.assertEqual(status['status'], 'FAILED')
    self.assertIn('net: ', status['status_detail'])
    # cpu and io: each sample once, in the spool and PKB's JSON alike.
    clean = _Phases(_Spool(self.clean_dir))
    self.assertEqual(sorted(clean), _SERIES)
    rows = _Spool(tmp)
    want = {p: n for p, n in clean.items() if p != 'net'}
    self.assertEqual(_Phases(rows), want)
    self.assertEqual(_Phases(result.samples), want)
    self.assertLen({r['sample_uri'] for r in rows}, len(rows))
    # Full metadata: PKB's (run_uri, its metadata providers', run_number) and
    # the suite's common metadata.
    self.assertLen({r['run_uri'] for r in rows}, 1)
    for row in rows:
      md = row['metadata']
      if 'phase' in md:
        for key in (
            'perfkitbenchmarker_version',
            'run_number',
            'cloud',
            'machine_type',
            'report_version',
            'phase_vms',
        ):
          self.assertIn(key, md, row['metric'])  # fmt: skip
        self.assertEqual(str(md['run_number']), '0')
    # Nothing of ours on the spec.
    with open(os.path.join(tmp, 'spec_attrs.json')) as f:
      attrs = json.load(f)
    self.assertIn('always_call_cleanup', attrs)
    self.assertEqual([a for a in attrs if 'cloud_report' in a], [])
    # Cleanup ran all the same (always_call_cleanup).
    with open(os.path.join(result.run_dir, 'pkb.log')) as f:
      self.assertIn('cloud_report: phase net: Cleanup done', f.read())

  def testAKillRightAfterAPublishThenAResumeLosesAndRepeatsNothing(self):
    tmp = self.create_tempdir().full_path
    killed = self._Run(tmp, kill_after='cpu')
    self.assertEqual(killed.proc.returncode, -9, killed.proc.stderr[-3000:])
    clean = _Phases(_Spool(self.clean_dir))
    self.assertEqual(_Phases(_Spool(tmp)), {'cpu': clean['cpu']})
    coremark_runs = sum(
        'coremark-single.pid' in c for c in killed.command_texts
    )
    self.assertGreater(coremark_runs, 0)
    resumed = self._Run(tmp, run_stage='run,cleanup,teardown')
    self.assertEqual(resumed.proc.returncode, 0, resumed.proc.stderr[-3000:])
    self.assertEqual(_Phases(_Spool(tmp)), clean)
    self.assertEqual(_Phases(resumed.samples), clean)
    rows = _Spool(tmp)
    self.assertLen({r['sample_uri'] for r in rows}, len(rows))
    # cpu did not run again; Prepare's installs were not repeated.
    self.assertEqual(
        sum('coremark-single.pid' in c for c in resumed.command_texts),
        coremark_runs,
    )
    log = resumed.proc.stderr  # PKB logs this attempt there too
    self.assertIn(
        'phase cpu finished in an earlier attempt of this run, which stopped'
        ' while publishing',
        log,
    )
    self.assertNotIn('Install starting', log)


class CloudReport2021MainTest(absltest.TestCase):

  def _RunMain(self, selected_phases, **extra_flags):
    result = stock_pkb.RunMain(
        self.create_tempdir().full_path,
        'cloud_report_2021',
        stock_pkb.StaticVms(4, local_disks=['/dev/vdb']),
        answers=[a for p in selected_phases for a in _PLAYBACK[p]()],
        flags={
            'cloud_report_phases': ','.join(selected_phases) or 'none',
            **extra_flags,
        },
        run_uri='fakevms1',
    )
    self.assertEqual(result.proc.returncode, 0, result.proc.stderr[-3000:])
    with open(os.path.join(result.run_dir, 'pkb.log')) as f:
      pkb_log = f.read()
    return pkb_log, result.commands, result.samples

  def testAllStagesWithoutPhases(self):
    pkb_log, commands, samples = self._RunMain([])
    for stage in (
        'Provisioning resources',
        'Preparing benchmark',
        'Running benchmark',
        'Cleaning up benchmark',
    ):
      self.assertIn(stage, pkb_log)
    self.assertIn('SUCCEEDED', pkb_log)
    self.assertLen({c['vm'] for c in commands}, 4)
    end_to_end = [s for s in samples if s['metric'] == 'End to End Runtime']
    self.assertLen(end_to_end, 1)
    labels = stock_pkb.Labels(end_to_end[0])
    self.assertEqual(
        (labels['db_vm_count'], labels['client_vm_count']), ('3', '1')
    )

  def testPhasesWithPlaybackProduceSamples(self):
    selected = [p for p in phase_modules.LoadAll() if p in _PLAYBACK]
    self.assertNotEmpty(selected)
    _, _, samples = self._RunMain(selected)
    for phase in selected:
      mine = [s for s in samples if stock_pkb.Labels(s).get('phase') == phase]
      self.assertNotEmpty(mine, f'no samples from phase {phase}')
      for s in mine:
        self.assertEqual(stock_pkb.Labels(s)['report_version'], '2021')

  def testOverlapMovesNetAndCpuToTheSecondAndThirdDbVmsWithOneSampleSet(
      self,
  ):
    selected = ['cpu', 'io', 'net']
    runs = {
        overlap: self._RunMain(selected, cloud_report_overlap=overlap)
        for overlap in ('true', 'false')
    }

    def VmOf(commands, fragment):
      (vm,) = {c['vm'] for c in commands if fragment in c['command']}
      return vm

    shapes = {}
    for overlap, (pkb_log, commands, samples) in runs.items():
      fio_vm = VmOf(commands, 'blockdev --getsize64')
      coremark_vm = VmOf(commands, 'coremark-single.pid')
      netserver_vm = VmOf(commands, 'netserver -p')
      placed = {}
      for s in samples:
        labels = stock_pkb.Labels(s)
        if 'phase' in labels:
          placed[labels['phase']] = (labels['phase_vms'], labels['overlapped'])
      if overlap == 'true':
        self.assertLen({fio_vm, coremark_vm, netserver_vm}, 3)
        self.assertIn(
            'overlap: cpu beside net run while io runs on db1', pkb_log
        )
        self.assertEqual(placed, {
            'cpu': ('db3', 'True'),
            'io': ('db1', 'True'),
            'net': ('client,db2', 'True'),
        })  # fmt: skip
      else:
        self.assertEqual({coremark_vm, netserver_vm}, {fio_vm})
        self.assertEqual(placed, {
            'cpu': ('db1', 'False'),
            'io': ('db1', 'False'),
            'net': ('client,db1', 'False'),
        })  # fmt: skip
      # Overlap provisions a second and a third db VM (net runs on one,
      # cpu on the other); in series one db VM is all the phases use.
      (db_vms,) = {
          stock_pkb.Labels(s)['db_vm_count']
          for s in samples
          if 'phase' in stock_pkb.Labels(s)
      }
      self.assertEqual(db_vms, '3' if overlap == 'true' else '1')
      # PKB labels a group by its last VM's data disk: in series that is
      # io's, whose mount options PKB records once read; not a phase's label.
      shapes[overlap] = sorted(
          (
              s['metric'],
              tuple(
                  sorted(
                      set(stock_pkb.Labels(s))
                      - {'db_data_disk_0_mount_options'}
                  )
              ),
          )
          for s in samples
          if 'phase' in stock_pkb.Labels(s)
      )
    self.assertNotEmpty(shapes['true'])
    self.assertEqual(shapes['true'], shapes['false'])


if __name__ == '__main__':
  absltest.main()
