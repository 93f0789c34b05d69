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
"""Tests for the results summary a run ends with."""

import json
import os
import pathlib
import tempfile

from absl.testing import absltest

from pkb_ext.publish import schema
from pkb_ext.publish import spool
from pkb_ext.publish import summary
from pkb_ext.suite.object_storage import parser as ttfb
from pkb_ext.suite.object_storage import samples as os_samples
from pkb_ext_dev import analysis_fixture as fx

_DATA = pathlib.Path(__file__).parent.parent / 'data'
_AWS = {'cloud': 'AWS', 'machine_type': 'c5a.4xlarge', 'zone': 'us-east-1a'}
_GCP = {'cloud': 'GCP', 'machine_type': 'n2-standard-16', 'zone': 'us-east1-b'}


def _S(metric, value, unit, config, uri, **metadata):
  return {
      'metric': metric,
      'value': value,
      'unit': unit,
      'metadata': config | metadata,
      'sample_uri': uri,
  }


def _Known():
  """Two configurations, every headline figure, and samples that are none."""
  cpu = {'phase': 'cpu'}
  rr = {'phase': 'net', 'netperf_test': 'TCP_RR'}
  return [
      _S('coremark_score', 1000.0, 'iterations/sec', _AWS, 'a1',
         mode='single', **cpu),
      _S('coremark_score', 1100.0, 'iterations/sec', _AWS, 'a2',
         mode='single', **cpu),
      _S('coremark_score', 16000.0, 'iterations/sec', _AWS, 'a3',
         mode='all', **cpu),
      _S('coremark_score_mean', 9.0, 'iterations/sec', _AWS, 'a4',
         mode='all', **cpu),
      _S('fio_iops', 3000.0, 'ops/s', _AWS, 'a5', phase='io',
         fio_job='rd-iops', direction='read'),
      _S('fio_iops', 2500.0, 'ops/s', _AWS, 'a6', phase='io',
         fio_job='wr-iops', direction='write'),
      _S('fio_iops', 7.0, 'ops/s', _AWS, 'a7', phase='io',
         fio_job='rd-latency', direction='read'),
      _S('netperf_latency_p50', 45.25, 'us', _AWS, 'a8', **rr),
      _S('netperf_latency_p99', 80.0, 'us', _AWS, 'a9', **rr),
      _S('netperf_throughput', 9400.0, 'Mbit/s', _AWS, 'a10', phase='net',
         netperf_test='TCP_STREAM', streams=1),
      _S('netperf_throughput', 20000.0, 'Mbit/s', _AWS, 'a11', phase='net',
         netperf_test='TCP_STREAM', streams=8),
      _S('object_storage_ttfb', 12.5, 'ms', _AWS, 'a12',
         phase='object_storage', provider='s3', workload='latency', op='get',
         connection='reused', statistic='p50'),
      _S('object_storage_ttfb', 30.0, 'ms', _AWS, 'a13',
         phase='object_storage', provider='s3', workload='latency', op='get',
         connection='new', statistic='p50'),
      _S('tpcc_max_passing_warehouses', 1200, 'warehouses', _AWS, 'a14',
         phase='tpcc'),
      _S('tpcc_max_passing_tpmc', 14500.4, 'tpmC', _AWS, 'a15',
         phase='tpcc'),
      _S('coremark_score', 900.0, 'iterations/sec', _GCP, 'g1',
         mode='single', **cpu),
      # Another data disk is another configuration.
      _S('fio_iops', 15000.0, 'ops/s', _GCP | {'disk_type': 'pd-ssd'}, 'g3',
         phase='io', fio_job='rd-iops', direction='read'),
      # PKB's own samples name no phase; a repeated sample counts once.
      _S('lscpu', 0.0, '', _GCP, 'g2'),
      _S('coremark_score', 1100.0, 'iterations/sec', _AWS, 'a2',
         mode='single', **cpu),
  ]  # fmt: skip


