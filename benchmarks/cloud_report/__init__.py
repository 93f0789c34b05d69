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
"""The 2021 Cloud Report's exported pieces: what its PKB benchmarks need.

The tpcc and object storage phases, one sub-package each with its flags,
stages, pure parser and samples, behind the thin benchmark modules beside
this package; the raw-disk guard and commands the tpcc phase uses (disk);
and what the phases share: the phase registry and topology (phases,
phase_table, topology, resume; phases.Check runs a phase's checks before
provisioning), remote command helpers (remote), the parser and sample
indexes (parsers, samples), wait bounds (timeouts) and settings. It imports
only perfkitbenchmarker and itself. The phase table also names the cpu, io
and net phases: they run PKB's own coremark, fio and netperf benchmarks,
and their stages modules live outside this package (phases.Load finds
them).
"""

REPORT_VERSION = '2021'
