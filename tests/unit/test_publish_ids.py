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
"""Tests for table id validation and deterministic load job ids."""

import re

from absl.testing import absltest
from absl.testing import parameterized

from pkb_ext.publish import ids

_TABLE = ids.TableId('my-project', 'ds', 'samples')


class TableIdTest(parameterized.TestCase):

  @parameterized.parameters(
      ('my-project.pkb.samples', ('my-project', 'pkb', 'samples')),
      ('abc123-x.Data_Set.t-2021', ('abc123-x', 'Data_Set', 't-2021')),
      ('example.com:my-project.d.t', ('example.com:my-project', 'd', 't')),
  )
  def testValid(self, text, parts):
    table = ids.ParseTableId(text)
    self.assertEqual((table.project, table.dataset, table.table), parts)
    self.assertEqual(str(table), text)

  @parameterized.named_parameters(
      ('empty', '', 'project.dataset.table'),
      ('two_parts', 'dataset.table', 'project.dataset.table'),
      ('empty_part', 'my-project..t', 'project.dataset.table'),
      ('short_project', 'abc.d.t', "project 'abc'"),
      ('upper_project', 'My-Project.d.t', "project 'My-Project'"),
      ('project_hyphen_end', 'my-project-.d.t', "project 'my-project-'"),
      ('dataset_hyphen', 'my-project.my-ds.t', "dataset 'my-ds'"),
      ('table_space', 'my-project.d.my table', "table 'my table'"),
      ('table_quote', "my-project.d.t';drop", 'table "t\';drop"'),
      ('table_leading_hyphen', 'my-project.d.-t', "table '-t'"),
  )
  def testInvalid(self, text, named):
    with self.assertRaisesRegex(ids.InvalidIdError, re.escape(named)):
      ids.ParseTableId(text)

  @parameterized.parameters('US', 'EU', 'us-central1', 'europe-west4')
  def testLocation(self, location):
    self.assertEqual(ids.ValidateLocation(location), location)

  @parameterized.parameters('', 'u', 'us central', 'us;rm', '1us')
  def testBadLocation(self, location):
    with self.assertRaisesRegex(ids.InvalidIdError, 'location'):
      ids.ValidateLocation(location)

  def testEndpoint(self):
    self.assertEqual(
        ids.ValidateEndpoint('http://127.0.0.1:9050/'), 'http://127.0.0.1:9050'
    )
    for bad in ('127.0.0.1:9050', 'ftp://h', 'http://h/path', 'http://'):
      with self.assertRaisesRegex(ids.InvalidIdError, 'endpoint'):
        ids.ValidateEndpoint(bad)


class LoadJobIdTest(absltest.TestCase):

  def testDeterministic(self):
    a = ids.LoadJobId(_TABLE, 'run-1', 'seg-00000', b'{"a":1}\n', 0)
    b = ids.LoadJobId(_TABLE, 'run-1', 'seg-00000', b'{"a":1}\n', 0)
    self.assertEqual(a, b)
    self.assertRegex(a, r'^pkb_ext_load_run-1_seg-00000_[0-9a-f]{20}_a0$')

  def testEveryInputChangesTheId(self):
    base = (_TABLE, 'run-1', 'seg-00000', b'{"a":1}\n', 0)
    variants = [
        (ids.TableId('my-project', 'ds', 'other'),) + base[1:],
        base[:2] + ('seg-00001',) + base[3:],
        base[:3] + (b'{"a":2}\n', 0),
        base[:4] + (1,),
    ]
    seen = {ids.LoadJobId(*base)}
    for args in variants:
      seen.add(ids.LoadJobId(*args))
    self.assertLen(seen, len(variants) + 1)

  def testUnsafeCharactersAndLength(self):
    job_id = ids.LoadJobId(_TABLE, 'r/u:n' * 100, 'k ey' * 100, b'', 3)
    self.assertRegex(job_id, r'^[A-Za-z0-9_-]+$')
    self.assertLess(len(job_id), 1024)

  def testNegativeAttempt(self):
    with self.assertRaises(ValueError):
      ids.LoadJobId(_TABLE, 'r', 'k', b'', -1)


if __name__ == '__main__':
  absltest.main()
