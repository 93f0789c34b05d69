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
"""The local cloud: the report's 4 hosts as namespaces on this machine.

`pkb-ext local up` (pkb_ext.local.cli) builds db1, db2, db3 and client, each
a network namespace on a private bridge with its own sshd, a NOPASSWD-sudo
user, private /tmp, /home, /run, a root file system of its own (an overlay
of a Debian image built with mmdebstrap, see images; or, with --image=host,
of this machine's /usr, /etc, /var, /opt) and (db hosts) a direct-I/O loop
device as data disk; it writes a PKB static VM file. See
docs/local_cloud.md.

What a phase needs to know, from inside PKB (no root, no import of the rest
of this package):

  vm.install_packages    True on an image: PKB installs as on a cloud VM,
                         apt and pip through caching proxies on the bridge
                         (see mirrors). False with --image=host: vm.Install()
                         and vm.InstallPackages() do nothing there, the hosts
                         use the Debian packages this machine has
  BIN_DIR                with --image=host only, /opt/pkb-ext/bin on every
                         host: the go-tpc binary built by
                         scripts/setup.d/50-go-tools.sh (also first on the
                         PATH of ssh commands and of sudo)
"""

HOST_ROOT = '/opt/pkb-ext'
BIN_DIR = HOST_ROOT + '/bin'
MARKER = HOST_ROOT + '/host.json'
LOG_DIR = HOST_ROOT + '/log'
COMMAND_LOG = LOG_DIR + '/commands.log'
GUARD_LOG = LOG_DIR + '/guard.log'


def BinaryPath(name: str) -> str:
  """Returns where a cached binary (minio, go-tpc) is on a local host."""
  return f'{BIN_DIR}/{name}'
