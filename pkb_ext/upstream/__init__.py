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

benchmarks/, linux_packages/, configs/ (less what only pkb_ext uses) and the
exported tests become git format-patch output that applies to a PKB checkout
at the commit scripts/setup.d/30-pkb.sh pins: a fix of PKB's PackageCleanup
first, then fixes of PKB's fio, netperf and coremark modules, then shared
helpers, one patch per benchmark module and the suite last, each with its
tests and commit message, and none over 2,500 lines. The fixes and the
suite each add one CHANGES.next.md line; each fix applies alone to PKB at
the pin. One concern per module, lowest first:

  errors      ExportError, the export's refusal (one line, exit status 1);
  series      which patch holds each file: grouping by imports, and the
              split of a group over the line limit along module lines;
  layout      path mapping: which files are exported, and each file's path
              in PKB's tree;
  pkb_fixes   the fixes of PKB's own modules: each one's diff (in edits/),
              captured outputs, tests, commit message and CHANGES line;
  named       which exported modules no exported test imports or names;
  pkb_source  PKB's source at the pin: the pinned commit, the setup cache's
              tar of it;
  rewrite     what each exported file becomes: PKB's module names, PKB's
              licence header, no import of pkb_ext, pyink with PKB's
              settings;
  pkb_edits   the edits to PKB's own files (benchmark sets, data
              directories, AWS local volumes, the PackageCleanup fix and its
              test, CHANGES.next.md), each on the lines it needs only;
  edits/      the text those edits and rewrite add, as data files;
  messages    each patch's commit message and CHANGES.next.md line (if any);
  git         a scratch git tree of PKB: commits and format-patch;
  export      Write: the steps above in order, the series copied to --out;
  cli         the command line (Main).
"""
