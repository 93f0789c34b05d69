#!/usr/bin/env bash
# Copyright 2026 The pkb_ext Authors. Licensed under the Apache License 2.0.
#
# Sets up this machine to run pkb_ext on one cloud, idempotently:
#   1. .venv/ with PKB at the pinned commit and pkb-ext (setup.sh's Python
#      and PKB steps only: no Debian packages, no local-cloud tools);
#   2. what PKB needs on this host for the cloud, from PyPI:
#      AWS    PKB's providers/aws/requirements.txt (awscli, boto3, ...) into
#             .venv, where PKB's requirement check looks for them;
#      Azure  the Azure CLI (azure-cli) into its own venv, .venv/azure-cli,
#             with an `az` in .venv/bin: its pins would replace packages
#             .venv already has (azure-core, azure-storage-blob);
#      GCP    nothing: the Google Cloud CLI (gcloud) is on no package
#             registry (PyPI's `gcloud` is an unrelated library);
#   3. preflight's check of that cloud: its CLI on PATH (.venv/bin first,
#      as after `source .venv/bin/activate`) and whether the cloud accepts
#      its credentials.
# Each step prints a line, and pip a line per package it collects.
#
# Usage: scripts/cloud-setup.sh AWS|GCP|Azure   (or make cloud-setup CLOUD=...)
# Exit status: 0 when the cloud's CLI is ready (missing credentials are
# printed as the next step), 1 when it is not, 2 for a usage error.
# setup.sh's variables (PKB_EXT_CACHE, PKB_EXT_MIRROR, PYTHON, ...) apply.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
VENV=$ROOT/.venv

log() { printf '[cloud-setup] %s\n' "$*"; }
# pip install with a line per package it collects (pip -q is silent for
# minutes); $1: the pip to run. Its errors still go to stderr.
pip_install() {
  local pip=$1
  shift
  "$pip" install --progress-bar off "$@" | while IFS= read -r _line; do
    case "$_line" in
      Collecting*|Successfully\ installed*) log "  pip: ${_line:0:120}" ;;
    esac
  done
}
die() { printf '[cloud-setup] ERROR: %s\n' "$*" >&2; exit 1; }

case "${1:-}" in
  [Aa][Ww][Ss]) CLOUD=AWS ;;
  [Gg][Cc][Pp]) CLOUD=GCP ;;
  [Aa][Zz][Uu][Rr][Ee]) CLOUD=Azure ;;
  *)
    printf 'usage: %s AWS|GCP|Azure (got %s)\n' "$0" "${1:-nothing}" >&2
    exit 2 ;;
esac
[ $# -eq 1 ] || { printf 'usage: %s AWS|GCP|Azure\n' "$0" >&2; exit 2; }

# PKB's own host checks (REQUIRED_EXECUTABLES in pkb.py).
_missing=()
for exe in ssh ssh-keygen scp openssl; do
  command -v "$exe" >/dev/null || _missing+=("$exe")
done
[ ${#_missing[@]} -eq 0 ] || die "PKB needs ${_missing[*]} on PATH" \
  "(Debian/Ubuntu: apt-get install openssh-client openssl)"

log "step 1/3: .venv with PKB (set-up's Python and PKB steps)"
PKB_EXT_SETUP_STEPS="20-python 30-pkb" bash "$ROOT/scripts/setup.sh"
log "step 2/3: what PKB needs on this host for $CLOUD"

# Runs PKB's requirement check of a provider ($1: aws, ...) in .venv.
pkb_requirements_met() {
  "$VENV/bin/python" -W ignore -c '
import sys
from perfkitbenchmarker import errors, requirements
try:
  requirements.CheckProviderRequirements(sys.argv[1])
except errors.Setup.PythonPackageRequirementUnfulfilled as e:
  print(str(e).splitlines()[0], file=sys.stderr)
  sys.exit(1)' "$1"
}

case "$CLOUD" in
  AWS)
    _req=$("$VENV/bin/python" -W ignore -c 'import os, perfkitbenchmarker as p
print(os.path.join(os.path.dirname(p.__file__), "providers/aws/requirements.txt"))')
    if pkb_requirements_met aws 2>/dev/null; then
      log "PKB's AWS requirements present in $VENV"
    else
      log "installing PKB's AWS requirements into $VENV: $_req"
      pip_install "$VENV/bin/pip" -r "$_req" 'pint==0.26.1' 'setuptools<81'
      pkb_requirements_met aws || die "PKB's AWS requirements still unmet"
    fi
    ;;
  Azure)
    _az=$VENV/azure-cli
    if "$_az/bin/python" -c 'import azure.cli' 2>/dev/null; then
      log "Azure CLI present: $_az"
    else
      log "installing the Azure CLI (PyPI: azure-cli) into $_az"
      rm -rf "$_az"
      "$VENV/bin/python" -m venv "$_az"
      pip_install "$_az/bin/pip" azure-cli
    fi
    printf '#!/bin/sh\nexec "%s/bin/python" -m azure.cli "$@"\n' "$_az" \
      > "$VENV/bin/az"
    chmod 755 "$VENV/bin/az"
    ;;
  GCP)
    log "the Google Cloud CLI (gcloud) is on no package registry; PKB's" \
      "GCP provider has no Python requirements"
    ;;
esac

# Preflight's own check of the cloud, with .venv/bin first on PATH.
log "step 3/3: $CLOUD's CLI and credentials (the cloud is asked who you are)"
PATH="$VENV/bin:$PATH" "$VENV/bin/python" -W ignore -c '
import sys
from pkb_ext import registry
registry.Register()
from pkb_ext import cloud_access
cloud = sys.argv[1]
problems = cloud_access.CloudProblems(cloud)
for problem in problems:
  print(f"[cloud-setup] to do: {problem}")
if not problems:
  print(f"[cloud-setup] ready for {cloud}: its CLI is on PATH (after"
        " `source .venv/bin/activate`) and the cloud accepts its"
        " credentials")
sys.exit(1 if cloud_access.CliProblem(cloud) else 0)' "$CLOUD"
