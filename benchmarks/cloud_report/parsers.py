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
"""The error of the pure parsers.

A parser module (tpcc.parser) has

  Parse(text: str) -> <a frozen dataclass>

which reads nothing but `text` (no FLAGS, VM, clock or I/O) and raises
ParseError naming what is wrong for truncated, garbled or failed output;
its samples module (tpcc.samples) has

  FromResult(result) -> list[sample.Sample]
"""

from benchmarks.cloud_report import errors as report_errors


class ParseError(report_errors.Error, ValueError):
  """A tool's output is missing, truncated, garbled or reports a failure."""
