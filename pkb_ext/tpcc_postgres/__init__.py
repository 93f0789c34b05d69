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
"""The TPC-C phase's postgres engine: PostgreSQL on db1, go-tpc on the client.

It runs where CockroachDB cannot (the local cloud has no CockroachDB), and
only pkb_ext has it: the suite's tpcc phase runs it with
--cloud_report_tpcc_engine=postgres (pkb_ext.suite.tpcc.engines), reads its
output with its own parser, and pkb_ext.registry adds go-tpc to PKB's
packages.

Its modules:
  params   its flags (--cloud_report_tpcc_postgres_*, _gotpc_*), read once;
  engine   the engine and the PostgreSQL server's commands;
  dumps    its fixtures: pg_dump files in the object storage endpoint;
  parser   go-tpc's output -> the phase's Result (pure);
  go_tpc   the go-tpc package (PKB's linux package interface).

Without --wait go-tpc has no keying or think time: its efficiency (the same
formula as cockroach's efc, 100 * tpmC / (12.86 * N)) then measures how far
the load exceeds TPC-C's per-warehouse ceiling and is far above 100 %; with
--cloud_report_tpcc_gotpc_wait and 10 threads per warehouse it is comparable
to cockroach's efc.
"""
