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
"""How long one make of PKB's coremark benchmark may take (pure).

The cpu phase runs each make under this bound plus the shared margin
(benchmarks/cloud_report/timeouts.Bound). The rates and where they come
from:

  MIN_ITERATIONS_PER_S  an assumed floor of 1,000 CoreMark iterations/s per
      context for a run of fixed iterations, an order of magnitude under a
      current server core: a run slower than that is taken as hung.
  CALIBRATION_S, CALIBRATED_RUN_S  a run CoreMark calibrates (iterations
      0): CoreMark's core_main.c runs 10, 100, ... iterations on one context
      until one batch takes s >= 1 s (the last batch then takes under 10 s,
      each earlier one under a tenth of the next: all under 12 s), then
      times 1 + 10 // int(s) times the last batch's iterations on each
      context: under 22 s (the longest when s is just under 2 s) on a
      context with a vCPU of its own.
  MAKE_S  what PKB's make spends besides the runs: building CoreMark's six
      C files twice (performance, then validation build).
"""

import math

MIN_ITERATIONS_PER_S = 1000.0
CALIBRATION_S = 12.0
CALIBRATED_RUN_S = 22.0
MAKE_S = 120.0


def CoreMarkSeconds(iterations: int, threads: int, vcpus: int) -> float:
  """Expected seconds, at most, of one make of PKB's coremark benchmark.

  The make builds CoreMark, then runs its performance run and its
  validation run, each on `threads` contexts; contexts beyond the vCPUs
  share them, so each run takes ceil(threads / vcpus) times as long.

  Args:
    iterations: per context; 0: CoreMark calibrates each run.
    threads: the contexts of each run.
    vcpus: the VM's vCPUs.
  """
  if iterations < 0 or threads < 1 or vcpus < 1:
    raise ValueError(
        f'{iterations} iterations on {threads} context(s), {vcpus} vCPU(s)'
    )
  rounds = math.ceil(threads / vcpus)
  if iterations:
    run_s = iterations * rounds / MIN_ITERATIONS_PER_S
  else:
    run_s = CALIBRATION_S + CALIBRATED_RUN_S * rounds
  return MAKE_S + 2 * run_s
