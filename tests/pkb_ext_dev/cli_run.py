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
"""`pkb-ext ARGV` for tests: in this process (Run) or in a child (Child)."""

import contextlib
import io
import subprocess
import sys

from pkb_ext import cli


def Run(argv: list[str]) -> tuple[int, str, str]:
  """Returns (exit status, stdout, stderr) of `pkb-ext ARGV`."""
  out, err = io.StringIO(), io.StringIO()
  with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
    try:
      code = cli.main(argv)
    except SystemExit as e:  # argparse's usage errors and --help
      code = e.code
  return code, out.getvalue(), err.getvalue()


def Child(
    argv: list[str],
    *,
    stdin: str | None = None,
    timeout: float = 120,
    env: dict[str, str] | None = None,
    cwd: str | None = None,
) -> subprocess.CompletedProcess:
  """`pkb-ext ARGV` in a child interpreter (this one), its output captured.

  Args:
    argv: the command and its arguments.
    stdin: the child's standard input; None: none.
    timeout: seconds before subprocess.TimeoutExpired.
    env: the child's environment; None: this process's.
    cwd: the child's working directory; None: this process's.
  """
  return subprocess.run(
      [sys.executable, '-m', 'pkb_ext.cli', *argv],
      input=stdin,
      capture_output=True,
      text=True,
      timeout=timeout,
      check=False,
      env=env,
      cwd=cwd,
  )
