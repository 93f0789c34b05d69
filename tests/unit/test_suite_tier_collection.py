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
"""Collecting tests/suite leaves PKB as other tiers find it.

A child pytest collects tests/suite with the .pth autoload off, so that only
what the tier's own files do at collection can register pkb_ext; a plugin
reports PKB's registry state once collection ends.
"""

import json
import os
import subprocess
import sys

from absl.testing import absltest

from pkb_ext import paths

# Reports, once collection ends, whether pkb_ext is registered with PKB.
_PROBE = """
import json
import os
import sys


def pytest_collection_finish(session):
  registry = sys.modules.get('pkb_ext.registry')
  benchmarks = sys.modules.get('perfkitbenchmarker.linux_benchmarks')
  with open(os.environ['PROBE_OUT'], 'w') as f:
    json.dump({
        'collected': len(session.items),
        'registered': bool(registry and registry._registered),
        'suite_benchmark': bool(
            benchmarks and 'cloud_report_2021' in benchmarks.VALID_BENCHMARKS
        ),
    }, f)
"""


class SuiteCollectionTest(absltest.TestCase):

  def testCollectingTheSuiteTierRegistersNothing(self):
    probe_dir = self.create_tempdir()
    probe_dir.create_file('suite_collection_probe.py', _PROBE)
    out = os.path.join(probe_dir.full_path, 'probe.json')
    env = dict(
        os.environ,
        PKB_EXT_AUTOLOAD='0',
        PROBE_OUT=out,
        PYTHONPATH=os.pathsep.join(
            p for p in (probe_dir.full_path, os.environ.get('PYTHONPATH')) if p
        ),
    )
    proc = subprocess.run(
        [sys.executable, '-m', 'pytest', '--collect-only', '-q',
         '-p', 'no:cacheprovider', '-p', 'suite_collection_probe',
         'tests/suite'],
        cwd=paths.RepoRoot(), env=env, capture_output=True, text=True,
        timeout=300, check=False,
    )  # fmt: skip
    self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
    with open(out) as f:
      probe = json.load(f)
    self.assertGreater(probe['collected'], 0)
    self.assertEqual(
        (probe['registered'], probe['suite_benchmark']), (False, False)
    )


if __name__ == '__main__':
  absltest.main()
