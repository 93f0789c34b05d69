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
"""Opens a rendered page in headless Chromium and reports what went wrong.

CheckPage() starts Chromium (Debian's `chromium`) headless with a fresh
profile and no background networking, speaks the DevTools protocol to it
over a pipe (--remote-debugging-pipe: JSON messages separated by NUL on
file descriptors 3 and 4, so no port and no extra library), loads one local
file, and returns its images (with those that did not load), every console
error, uncaught exception, failed request and error log entry, and
optionally a full-page PNG screenshot.
"""

import base64
import dataclasses
import fcntl
import json
import os
import select
import shutil
import subprocess
import tempfile
import time
from typing import Any

from pkb_ext import errors

CANDIDATES = ('chromium', 'chromium-browser', 'google-chrome')
FLAGS = (
    '--headless',
    '--no-sandbox',
    '--disable-gpu',
    '--disable-quic',
    '--no-first-run',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    '--hide-scrollbars',
    '--window-size=1280,1000',
)
_IMAGES_JS = """JSON.stringify(Array.from(document.images).map(i => ({
  src: i.getAttribute('src'), complete: i.complete,
  width: i.naturalWidth, height: i.naturalHeight})))"""


class BrowserError(errors.Error, RuntimeError):
  """Chromium is missing, did not start or did not answer in time."""


@dataclasses.dataclass
class PageCheck:
  """What one page load showed."""

  url: str
  title: str
  images: list[dict[str, Any]]
  broken_images: list[str]
  errors: list[str]
  screenshot: str | None


def Executable() -> str | None:
  for name in CANDIDATES:
    path = shutil.which(name)
    if path:
      return path
  return None


class _Pipe:
  """The DevTools protocol over Chromium's --remote-debugging-pipe."""

  def __init__(self, proc, to_browser: int, from_browser: int, deadline):
    self.proc = proc
    self.out = to_browser
    self.inp = from_browser
    self.deadline = deadline
    self.buffer = b''
    self.next_id = 0
    self.events: list[dict[str, Any]] = []

  def _Read(self) -> dict[str, Any]:
    while b'\0' not in self.buffer:
      left = self.deadline - time.monotonic()
      if left <= 0:
        raise BrowserError('Chromium did not answer in time')
      ready, _, _ = select.select([self.inp], [], [], left)
      if ready:
        chunk = os.read(self.inp, 1 << 16)
        if not chunk:
          raise BrowserError(
              f'Chromium closed the pipe (exit {self.proc.poll()})'
          )
        self.buffer += chunk
    message, self.buffer = self.buffer.split(b'\0', 1)
    return json.loads(message)

  def Call(self, method: str, session: str | None = None, **params) -> dict:
    self.next_id += 1
    message = {'id': self.next_id, 'method': method, 'params': params}
    if session:
      message['sessionId'] = session
    os.write(self.out, json.dumps(message).encode() + b'\0')
    while True:
      reply = self._Read()
      if reply.get('id') == self.next_id:
        if 'error' in reply:
          raise BrowserError(f'{method}: {reply["error"]}')
        return reply.get('result', {})
      self.events.append(reply)

  def WaitFor(self, method: str) -> dict[str, Any]:
    for i, event in enumerate(self.events):
      if event.get('method') == method:
        return self.events.pop(i)
    while True:
      event = self._Read()
      if event.get('method') == method:
        return event
      self.events.append(event)


def _Errors(events: list[dict[str, Any]]) -> list[str]:
  """Console errors, exceptions, failed loads and error log entries."""
  errors = []
  for e in events:
    method, p = e.get('method'), e.get('params', {})
    if method == 'Runtime.consoleAPICalled' and p.get('type') in (
        'error',
        'assert',
    ):
      text = ' '.join(
          str(a.get('value', a.get('description'))) for a in p['args']
      )
      errors.append(f'console.{p["type"]}: {text}')
    elif method == 'Runtime.exceptionThrown':
      details = p.get('exceptionDetails', {})
      errors.append(
          'exception: '
          + str(details.get('exception', {}).get('description') or details)
      )
    elif method == 'Log.entryAdded' and p['entry'].get('level') == 'error':
      entry = p['entry']
      errors.append(
          f'{entry.get("source")}: {entry.get("text")} {entry.get("url", "")}'
      )
    elif method == 'Network.loadingFailed':
      errors.append(f'request failed: {p.get("errorText")}')
  return errors


