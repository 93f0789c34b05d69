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
"""The exported unit names only PKB concepts.

benchmarks/, linux_packages/, configs/ (what `pkb-ext upstream` exports of
it) and tests/upstream/ go to PKB. No line of theirs may name pkb_ext, the
local cloud, an emulator, a spool, the development machine or this repo's
configs/ layout: what only this project needs lives in pkb_ext and plugs in
from outside (a registration point, or pkb_ext's registry, which lays its
preflight over the benchmarks' CheckPrerequisites). The licence header is
exempt (the export replaces it with PKB's).
"""

import os
import re

from absl.testing import absltest

from pkb_ext import paths
from pkb_ext.upstream import layout

_ROOT = paths.RepoRoot()
EXPORTED_TOPS = ('benchmarks', 'linux_packages', 'configs', 'tests/upstream')
# Entries that stay behind: the configs/ entries the export leaves out
# (layout.CONFIGS_LEFT_OUT: pkb_ext's), and the conftest that only keeps
# pytest away from tests/upstream.
LEFT_BEHIND = (
    *(
        f'configs/{name}/'
        if os.path.isdir(os.path.join(_ROOT, 'configs', name))
        else f'configs/{name}'
        for name in layout.CONFIGS_LEFT_OUT
    ),
    'tests/upstream/conftest.py',
)
FORBIDDEN = re.compile(
    r'pkb[_-]ext|local[ -]cloud|minio|azurite|fake-gcs|spool'
    r'|(?<![\w/.])configs/|dev(elopment)? machine',
    re.IGNORECASE,
)
# Hits that are known and owned elsewhere: (path, text of the line). Each
# must still match (a stale entry fails too), so the list only shrinks.
PENDING = ()


def ExportedFiles(root: str) -> list[str]:
  """Paths (relative to root) of the exported unit's text files."""
  out = []
  for top in EXPORTED_TOPS:
    for dirpath, dirnames, names in os.walk(os.path.join(root, top)):
      dirnames[:] = sorted(d for d in dirnames if d != '__pycache__')
      for name in sorted(names):
        rel = os.path.relpath(os.path.join(dirpath, name), root)
        rel = rel.replace(os.sep, '/')
        if name.endswith('.pyc') or rel.startswith(LEFT_BEHIND):
          continue
        out.append(rel)
  return out


def Hits(root: str) -> list[tuple[str, int, str]]:
  """(path, line number, line) of every forbidden word in the unit."""
  hits = []
  for rel in ExportedFiles(root):
    with open(os.path.join(root, rel), encoding='utf-8') as f:
      for n, line in enumerate(f, 1):
        line = line.rstrip('\n')
        if FORBIDDEN.search(line):
          hits.append((rel, n, line.strip()))
  return hits


def _Pending(hit) -> bool:
  return any(hit[0] == p and text in hit[2] for p, text in PENDING)


class ExportedConceptsTest(absltest.TestCase):

  def testNoProjectConceptInTheExportedUnit(self):
    found = [
        f'{p}:{n}: {line}'
        for p, n, line in Hits(_ROOT)
        if not _Pending((p, n, line))
    ]
    self.assertEqual(found, [])

  def testEveryPendingEntryStillMatches(self):
    hits = Hits(_ROOT)
    stale = [
        entry
        for entry in PENDING
        if not any(h[0] == entry[0] and entry[1] in h[2] for h in hits)
    ]
    self.assertEqual(stale, [], 'fixed: remove these from PENDING')

  def testTheScanFindsEachKindOfHit(self):
    root = self.create_tempdir().full_path
    lines = [
        'from pkb_ext import registry',
        'bucket = "pkb-ext-os"',
        'On the local cloud, ...',
        'such as MinIO, fake-gcs-server or Azurite',
        '--cloud_report_spool_dir',
        'see configs/fio/job.fio.j2',
        'captured on the development machine',
    ]
    os.makedirs(os.path.join(root, 'benchmarks'))
    with open(os.path.join(root, 'benchmarks', 'm.py'), 'w') as f:
      f.write('# Copyright 2026 PerfKitBenchmarker Authors.\n')
      f.write('\n'.join(lines + ['data.ResourcePath("fio/job.fio.j2")']))
    with open(os.path.join(root, 'benchmarks', 'n.py'), 'w') as f:
      f.write('# Copyright 2026 The pkb_ext Authors.\n')  # a header names it
    os.makedirs(os.path.join(root, 'configs', 'pricing'))
    with open(os.path.join(root, 'configs', 'pricing', 'x.yaml'), 'w') as f:
      f.write('# pkb_ext/pricing.py reads this\n')
    self.assertEqual(
        [(p, n) for p, n, _ in Hits(root)],
        [('benchmarks/m.py', n) for n in range(2, 2 + len(lines))]
        + [('benchmarks/n.py', 1)],
    )


if __name__ == '__main__':
  absltest.main()
