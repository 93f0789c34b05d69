#!/bin/bash
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
#
# Re-captures the io_guard probe outputs in this directory (PROVENANCE.md).
# Needs root. Usage: sudo tests/data/fio/capture_probe.sh ROOT_DEVICE
# Makes a 64 MiB file in a private temp dir, attaches it as a loop device,
# probes it unmounted and mounted (ext4, mounted in the temp dir), probes the
# root device and a regular file, then unmounts and detaches exactly it.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
root_dev=${1:?usage: $0 ROOT_DEVICE (e.g. /dev/vda)}
tmp=$(mktemp -d /tmp/pkb-ext-fio-probe.XXXXXX)
dev=''
cleanup() {
  if mountpoint -q "$tmp/mnt"; then umount "$tmp/mnt"; fi
  if [ -n "$dev" ]; then losetup -d "$dev"; fi
  rm -rf "$tmp"
}
trap cleanup EXIT
probe() {
  "$root/.venv/bin/python" -c \
    'import sys; from benchmarks.cloud_report.disk import guard as io_guard; print(io_guard.ProbeCommand(sys.argv[1]))' \
    "$1" 2>/dev/null | bash
}
truncate -s 64M "$tmp/disk.img"
dev=$(losetup --find --show --direct-io=on "$tmp/disk.img")
probe "$dev" > "$here/probe_loop_unmounted.txt"
mkfs.ext4 -q -F "$dev"
mkdir "$tmp/mnt"
mount "$dev" "$tmp/mnt"
probe "$dev" > "$here/probe_loop_mounted.txt"
probe "$root_dev" > "$here/probe_root_disk.txt"
probe "$tmp/disk.img" > "$here/probe_regular_file.txt"
echo "probed $dev (mounted on $tmp/mnt) and $root_dev"
