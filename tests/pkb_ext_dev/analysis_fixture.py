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
"""A synthetic sample set for the analysis: 3 clouds x 2 machines.

It is shaped like the published samples (PKB's columns, a metadata object
with the common cloud report keys, a top-level cloud) and designed so that
the report's ranking follows from it, cell by cell (EXPECTED_RANKING), with
the report's two pitfalls in it:

- AWS x1e.4xlarge (io2) drives 53,427 read IOPS against its 10,000 IOPS
  limit: left out of the ranking, or AWS would win read IOPS;
- its network throughput runs are bimodal (~4.9 vs ~9.6 Gbit/s).

Every configuration's runs scatter symmetrically around the DESIGN value, so
the mean of the runs is the design value exactly. Noise rows (summary
metrics, other percentiles, other jobs) check that the filters select.

`python -m pkb_ext_dev.analysis_fixture OUT.ndjson` writes the file kept
in tests/data/analysis/samples_3x2.ndjson.
"""

import csv
import hashlib
import json
import os
import sys

from pkb_ext import paths

# The report's machine list (Appendix I), beside the repository.
MACHINES_CSV = os.path.join(
    os.path.dirname(paths.RepoRoot()), 'shared', 'report2021', 'machines.csv'
)
# machines.csv disk names -> PKB disk types.
CSV_DISKS = {
    'io2': 'io2',
    'gp2': 'gp2',
    'pd-ssd': 'pd-ssd',
    'premium': 'Premium_LRS',
    'ultra': 'UltraSSD_LRS',
}


def ReportMachines() -> list[dict[str, str]] | None:
  """Rows of machines.csv, or None when shared/ is not beside the repo."""
  if not os.path.exists(MACHINES_CSV):
    return None
  with open(MACHINES_CSV, encoding='utf-8') as f:
    return list(csv.DictReader(f))


CONFIGS = {
    # key: (cloud, machine_type, disk_type, provisioned_iops, provisioned_mbps,
    #       zone, vcpus, cpu_platform)
    'aws_c5a': ('AWS', 'c5a.4xlarge', 'gp2', None, None, 'us-east-1a'),
    'aws_x1e': ('AWS', 'x1e.4xlarge', 'io2', 5400, None, 'us-east-1a'),
    'gcp_c2': ('GCP', 'c2-standard-16', 'pd-ssd', None, None, 'us-east1-b'),
    'gcp_n2': ('GCP', 'n2-standard-16', 'pd-ssd', None, None, 'us-east1-b'),
    'az_f16': (
        'Azure',
        'Standard_F16s_v2',
        'UltraSSD_LRS',
        5400,
        300,
        'eastus-1',
    ),
    'az_e16': (
        'Azure',
        'Standard_E16as_v4',
        'UltraSSD_LRS',
        5400,
        300,
        'eastus-1',
    ),
}

# Design means per benchmark and configuration (units of benchmarks.sql).
DESIGN = {
    'cpu_1core': {
        'aws_c5a': 26800,
        'aws_x1e': 20000,
        'gcp_c2': 31000,
        'gcp_n2': 28500,
        'az_f16': 28200,
        'az_e16': 27000,
    },
    'cpu_16core': {
        'aws_c5a': 308852,
        'aws_x1e': 180000,
        'gcp_c2': 293400,
        'gcp_n2': 250000,
        'az_f16': 260000,
        'az_e16': 287200,
    },
    'net_throughput': {
        'aws_c5a': 9280,
        'aws_x1e': 7250,
        'gcp_c2': 24600,
        'gcp_n2': 23000,
        'az_f16': 7300,
        'az_e16': 6100,
    },
    'net_latency': {
        'aws_c5a': 64,
        'aws_x1e': 80,
        'gcp_c2': 102,
        'gcp_n2': 120,
        'az_f16': 89,
        'az_e16': 110,
    },
    'read_iops': {
        'aws_c5a': 7550,
        'aws_x1e': 53427,
        'gcp_c2': 7600,
        'gcp_n2': 23650,
        'az_f16': 24000,
        'az_e16': 24900,
    },
    'write_iops': {
        'aws_c5a': 7500,
        'aws_x1e': 9800,
        'gcp_c2': 3500,
        'gcp_n2': 22000,
        'az_f16': 23800,
        'az_e16': 24500,
    },
    'read_throughput': {
        'aws_c5a': 245,
        'aws_x1e': 215,
        'gcp_c2': 150,
        'gcp_n2': 551,
        'az_f16': 380,
        'az_e16': 370,
    },
    'write_throughput': {
        'aws_c5a': 196,
        'aws_x1e': 210,
        'gcp_c2': 80,
        'gcp_n2': 440,
        'az_f16': 376,
        'az_e16': 350,
    },
    'read_latency': {
        'aws_c5a': 2600,
        'aws_x1e': 2200,
        'gcp_c2': 3010,
        'gcp_n2': 1050,
        'az_f16': 1400,
        'az_e16': 1450,
    },
    'write_latency': {
        'aws_c5a': 1900,
        'aws_x1e': 1500,
        'gcp_c2': 2060,
        'gcp_n2': 980,
        'az_f16': 700,
        'az_e16': 720,
    },
}
# TPC-C steps: (warehouses, tpmC, p90 ms, passed). x1e never passes 2,500.
TPCC_STEPS = {
    'aws_c5a': [(2500, 30709, 1900, True), (2750, 27100, 7400, False)],
    'aws_x1e': [(2500, 21000, 9100, False)],
    'gcp_c2': [
        (2500, 31800, 700, True),
        (2750, 34900, 1300, True),
        (3000, 37048, 2600, True),
        (3250, 30500, 8800, False),
    ],
    'gcp_n2': [
        (2500, 31600, 1100, True),
        (2750, 33500, 3100, True),
        (3000, 29900, 9800, False),
    ],
    'az_f16': [(2500, 30200, 2500, True), (2750, 26000, 6900, False)],
    'az_e16': [(2500, 29900, 3300, True), (2750, 25800, 7700, False)],
}

