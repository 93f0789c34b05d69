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
"""Reads the output of either TPC-C engine's tool, detected from the text.

The phase's parser (phase_modules pairs it with the stages): `pkb-ext parse
tpcc` and a saved step's output may be either engine's, cockroach workload's
(the exported parser) or go-tpc's (pkb_ext.tpcc_postgres); an engine's own
steps go through its own parser.
"""

from benchmarks.cloud_report.parsers import ParseError
from benchmarks.cloud_report.tpcc import parser as tpcc_parser
from pkb_ext.tpcc_postgres import parser as gotpc_parser

# name -> (whether a text is its output, its parser, what it looks for)
TOOLS = {
    tpcc_parser.COCKROACH: (
        tpcc_parser.IsCockroach,
        tpcc_parser.ParseCockroach,
        tpcc_parser.WANTED,
    ),
    gotpc_parser.GO_TPC: (
        gotpc_parser.IsGoTpc,
        gotpc_parser.ParseGoTpc,
        gotpc_parser.WANTED,
    ),
}


def _NoToolMatches(wanted: list[str]) -> str:
  """'not A' for one tool; 'neither A, B nor C' for several."""
  if len(wanted) == 1:
    return f'not {wanted[0]}'
  return f'neither {", ".join(wanted[:-1])} nor {wanted[-1]}'


def Detect(text: str, tools=None) -> str:
  """Returns which tool wrote the output.

  Raises:
    ParseError: empty output, a panic, both tools' output, or neither's.
  """
  tools = TOOLS if tools is None else tools
  found = [name for name, (detect, _, _) in tools.items() if detect(text)]
  if len(found) > 1:
    raise ParseError(
        f'output mixes {" and ".join(found)} results; parse one run'
    )
  if not found:
    tpcc_parser.Refuse(text, _NoToolMatches([w for _, _, w in tools.values()]))
  return found[0]


def Parse(text: str) -> tpcc_parser.Result:
  """Parses one TPC-C run's output, detecting the tool.

  Raises:
    ParseError: empty, unknown, truncated, garbled or failed output.
  """
  _, parse, _ = TOOLS[Detect(text)]
  return tpcc_parser.CheckResult(parse(text))
