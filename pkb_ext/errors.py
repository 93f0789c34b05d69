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
"""The one error base of pkb_ext, and the exit status of each kind.

Every exception class pkb_ext defines derives from Error. A command maps an
Error to one line on standard error and its class's exit status (see
command.Run):

  Error       1  the input, the machine or a remote service said no
  UsageError  2  the command line cannot be used (as argparse's own errors)

A subclass that is also a built-in kind (a ValueError, an OSError) lists
Error first, so `except Error` catches it wherever it is raised.
"""


class Error(Exception):
  """Something pkb_ext refuses or cannot do; the message fits on one line."""

  exit_status = 1


class UsageError(Error):
  """The command line cannot be used: a missing, bad or clashing argument."""

  exit_status = 2


def OneLine(e: BaseException) -> str:
  """The message of `e` on one line (a multi-line message is joined)."""
  text = ' '.join(str(e).split())
  return text or type(e).__name__
