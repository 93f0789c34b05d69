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
"""A mocked PKB Linux VM for tests in PKB's style (PkbCommonTestCase).

LinuxVm is an autospec of PKB's BaseLinuxVirtualMachine with what the
phases read of a VM (name, cloud, zone, machine type, CPU count and model,
no scratch disks) and its RemoteCommand answered by the test case's
MockRemoteCommand.
"""

from unittest import mock

from perfkitbenchmarker import linux_virtual_machine


def LinuxVm(
    test,
    answers=None,
    *,
    name: str = 'db-0',
    cloud: str = 'AWS',
    zone: str = 'us-east-1a',
    machine_type: str = 'c5a.4xlarge',
    cpus: int = 16,
    cpu_model: str = 'AMD EPYC 7R32',
    **attributes,
):
  """A mocked PKB Linux VM whose RemoteCommand answers from `answers`.

  Args:
    test: a pkb_common_test_case.PkbCommonTestCase (its MockRemoteCommand).
    answers: {command fragment: [(stdout, stderr), ...]}, as
      MockRemoteCommand takes them; None: no command is answered.
    name: the VM's name.
    cloud: its CLOUD.
    zone: its zone.
    machine_type: its machine type.
    cpus: what NumCpusForBenchmark returns.
    cpu_model: the 'Model name' of its CheckLsCpu.
    **attributes: more attributes set on the VM (internal_ip, region, ...).

  Returns:
    (vm, the mock of its RemoteCommand).
  """
  vm = mock.create_autospec(linux_virtual_machine.BaseLinuxVirtualMachine)
  vm.name = name
  vm.CLOUD = cloud
  vm.zone = zone
  vm.machine_type = machine_type
  vm.scratch_disks = []
  vm.NumCpusForBenchmark.return_value = cpus
  vm.CheckLsCpu.return_value.data = {'Model name': cpu_model}
  for key, value in attributes.items():
    setattr(vm, key, value)
  cmd = test.MockRemoteCommand(answers or {}, vm).RemoteCommand.mock_command
  return vm, cmd
