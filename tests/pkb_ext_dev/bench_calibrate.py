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
"""calibrate: the bench's own noise floor on this machine (no local cloud).

Each pair runs the same CPU-bound command twice, A then B or B then A
(pkb_ext_dev.fidelity.Abba): a fresh Python process that times a fixed
busy loop with its own clock and prints the seconds, so the figure of a
run is loop iterations per second and the true ratio of a pair is 1. The
loop's length is set once, before the pairs, so that a run takes about
`seconds`.

  calibrate_ratio   the 20 % trimmed mean of the A/B pair ratios; target
                    0.97..1.03, the range the vs_pkb figures are held to.

Its verdict says whether the bench, on this machine as the sitting found
it, resolves a 3 % difference: PASS when the 95 % interval of that trimmed
mean lies inside the band; INCONCLUSIVE when other work makes the pairs
too noisy to say. A MISS would mean identical runs differ beyond noise, a
fault of the pairing, not of the machine. It runs with the same sitting as
every paired part (interference per pair, pairs added until decided, the
optional CPU hog), so it shows them at work without the local cloud.
"""

import subprocess
import sys
import time

RANGE = (0.97, 1.03)
_LOOP = (
    'import sys, time\n'
    'n = int(sys.argv[1])\n'
    't = time.perf_counter()\n'
    'for _ in range(n):\n'
    '  pass\n'
    'print(time.perf_counter() - t)\n'
)
_PROBE_ITERATIONS = 1_000_000


def LoopSeconds(iterations: int) -> float:
  """Seconds a fresh Python process takes to run the busy loop."""
  out = subprocess.run(
      [sys.executable, '-c', _LOOP, str(iterations)],
      capture_output=True,
      text=True,
      check=True,
      timeout=600,
  ).stdout
  return float(out)


def Rate(iterations: int) -> float:
  """Loop iterations per second of one run (the figure of a run)."""
  return iterations / LoopSeconds(iterations)


def Iterations(seconds: float) -> int:
  """Loop iterations that take about `seconds` here, now."""
  probe = LoopSeconds(_PROBE_ITERATIONS)
  return max(_PROBE_ITERATIONS, int(_PROBE_ITERATIONS * seconds / probe))


def Measure(pairs: int, seconds: float, sitting=None, log=print) -> dict:
  """The calibrate figure's pairs; returns bench_fidelity.Summary's dict.

  Args:
    pairs: pairs at least (exactly, without a sitting).
    seconds: about how long each run takes.
    sitting: a bench_sitting.Sitting (more pairs, interference), or None.
    log: prints a progress line.
  """
  # pylint: disable=g-import-not-at-top,import-outside-toplevel
  from pkb_ext_dev import bench_fidelity
  from pkb_ext_dev import fidelity

  n = Iterations(seconds)
  log(f'calibrate: {pairs}+ pairs of a {n:,}-iteration busy loop...')
  started = time.time()
  f = fidelity.Abba(
      lambda _: Rate(n), lambda _: Rate(n), pairs, 'calibrate', sitting
  )
  out = bench_fidelity.Summary(
      f.phase,
      f.raw,
      time.time() - started,
      interference=f.interference,
      op='in',
      target=RANGE,
      min_pairs=bench_fidelity.MinPairs(sitting),
  )
  del out['phase_module_ratio']
  out['a'], out['b'] = out.pop('phase'), out.pop('raw')
  out['a_cv_pct'], out['b_cv_pct'] = out.pop('phase_cv_pct'), out.pop(
      'raw_cv_pct'
  )
  out.update(iterations=n, unit='loop iterations/s')
  if sitting is not None:
    out['sitting'] = sitting.Details()
  return out
