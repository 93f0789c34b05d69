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
"""Object storage phase: time to first byte and throughput (seed study 002).

From the client VM to a bucket in the VM's region, the worker (data file
object_storage/ttfb_worker.py, run with the VM's python3 and the provider's
SDK) runs PKB's object storage TimeToFirstByte scenario code (ttfb.py on the
provider's service interface, among PKB's object storage API scripts) to
time PUTs and GETs: TTFB over 1,000 small-object requests on new and
on reused connections, single-stream throughput over 100 transfers per size
from 16 KiB to 32 MiB, and aggregate throughput at 1/5/10/20 simultaneous
32 MiB transfers. cloud_report.object_storage.parser turns its raw timings into
percentiles and throughput samples.

  params    the flags, read once into Params;
  buckets   who makes the bucket: PKB's service of the VM's cloud (or an
            endpoint's, pkb_ext.object_storage_endpoints);
  worker    the worker's config, command and output;
  parser    the worker's timings -> percentiles and throughputs (pure);
  samples   its metric catalog and samples;
  stages    the phase's functions (see phases.py).

Errors that stop the phase are one line naming the provider and where it
was reached (a back-end's endpoint, or the cloud's service and region).
"""
