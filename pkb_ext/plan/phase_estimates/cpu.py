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
"""The cpu phase's expected wall time (pure; plan asks for it).

Each CoreMark run is one `make` of PKB's coremark benchmark: it compiles
CoreMark (the context's cpu_make_s), then runs CoreMark's performance run and
its validation run, each taken as cpu_run_s (default RUN_S: CoreMark runs at
least 10 s). Installing CoreMark once is cpu_build_s (default BUILD_S).
"""

from pkb_ext.plan import estimates

RUN_S = estimates.RATES['cpu_run_s'][0]
BUILD_S = estimates.RATES['cpu_build_s'][0]
MAKE_S = estimates.RATES['cpu_make_s'][0]


def Estimate(params, context: estimates.Context) -> list[estimates.Phase]:
  """cpu_build_s once, then modes x runs x (cpu_make_s + 2 runs' seconds).

  A run is cpu_run_s, or with fixed iterations (--cloud_report_coremark_
  iterations) those iterations at the context's coremark_iterations_per_s
  where it has one (each all-core context on its own vCPU, as long as a
  single-core run); PKB's make runs it twice (performance, validation).
  """
  build_s = context.Rate('cpu_build_s')
  make_s = context.Rate('cpu_make_s')
  per_s = context.Rate('coremark_iterations_per_s')
  if params.iterations and per_s:
    run_s = params.iterations / per_s
    each = f'{params.iterations:,} iterations at {per_s:,.0f}/s = {run_s:.1f} s'
  else:
    run_s = context.Rate('cpu_run_s')
    each = f'~{run_s:g} s'
  runs = len(params.modes) * params.runs
  return [
      estimates.Phase(
          'cpu',
          build_s + runs * (make_s + 2 * run_s),
          f'{len(params.modes)} mode(s) x {params.runs} CoreMark runs x'
          f' (make {make_s:g} s + performance and validation run {each}'
          f' each) + install {build_s:g} s'
          + context.Measured(
              'cpu_run_s',
              'cpu_build_s',
              'cpu_make_s',
              'coremark_iterations_per_s',
          ),
          once_s=build_s,
      )
  ]