class FormatTest(absltest.TestCase):

  def testKnownSamples(self):
    text = summary.Format(_Known(), '/runs/r1/cloud_report_samples-r1.ndjson')
    w = summary._LABEL_WIDTH  # pylint: disable=protected-access

    def Line(label, amount, unit):
      return f'  {label:{w}} {amount:>12} {unit}'

    path = '/runs/r1/cloud_report_samples-r1.ndjson'
    self.assertEqual(
        text.splitlines(),
        [
            '-' * 25 + 'cloud_report results' + '-' * 25,
            'AWS c5a.4xlarge us-east-1a:',
            Line('CoreMark single-core', '1,050', 'iterations/sec')
            + ' (mean of 2)',
            Line('CoreMark all-core', '16,000', 'iterations/sec'),
            Line('fio read IOPS', '3,000', 'ops/s'),
            Line('fio write IOPS', '2,500', 'ops/s'),
            Line('netperf TCP_RR p50', '45.2', 'us'),
            Line('netperf TCP_RR p99', '80', 'us'),
            Line('netperf TCP_STREAM 1 stream', '9,400', 'Mbit/s'),
            Line('object storage TTFB p50 GET s3', '12.5', 'ms'),
            Line('TPC-C max passing warehouses', '1,200', 'warehouses'),
            Line('TPC-C tpmC at max warehouses', '14,500', 'tpmC'),
            'GCP n2-standard-16 us-east1-b:',
            Line('CoreMark single-core', '900', 'iterations/sec'),
            'GCP n2-standard-16 us-east1-b pd-ssd:',
            Line('fio read IOPS', '15,000', 'ops/s'),
            f'Samples (NDJSON): {path}',
            f'Build the report: pkb-ext report --samples {path} --out DIR',
            (
                f'Publish them:     pkb-ext publish {path} --table'
                ' PROJECT.DATASET.TABLE'
            ),
        ],
    )

  def testNoHeadlineFigureSaysSo(self):
    text = summary.Format([_S('lscpu', 0.0, '', _GCP, 'x')], 'my file')
    self.assertIn('No headline figure of the report', text)
    self.assertIn("pkb-ext report --samples 'my file' --out DIR", text)

  def testAValueThatIsNoNumberIsIgnored(self):
    rows = [
        _S('fio_iops', v, 'ops/s', _AWS, str(i), phase='io',
           fio_job='rd-iops', direction='read')
        for i, v in enumerate([None, 'x', float('nan'), True, 10.0])
    ]  # fmt: skip
    (figures,) = summary.Headlines(rows).values()
    self.assertEqual(
        figures, [summary.Value('fio read IOPS', 10.0, 1, 'ops/s')]
    )

  def testLabelsMetadataOfPkbJsonIsReadToo(self):
    row = _S('coremark_score', 5.0, 'iterations/sec', _AWS, 'u', phase='cpu',
             mode='single')  # fmt: skip
    row['metadata'] = json.dumps(row['metadata'])
    self.assertLen(summary.Headlines([row]), 1)

  def testTheRealPhasesSamplesHaveTheirFigures(self):
    # The analysis fixture's samples are shaped as the phases make them.
    headlines = summary.Headlines(fx.Samples())
    self.assertNotEmpty(headlines)
    every = [f.label for f in summary.FIGURES if f.per is None]
    for config, figures in headlines.items():
      labels = [v.label for v in figures]
      if labels != every:  # no tpmC where no TPC-C step passed
        self.assertEqual(labels, every[:-1], config)
        self.assertEqual(figures[-1].mean, 0, config)
    result = ttfb.Parse(
        (_DATA / 'ttfb' / 's3_boto3_complete.jsonl').read_text()
    )
    samples = [s.asdict() for s in os_samples.FromResult(result)]
    for s in samples:
      s['metadata'] |= _AWS | {'phase': 'object_storage'}
    (figures,) = summary.Headlines(samples).values()
    self.assertEqual(
        [v.label for v in figures], ['object storage TTFB p50 GET s3']
    )


class ReadRowsTest(absltest.TestCase):

  def testASpoolReadsBackAsTheSameFigures(self):
    path = os.path.join(tempfile.mkdtemp(), 'spool.ndjson')
    samples = [
        dict(s, timestamp=1609462801.0, run_uri='r1') for s in _Known()[:-1]
    ]
    spool.AppendSamples(path, samples, 100)
    with open(path, 'a') as f:
      f.write('{torn line\n[1, 2]\n')
    rows = summary.ReadRows([path])
    self.assertLen(rows, len(samples))
    self.assertEqual(
        summary.Headlines(rows),
        summary.Headlines(schema.RowsFromSamples(samples)),
    )
    self.assertEqual(summary.Headlines(rows), summary.Headlines(_Known()))


if __name__ == '__main__':
  absltest.main()
