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
"""pkb_ext.labels reads what PKB's own publisher writes."""

from absl.testing import absltest
from perfkitbenchmarker import publisher

from pkb_ext import labels


class DecodeTest(absltest.TestCase):

  def testInvertsPkbsEncoding(self):
    metadata = {
        'phase': 'tpcc',
        'reason': 'fail p90 5.2 s: limit 5 s',  # colons stay in the value
        'iteration': 3,
        'flag': True,
        'empty': '',
    }
    encoded = publisher.GetLabelsFromDict(metadata)
    want = {k: str(v) for k, v in metadata.items()}
    self.assertEqual(labels.Decode(encoded), want)
    self.assertEqual(labels.Decode(encoded), publisher.LabelsToDict(encoded))

  def testEmpty(self):
    self.assertEqual(labels.Decode(''), {})
    self.assertEqual(labels.Decode(None), {})

  def testMetadataOf(self):
    self.assertEqual(labels.MetadataOf({'metadata': {'a': 1}}), {'a': 1})
    self.assertEqual(labels.MetadataOf({'labels': '|a:1|,|b:x:y|'}),
                     {'a': '1', 'b': 'x:y'})  # fmt: skip
    self.assertEqual(labels.MetadataOf({'labels': 7}), {})
    self.assertEqual(labels.MetadataOf({}), {})


if __name__ == '__main__':
  absltest.main()
