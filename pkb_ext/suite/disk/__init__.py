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
"""The io phase: the report's fio job file on a db VM's raw disk.

Its samples say phase io; the package is named disk, because a package named
io would shadow the standard library's.

Its modules:
  params    the flags (cloud_report_fio_*), read once into Params;
  parser    fio's JSON output -> per-job results (pure);
  samples   the metric catalog and the samples of one job;
  stages    the phase's functions (see pkb_ext/suite/phases.py);
  guard     the check that the target is a raw, unmounted, non-boot disk;
  commands  the disk's shell commands and error text (pure), and the mount
            of a raw data disk for the tpcc phase's database.
"""
