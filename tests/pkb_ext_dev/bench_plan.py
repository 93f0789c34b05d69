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
"""Benchmark: `pkb-ext plan` against a measured run, and a report row's cost.

plan_wall_time_ratio: plan's predicted wall time of the local matrix's
pkb.py runs over their measured wall time, from the record
scripts/local-matrix.sh leaves in its output directory (flags, pkb-args,
pkb-runs.tsv): each run planned with the flags it was given, from the repo
root as it ran. tests/matrix keeps its first run's record in
out/plan-check (DefaultRecordDir); `make local-matrix` leaves one in
out/matrix. Without a record there is no figure.

vm_hours_per_row: plan's VM-hours per configuration of the AWS gp2 matrix
(configs/machines/aws.yaml --flag_matrix=gp2) with the TPC-C data loaded
from a fixture and the probe search; vm_hours_per_row_report the same the
report's way (linear search, data generated in the run).

Each plan runs in a child process (`python -m pkb_ext_dev.bench_plan
--predict [--fixtures=yes|no] PKB FLAGS`, printing JSON), so PKB's flags
parse afresh for each, at the repo's price tables (configs/pricing).
"""

import csv
import dataclasses
import json
import os
import subprocess
import sys
from typing import Sequence

RECORD_RUNS = 'pkb-runs.tsv'
RECORD_FLAGS = 'flags'
RECORD_ARGS = 'pkb-args'
RECORD_FILES = (RECORD_RUNS, RECORD_FLAGS, RECORD_ARGS)
LOCAL_MATRIX = (
    '--benchmarks=cloud_report_2021',
    '--benchmark_config_file=configs/machines/local.yaml',
    '--flag_matrix=types',
)
AWS_GP2 = (
    '--benchmark_config_file=configs/machines/aws.yaml',
    '--flag_matrix=gp2',
)
PROBE = '--cloud_report_tpcc_strategy=probe'
LINEAR = '--cloud_report_tpcc_strategy=linear'


def DefaultRecordDir() -> str:
  """Where tests/matrix keeps its run's record: out/plan-check."""
  from pkb_ext import paths  # pylint: disable=g-import-not-at-top

  return os.path.join(paths.RepoRoot(), 'out', 'plan-check')


@dataclasses.dataclass(frozen=True)
class MatrixRun:
  """One pkb.py run of scripts/local-matrix.sh, as its record says."""

  tag: str
  phases: str
  iterations: int
  processes: int
  seconds: float


def ReadRecord(out_dir: str) -> tuple[list[MatrixRun], str, list[str]]:
  """The runs, the flag file and the PKB FLAGS a matrix run recorded.

  Raises:
    FileNotFoundError: out_dir holds no record.
    ValueError: a line of pkb-runs.tsv is not tag, phases, iterations,
      processes, seconds.
  """
  runs = []
  with open(os.path.join(out_dir, RECORD_RUNS), encoding='utf-8') as f:
    for row in csv.reader(f, delimiter='\t'):
      if len(row) != 5:
        raise ValueError(f'{RECORD_RUNS}: {row!r} is not 5 fields')
      tag, phases, iterations, processes, seconds = row
      runs.append(
          MatrixRun(tag, phases, int(iterations), int(processes),
                    float(seconds))
      )  # fmt: skip
  with open(os.path.join(out_dir, RECORD_ARGS), encoding='utf-8') as f:
    args = [line.rstrip('\n') for line in f if line.strip()]
  return runs, os.path.join(out_dir, RECORD_FLAGS), args


def PlanArgv(run: MatrixRun, flagfile: str, args: Sequence[str]) -> list[str]:
  """The PKB flags scripts/local-matrix.sh gave that pkb.py run."""
  return [
      *LOCAL_MATRIX,
      f'--run_processes={run.processes}',
      f'--run_stage_iterations={run.iterations}',
      f'--flagfile={flagfile}',
      *args,
      f'--cloud_report_phases={run.phases}',
  ]


