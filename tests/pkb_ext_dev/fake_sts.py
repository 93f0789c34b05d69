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
"""A stand-in AWS endpoint on 127.0.0.1 that answers as STS does.

The AWS CLI sends it whatever AWS_ENDPOINT_URL_STS (or AWS_ENDPOINT_URL, for
every service) points at it. It tells credentials apart by the access key
ID the request is signed with (the secret is never sent): GOOD_KEY_ID is
accepted, with the session token EXPIRED_TOKEN it has expired, any other key
is unknown. The bodies are the documented responses in tests/data/sts/.
Every request's Action is recorded, so a test can see that nothing but
GetCallerIdentity was asked.
"""

import http.server
import os
import re
import threading
import urllib.parse

from pkb_ext import paths
from pkb_ext_dev import ports

DATA_DIR = os.path.join(paths.RepoRoot(), 'tests', 'data', 'sts')
GOOD_KEY_ID = 'AKIAIOSFODNN7EXAMPLE'
EXPIRED_TOKEN = 'expired-session-token'
_KEY_ID = re.compile(r'Credential=([A-Z0-9]+)/')


def _Body(name: str) -> bytes:
  with open(os.path.join(DATA_DIR, name), 'rb') as f:
    return f.read()


def Answer(key_id: str | None, token: str | None) -> tuple[int, str]:
  """(HTTP status, data file) of STS's answer to GetCallerIdentity."""
  if key_id != GOOD_KEY_ID:
    return 403, 'invalid_client_token_id.xml'
  if token == EXPIRED_TOKEN:
    return 400, 'expired_token.xml'
  return 200, 'get_caller_identity.xml'


class FakeSts:
  """The endpoint, served from a thread while the context is open."""

  def __init__(self):
    self.actions: list[str] = []
    fake = self

    class Handler(http.server.BaseHTTPRequestHandler):
      """Answers every POST as STS answers GetCallerIdentity."""

      def do_POST(self):  # pylint: disable=invalid-name
        length = int(self.headers.get('Content-Length') or 0)
        form = urllib.parse.parse_qs(self.rfile.read(length).decode())
        fake.actions.append((form.get('Action') or ['?'])[0])
        key = _KEY_ID.search(self.headers.get('Authorization') or '')
        status, name = Answer(
            key.group(1) if key else None,
            self.headers.get('X-Amz-Security-Token'),
        )
        body = _Body(name)
        self.send_response(status)
        self.send_header('Content-Type', 'text/xml')
        self.send_header('Content-Length', str(len(body)))
        self.end_headers()
        self.wfile.write(body)

      def log_message(self, *args):  # pylint: disable=arguments-differ
        del args

    self._server = http.server.ThreadingHTTPServer(('127.0.0.1', 0), Handler)
    self.url = f'http://127.0.0.1:{self._server.server_address[1]}'
    self._thread = threading.Thread(
        target=self._server.serve_forever, daemon=True
    )

  def __enter__(self) -> 'FakeSts':
    self._thread.start()
    return self

  def __exit__(self, *exc):
    self._server.shutdown()
    self._server.server_close()


def DeadUrl() -> str:
  """A 127.0.0.1 URL nothing listens on (a port just bound and closed)."""
  return ports.DeadUrl()
