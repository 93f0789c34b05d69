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
"""Shell pieces the phases share for commands run on a VM.

ExitStatusTo is the one way a phase keeps a remote command's exit status
when the command's output goes elsewhere: a background netperf stream, the
object-storage worker, a logged TPC-C run. The status lands in a file that
the phase reads afterwards.
"""


def ExitStatusTo(command: str, status_path: str) -> str:
  """Returns shell that runs `command`, then writes its exit status.

  Args:
    command: a shell command (its own redirections included).
    status_path: the file that gets the exit status, as shell text.

  Returns:
    `command; echo $? > status_path`.
  """
  return f'{command}; echo $? > {status_path}'
