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
"""The 2021 Cloud Report suite as pkb_ext runs it (not exported to PKB).

The suite's PKB benchmark module (cloud_report_2021) and the standalone
benchmarks of each phase, which pkb_ext registers with PKB
(pkb_ext/registry.py), and what only they need: the phases' table and
schedule (phase_table, phases, side_lanes), the runner that runs the phases
in order or overlapped (runner), the phase-module table (phase_modules),
resume, preflight, repetition statistics (stats), and each phase's package:
cpu, io (disk) and net run PKB's own coremark, fio and netperf modules and
packages; object_storage and tpcc run the exported unit's pieces
(benchmarks/cloud_report), which this package imports and which never
imports it.
"""
