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
"""The net phase's expected wall time (pure; plan asks for it).

Each test (and TCP_STREAM stream count) x repetitions x the confidence
interval's maximum iterations x each iteration's duration: the longest the
phase can take; plus the context's net_run_overhead_s per netperf run.
"""

from pkb_ext.plan import estimates


def Estimate(params, context: estimates.Context) -> list[estimates.Phase]:
  """The net phase's netperf runs, each at its longest (every iteration)."""
  runs = sum(len(params.RunsOf(t)) for t in params.tests)
  runs *= params.repetitions
  overhead_s = context.Rate('net_run_overhead_s')
  seconds = runs * (params.max_iterations * params.duration_s + overhead_s)
  how = (
      f'{runs} netperf run(s) x up to {params.max_iterations} iterations'
      f' x {params.duration_s} s'
  )
  if overhead_s:
    how += f' (+ {overhead_s:g} s a run)' + context.Measured(
        'net_run_overhead_s'
    )
  return [estimates.Phase('net', seconds, how)]
