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
"""CPU phase fidelity: the phase's all-core score vs raw CoreMark runs.

  python -m pkb_ext_dev.bench_cpu [--where localvm|localcloud] [--pairs N]
      [--iterations N] [--out FILE]

localvm: builds the phase's all-core (pthread) CoreMark binary in a private
directory through pkb_ext_dev.local_vm.LocalVm and takes N phase/raw
pairs in ABBA order (pkb_ext_dev.fidelity.MeasureCpu); raw runs start the
same binary directly (no shell, CoreMark's default arguments).

localcloud (root, `pkb-ext local up`): stock pkb.py runs the cpu phase
(all-core only, one run per `--run_stage=run`) on the local cloud's first
db host, and raw runs start the binary the phase built on that host with
nsenter into the host's mount and network namespaces: no ssh, no PKB.

Prints one JSON object: the ratio of mean scores (target >= 0.97), each
pair and the machine's load. `pkb-ext bench` can call Measure() or
MeasureLocalCloud().
"""

import argparse
import json
import os
import secrets
import shutil
import subprocess
import sys
import tempfile
import time
from unittest import mock

TARGET = 0.97


def Measure(pairs: int = 3, iterations: int = 0) -> dict:
  """Measures fidelity on this machine; returns a JSON-able dict."""
  # pylint: disable=g-import-not-at-top
  from absl import flags
  from perfkitbenchmarker import linux_packages

  from pkb_ext import registry
  from pkb_ext_dev import fidelity
  from pkb_ext_dev import local_vm

  # pylint: enable=g-import-not-at-top
  registry.Register()
  if not flags.FLAGS.is_parsed():
    flags.FLAGS.mark_as_parsed()
  work = tempfile.mkdtemp(prefix='pkb-ext-bench-cpu-')
  load_before = os.getloadavg()
  started = time.time()
  try:
    with mock.patch.object(linux_packages, 'INSTALL_DIR', work):
      vm = local_vm.LocalVm(name='bench-cpu', work_dir=work)
      pairs_ = fidelity.MeasureCpu(
          vm,
          pairs=pairs,
          iterations=iterations,
          raw_runner=fidelity.SubprocessRunner,
      )
  finally:
    shutil.rmtree(work, ignore_errors=True)
  return _Report(
      pairs_, pairs, iterations, started, load_before,
      where='localvm', threads=os.cpu_count(),
  )  # fmt: skip


def _Report(measured, pairs, iterations, started, load_before, **extra):
  return {
      'name': 'cpu_phase_fidelity',
      'ratio': measured.ratio,
      'target': TARGET,
      'meets_target': measured.ratio >= TARGET,
      'phase_scores': measured.phase,
      'raw_scores': measured.raw,
      'pair_ratios': measured.pair_ratios,
      'median_pair_ratio': measured.median_pair_ratio,
      'pairs': pairs,
      'iterations': iterations or 'auto',
      'seconds': round(time.time() - started, 1),
      'loadavg_before': load_before,
      'loadavg_after': os.getloadavg(),
  } | extra


def _PkbRun(flags_, stage, json_path=None):
  pkb = os.path.join(os.path.dirname(sys.executable), 'pkb.py')
  argv = [sys.executable, pkb, f'--run_stage={stage}'] + flags_
  if json_path:
    argv.append(f'--json_path={json_path}')
  proc = subprocess.run(argv, capture_output=True, text=True, check=False)
  if proc.returncode:
    raise RuntimeError(f'pkb.py {stage} failed: {proc.stderr[-2000:]}')


def _PhaseScore(json_path, runs: int) -> float:
  """The mean coremark_score of one run stage's `runs` runs."""
  with open(json_path) as f:
    rows = [json.loads(line) for line in f]
  values = [r['value'] for r in rows if r['metric'] == 'coremark_score']
  if len(values) != runs:
    raise RuntimeError(f'expected {runs} coremark_score samples: {values}')
  return sum(values) / runs


