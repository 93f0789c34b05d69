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
"""Samples of the net phase (netperf TCP_RR and TCP_STREAM).

Latency statistics in microseconds, the transaction rate, and stream
throughput in Mbit/s. The netperf test (TCP_RR, TCP_STREAM), the number of
concurrent streams and the confidence settings are metadata; a sample's
`iteration` is its repetition, 1..N. With -I, the confidence result (met or
not, the achieved width) is metadata too, as are netperf's own warnings.
"""

import collections
from typing import Any, Mapping, Sequence

from perfkitbenchmarker import sample

from pkb_ext.suite import samples as samples_lib
from pkb_ext.suite.net import parser as netperf_parser
from pkb_ext.suite import stats

LATENCY_UNIT = 'us'
METRICS = {
    'netperf_latency_min': LATENCY_UNIT,
    'netperf_latency_mean': LATENCY_UNIT,
    'netperf_latency_p50': LATENCY_UNIT,
    'netperf_latency_p90': LATENCY_UNIT,
    'netperf_latency_p99': LATENCY_UNIT,
    'netperf_latency_max': LATENCY_UNIT,
    'netperf_latency_stddev': LATENCY_UNIT,
    'netperf_transaction_rate': 'transactions/s',
    'netperf_throughput': 'Mbit/s',  # summed over concurrent streams
}
# The metrics the bimodality check looks at across repetitions.
BIMODAL_METRICS = (
    'netperf_throughput',
    'netperf_transaction_rate',
    'netperf_latency_p90',
)
_INT_FIELDS = {
    'REQUEST_SIZE': 'request_size_bytes',
    'RESPONSE_SIZE': 'response_size_bytes',
    'LOCAL_SEND_SIZE': 'send_size_bytes',
    'REMOTE_RECV_SIZE': 'remote_recv_size_bytes',
    'TRANSPORT_MSS': 'transport_mss_bytes',
    'LOCAL_TRANSPORT_RETRANS': 'local_retransmissions',
    'REMOTE_TRANSPORT_RETRANS': 'remote_retransmissions',
}


def ConfidenceMetadata(
    confidence: netperf_parser.Confidence | None,
) -> dict[str, Any]:
  """The confidence result as metadata; absent keys: netperf did not say."""
  if confidence is None:
    return {'confidence_requested': False}
  md = {
      'confidence_requested': True,
      'confidence_level_pct': confidence.level_pct,
      'confidence_width_target_pct': confidence.width_target_pct,
  }
  if confidence.width_pct is not None:
    md['confidence_width_pct'] = confidence.width_pct
  if confidence.iterations is not None:
    md['confidence_iterations'] = confidence.iterations
  if confidence.met is not None:
    md['confidence_met'] = confidence.met
  return md


def ResultMetadata(result: netperf_parser.Result) -> dict[str, Any]:
  """The metadata one parsed run contributes."""
  md = {
      'netperf_test': result.test,
      'output_style': result.style,
      'netperf_warnings': list(result.warnings),
  } | ConfidenceMetadata(result.confidence)
  if result.elapsed_s is not None:
    md['elapsed_s'] = result.elapsed_s
  for selector, key in _INT_FIELDS.items():
    raw = result.Field(selector)
    if raw:
      md[key] = int(float(raw))
  printed_rate = result.Field('TRANSACTION_RATE') is not None
  if printed_rate and result.throughput is not None:
    # With -I, netperf's THROUGHPUT is the mean over its iterations while
    # TRANSACTION_RATE (the report's column) is the last iteration's.
    md['transaction_rate_mean_over_iterations'] = result.throughput
  if result.transaction_rate is not None:
    md['transaction_rate_selector'] = (
        'TRANSACTION_RATE' if printed_rate else 'THROUGHPUT'
    )
  return md


