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
"""The local tier runs under load: a CPU hog for the whole tier.

Before the tier's first test, PKB_EXT_LOCAL_HOGS busy loops start (default
1: on two CPUs, half the machine; 0 turns them off); after its last test
they are stopped by PID, and that test's teardown fails if a hog ended
early (each ends by itself after HOG_BOUND_S, should pytest die) or got less
than a fifth of a core: then the tier did not run under load. The summary
(hogs, CPU seconds, load averages) is printed in the session's summary.

With PKB_EXT_LOCAL_HOGS_AFTER_PID set (make test sets it to the pid of the
pytest process it runs beside this tier, which loads the machine by
itself), the hogs start at the first test set up after that process has
ended; the summary says how many of the tier's tests ran before.
"""

import os
import pathlib

from pkb_ext_dev import load

HOGS_ENV = 'PKB_EXT_LOCAL_HOGS'
AFTER_ENV = 'PKB_EXT_LOCAL_HOGS_AFTER_PID'
# Well above the tier's time on a loaded machine, below CI's time limit: a
# hog outlives a pytest that died by at most this long.
HOG_BOUND_S = 80 * 60
_HERE = pathlib.Path(__file__).resolve().parent
_hogs: load.CpuHogs | None = None
_said: list[str] = []
_deferred = 0  # the tier's tests set up while the other process ran


def _InTier(item) -> bool:
  return _HERE in pathlib.Path(str(item.path)).resolve().parents


def _Count() -> int:
  text = os.environ.get(HOGS_ENV, '1')
  try:
    count = int(text)
  except ValueError:
    count = -1
  if count < 0:
    raise ValueError(f'{HOGS_ENV}={text!r}: give a whole number >= 0')
  return count


def _AfterPid() -> int | None:
  text = os.environ.get(AFTER_ENV, '')
  if not text:
    return None
  if not text.isdigit():
    raise ValueError(f'{AFTER_ENV}={text!r}: give a process id')
  return int(text)


def pytest_runtest_setup(item):
  global _hogs, _deferred
  if _hogs is not None or not _InTier(item):
    return
  count, after = _Count(), _AfterPid()
  if count and after is not None and load.Stat(after)[0]:
    _deferred += 1
    return
  _hogs = load.CpuHogs(count, seconds=HOG_BOUND_S).Start()
  before = (
      f' after {_deferred} test(s) under process {after}'
      if after is not None
      else ''
  )
  _said.append(
      f'local tier under load: {_hogs.count} CPU hog(s) started{before}'
  )


def pytest_runtest_teardown(item, nextitem):
  global _hogs
  if (
      _hogs is None
      and _deferred
      and (nextitem is None or not _InTier(nextitem))
  ):
    _said.append(
        f'local tier under load: all {_deferred} test(s) under process'
        f' {_AfterPid()}; no hog started'
    )
    return
  if _hogs is None or not _hogs.count:
    return
  if nextitem is not None and _InTier(nextitem):
    return
  hogs, _hogs = _hogs, load.CpuHogs(0, seconds=1)  # stopped: not again
  try:
    report = hogs.Stop(check=True)
  except load.HogError as e:
    _said.append(f'local tier under load: FAILED: {e}')
    raise
  _said.append(f'local tier under load: {report.Summary()}')


def pytest_terminal_summary(terminalreporter):
  # Lines written during a test's teardown would be captured with its output.
  for line in _said:
    terminalreporter.write_line(line)