def _High(fd: int) -> int:
  """Moves a descriptor to a number of 10 or more."""
  high = fcntl.fcntl(fd, fcntl.F_DUPFD, 10)
  os.close(fd)
  return high


def CheckPage(
    path: str,
    screenshot_path: str | None = None,
    timeout_s: float = 90,
    executable: str | None = None,
) -> PageCheck:
  """Loads a local HTML file in headless Chromium.

  Args:
    path: the HTML file.
    screenshot_path: where to write a full-page PNG, if given.
    timeout_s: for the whole check.
    executable: Chromium (default: the first of CANDIDATES on PATH).

  Raises:
    BrowserError: no Chromium, or it failed or hung.
  """
  executable = executable or Executable()
  if not executable:
    raise BrowserError(
        f'no Chromium on PATH ({", ".join(CANDIDATES)}); Debian: apt-get'
        ' install chromium'
    )
  url = 'file://' + os.path.abspath(path)
  profile = tempfile.mkdtemp(prefix='pkb-ext-chromium-')
  to_browser_r, to_browser_w = os.pipe()
  from_browser_r, from_browser_w = os.pipe()
  # Above 4, so that moving them to 3 and 4 in the child clobbers neither.
  to_browser_r, from_browser_w = _High(to_browser_r), _High(from_browser_w)
  # Chromium reads commands on fd 3 and writes replies on fd 4.
  proc = subprocess.Popen(
      [
          executable,
          *FLAGS,
          f'--user-data-dir={profile}',
          '--remote-debugging-pipe',
          'about:blank',
      ],
      stdin=subprocess.DEVNULL,
      stdout=subprocess.DEVNULL,
      stderr=subprocess.DEVNULL,
      pass_fds=(3, 4),
      preexec_fn=lambda: (os.dup2(to_browser_r, 3), os.dup2(from_browser_w, 4)),
  )
  os.close(to_browser_r)
  os.close(from_browser_w)
  pipe = _Pipe(proc, to_browser_w, from_browser_r, time.monotonic() + timeout_s)
  try:
    target = pipe.Call('Target.createTarget', url='about:blank')['targetId']
    session = pipe.Call('Target.attachToTarget', targetId=target, flatten=True)[
        'sessionId'
    ]
    for domain in ('Page', 'Runtime', 'Log', 'Network'):
      pipe.Call(f'{domain}.enable', session)
    pipe.events.clear()
    pipe.Call('Page.navigate', session, url=url)
    pipe.WaitFor('Page.loadEventFired')
    title = pipe.Call(
        'Runtime.evaluate',
        session,
        expression='document.title',
        returnByValue=True,
    )['result'].get('value', '')
    images = json.loads(
        pipe.Call(
            'Runtime.evaluate',
            session,
            expression=_IMAGES_JS,
            returnByValue=True,
        )['result']['value']
    )
    shot = None
    if screenshot_path:
      size = pipe.Call('Page.getLayoutMetrics', session)['cssContentSize']
      data = pipe.Call(
          'Page.captureScreenshot',
          session,
          format='png',
          captureBeyondViewport=True,
          clip={
              'x': 0,
              'y': 0,
              'width': size['width'],
              'height': size['height'],
              'scale': 1,
          },
      )['data']
      with open(screenshot_path, 'wb') as f:
        f.write(base64.b64decode(data))
      shot = screenshot_path
    # Let late console messages arrive before closing.
    pipe.Call('Runtime.evaluate', session, expression='1')
    errors = _Errors(pipe.events)
    try:
      pipe.Call('Browser.close')
    except BrowserError:
      pass  # it may close the pipe before replying
  finally:
    os.close(to_browser_w)
    os.close(from_browser_r)
    try:
      proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
      proc.kill()
      proc.wait()
    shutil.rmtree(profile, ignore_errors=True)
  return PageCheck(
      url=url,
      title=title,
      images=images,
      broken_images=[
          i['src'] for i in images if not i['complete'] or i['width'] == 0
      ],
      errors=errors,
      screenshot=shot,
  )
