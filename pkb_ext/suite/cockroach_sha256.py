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
"""The sha256 the suite checks CockroachDB v20.2.7's amd64 tarball against.

The cockroachdb package pins no sha256. The suite passes this one, for the
report's release, as --cloud_report_cockroachdb_sha256=amd64=<sha256> in its
configuration's flags (ConfigFlags), so that `pkb.py
--benchmarks=cloud_report_2021` installs v20.2.7 on amd64 machines with no
checksum flag; their samples say cockroach_sha256_source=flag. A sha256
given on the command line or in a config file's flags wins over it, and it
is not passed where the amd64 machines run another release. The machine
matrices (configs/machines/*.yaml) rely on it for their x86 machines.
"""

from linux_packages import cloud_report_cockroachdb as cockroachdb

# Source: the sha256sums entry for
# https://binaries.cockroachdb.com/cockroach-v20.2.7.linux-amd64.tgz in the
# Arch User Repository's cockroachdb-bin PKGBUILD, pkgver 20.2.7, pkgrel 1
# (https://aur.archlinux.org/cgit/aur.git/tree/PKGBUILD?h=cockroachdb-bin,
# mirrored on GitHub as archlinux/aur, branch cockroachdb-bin), read
# 2026-11-22 and again 2026-11-28. It is the only public source found, a
# third-party build recipe: the tarball could not be downloaded and hashed.
VERSION = 'v20.2.7'
SHA256 = '498f99c751daaa2665dffbe98265605ab257bdb80581256b9a517ecc4c5f7c82'
FLAG = 'cloud_report_cockroachdb_sha256'


def ConfigFlags() -> dict[str, str]:
  """The suite config's flag giving SHA256, where the amd64 release is VERSION.

  Reads the release from the flags (cockroachdb.VersionFor), as they are
  while PKB builds the configuration: the command line's and the config
  file's.
  """
  if cockroachdb.VersionFor('amd64') != VERSION:
    return {}
  return {FLAG: f'amd64={SHA256}'}
