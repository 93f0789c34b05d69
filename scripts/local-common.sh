# Copyright 2026 The pkb_ext Authors. Licensed under the Apache License 2.0.
#
# Sourced by scripts/local.sh and scripts/local-matrix.sh (as
# `source scripts/local-common.sh "$@"`, with LOG_TAG set): re-runs the
# caller with sudo unless it is root (namespaces, loop devices and mounts
# need root; the cache and venv are kept), and defines log and die.
if [ "$(id -u)" -ne 0 ]; then
  exec sudo -E PKB_EXT_CACHE="${PKB_EXT_CACHE:-$HOME/.cache/pkb-ext}" \
    bash "$0" "$@"
fi

log() { printf '[%s] %s\n' "$LOG_TAG" "$*"; }
die() { printf '[%s] ERROR: %s\n' "$LOG_TAG" "$*" >&2; exit 1; }
