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
"""The object storage phase's expected wall time (pure; plan asks for it).

The worker's request count at REQUEST_S each, plus the bytes it moves at
MBPS.
"""

from pkb_ext.plan import estimates

REQUEST_S = 0.05
MBPS = 100


def Estimate(params, context: estimates.Context) -> list[estimates.Phase]:
  del context  # from the client VM, whatever its disks
  latency = params.latency_requests * 2 * 2  # PUT, GET; new, reused
  transfers = params.downloads_per_size * len(params.sizes) * 2
  transfer_bytes = params.downloads_per_size * sum(params.sizes) * 2
  rounds = params.concurrency_rounds * len(params.concurrency)
  round_bytes = 2 * params.concurrency_object_bytes  # PUTs, then GETs
  requests = latency + transfers + 2 * rounds
  seconds = requests * REQUEST_S + (transfer_bytes + rounds * round_bytes) / (
      MBPS * 1e6
  )
  return [
      estimates.Phase(
          'object_storage',
          seconds,
          f'{latency} TTFB requests, {transfers} transfers'
          f' ({transfer_bytes / 1e9:.1f} GB), {rounds} concurrency rounds;'
          f' ~{REQUEST_S * 1000:g} ms a request, ~{MBPS} MB/s',
      )
  ]
