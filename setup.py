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
"""Installs pkb-ext: the 2021 Cloud Report suite as a PKB extension.

Two kinds of code, kept apart. benchmarks/ and linux_packages/ mirror PKB's
linux_benchmarks/ and linux_packages/: what PKB needs to run the report. They
import only perfkitbenchmarker and themselves, and are installed under their
folders' names (import benchmarks.cloud_report.remote is
benchmarks/cloud_report/remote.py); PKB's own are perfkitbenchmarker.*, so
the names never clash. pkb_ext/ is what only this project has: the registry
and autoload, the command line, the local cloud, publishing and analysis. A
.pth file makes every interpreter of the environment load the extension into
stock pkb.py (see pkb_ext/autoload.py).

Test helpers and the bench harness (tests/pkb_ext_dev/) are not installed.
"""

import os

import setuptools
from setuptools.command import build_py
from setuptools.command import editable_wheel

_PTH = 'pkb_ext_autoload.pth'
_PTH_SOURCE = os.path.join('pkb_ext', _PTH)
# Installed package -> its top-level directory (configs/ holds data files,
# read as pkb_ext.configs).
_TOP_LEVEL = {
    'benchmarks': 'benchmarks',
    'linux_packages': 'linux_packages',
    'pkb_ext.configs': 'configs',
}


def _Packages() -> list[str]:
  """pkb_ext and the top-level directories, each with its sub-packages."""
  packages = setuptools.find_packages(
      include=['pkb_ext', 'pkb_ext.*'], exclude=['tests', 'tests.*']
  )
  for name, directory in _TOP_LEVEL.items():
    packages.append(name)
    packages += [f'{name}.{p}' for p in setuptools.find_packages(directory)]
  return packages


class BuildPy(build_py.build_py):
  """Copies the autoload .pth file to the root of the wheel."""

  def run(self):
    super().run()
    self.copy_file(_PTH_SOURCE, os.path.join(self.build_lib, _PTH))

  def get_outputs(self, include_bytecode=True):
    return super().get_outputs(include_bytecode) + [
        os.path.join(self.build_lib, _PTH)
    ]


class EditableWheel(editable_wheel.editable_wheel):
  """Adds the autoload .pth file to editable installs too."""

  def _select_strategy(self, name, tag, build_lib):
    return _AddPth(super()._select_strategy(name, tag, build_lib))


class _AddPth:
  """Wraps an editable strategy so the wheel also gets the .pth file."""

  def __init__(self, strategy):
    self._strategy = strategy

  def __call__(self, wheel, files, mapping):
    self._strategy(wheel, files, mapping)
    with open(_PTH_SOURCE, 'rb') as f:
      wheel.writestr(_PTH, f.read())

  def __enter__(self):
    self._strategy.__enter__()
    return self

  def __exit__(self, *args):
    return self._strategy.__exit__(*args)


_EXTRAS = {
    'bigquery': ['google-cloud-bigquery'],
    'analysis': ['duckdb', 'sqlglot', 'matplotlib', 'jinja2'],
    'object_storage': ['boto3', 'google-cloud-storage', 'azure-storage-blob'],
    'dev': [
        'pytest',
        'mock',
        'pyink',
        'freezegun',
        'hypothesis',
        'import-linter',
    ],
}


setuptools.setup(
    name='pkb-ext',
    version='0.1.0',
    description='The Cockroach Labs 2021 Cloud Report as a PKB extension.',
    license='Apache 2.0',
    python_requires='>=3.12',
    packages=_Packages(),
    package_dir=_TOP_LEVEL,
    package_data={
        'pkb_ext': [
            '*.pth',
            'analysis/sql/*.sql',
            'analysis/sql/compare/*.sql',
            'analysis/templates/*.j2',
            'publish/schema.json',
            'upstream/edits/*.txt',
        ],
        'pkb_ext.configs': [
            '*.yaml',
            '*/*.yaml',
            '*/*.j2',
            '*/*.fio',
            '*/*.py',
            # go-tpc's build module (go.mod, go.sum, tools.go)
            '*/*.mod',
            '*/*.sum',
            '*/*.go',
            # the TTFB worker's pinned SDKs (pip requirements)
            '*/*.txt',
        ],
    },
    install_requires=['absl-py', 'PyYAML', 'numpy', 'orjson>=3.9'],
    extras_require=_EXTRAS | {'test': sorted(set().union(*_EXTRAS.values()))},
    entry_points={'console_scripts': ['pkb-ext=pkb_ext.cli:main']},
    cmdclass={'build_py': BuildPy, 'editable_wheel': EditableWheel},
)
