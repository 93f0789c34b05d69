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
"""Each phase's estimate module, by phase: its expected wall time for plan.

A phase's module here, named for its package of benchmarks/cloud_report
(phase_table's package name), has Estimate(params, context) ->
list[estimates.Phase]: the phase's expected wall time from its Params (the
phase's stages module reads them from its flags) and an estimates.Context.
BY_PHASE maps each phase of phase_table, in its order, to its module (found
by the module's name); Estimate reads the phase's Params and asks its
module.
"""

import types

from pkb_ext.suite import phase_table
from pkb_ext.plan import estimates
from pkb_ext.plan.phase_estimates import cpu
from pkb_ext.plan.phase_estimates import disk
from pkb_ext.plan.phase_estimates import net
from pkb_ext.plan.phase_estimates import object_storage
from pkb_ext.plan.phase_estimates import tpcc


def _PhaseOf(module: types.ModuleType) -> str:
  """The sample name of the phase whose package names the module."""
  return phase_table.ByPackage(module.__name__.rsplit('.', 1)[-1]).sample


# phase_table's sample name -> the phase's estimate module, in the table's
# order.
BY_PHASE: dict[str, types.ModuleType] = dict(
    sorted(
        ((_PhaseOf(m), m) for m in (cpu, disk, net, object_storage, tpcc)),
        key=lambda item: phase_table.ORDER.index(item[0]),
    )
)
if tuple(BY_PHASE) != phase_table.ORDER:
  raise ValueError(
      f'the estimate modules ({",".join(BY_PHASE)}) are not the table'
      f"'s phases ({','.join(phase_table.ORDER)})"
  )


def Estimate(name: str, context: estimates.Context) -> list[estimates.Phase]:
  """A phase's expected wall time from its flags, in parts.

  Args:
    name: the phase (phase_table's sample name).
    context: what the flags do not say: the disk to fill, the db nodes, the
      measured rates.

  Raises:
    ValueError: the phase is unknown.
    estimates.EstimateError: the phase's settings give no estimate.
  """
  # phase_modules imports every phase's stages module (defining their
  # flags), which phases.ReadParams reads.
  # pylint: disable-next=g-import-not-at-top,unused-import
  from pkb_ext.suite import phase_modules
  from pkb_ext.suite import phases  # pylint: disable=g-import-not-at-top

  if name not in BY_PHASE:
    raise ValueError(
        f'unknown phase {name!r}; expected one of {phase_table.ORDER}'
    )
  return BY_PHASE[name].Estimate(phases.ReadParams(name), context)
