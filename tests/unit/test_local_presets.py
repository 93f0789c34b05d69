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
"""The local cloud's flags point the object storage phase at its emulator.

Run in a fresh interpreter with pkb_ext's autoload off: the endpoint flags
are pkb_ext's own, and a preset that read them before anything defined them
dropped them, so the phase on the local cloud was refused in preflight.
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
json.dump(presets.LocalCloudFlags(state, 's3'), sys.stdout)
"""


class LocalCloudFlagsTest(absltest.TestCase):

  def testTheEmulatorsEndpointFlagsAreThere(self):
    env = dict(os.environ, PKB_EXT_AUTOLOAD='0')
    proc = subprocess.run(
        [sys.executable, '-c', _PROGRAM],
        capture_output=True, text=True, env=env, timeout=300, check=False,
    )  # fmt: skip
    self.assertEqual(proc.returncode, 0, proc.stderr[-2000:])
    out = json.loads(proc.stdout)
    self.assertIn(
        '--cloud_report_object_storage_endpoint=http://10.0.0.10:9000', out
    )
    self.assertIn('--cloud_report_object_storage_provider=s3', out)
    self.assertIn(
        '--cloud_report_object_storage_credentials_file=/x/creds.json', out
    )


if __name__ == '__main__':
  absltest.main()
