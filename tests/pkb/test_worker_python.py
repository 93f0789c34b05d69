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
"""The worker's pinned SDKs install on the Python of the matrices' images.

Every requirements file in configs/object_storage/ is resolved with pip
against PyPI's real metadata, every dependency included, for the Python
of each local cloud image (pkb_ext.local.images) and the Python that
preflight.OS_PYTHON gives each os_type of configs/machines/*.yaml, on
x86_64 and aarch64 (the matrices have both): `pip install --dry-run
--ignore-installed --only-binary=:all: --python-version X.Y --platform
manylinux_2_N_ARCH ...`, N up to 28 (every os_type in OS_PYTHON with Python
>= 3.10 has glibc >= 2.28). The `# Requires-Python: >=X.Y` line each file states, which
preflight refuses older os_types by, is checked the same way: the file
resolves at X.Y and not one minor version below. Needs PyPI.
"""

import glob
import os
import subprocess
import sys

from absl.testing import absltest
from perfkitbenchmarker import os_types
import yaml

from pkb_ext.local import images
from pkb_ext import paths
from pkb_ext.suite import preflight

CONFIGS = os.path.join(paths.RepoRoot(), 'configs')
REQUIREMENTS = sorted(
    glob.glob(os.path.join(CONFIGS, 'object_storage', 'requirements-*.txt'))
)
ARCHES = ('x86_64', 'aarch64')


def MatrixOsTypes() -> set[str]:
  """Every os_type a configs/machines matrix runs on (PKB's default if none)."""
  found = set()
  for path in glob.glob(os.path.join(CONFIGS, 'machines', '*.yaml')):
    with open(path) as f:
      for config in yaml.safe_load(f).values():
        values = [(config.get('flags') or {}).get('os_type')]
        for matrix in (config.get('flag_matrix_defs') or {}).values():
          values.extend(matrix.get('os_type') or [])
        found.update(v for v in values if v)
        if not any(values):
          found.add(os_types.DEFAULT)
  return found


def Resolve(requirements: str, python: tuple[int, int], arch: str):
  """Resolves a requirements file for a Python and CPU on PyPI.

  Returns:
    (whether pip found a distribution for every requirement, pip's last
    error line).
  """
  # pip takes each platform tag literally: name every glibc up to 2.28.
  platforms = [f'manylinux2014_{arch}'] + [
      f'manylinux_2_{minor}_{arch}' for minor in range(17, 29)
  ]
  done = subprocess.run(
      [
          sys.executable, '-m', 'pip', 'install', '--dry-run', '--quiet',
          '--ignore-installed', '--only-binary=:all:',
          '--python-version', '.'.join(map(str, python)),
          *(f'--platform={p}' for p in platforms),
          '-r', requirements,
      ],  # fmt: skip
      capture_output=True,
      text=True,
      timeout=600,
      check=False,
      env=dict(os.environ, PIP_DISABLE_PIP_VERSION_CHECK='1'),
  )
  errors = [l for l in done.stderr.splitlines() if l.startswith('ERROR')]
  return done.returncode == 0, (errors or [''])[-1][:300]


class WorkerPythonTest(absltest.TestCase):

  def testTheFilesAreFound(self):
    self.assertLen(REQUIREMENTS, 3)

  def testEveryMatrixOsTypeInstallsThePins(self):
    matrix_os_types = MatrixOsTypes()
    self.assertNotEmpty(matrix_os_types)
    for os_type in sorted(matrix_os_types):
      self.assertIn(os_type, preflight.OS_PYTHON, 'no Python known for it')
      python = preflight.OS_PYTHON[os_type]
      for requirements in REQUIREMENTS:
        for arch in ARCHES:
          with self.subTest(os_type=os_type, file=requirements, arch=arch):
            ok, error = Resolve(requirements, python, arch)
            self.assertTrue(
                ok,
                f'{os_type} (Python {".".join(map(str, python))}) cannot'
                ' install'
                f' {os.path.basename(requirements)} on {arch}: {error}',
            )

  def testEveryLocalCloudImageInstallsThePins(self):
    # The local cloud's hosts install them on their image's own Python.
    for image in images.IMAGES.values():
      python = tuple(int(v) for v in image.python.split('.'))
      for requirements in REQUIREMENTS:
        with self.subTest(image=image.name, file=requirements):
          ok, error = Resolve(requirements, python, 'x86_64')
          self.assertTrue(ok, f'{image.name} (Python {image.python}): {error}')

  def testRequiresPythonLineIsTheFloor(self):
    for requirements in REQUIREMENTS:
      floor = preflight.RequiresPython(requirements)
      below = (floor[0], floor[1] - 1)
      with self.subTest(file=requirements):
        ok, error = Resolve(requirements, floor, 'x86_64')
        self.assertTrue(ok, f'{floor}: {error}')
        ok, _ = Resolve(requirements, below, 'x86_64')
        self.assertFalse(ok, f'{requirements} installs on Python {below} too')


if __name__ == '__main__':
  absltest.main()
