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
"""CPU phase fidelity on this machine: the phase's all-core score vs raw runs.

  python -m pkb_ext.bench_cpu [--pairs N] [--iterations N] [--out FILE]

Builds the phase's all-core (pthread) CoreMark binary in a private directory
through pkb_ext.testing.local_vm.LocalVm and takes N phase/raw pairs in ABBA
order (pkb_ext.phases.cpu.MeasureFidelity); raw runs start the same binary
directly (no shell, CoreMark's default arguments). Prints one JSON object:
the ratio of means (target >= 0.97), each pair and the machine's load.
`pkb-ext bench` can call Measure().
"""

import argparse
import json
import os
import shutil
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
  from pkb_ext.phases import cpu
  from pkb_ext.testing import local_vm

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
      fidelity = cpu.MeasureFidelity(
          vm,
          pairs=pairs,
          iterations=iterations,
          raw_runner=cpu.SubprocessRunner,
      )
  finally:
    shutil.rmtree(work, ignore_errors=True)
  return {
      'name': 'cpu_phase_fidelity',
      'ratio': fidelity.ratio,
      'target': TARGET,
      'meets_target': fidelity.ratio >= TARGET,
      'phase_scores': fidelity.phase_scores,
      'raw_scores': fidelity.raw_scores,
      'pair_ratios': fidelity.pair_ratios,
      'pairs': pairs,
      'iterations': iterations or 'auto',
      'threads': os.cpu_count(),
      'seconds': round(time.time() - started, 1),
      'loadavg_before': load_before,
      'loadavg_after': os.getloadavg(),
  }


def main(argv=None) -> int:
  parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  parser.add_argument('--pairs', type=int, default=3)
  parser.add_argument(
      '--iterations', type=int, default=0, help='per thread; 0 = auto (>=10 s)'
  )
  parser.add_argument('--out', help='also append the JSON line to this file')
  args = parser.parse_args(argv)
  result = Measure(args.pairs, args.iterations)
  line = json.dumps(result, sort_keys=True)
  print(line)
  if args.out:
    with open(args.out, 'a') as f:
      f.write(line + '\n')
  return 0


if __name__ == '__main__':
  sys.exit(main())