def Predict(
    argv: Sequence[str], fixtures: bool | None = None, cwd: str | None = None
) -> dict:
  """plan's wall time and VM-hours of argv, in a child process.

  Returns:
    {'wall_s', 'vm_hours', 'configurations', 'seconds': [each one's],
    'first': the first configuration's RowParts (None without one)}.

  Raises:
    RuntimeError: the plan failed (its stderr's last line).
  """
  from pkb_ext import paths  # pylint: disable=g-import-not-at-top

  cmd = [sys.executable, '-m', 'pkb_ext_dev.bench_plan', '--predict']
  if fixtures is not None:
    cmd.append(f'--fixtures={"yes" if fixtures else "no"}')
  proc = subprocess.run(
      cmd + list(argv),
      cwd=cwd or paths.RepoRoot(),
      capture_output=True,
      text=True,
      timeout=600,
      check=False,
  )
  if proc.returncode:
    last = (proc.stderr.strip().splitlines() or ['no output'])[-1]
    raise RuntimeError(f'plan of {" ".join(argv)}: {last}')
  return json.loads(proc.stdout)


def WallTimeRatio(out_dir: str) -> dict:
  """plan's predicted wall time of a recorded matrix run over the measured.

  Raises:
    FileNotFoundError: out_dir holds no record.
  """
  runs, flagfile, args = ReadRecord(out_dir)
  per_run = []
  for run in runs:
    predicted = Predict(PlanArgv(run, flagfile, args))
    per_run.append({
        **dataclasses.asdict(run),
        'predicted_s': predicted['wall_s'],
    })
  predicted_s = sum(r['predicted_s'] for r in per_run)
  measured_s = sum(r.seconds for r in runs)
  return {
      'plan_wall_time_ratio': predicted_s / measured_s,
      'predicted_s': predicted_s,
      'measured_s': measured_s,
      'runs': per_run,
      'record': out_dir,
  }


def RowParts(config) -> dict:
  """What a configuration's plan is made of: its VMs, provisioning, each
  phase's seconds and the phases beside the fill (model.Config)."""
  schedule = config.schedule if config.overlap else None
  return {
      'vms': config.VariantOf(config.overlap).vms,
      'provision_s': config.provision_s,
      'phases_s': {p.name: p.seconds for p in config.phases},
      # Of phases_s, what runs once (an install, the data's load).
      'once_s': {p.name: p.once_s for p in config.phases},
      'fill': list(schedule.fill) if schedule else [],
      'side': list(schedule.side) if schedule else [],
      'lanes': [list(l) for l in schedule.lanes] if schedule else [],
      'beside_load': list(schedule.beside_load) if schedule else [],
      'seconds': config.seconds,
  }


def VmHoursPerRow() -> dict:
  """The AWS gp2 matrix's VM-hours per configuration: fixtures and the
  probe search, and the report's way (linear, data generated); each
  prediction's `first` holds its first configuration's RowParts."""
  cheap = Predict([*AWS_GP2, PROBE], fixtures=True)
  report = Predict([*AWS_GP2, LINEAR], fixtures=False)
  return {
      'vm_hours_per_row': cheap['vm_hours'] / cheap['configurations'],
      'vm_hours_per_row_report': report['vm_hours'] / report['configurations'],
      'fixtures_probe': cheap,
      'report': report,
  }


def _PredictMain(argv: Sequence[str]) -> int:
  """--predict [--fixtures=yes|no] PKB FLAGS: prints the plan as JSON."""
  import logging  # pylint: disable=g-import-not-at-top
  import warnings  # pylint: disable=g-import-not-at-top

  warnings.filterwarnings('ignore')
  fixtures = None
  rest = []
  for arg in argv:
    if arg.startswith('--fixtures='):
      fixtures = arg.partition('=')[2] == 'yes'
    else:
      rest.append(arg)
  # pylint: disable=g-import-not-at-top
  from absl import flags
  from pkb_ext import paths
  from pkb_ext import pricing
  from pkb_ext.plan import configurations
  from pkb_ext.plan import model

  # pylint: enable=g-import-not-at-top
  logging.getLogger().setLevel(logging.CRITICAL)
  # The repo's price tables (and rates), whichever pkb_ext is installed.
  catalog = pricing.Load(os.path.join(paths.RepoRoot(), 'configs', 'pricing'))
  configs = configurations.Configurations(rest, catalog, fixtures=fixtures)
  processes = flags.FLAGS.run_processes
  seconds = [c.seconds for c in configs]
  first = configs[0] if configs else None
  print(
      json.dumps({
          'wall_s': model.Makespan(seconds, processes),
          'vm_hours': sum(c.vm_hours for c in configs),
          'configurations': len(configs),
          'seconds': seconds,
          'first': first and RowParts(first),
      })
  )
  return 0


if __name__ == '__main__':
  if sys.argv[1:2] == ['--predict']:
    sys.exit(_PredictMain(sys.argv[2:]))
  print(json.dumps(VmHoursPerRow(), indent=1))
