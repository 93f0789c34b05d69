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
"""Reading the files pkb-ext's commands are given, safely.

Every command reads its input files through here: only regular files (a
FIFO, a device or a directory is refused at once, never waited on), at most
a size cap, strict UTF-8; every error is an InputError whose message names
the file (and the line) and fits on one line.
"""

import glob
import os
import stat
import sys
from typing import BinaryIO, Iterator

from pkb_ext import errors

# Far above any real tool output (a 30 min TPC-C log with per-second lines
# is about 2 MB); anything larger is not one tool output.
MAX_TOOL_OUTPUT_BYTES = 64 * 1024 * 1024
# Far above any real set of samples (a whole matrix of runs is a few MB).
MAX_SAMPLES_BYTES = 1024 * 1024 * 1024
STDIN = '-'
# The sample files pkb_ext writes or reads, as refusals name them.
SAMPLE_FILE_KINDS = (
    'a pkb_ext spool (*.ndjson), the samples file of `pkb-ext local results`'
    " (out/samples.ndjson of `make local`) or PKB's JSON results"
    ' (perfkitbenchmarker_results.json)'
)
NDJSON_SUFFIX = '.ndjson'
_MIB = 1024 * 1024


class InputError(errors.Error):
  """An input cannot be read; the message names it and fits on one line."""


def Shorten(value: object, limit: int = 60) -> str:
  """repr(value), cut to `limit` characters (a hostile value may be huge)."""
  text = repr(value)
  if len(text) <= limit:
    return text
  return f'{text[:limit]}... ({len(text)} characters)'


def _Open(path: str) -> BinaryIO:
  """Opens a regular file for binary reading.

  Raises:
    InputError: not a regular file, or cannot be opened.
  """
  try:
    # O_NONBLOCK: opening a FIFO must not wait for a writer.
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
  except OSError as e:
    raise InputError(f'{path}: {e.strerror or e}') from e
  f = os.fdopen(fd, 'rb')
  if not stat.S_ISREG(os.fstat(fd).st_mode):
    f.close()
    raise InputError(
        f'{path}: not a regular file (a FIFO, device or directory)'
    )
  return f


def _TooLarge(name: str, limit: int, what: str) -> InputError:
  return InputError(f'{name}: larger than {limit // _MIB} MiB: not {what}')


def ReadText(
    path: str,
    limit: int = MAX_TOOL_OUTPUT_BYTES,
    what: str = 'one tool output',
) -> str:
  """Returns the text of a regular file, or of standard input for '-'.

  Raises:
    InputError: not a regular file (a FIFO, a device, a directory), larger
      than `limit` bytes, unreadable or not UTF-8.
  """
  name = 'standard input' if path == STDIN else path
  try:
    if path == STDIN:
      data = sys.stdin.buffer.read(limit + 1)
    else:
      with _Open(path) as f:
        data = f.read(limit + 1)
  except OSError as e:
    raise InputError(f'{name}: {e.strerror or e}') from e
  if len(data) > limit:
    raise _TooLarge(name, limit, what)
  try:
    return data.decode('utf-8', errors='strict')
  except UnicodeDecodeError as e:
    raise InputError(
        f'{name}: not UTF-8 text ({e.reason} at byte {e.start})'
    ) from e


def Lines(
    path: str, limit: int = MAX_SAMPLES_BYTES, what: str = 'a samples file'
) -> Iterator[tuple[int, str]]:
  """Yields (line number, text with its line break) of a regular file.

  Raises:
    InputError: not a regular file, larger than `limit` bytes in all,
      unreadable, or a line that is not UTF-8 (naming the line).
  """
  total = 0
  with _Open(path) as f:
    number = 0
    try:
      for number, raw in enumerate(f, 1):
        total += len(raw)
        if total > limit:
          raise _TooLarge(path, limit, what)
        try:
          line = raw.decode('utf-8', errors='strict')
        except UnicodeDecodeError as e:
          raise InputError(
              f'{path}:{number}: not UTF-8 text ({e.reason} at byte'
              f' {e.start} of the line)'
          ) from e
        yield number, line
    except OSError as e:
      raise InputError(f'{path}:{number + 1}: {e.strerror or e}') from e


def SampleFiles(arg: str) -> list[str]:
  """The NDJSON files an argument names: a file, or a spool directory's.

  A directory stands for its *.ndjson files (sorted); a file must exist.
  Whether each is a regular file is checked when it is read.

  Raises:
    InputError: no such file or directory, or a directory with no
      *.ndjson file.
  """
  if os.path.isdir(arg):
    files = sorted(glob.glob(os.path.join(glob.escape(arg), '*.ndjson')))
    if not files:
      raise InputError(f'{arg}: a directory with no *{NDJSON_SUFFIX} file')
    return files
  if not os.path.lexists(arg):
    raise InputError(f'{arg}: no such file or directory')
  return [arg]


def ExpandSampleFiles(args: list[str]) -> list[str]:
  """SampleFiles of each argument, in order."""
  return [f for arg in args for f in SampleFiles(arg)]
