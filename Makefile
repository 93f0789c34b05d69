# pkb_ext: the 2021 Cloud Report on PKB. See README.md.
#   make local   set up, then run the suite on the local cloud
#   make test    set up, then run every test tier (and the style check)
#   make local-matrix   then the local machine matrix: 3 types with known
#                       limits, repeated, ranked (out/matrix/)
#   make cloud-setup CLOUD=AWS|GCP|Azure   .venv and what PKB needs for a cloud
#   make upstream-check   PKB's whole unit suite at the pin and after each patch
#                         of the upstream series (long; not part of make test)
SHELL := /bin/bash
PYTEST_ARGS ?=

.PHONY: help setup cloud-setup test upstream-check lint format local local-matrix local-down clean

help:
	@sed -n '2,8p' Makefile

setup:
	bash scripts/setup.sh

CLOUD ?=
cloud-setup:
	bash scripts/cloud-setup.sh $(CLOUD)

test: setup
	bash scripts/test.sh $(PYTEST_ARGS)

upstream-check: setup
	mkdir -p out
	PYTHONPATH=tests .venv/bin/python -m pkb_ext_dev.upstream_suite \
	  --out out/upstream-suite.json

lint:
	.venv/bin/pyink --check --quiet .

format:
	.venv/bin/pyink .

local: setup
	bash scripts/local.sh

local-matrix: setup
	bash scripts/local-matrix.sh

local-down:
	.venv/bin/pkb-ext local down

clean:
	rm -rf out build *.egg-info .pytest_cache