# The ranking EXPECTED from the design: (cloud, best config) 1st, 2nd, 3rd.
EXPECTED_RANKING = {
    'cpu_1core': ('gcp_c2', 'az_f16', 'aws_c5a'),
    'cpu_16core': ('aws_c5a', 'gcp_c2', 'az_e16'),
    'net_throughput': ('gcp_c2', 'aws_c5a', 'az_f16'),
    'net_latency': ('aws_c5a', 'az_f16', 'gcp_c2'),
    'read_iops': ('az_e16', 'gcp_n2', 'aws_c5a'),  # x1e over its limit
    'write_iops': ('az_e16', 'gcp_n2', 'aws_x1e'),
    'read_throughput': ('gcp_n2', 'az_f16', 'aws_c5a'),
    'write_throughput': ('gcp_n2', 'az_f16', 'aws_x1e'),
    'read_latency': ('gcp_n2', 'az_f16', 'aws_x1e'),
    'write_latency': ('az_f16', 'gcp_n2', 'aws_x1e'),
    'max_tpm': ('gcp_c2', 'aws_c5a', 'az_f16'),
    'usd_per_tpm': ('aws_c5a', 'gcp_c2', 'az_f16'),
}
BIMODAL = {('aws_x1e', 'net_throughput')}
OVER_LIMIT = {('aws_x1e', 'read_iops')}

RUNS = {'cpu': 10, 'net': 12, 'io': 3}


