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
"""Loopback TCP ports for the tests' servers and for addresses nobody serves.

A port is free when it is handed out: bound to 127.0.0.1 with port 0 and
closed again. Nothing reserves it, so a server started on it later could in
principle find it taken; the tests start their servers at once.
"""

import socket

LOOPBACK = '127.0.0.1'


def FreePorts(n: int) -> list[int]:
  """Returns n distinct loopback TCP ports that were free a moment ago."""
  socks = [socket.socket(socket.AF_INET, socket.SOCK_STREAM) for _ in range(n)]
  try:
    for s in socks:
      s.bind((LOOPBACK, 0))
    return [s.getsockname()[1] for s in socks]
  finally:
    for s in socks:
      s.close()


def FreePort() -> int:
  """Returns a loopback TCP port that was free a moment ago."""
  return FreePorts(1)[0]


def DeadUrl(path: str = '') -> str:
  """An http URL on 127.0.0.1 that nothing listens on, ending in path."""
  return f'http://{LOOPBACK}:{FreePort()}{path}'