def FromResult(
    result: netperf_parser.Result,
    metadata: Mapping[str, Any] | None = None,
    iteration: int = 1,
) -> list[sample.Sample]:
  """Returns the samples of one parsed netperf run.

  Args:
    result: a parsed netperf output.
    metadata: extra metadata (the phase's settings).
    iteration: the repetition, 1-based.
  """
  md = dict(metadata or {}) | ResultMetadata(result) | {'iteration': iteration}
  md.setdefault('streams', 1)
  out = []
  if result.latency_us is not None:
    for stat in netperf_parser.LATENCY_SELECTORS:
      value = getattr(result.latency_us, stat)
      if value is not None:
        out.append(
            samples_lib.Make(METRICS, f'netperf_latency_{stat}', value, md)
        )
  if result.transaction_rate is not None:
    out.append(
        samples_lib.Make(
            METRICS, 'netperf_transaction_rate', result.transaction_rate, md
        )
    )
  if result.throughput_mbps is not None:
    out.append(
        samples_lib.Make(
            METRICS, 'netperf_throughput', result.throughput_mbps, md
        )
    )
  return out


def FromStreams(
    results: Sequence[netperf_parser.Result],
    metadata: Mapping[str, Any] | None = None,
    iteration: int = 1,
) -> list[sample.Sample]:
  """Returns the summed throughput sample of concurrent stream runs.

  Args:
    results: one parsed run per concurrent netperf process.
    metadata: extra metadata (the phase's settings).
    iteration: the repetition, 1-based.

  Raises:
    ValueError: no results, or one without a stream throughput.
  """
  if not results:
    raise ValueError('no netperf stream results to sum')
  if len(results) == 1:
    return FromResult(results[0], metadata, iteration)
  per_stream = [r.throughput_mbps for r in results]
  if any(v is None for v in per_stream):
    raise ValueError('a concurrent netperf run has no stream throughput')
  confidences = [r.confidence for r in results]
  md = dict(metadata or {}) | {
      'netperf_test': results[0].test,
      'output_style': results[0].style,
      'streams': len(results),
      'iteration': iteration,
      'stream_throughputs_mbps': per_stream,
      'netperf_warnings': [w for r in results for w in r.warnings],
  }
  if all(c is None for c in confidences):
    md['confidence_requested'] = False
  else:
    md |= ConfidenceMetadata(next(c for c in confidences if c))
    for key in ('confidence_width_pct', 'confidence_iterations'):
      md.pop(key, None)
    mets = [c.met if c else None for c in confidences]
    md.pop('confidence_met', None)
    if all(m is not None for m in mets):
      md['confidence_met'] = all(mets)
    widths = [c.width_pct for c in confidences if c and c.width_pct is not None]
    if widths:
      md['confidence_width_pct_max'] = max(widths)
  return [samples_lib.Make(METRICS, 'netperf_throughput', sum(per_stream), md)]


def FlagBimodality(samples: Sequence[sample.Sample]) -> None:
  """Marks samples whose values across repetitions look bimodal.

  Groups BIMODAL_METRICS samples by (metric, netperf_test, streams) and sets
  `repetitions` on each, and, with 4 or more repetitions, `bimodal` (Sarle's
  coefficient > 5/9, cloud_report.stats.LooksBimodal) and the coefficient.
  The report saw ~5 vs ~10 Gbit/s on AWS network-optimized machines.

  Args:
    samples: the phase's samples; changed in place.
  """
  groups = collections.defaultdict(list)
  for s in samples:
    if s.metric in BIMODAL_METRICS:
      key = (s.metric, s.metadata.get('netperf_test'), s.metadata['streams'])
      groups[key].append(s)
  for group in groups.values():
    values = [s.value for s in group]
    flags = {'repetitions': len(values)}
    if len(values) >= 4:
      flags['bimodal'] = stats.LooksBimodal(values)
      if max(values) != min(values):
        flags['bimodality_coefficient'] = stats.BimodalityCoefficient(values)
    for s in group:
      s.metadata.update(flags)
