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
"""io samples of both versions of the io phase have the same shape.

tests/data/fio/parser_before_pkb.py.txt is the io phase's own fio parser
before the phase read fio's JSON through PKB's parser (unedited). On every
captured output, the samples of both versions have the same metrics, units,
the same keys the SQL views read (fio_job, direction, percentile) and the
same metadata keys; values are equal but bandwidth, which now is fio's
whole KiB/s (PKB's KB/s), under 1 KiB/s below fio's bytes/s.
"""

import importlib.util
import pathlib

from absl.testing import absltest
from absl.testing import parameterized

from pkb_ext.suite.disk import parser as fio
from pkb_ext.suite.disk import samples as io_samples

DATA = pathlib.Path(__file__).resolve().parent.parent / 'data' / 'fio'
CAPTURES = sorted(
    p.name for p in DATA.glob('*.json') if p.name != 'job_error.json'
)


def _OldParser():
  spec = importlib.util.spec_from_loader('fio_parser_before_pkb', loader=None)
  module = importlib.util.module_from_spec(spec)
  exec((DATA / 'parser_before_pkb.py.txt').read_text(), module.__dict__)  # pylint: disable=exec-used
  return module


def _Keyed(samples):
  return {
      (s.metric, s.metadata['fio_job'], s.metadata.get('direction'),
       s.metadata.get('percentile')): s
      for s in samples
  }  # fmt: skip


class BothVersionsTest(parameterized.TestCase):

  @parameterized.parameters(*CAPTURES)
  def testSameSamples(self, name):
    text = (DATA / name).read_text()
    old = _Keyed(io_samples.FromResult(_OldParser().Parse(text), {'x': 1}))
    new = _Keyed(io_samples.FromResult(fio.Parse(text), {'x': 1}))
    if 'ignore' not in name:  # the fill job is never reported
      self.assertNotEmpty(old)
    self.assertEqual(set(old), set(new))
    for key, s in old.items():
      n = new[key]
      self.assertEqual(s.unit, n.unit, key)
      self.assertEqual(set(s.metadata), set(n.metadata), key)
      self.assertEqual(s.metadata, n.metadata, key)
      if key[0] == 'fio_bandwidth':
        self.assertBetween(s.value - n.value, 0, 1024 / 1e6)
      elif key[0] == 'fio_bandwidth_kib':
        self.assertBetween(s.value - n.value, 0, 1)
      else:
        self.assertAlmostEqual(s.value, n.value, places=6, msg=key)


if __name__ == '__main__':
  absltest.main()
