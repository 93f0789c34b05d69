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
"""The local cloud's flags reach the phases: emulator endpoints, engine.

Run in a fresh interpreter with pkb_ext's autoload off. Flags pkb_ext defines
itself (the emulator endpoints; the postgres engine's and go-tpc's) were
dropped by a preset that read them before anything defined them: the object
storage phase was refused in preflight, and the TPC-C phase ran go-tpc from
a path where nothing installed it.
"""

import json
import os
import subprocess
import sys

from absl.testing import absltest

_PROGRAM = r"""
import json, sys
from pkb_ext.local import presets, services
state = {
    'static_vm_file': '/x/static.json',
    'services': {'minio': {'endpoint': 'http://10.0.0.10:9000'}},
    'object_storage': {'credentials_file': '/x/creds.json'},
}
json.dump(
    {
        'cloud': presets.LocalCloudFlags(state, 's3'),
        'smoke': presets.PresetFlags('smoke'),
    },
    sys.stdout,
)
"""


class LocalCloudFlagsTest(absltest.TestCase):

  def testTheEmulatorsEndpointFlagsAreThere(self):
    env = dict(os.environ, PKB_EXT_AUTOLOAD='0')
    proc = subprocess.run(
        [sys.executable, '-c', _PROGRAM],
        capture_output=True, text=True, env=env, timeout=300, check=False,
    )  # fmt: skip
    self.assertEqual(proc.returncode, 0, proc.stderr[-2000:])
    got = json.loads(proc.stdout)
    out = got['cloud']
    self.assertIn(
        '--cloud_report_object_storage_endpoint=http://10.0.0.10:9000', out
    )
    self.assertIn('--cloud_report_object_storage_provider=s3', out)
    self.assertIn(
        '--cloud_report_object_storage_credentials_file=/x/creds.json', out
    )
    self.assertIn('--cloud_report_tpcc_engine=postgres', out)
    self.assertIn('--cloud_report_go_tpc_path=/opt/pkb-ext/bin/go-tpc', out)
    # Every smoke flag, the postgres engine's too.
    from pkb_ext.local import presets  # pylint: disable=g-import-not-at-top

    self.assertLen(got['smoke'], len(presets.SMOKE))
    for flag in (
        '--cloud_report_tpcc_gotpc_load_check=false',
        '--cloud_report_tpcc_gotpc_threads_per_warehouse=2',
        (
            '--cloud_report_tpcc_postgres_options='
            'fsync=off,synchronous_commit=off,full_page_writes=off'
        ),
    ):
      self.assertIn(flag, got['smoke'])

  def testAFlagNoModuleDefinesIsAnError(self):
    from pkb_ext.local import presets  # pylint: disable=g-import-not-at-top

    with self.assertRaisesRegex(
        ValueError, r"no module defines: \['cloud_report_no_such_flag'\]"
    ):
      presets._Defined({'cloud_report_no_such_flag': '1'})  # pylint: disable=protected-access


if __name__ == '__main__':
  absltest.main()
