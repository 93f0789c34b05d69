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
"""PKB's labels string: the metadata of a sample as its publishers pack it.

PKB's JSON and CSV publishers write a sample's metadata as
'|key:value|,|key:value|' (publisher.GetLabelsFromDict); a value keeps any
further colons, and every value comes back as a string. Decode is the one
reader of that string here; it imports nothing from PKB, so the analysis
can read PKB's output files without it.
"""

from typing import Any, Mapping


def Decode(labels: str | None) -> dict[str, str]:
  """Returns the metadata packed in a labels string ({} for none)."""
  if not labels:
    return {}
  out = {}
  for item in labels.split('|,|'):
    key, _, value = item.strip('|').partition(':')
    out[key] = value
  return out


def MetadataOf(row: Mapping[str, Any]) -> dict[str, Any]:
  """Returns a sample row's metadata: its mapping, else its decoded labels."""
  metadata = row.get('metadata')
  if isinstance(metadata, Mapping):
    return dict(metadata)
  labels = row.get('labels')
  return Decode(labels) if isinstance(labels, str) else {}
