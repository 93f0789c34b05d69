# Copyright 2026 PerfKitBenchmarker Authors. All rights reserved.
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

Each CoreMark run is taken as RUN_S seconds (CoreMark runs at least 10 s),
plus BUILD_S for building its binaries once.
"""

from benchmarks.cloud_report import estimates

RUN_S = 15
BUILD_S = 60


def Estimate(params, context: estimates.Context) -> list[estimates.Phase]:
  """modes x runs x RUN_S, plus BUILD_S."""
  del context  # the phase runs on one VM, whatever its disks
  runs = len(params.modes) * params.runs
  return [
      estimates.Phase(
          'cpu',
          BUILD_S + runs * RUN_S,
          f'{len(params.modes)} mode(s) x {params.runs} CoreMark runs x'
          f' ~{RUN_S} s + build',
      )
  ]
