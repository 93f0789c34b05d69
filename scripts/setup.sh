#!/usr/bin/env bash
# Copyright 2026 The pkb_ext Authors. Licensed under the Apache License 2.0.
#
# Sets up pkb_ext on a fresh Debian/Ubuntu machine, idempotently:
# Debian packages, Python >= 3.12, .venv/, PKB at the pinned commit, CoreMark,
# and whatever the other steps in scripts/setup.d/ add (sourced in order).
#
# Upstream code is fetched into a cache outside the repo, never into it:
#   PKB_EXT_CACHE            cache directory (default ~/.cache/pkb-ext)
#   PKB_EXT_MIRROR           a directory of local git snapshots laid out as
#                            <owner>+<name>/repo (used when present)
#   PKB_EXT_PKB_SOURCE       git URL or local git directory of PKB
#   PKB_EXT_COREMARK_SOURCE  git URL or local git directory of CoreMark
#   PKB_EXT_SKIP_APT=1       skip the Debian packages step
#   PKB_EXT_SETUP_STEPS      run only these steps of setup.d/, by name
#                            (e.g. "20-python 30-pkb"; default: all)
#   PYTHON                   the interpreter to build .venv from
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CACHE=${PKB_EXT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/pkb-ext}
VENV=$ROOT/.venv
mkdir -p "$CACHE/data"

log() { printf '[setup] %s\n' "$*"; }
# pip install into .venv, printing a line per package it collects (pip is
# otherwise silent for minutes); its errors still go to stderr.
pip_install() {
  "$VENV/bin/pip" install --progress-bar off "$@" | while IFS= read -r _line; do
    case "$_line" in
      Collecting*|Successfully\ installed*) log "  pip: ${_line:0:120}" ;;
    esac
  done
}
die() { printf '[setup] ERROR: %s\n' "$*" >&2; exit 1; }
as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }

# Prints the git source of an upstream repo: the explicit variable, else the
# local snapshot under PKB_EXT_MIRROR, else the canonical URL.
upstream_source() {  # $1 explicit value, $2 owner+name, $3 url
  if [ -n "$1" ]; then echo "$1"; return; fi
  local snap=${PKB_EXT_MIRROR:-}/$2/repo
  if [ -n "${PKB_EXT_MIRROR:-}" ] && [ -d "$snap" ]; then echo "$snap"; return; fi
  echo "$3"
}

# Runs `git archive` of COMMIT from SOURCE (local git dir or URL) to stdout.
# Usage: git_archive SOURCE COMMIT [OPTIONS...] [-- PATHS...]
git_archive() {
  local src=$1 commit=$2; shift 2
  local opts=() paths=()
  while [ $# -gt 0 ] && [ "$1" != -- ]; do opts+=("$1"); shift; done
  [ $# -gt 0 ] && shift
  paths=("$@")
  local gitdir=$src
  if [ ! -d "$src" ]; then
    gitdir=$CACHE/git/$(basename "$src" .git).git
    if ! git --git-dir="$gitdir" cat-file -e "$commit^{commit}" 2>/dev/null; then
      log "fetching $commit from $src"
      git init -q --bare "$gitdir"
      git --git-dir="$gitdir" fetch -q --depth 1 "$src" "$commit" \
        || die "cannot fetch $commit from $src"
    fi
  elif [ -d "$src/.git" ]; then
    gitdir=$src/.git
  fi
  git --git-dir="$gitdir" cat-file -e "$commit^{commit}" 2>/dev/null \
    || die "$src has no commit $commit"
  git --git-dir="$gitdir" archive "${opts[@]}" "$commit" "${paths[@]}" 2> >(grep -v '^error: invalid object' >&2 || true)
}

for step in "$ROOT"/scripts/setup.d/*.sh; do
  _name=$(basename "$step" .sh)
  if [ -n "${PKB_EXT_SETUP_STEPS:-}" ] \
      && [[ " $PKB_EXT_SETUP_STEPS " != *" $_name "* ]]; then
    continue
  fi
  log "== $_name"
  # shellcheck source=/dev/null
  source "$step"
done
log "done: $VENV (cache $CACHE)"
