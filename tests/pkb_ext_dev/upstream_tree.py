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
"""The exported series applied to a fresh PKB tree, and runs inside it.

Build writes the series (`pkb-ext upstream`'s export), extracts PKB's source
at the pinned commit from the setup cache's archive into a new git
repository, commits it (the pin) and applies the patches in order, each
with `git apply --check`, then `git apply --index` and a commit.

Isolated runs code in an interpreter started with -I -S, whose sys.path is
the patched tree, the standard library and the venv's site-packages (for
PKB's dependencies) without processing its .pth files: pkb_ext, our
benchmarks and linux_packages and the PKB checkout installed in the venv are
not importable there, which each run checks first.
"""

import os
import subprocess
import sys
import sysconfig

from pkb_ext.upstream import export as upstream_export
from pkb_ext.upstream import pkb_source

GIT = ['git', '-c', 'user.name=t', '-c', 'user.email=t@localhost', '-C']
# Our top-level packages; none may be importable in an isolated run.
OUR_PACKAGES = ('pkb_ext', 'pkb_ext_dev', 'benchmarks', 'linux_packages')
ISOLATED_PRELUDE = f"""\
import sys
tree, site_packages = sys.argv[1], sys.argv[2]
del sys.argv[1:3]
sys.path[:0] = [tree]
sys.path.append(site_packages)
import importlib.util
for name in {OUR_PACKAGES!r}:
  if importlib.util.find_spec(name) is not None:
    raise SystemExit(f'ISOLATION BROKEN: {{name}} is importable')
import perfkitbenchmarker
if not perfkitbenchmarker.__file__.startswith(tree + '/'):
  raise SystemExit(f'ISOLATION BROKEN: PKB from {{perfkitbenchmarker.__file__}}')
"""


def Isolated(
    tree, code, *args, timeout=900, isolate=('-I', '-S'), env=None
) -> subprocess.CompletedProcess:
  """Runs code in an interpreter that sees the patched tree, not pkb_ext.

  Args:
    tree: the patched PKB tree (the working directory, and HOME).
    code: Python source run after the isolation checks; sys.argv[1:] are
      args.
    *args: its arguments.
    timeout: seconds the run may take.
    isolate: the interpreter's options ((): none, to test the checks).
    env: more environment variables (besides PATH and HOME).

  Returns:
    The finished process (text stdout and stderr).
  """
  site_packages = sysconfig.get_paths()['purelib']
  result = subprocess.run(
      [sys.executable, *isolate, '-c', ISOLATED_PRELUDE + code]
      + [tree, site_packages, *args],
      cwd=tree,
      capture_output=True,
      text=True,
      timeout=timeout,
      env={
          'PATH': os.environ.get('PATH', '/usr/bin:/bin'),
          'HOME': tree,
          **(env or {}),
      },
      check=False,
  )
  if isolate:
    assert 'ISOLATION BROKEN' not in result.stderr, result.stderr
  return result


def Apply(tree: str, patch: str) -> None:
  """git apply --check, then git apply --index and a commit, of one patch."""
  for args in (['apply', '--check'], ['apply', '--index']):
    result = subprocess.run(
        GIT + [tree] + args + [patch],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, f'{patch}: git {args}: {result.stderr}'
  subprocess.run(
      GIT + [tree] + ['commit', '-qm', os.path.basename(patch)], check=True
  )


def Build(out_dir: str, after_each=None):
  """Writes the series and applies it to a fresh PKB tree at the pin.

  Args:
    out_dir: an empty directory; the series goes to out_dir/out, the tree
      to out_dir/pkb.
    after_each: None, or called as after_each(tree, patch) after each patch
      is applied and committed (an export.Patch).

  Returns:
    (export, tree): the written series (export.Export) and the tree's path.
    The tree's HEAD~len(export.patches) is the pin.
  """
  export = upstream_export.Write(os.path.join(out_dir, 'out'))
  tree = os.path.join(out_dir, 'pkb')
  os.makedirs(tree)
  pkb_source.ExtractPkb(pkb_source.SourceArchive(export.pkb_commit), tree)
  for args in (['init', '-q'], ['add', '-A'], ['commit', '-qm', 'pin']):
    subprocess.run(GIT + [tree] + args, check=True)
  for patch in export.patches:
    Apply(tree, patch.path)
    if after_each is not None:
      after_each(tree, patch)
  return export, tree
