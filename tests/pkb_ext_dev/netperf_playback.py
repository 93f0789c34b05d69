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
"""Plays back the net phase's remote commands from captured netperf outputs.

Answers(...) gives (command fragment, stdout) pairs, first match wins, in the
shape of fake_vm_main.py's _ANSWERS and of PKB's MockRemoteCommand
(a dict keeps the order). The outputs are the real ones in
tests/data/netperf (see its PROVENANCE.md).
"""

import os

from pkb_ext import paths

DATA_DIR = os.path.join(paths.RepoRoot(), 'tests', 'data', 'netperf')
RR_FILE = 'tcp_rr_csv_phase.txt'
STREAM_FILE = 'tcp_stream_csv_confidence.txt'
NETSERVER_PID = 4242
VERSION_FILE = 'netperf_version.txt'


def Read(name: str) -> str:
  with open(os.path.join(DATA_DIR, name)) as f:
    return f.read()


def ConcurrentOutput(outputs: list[str]) -> str:
  """What the phase's ConcurrentCommand prints for these stream outputs."""
  return ''.join(
      f'@@@ cloud_report netperf stream {i} exit 0\n{out}'
      for i, out in enumerate(outputs)
  )


def Answers(streams: int = 1) -> list[tuple[str, str]]:
  """Fragment -> stdout pairs for the net phase; first match wins.

  Args:
    streams: the concurrent TCP_STREAM count to answer (besides 1).
  """
  stream = Read(STREAM_FILE)
  return [
      # StartNetserverCommand also holds the stop command: match it first.
      ('nohup ', f'{NETSERVER_PID}\n'),
      ('kill "$pid"', f'stopped {NETSERVER_PID}\n'),
      # The phase's Locate: `netperf -V` at PKB's path.
      ('netperf -V', Read(VERSION_FILE)),
      ('mktemp -d', ConcurrentOutput([stream] * streams)),
      ('-t TCP_RR', Read(RR_FILE)),
      ('-t TCP_STREAM', stream),
  ]
