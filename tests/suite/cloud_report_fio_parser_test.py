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
"""Tests for the 2021 Cloud Report's fio parser on real fio 3.33 JSON."""

import json
import os
import unittest

from benchmarks.cloud_report import parsers
from pkb_ext.suite import phase_table
from pkb_ext.suite.disk import parser as fio
from pkb_ext.suite.disk import samples as phase_samples
from tests import pkb_common_test_case

_DATA_DIR = os.path.join(os.path.dirname(__file__), os.pardir, 'data')


def _Read(tool, name):
  with open(os.path.join(_DATA_DIR, tool, name), encoding='utf-8') as f:
    return f.read()


class FioTest(pkb_common_test_case.PkbCommonTestCase):
  """fio JSON of the report's job file."""

  def testOneJobOfTheReportsJobFile(self):
    """A job is parsed with its own and the global options."""
    text = _Read('fio', 'job_rd-iops.json')
    doc = json.loads(text)
    result = fio.Parse(text)
    self.assertEqual(result.fio_version, doc['fio version'])
    self.assertEqual(
        [j.name for j in result.jobs], [j['jobname'] for j in doc['jobs']]
    )
    rd_iops = result.Job('rd-iops')
    self.assertEqual(rd_iops.Option('rw'), 'randread')
    self.assertEqual(rd_iops.Option('numjobs'), '4')
    self.assertEqual(rd_iops.Option('iodepth'), '512')
    self.assertEqual(rd_iops.Option('ioengine'), 'libaio')

  def testLatencyTarget(self):
    target = fio.Parse(_Read('fio', 'job_target.json')).Job('target')
    self.assertEqual(target.latency_target.target_us, 1_000_000)
    self.assertEqual(target.latency_target.window_us, 10_000_000)
    self.assertEqual(target.latency_target.percentile, 95.0)

  def testFioErrorIsRejected(self):
    with self.assertRaises(parsers.ParseError):
      fio.Parse(_Read('fio', 'bad_option.txt'))


class SamplesTest(pkb_common_test_case.PkbCommonTestCase):

  def testSamplesAreInThePhasesCatalog(self):
    samples = phase_samples.FromResult(
        fio.Parse(_Read('fio', 'job_rd-iops.json'))
    )
    self.assertNotEmpty(samples)
    for s in samples:
      self.assertIn(s.metric, phase_samples.METRICS)

  def testTheToolIsThePhasesPackage(self):
    self.assertEqual(
        phase_table.ByTool('fio').package,
        phase_samples.__name__.rsplit('.', 2)[-2],
    )


if __name__ == '__main__':
  unittest.main()
