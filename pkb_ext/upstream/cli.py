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
"""pkb-ext upstream: the upstream unit as a patch series against PKB's pin.

  pkb-ext upstream --out DIR     writes DIR/0001-*.patch, DIR/0002-*.patch, ...

Apply the patches in order with `git am` or `git apply` at the root of a PKB
checkout at the pinned commit. The patches' author is the git user
configured where it runs (user.name and user.email). It needs a source
checkout (tests/upstream and tests/data are not installed) and PKB's source
at the pin, which scripts/setup.sh stores in the cache.
"""

import os
from typing import Sequence

from pkb_ext import command
from pkb_ext.upstream import export

PROG = 'pkb-ext upstream'


def _Parser() -> command.ArgumentParser:
  parser = command.ArgumentParser(
      prog=PROG,
      description=(
          'Write the upstream unit as a patch series against the pinned PKB'
          ' commit.'
      ),
  )
  parser.add_argument(
      '--out',
      required=True,
      help='directory for 0001-*.patch, ... (must hold no .patch file)',
  )
  parser.add_argument(
      '--pkb-archive',
      help="tar of PKB source at the pin (default: the setup cache's)",
  )
  return parser


def _Upstream(argv: Sequence[str]) -> int:
  args = _Parser().parse_args(argv)
  written = export.Write(args.out, archive=args.pkb_archive)
  for patch in written.patches:
    print(f'{patch.path}: {patch.lines} lines: {patch.subject}')
  print(
      f'{len(written.patches)} patches against PKB {written.pkb_commit}; they'
      f' add {len(written.added)} files and change'
      f' {", ".join(written.modified)}; benchmarks:'
      f' {", ".join(written.benchmarks)}'
  )
  print(
      'Apply them in order at the root of a PKB checkout at that commit:'
      f' git am {os.path.join(args.out, "*.patch")}'
  )
  return 0


def Main(argv: Sequence[str]) -> int:
  """Runs pkb-ext upstream; a refusal is one line on stderr and its status.

  A bad command line exits 2, a unit that cannot be exported 1.
  """
  return command.Run(PROG, _Upstream, argv)
