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
"""The 2021 Cloud Report suite: what its PKB benchmark modules need.

This package holds the pieces behind the thin benchmark modules beside it:
one sub-package per phase (cpu, disk for the io phase, net, object_storage,
tpcc), each with its flags, stages, pure parser and samples; and what the
phases share: the phase registry and topology (phases, topology, runner,
resume), remote command helpers (remote), the parser and sample indexes
(parsers, samples), wait bounds (timeouts), checks before provisioning
(preflight) and repetition statistics (stats). It imports only
perfkitbenchmarker and itself.
"""

REPORT_VERSION = '2021'
