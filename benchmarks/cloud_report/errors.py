# Copyright 2026 PerfKitBenchmarker Authors. All rights reserved.
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
"""The one error base of the cloud report benchmarks.

Every exception class of the cloud report's modules derives from Error, or
from one of PKB's own error classes where PKB's run loop must see it as
such (a PKB error stops or skips a benchmark the way PKB does). A subclass
that is also a built-in kind (a ValueError) lists Error first.
"""


class Error(Exception):
  """Something the cloud report refuses or cannot do; one-line message."""
