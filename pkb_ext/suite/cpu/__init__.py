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
"""The cpu phase: CoreMark on one core and on every core, run by PKB's
coremark modules.

Its modules:
  bounds    how long one make of PKB's coremark may take (pure);
  stages    the flags (read once into Params) and the phase's functions
            (see phases.py);
  parser    CoreMark's output through PKB's coremark parser (pure);
  samples   the metric catalog and the samples of one run and of a mode.
"""
