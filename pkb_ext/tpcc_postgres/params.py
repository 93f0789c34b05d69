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

from benchmarks.cloud_report import settings
from pkb_ext.suite import topology as topology_lib
from benchmarks.cloud_report.tpcc import params as tpcc_params


def _CheckOptions(values) -> bool:
  bad = [v for v in values if '=' not in v or ' ' in v or "'" in v]
  if bad:
    raise flags.ValidationError(
        f'--cloud_report_tpcc_postgres_options: {bad}: write NAME=VALUE,'
        ' without spaces or quotes'
    )
  return True


@settings.Define
@dataclasses.dataclass(frozen=True)
class PostgresParams:
  """The engine's settings, read once from the flags; each default is its
  flag's."""

  postgres_port: int = settings.Integer(
      'cloud_report_tpcc_postgres_port',
      5432,
      'PostgreSQL port on db1.',
      lower_bound=1,
      upper_bound=65535,
  )
  postgres_options: tuple[str, ...] = settings.List(
      'cloud_report_tpcc_postgres_options',
      [],
      'Extra PostgreSQL settings, NAME=VALUE (after the defaults).',
      validator=_CheckOptions,
  )
  postgres_bin_dir: str | None = settings.String(
      'cloud_report_tpcc_postgres_bin_dir',
      None,
      'PostgreSQL server binaries on db1 (default: newest'
      ' /usr/lib/postgresql/*/bin).',
  )
  postgres_data_dir: str | None = settings.String(
      'cloud_report_tpcc_postgres_data_dir',
      None,
      "PostgreSQL data directory on db1 (default: on db1's data disk).",
  )
  gotpc_threads_per_warehouse: float = settings.Float(
      'cloud_report_tpcc_gotpc_threads_per_warehouse',
      10.0,
      'go-tpc threads per active warehouse (TPC-C: 10 terminals).',
      lower_bound=0.01,
      validator=topology_lib.FiniteValidator(
          'cloud_report_tpcc_gotpc_threads_per_warehouse'
      ),
  )
  gotpc_wait: bool = settings.Boolean(
      'cloud_report_tpcc_gotpc_wait',
      False,
      'Run go-tpc with --wait (keying and think times), making its'
      " efficiency comparable to cockroach's efc; off, each thread runs back"
      ' to back.',
  )
  gotpc_load_threads: int = settings.Integer(
      'cloud_report_tpcc_gotpc_load_threads',
      4,
      'go-tpc prepare threads.',
      lower_bound=1,
  )
  gotpc_load_check: bool = settings.Boolean(
      'cloud_report_tpcc_gotpc_load_check',
      True,
      "Run go-tpc prepare's consistency checks after loading.",
  )
  gotpc_interval: str = settings.String(
      'cloud_report_tpcc_gotpc_interval',
      '10s',
      'go-tpc progress interval.',
      validator=tpcc_params.DurationValidator(
          'cloud_report_tpcc_gotpc_interval'
      ),
  )

  @classmethod
  def FromFlags(cls) -> 'PostgresParams':
    return settings.FromFlags(cls)
