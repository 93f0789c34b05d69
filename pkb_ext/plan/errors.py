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
"""The plan's errors: input that makes no plan (exit 1), usage (exit 2)."""

from pkb_ext import errors


class PlanError(errors.Error):
  """The input makes no plan (the message says why); exit status 1."""


class PlanUsageError(PlanError, errors.UsageError):
  """The command line cannot be used; exit status 2."""


def OneLine(e: BaseException) -> str:
  """The message of e on one line, cut at 400 characters."""
  text = errors.OneLine(e)
  return text if len(text) <= 400 else text[:400] + ' ...'