def MeasureLocalCloud(
    pairs: int = 3, iterations: int = 0, keep: bool = False, runs: int = 1
) -> dict:
  """Measures fidelity on the local cloud's first db host (needs root).

  Args:
    pairs: phase/raw pairs, ABBA order.
    iterations: per thread; 0 lets CoreMark calibrate (>= 10 s).
    keep: keep PKB's temp dir (logs) and name it in the result.
    runs: CoreMark runs per side of a pair (one pkb.py run stage runs the
      phase `runs` times); a pair compares the two sides' means.
  """
  # pylint: disable=g-import-not-at-top
  from pkb_cloud_report.linux_packages import cloud_report_coremark as pkg
  from pkb_ext.local import cloud
  from pkb_ext.local import layout
  from pkb_ext_dev import fidelity

  # pylint: enable=g-import-not-at-top
  state = cloud.LoadState(cloud.PlanOf(layout.DefaultStateDir()))
  work = tempfile.mkdtemp(prefix='pkbfid-', dir='/tmp')  # short: ssh sockets
  run_uri = 'cf' + secrets.token_hex(3)
  flags_ = [
      '--benchmarks=cloud_report_2021',
      '--cloud_report_phases=cpu',
      '--cloud_report_coremark_modes=all',
      f'--cloud_report_coremark_runs={runs}',
      f'--cloud_report_coremark_iterations={iterations}',
      f'--static_vm_file={state["static_vm_file"]}',
      f'--temp_dir={work}/pkb',
      f'--run_uri={run_uri}',
      '--accept_licenses',
      '--ignore_package_requirements',
  ]
  load_before = os.getloadavg()
  started = time.time()
  _PkbRun(flags_, 'provision,prepare')
  try:

    def FindRaw():
      # The phase built on the first db host; find it and its binary.
      for name, host in sorted(state['hosts'].items()):
        enter = ['nsenter', '-t', str(host['sshd_pid']), '-m', '-n', '--']
        found = subprocess.run(
            enter + ['sh', '-c', f'ls {pkg.BinaryPath("coremark-all-*")}'],
            capture_output=True, text=True, check=False,
        ).stdout.split()  # fmt: skip
        if name.startswith('db') and found:
          command = enter + found[:1]
          if iterations:
            command += pkg.RunCommand('x', iterations).split()[1:]
          return command
      raise RuntimeError("no db host has the phase's all-core binary")

    raw_command = []

    def Raw():
      # Pair 0 runs the phase first, which builds the binary (the suite
      # prepares each phase in its run stage).
      raw_command[:] = raw_command or FindRaw()
      scores = [
          fidelity.RawCoreMarkScore(
              subprocess.run(
                  raw_command, capture_output=True, text=True, check=True
              ).stdout
          )
          for _ in range(runs)
      ]
      return sum(scores) / runs

    def Phase(i):
      path = os.path.join(work, f'run{i}.json')
      _PkbRun(flags_, 'run', path)
      return _PhaseScore(path, runs)

    measured = fidelity.Abba(Phase, lambda _: Raw(), pairs, 'cpu fidelity')
  finally:
    _PkbRun(flags_, 'cleanup,teardown')
    if not keep:
      shutil.rmtree(work, ignore_errors=True)
  return _Report(
      measured, pairs, iterations, started, load_before,
      where='localcloud', raw_command=' '.join(raw_command),
      pkb_dir=work if keep else None, runs_per_pair_side=runs,
  )  # fmt: skip


def main(argv=None) -> int:
  parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  parser.add_argument(
      '--where', choices=('localvm', 'localcloud'), default='localvm'
  )
  parser.add_argument('--pairs', type=int, default=3)
  parser.add_argument(
      '--iterations', type=int, default=0, help='per thread; 0 = auto (>=10 s)'
  )
  parser.add_argument('--out', help='also append the JSON line to this file')
  parser.add_argument(
      '--keep', action='store_true', help="localcloud: keep PKB's logs"
  )
  parser.add_argument(
      '--runs', type=int, default=1, help='localcloud: runs per pair side'
  )
  args = parser.parse_args(argv)
  if args.where == 'localcloud':
    result = MeasureLocalCloud(
        args.pairs, args.iterations, args.keep, args.runs
    )
  else:
    result = Measure(args.pairs, args.iterations)
  line = json.dumps(result, sort_keys=True)
  print(line)
  if args.out:
    with open(args.out, 'a') as f:
      f.write(line + '\n')
  return 0


if __name__ == '__main__':
  sys.exit(main())