def Offsets(n: int, scale: float) -> list[float]:
  """n offsets that sum to 0: +-scale, +-2 scale, ... (and 0 if n is odd)."""
  out = [0.0] if n % 2 else []
  for k in range(1, n // 2 + 1):
    out += [k * scale, -k * scale]
  return out


def _Row(key, metric, value, unit, phase, run, iteration, extra):
  cloud, machine, disk, iops, mbps, zone = CONFIGS[key]
  metadata = {
      'cloud': cloud,
      'region': zone.rsplit('-', 1)[0] if cloud == 'Azure' else zone[:-1],
      'zone': zone,
      'machine_type': machine,
      'vcpus': 16,
      'cpu_platform': 'fixture',
      'disk_type': disk,
      'disk_size_gb': 2500,
      'provisioned_iops': iops,
      'provisioned_mbps': mbps,
      'report_version': '2021',
      'phase': phase,
      'iteration': iteration,
  } | extra
  run_uri = f'{key}-{run}'
  digest = hashlib.sha1(
      json.dumps([metric, value, metadata], sort_keys=True).encode()
  ).hexdigest()[:16]
  return {
      'metric': metric,
      'value': float(value),
      'unit': unit,
      'timestamp': 1609459200.0 + run * 3600 + iteration,
      'test': 'cloud_report_2021',
      'official': False,
      'owner': 'fixture',
      'run_uri': run_uri,
      'sample_uri': f'{run_uri}-{digest}',
      'product_name': 'PerfKitBenchmarker',
      'metadata': metadata,
      'cloud': cloud,
  }


def _Cpu(key):
  rows = []
  for mode, bench in (('single', 'cpu_1core'), ('all', 'cpu_16core')):
    mean = DESIGN[bench][key]
    for i, d in enumerate(Offsets(RUNS['cpu'], mean * 0.002), 1):
      rows.append(
          _Row(
              key,
              'coremark_score',
              mean + d,
              'iterations/sec',
              'cpu',
              1,
              i,
              {'mode': mode},
          )
      )
    # A summary sample the ranking must not double count.
    rows.append(
        _Row(
            key,
            'coremark_score_mean',
            mean,
            'iterations/sec',
            'cpu',
            1,
            1,
            {'mode': mode},
        )
    )
  return rows


def _Net(key):
  rows = []
  mean = DESIGN['net_throughput'][key]
  if (key, 'net_throughput') in BIMODAL:
    values = [mean - 2350, mean + 2350] * (RUNS['net'] // 2)
  else:
    values = [mean + d for d in Offsets(RUNS['net'], mean * 0.01)]
  lat = DESIGN['net_latency'][key]
  lat_offsets = Offsets(RUNS['net'], 1.0)
  stream = {'netperf_test': 'TCP_STREAM', 'streams': 1}
  rr = {'netperf_test': 'TCP_RR', 'streams': 1}
  for i, v in enumerate(values, 1):
    rows.append(
        _Row(key, 'netperf_throughput', v, 'Mbit/s', 'net', 1, i, stream)
    )
    for stat, scale in (('p50', 0.6), ('p90', 0.8), ('p99', 1.0)):
      rows.append(
          _Row(
              key,
              f'netperf_latency_{stat}',
              lat * scale + lat_offsets[i - 1],
              'us',
              'net',
              1,
              i,
              rr,
          )
      )
  # An optional multi-stream run: not the report's single-stream figure.
  rows.append(
      _Row(
          key,
          'netperf_throughput',
          mean * 3,
          'Mbit/s',
          'net',
          1,
          1,
          stream | {'streams': 4},
      )
  )
  return rows


_FIO = {
    # benchmark: (job, direction, metric, unit)
    'read_iops': ('rd-iops', 'read', 'fio_iops', 'ops/s'),
    'write_iops': ('wr-iops', 'write', 'fio_iops', 'ops/s'),
    'read_throughput': ('rd-bw', 'read', 'fio_bandwidth', 'MB/s'),
    'write_throughput': ('wr-bw', 'write', 'fio_bandwidth', 'MB/s'),
    'read_latency': ('rd-latency', 'read', 'fio_clat_mean', 'us'),
    'write_latency': ('wr-latency', 'write', 'fio_clat_mean', 'us'),
}


def _Io(key):
  rows = []
  for bench, (job, direction, metric, unit) in _FIO.items():
    mean = DESIGN[bench][key]
    for run, d in enumerate(Offsets(RUNS['io'], mean * 0.01), 1):
      md = {'fio_job': job, 'direction': direction}
      rows.append(_Row(key, metric, mean + d, unit, 'io', run, 1, md))
      # The same job's other numbers, which must not be picked up.
      rows.append(
          _Row(
              key,
              'fio_clat_percentile',
              mean * 3,
              'us',
              'io',
              run,
              1,
              md | {'percentile': 99.0},
          )
      )
  return rows


def _Tpcc(key):
  """Samples as benchmarks.cloud_report.tpcc.samples makes them: steps, then the summary."""
  rows = []
  passing = None
  for i, (warehouses, tpmc, p90, passed) in enumerate(TPCC_STEPS[key], 1):
    md = {
        'active_warehouses': warehouses,
        'passed': passed,
        'pass_rule': 'p90_lt_5s',
    }
    rows.append(_Row(key, 'tpcc_tpmc', tpmc, 'tpmC', 'tpcc', 1, i, md))
    for stat, scale in (('p50', 0.5), ('p90', 1.0), ('p95', 1.2)):
      rows.append(
          _Row(
              key,
              'tpcc_latency',
              p90 * scale,
              'ms',
              'tpcc',
              1,
              i,
              md | {'stat': stat, 'transaction': 'newOrder'},
          )
      )
    rows.append(
        _Row(key, 'tpcc_step_passed', float(passed), 'bool', 'tpcc', 1, i, md)
    )
    if passed:
      passing = (i, warehouses, tpmc)
  rows.append(
      _Row(
          key,
          'tpcc_max_passing_warehouses',
          passing[1] if passing else 0,
          'warehouses',
          'tpcc',
          1,
          1,
          {'start_passed': passing is not None},
      )
  )
  if passing:
    rows.append(
        _Row(
            key,
            'tpcc_max_passing_tpmc',
            passing[2],
            'tpmC',
            'tpcc',
            1,
            passing[0],
            {'active_warehouses': passing[1]},
        )
    )
  return rows


def Samples() -> list[dict]:
  """Returns the fixture's sample rows."""
  rows = []
  for key in CONFIGS:
    rows += _Cpu(key) + _Net(key) + _Io(key) + _Tpcc(key)
  return rows


def Write(path: str) -> int:
  rows = Samples()
  with open(path, 'w', encoding='utf-8') as f:
    for row in rows:
      f.write(json.dumps(row, sort_keys=True) + '\n')
  return len(rows)


if __name__ == '__main__':
  print(Write(sys.argv[1]))
