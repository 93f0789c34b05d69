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
"""The suite's TPC-C engines, chosen by --cloud_report_tpcc_engine.

cockroach, the report's (the exported CockroachEngine), or postgres
(pkb_ext.tpcc_postgres: PostgreSQL and go-tpc, which run where CockroachDB
cannot, e.g. on the local cloud). Each engine runs its own tool and parses
its own output; the search and the samples are the exported ones.
"""

from typing import Any, Callable

from absl import flags

from benchmarks.cloud_report.tpcc import engines as tpcc_engines
from pkb_ext import errors
from pkb_ext.tpcc_postgres import engine as postgres

COCKROACH = tpcc_engines.COCKROACH
# The engines whose load leaves the client idle: cockroach's `workload
# fixtures import` (an IMPORT) and `fixtures load` (a RESTORE) are
# statements the db nodes carry out; go-tpc's prepare makes every row on
# the client.
_LOAD_IN_THE_DATABASE = frozenset({COCKROACH})
# Engine name -> factory taking the phase's Params.
_FACTORIES: dict[str, Callable[[Any], Any]] = {
    COCKROACH: tpcc_engines.CockroachEngine,
    postgres.ENGINE: postgres.PostgresEngine.New,
}


class EngineError(errors.Error, ValueError):
  """An engine name that names no engine."""


def EngineNames() -> list[str]:
  """The engines' names, the report's first."""
  return [COCKROACH] + sorted(n for n in _FACTORIES if n != COCKROACH)


def _CheckEngine(value) -> bool:
  if value not in _FACTORIES:
    raise flags.ValidationError(
        f'--cloud_report_tpcc_engine={value}: not a TPC-C engine; expected'
        f' one of {", ".join(EngineNames())}'
    )
  return True


ENGINE = flags.DEFINE_string(
    'cloud_report_tpcc_engine',
    COCKROACH,
    "TPC-C engine: cockroach (the report's: CockroachDB + cockroach"
    ' workload) or postgres (PostgreSQL + go-tpc).',
)
flags.register_validator('cloud_report_tpcc_engine', _CheckEngine)


def LoadLeavesClientIdle(name: str) -> bool:
  """Whether the engine's load leaves the client idle (cockroach's does)."""
  return name in _LOAD_IN_THE_DATABASE


def NewEngine(name: str, params):
  """The engine named `name`, for the phase's Params.

  Raises:
    EngineError: no engine has the name.
  """
  factory = _FACTORIES.get(name)
  if factory is None:
    raise EngineError(
        f'unknown TPC-C engine {name!r}; expected one of'
        f' {", ".join(EngineNames())}'
    )
  return factory(params)
