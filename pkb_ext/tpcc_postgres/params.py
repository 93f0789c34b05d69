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
"""The postgres engine's flags, read once into PostgresParams.

The phase's own flags (warehouses, durations, timeouts, pass rule) are
cloud_report.tpcc.params'; these are only the engine's.
"""

import dataclasses

from absl import flags

from benchmarks.cloud_report import topology as topology_lib
from benchmarks.cloud_report.tpcc import params as tpcc_params

_PG_PORT = flags.DEFINE_integer(
    'cloud_report_tpcc_postgres_port',
    5432,
    'PostgreSQL port on db1.',
    lower_bound=1,
    upper_bound=65535,
)
_PG_OPTIONS = flags.DEFINE_list(
    'cloud_report_tpcc_postgres_options',
    [],
    'Extra PostgreSQL settings, NAME=VALUE (after the defaults).',
)
_PG_BIN_DIR = flags.DEFINE_string(
    'cloud_report_tpcc_postgres_bin_dir',
    None,
    'PostgreSQL server binaries on db1 (default: newest'
    ' /usr/lib/postgresql/*/bin).',
)
_PG_DATA_DIR = flags.DEFINE_string(
    'cloud_report_tpcc_postgres_data_dir',
    None,
    "PostgreSQL data directory on db1 (default: on db1's data disk).",
)
_GOTPC_THREADS = flags.DEFINE_float(
    'cloud_report_tpcc_gotpc_threads_per_warehouse',
    10.0,
    'go-tpc threads per active warehouse (TPC-C: 10 terminals).',
    lower_bound=0.01,
)
_GOTPC_WAIT = flags.DEFINE_boolean(
    'cloud_report_tpcc_gotpc_wait',
    False,
    'Run go-tpc with --wait (keying and think times), making its efficiency'
    " comparable to cockroach's efc; off, each thread runs back to back.",
)
_GOTPC_LOAD_THREADS = flags.DEFINE_integer(
    'cloud_report_tpcc_gotpc_load_threads',
    4,
    'go-tpc prepare threads.',
    lower_bound=1,
)
_GOTPC_LOAD_CHECK = flags.DEFINE_boolean(
    'cloud_report_tpcc_gotpc_load_check',
    True,
    "Run go-tpc prepare's consistency checks after loading.",
)
_GOTPC_INTERVAL = flags.DEFINE_string(
    'cloud_report_tpcc_gotpc_interval',
    '10s',
    'go-tpc progress interval.',
)


def _CheckOptions(values) -> bool:
  bad = [v for v in values if '=' not in v or ' ' in v or "'" in v]
  if bad:
    raise flags.ValidationError(
        f'--cloud_report_tpcc_postgres_options: {bad}: write NAME=VALUE,'
        ' without spaces or quotes'
    )
  return True


flags.register_validator(
    'cloud_report_tpcc_gotpc_interval',
    tpcc_params.DurationValidator('cloud_report_tpcc_gotpc_interval'),
)
flags.register_validator(
    'cloud_report_tpcc_gotpc_threads_per_warehouse',
    topology_lib.FiniteValidator(
        'cloud_report_tpcc_gotpc_threads_per_warehouse'
    ),
)
flags.register_validator('cloud_report_tpcc_postgres_options', _CheckOptions)


@dataclasses.dataclass(frozen=True)
class PostgresParams:
  """The engine's settings, read once from the flags; each default is its
  flag's."""

  postgres_port: int = _PG_PORT.default
  postgres_options: tuple[str, ...] = tuple(_PG_OPTIONS.default)
  postgres_bin_dir: str | None = _PG_BIN_DIR.default
  postgres_data_dir: str | None = _PG_DATA_DIR.default
  gotpc_threads_per_warehouse: float = _GOTPC_THREADS.default
  gotpc_wait: bool = _GOTPC_WAIT.default
  gotpc_load_threads: int = _GOTPC_LOAD_THREADS.default
  gotpc_load_check: bool = _GOTPC_LOAD_CHECK.default
  gotpc_interval: str = _GOTPC_INTERVAL.default

  @classmethod
  def FromFlags(cls) -> 'PostgresParams':
    return cls(
        postgres_port=_PG_PORT.value,
        postgres_options=tuple(_PG_OPTIONS.value),
        postgres_bin_dir=_PG_BIN_DIR.value,
        postgres_data_dir=_PG_DATA_DIR.value,
        gotpc_threads_per_warehouse=_GOTPC_THREADS.value,
        gotpc_wait=_GOTPC_WAIT.value,
        gotpc_load_threads=_GOTPC_LOAD_THREADS.value,
        gotpc_load_check=_GOTPC_LOAD_CHECK.value,
        gotpc_interval=_GOTPC_INTERVAL.value,
    )
