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
"""The cpu phase for real: CoreMark built and run on this machine.

LocalVmTest runs the phase's own code (install with the sha256, commit and
tree checks, one build per mode, runs, parser, samples) through
pkb_ext_dev.local_vm.LocalVm, with short iteration counts.
Through stock pkb.py on a local cloud it runs in
tests/local/test_local_cloud.py (the suite smoke run's cpu samples).
"""

import gzip
import math
import os
import shutil
import tempfile
from unittest import mock

from absl.testing import absltest
from perfkitbenchmarker import data
from perfkitbenchmarker import errors
from perfkitbenchmarker import linux_packages

from benchmarks.cloud_report import phases
from benchmarks.cloud_report.cpu import stages as cpu
from linux_packages import cloud_report_coremark as pkg
from pkb_ext_dev import local_vm
from pkb_ext_dev import fidelity as fidelity_lib

_TOOLS = ('gcc', 'make', 'sha256sum', 'gzip', 'tar')


def _MissingTools():
  return [t for t in _TOOLS if not shutil.which(t)]


class LocalVmTest(absltest.TestCase):

  def setUp(self):
    super().setUp()
    if _MissingTools():
      self.skipTest(f'needs {", ".join(_MissingTools())} on this machine')
    if not data.ResourceExists(pkg.TARBALL):
      self.skipTest(f'{pkg.TARBALL} not in the data search path: run setup')
    self.dir = tempfile.mkdtemp(prefix='pkb-ext-cpu-test-')
    self.addCleanup(shutil.rmtree, self.dir, ignore_errors=True)
    # The phase installs under PKB's INSTALL_DIR; keep it private here.
    self.enter_context(
        mock.patch.object(linux_packages, 'INSTALL_DIR', self.dir)
    )
    self.vm = local_vm.LocalVm(work_dir=self.dir)

  def testPhaseRunsCoreMarkForReal(self):
    params = cpu.Params(runs=2, iterations=2000)
    cpu.PrepareVm(self.vm, params)
    samples = cpu.RunVm(self.vm, params)

    builds = [c for c in self.vm.commands if ' link ' in c]
    self.assertLen(builds, 2)
    per_run = [s for s in samples if s.metric == 'coremark_score']
    self.assertEqual(
        [(s.metadata['mode'], s.metadata['iteration']) for s in per_run],
        [('single', 1), ('single', 2), ('all', 1), ('all', 2)],
    )
    threads = os.cpu_count()
    for s in per_run:
      self.assertGreater(s.value, 0)
      self.assertEqual(float(s.metadata['score_text']), s.value)
      want = threads if s.metadata['mode'] == 'all' else 1
      self.assertEqual(s.metadata['threads'], want)
      self.assertEqual(s.metadata['iterations_per_thread'], 2000)
      # 2000 iterations take well under 10 s: kept, and marked.
      self.assertIs(s.metadata['valid_for_reporting'], False)
      self.assertIn('< 10 s', s.metadata['invalid_reason'])
    if threads > 1:
      self.assertEqual(per_run[-1].metadata['parallelism'], 'pthread')
      self.assertIn('-DUSE_PTHREAD', per_run[-1].metadata['compiler_flags'])
    means = [s for s in samples if s.metric == 'coremark_score_mean']
    self.assertEqual([s.metadata['mode'] for s in means], ['single', 'all'])
    for s in samples:
      self.assertTrue(math.isfinite(s.value), s)

    cpu.Cleanup(
        phases.Topology(db_vms=(self.vm,), client_vm=None, run_metadata=None)
    )
    self.assertFalse(os.path.exists(pkg.RootDir()))

  def testTamperedSourceIsRefused(self):
    # Same pax header (commit id), one changed byte in a file's content.
    with open(data.ResourcePath(pkg.TARBALL), 'rb') as f:
      tar = gzip.decompress(f.read())
    needle = b'Shay Gal-On'
    self.assertIn(needle, tar)
    bad = gzip.compress(tar.replace(needle, b'Shay Gal-Xn', 1))
    os.makedirs(pkg.RootDir())
    path = os.path.join(pkg.RootDir(), pkg.TARBALL)
    with open(path, 'wb') as f:
      f.write(bad)
    with self.assertRaisesRegex(
        errors.Setup.BadPreprovisionedDataError, 'file tree sha256'
    ):
      pkg.Verify(self.vm, path, pkg.SOURCE_GITHUB)
    with self.assertRaisesRegex(
        errors.Setup.BadPreprovisionedDataError, 'sha256 is'
    ):
      pkg.Verify(self.vm, path, pkg.SOURCE_DATA_PATH)

  def testFidelityMeasurementRuns(self):
    # The >= 0.97 target is measured by `pkb-ext bench`, not asserted here.
    fidelity = fidelity_lib.MeasureCpu(
        self.vm,
        pairs=2,
        iterations=2000,
        raw_runner=fidelity_lib.SubprocessRunner,
    )
    self.assertLen(fidelity.phase, 2)
    self.assertLen(fidelity.raw, 2)
    self.assertGreater(fidelity.ratio, 0)
    self.assertTrue(math.isfinite(fidelity.ratio))


if __name__ == '__main__':
  absltest.main()
