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

Each CoreMark run is taken as the context's cpu_run_s (default RUN_S:
CoreMark runs at least 10 s), plus cpu_build_s (default BUILD_S) for
building its binaries once, in the install.
"""

from pkb_ext.plan import estimates

RUN_S = estimates.RATES['cpu_run_s'][0]
BUILD_S = estimates.RATES['cpu_build_s'][0]


def Estimate(params, context: estimates.Context) -> list[estimates.Phase]:
  """modes x runs x a run's seconds, plus cpu_build_s once.

  A run is cpu_run_s, or with fixed iterations (--cloud_report_coremark_
  iterations) those iterations at the context's coremark_iterations_per_s
  where it has one (each all-core context on its own vCPU, as long as a
  single-core run).
  """
  build_s = context.Rate('cpu_build_s')
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
          build_s + runs * run_s,
          f'{len(params.modes)} mode(s) x {params.runs} CoreMark runs x'
          f' {each} + build {build_s:g} s'
          + context.Measured(
              'cpu_run_s', 'cpu_build_s', 'coremark_iterations_per_s'
          ),
          once_s=build_s,
      )
  ]
