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
# Re-captures the fio outputs in this directory (see PROVENANCE.md).
# Needs root (losetup), fio and the repo's .venv. Usage:
#   sudo tests/data/fio/capture.sh [RUNTIME_S]
# Makes a 1 GiB file in a private temp dir, attaches it with
# losetup --direct-io=on, and detaches exactly that device at exit.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
runtime=${1:-3}
tmp=$(mktemp -d /tmp/pkb-ext-fio-capture.XXXXXX)
dev=''
cleanup() {
  if [ -n "$dev" ]; then losetup -d "$dev"; fi
  rm -rf "$tmp"
}
trap cleanup EXIT
truncate -s 1G "$tmp/disk.img"
dev=$(losetup --find --show --direct-io=on "$tmp/disk.img")
echo "capturing on $dev (runtime ${runtime}s)"

# The phase's job file, rendered for this 1 GiB device with short runtimes.
"$root/.venv/bin/python" - "$runtime" > "$here/cloud_report_2021.fio" <<'EOF'
import dataclasses, sys
from absl import flags
from pkb_ext import registry
from benchmarks.cloud_report.disk import stages as io
registry.Register()
flags.FLAGS.mark_as_parsed()
p = dataclasses.replace(io.Params(), runtime_s=int(sys.argv[1]), ramp_time_s=1)
print(io.RenderJobFile(io.JobFileContext(p, 1 << 30)), end='')
EOF

fio=(fio --output-format=json --filename="$dev")
# One invocation per job, as the phase runs them.
for job in fill-disk-ignore wr-bw wr-iops wr-latency rd-bw rd-iops \
    rd-latency target; do
  "${fio[@]}" --section="$job" "$here/cloud_report_2021.fio" \
      > "$here/job_${job}.json"
done
# All jobs in one invocation, as the report's fio.sh ran them.
"${fio[@]}" "$here/cloud_report_2021.fio" > "$here/all_jobs.json"
# A note fio prints on stdout before the JSON.
"${fio[@]}" --name=psync-note --ioengine=psync --iodepth=4 --rw=randread \
    --bs=4k --direct=1 --time_based --runtime=1 > "$here/note_before_json.json"
# A job that fails: reading an empty regular file (error 22).
: > "$tmp/empty"
fio --output-format=json --name=empty-file --filename="$tmp/empty" \
    --rw=randread --bs=4k --runtime=1 > "$here/job_error.json" 2>/dev/null || true
# A bad command line: fio prints only an error (stderr, kept here).
fio --output-format=json --bogus-option=1 "$here/cloud_report_2021.fio" \
    > "$here/bad_option.txt" 2>&1 || true
fio --version > "$here/fio_version.txt"
