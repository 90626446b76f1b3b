# Meeting Automation Service. A fresh clone needs two commands: `make run`
# and `make test` (README.md). Only Node 20 + npm are expected on the
# machine: Node 24 arrives as the `node` devDependency and every npm script
# runs on it (docs/decisions/000-runtime-and-tooling.md).

SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := help

NPM ?= npm
NODE := node_modules/.bin/node
# Extra start options for `make run`, e.g. make run ARGS="--port 9000".
ARGS ?=

# Debian packages, installed (apt-get) only when missing. Running needs
# RUN_PACKAGES: ffmpeg decodes and encodes audio; flite and festival (with its
# HTS voice) speak the synthetic meetings in natural voices, espeak-ng on
# request and for pronunciations; pocketsphinx recognizes speech;
# sphinxbase-utils (sphinx_lm_convert) is for working on its language models
# by hand (vocabulary bias reads and writes the binary model itself);
# pulseaudio and pulseaudio-utils (pacat, parec, pactl) carry the virtual
# devices live recording captures from. Testing adds TEST_PACKAGES: sctk holds
# NIST's scorers (sclite, md-eval) the project's own scorers are tested
# against; pocketsphinx-testdata holds real recorded human speech with its
# transcripts, so the front end is measured on people, not only on
# synthetic voices; chromium runs the browser tests. `make run` installs the first set,
# `make test` both. `npm run doctor` says which of them are present.
RUN_PACKAGES := ffmpeg espeak-ng flite festival festvox-us-slt-hts pocketsphinx pocketsphinx-en-us sphinxbase-utils pulseaudio pulseaudio-utils
TEST_PACKAGES := sctk pocketsphinx-testdata chromium
SYSTEM_PACKAGES := $(RUN_PACKAGES) $(TEST_PACKAGES)
SUDO := $(shell [ "$$(id -u)" = 0 ] || command -v sudo 2>/dev/null)

.PHONY: help setup run-setup npm-packages system-packages run-packages run test bench soak typecheck lint clean suite suite-test

help:
	@echo "make run        start the gateway on 127.0.0.1:8420, the Control API on 127.0.0.1:8429"
	@echo "make test       type check, lint and all tests"
	@echo "make bench      benchmarks: reports/bench.md (+ bench.json, bench.html, charts/)"
	@echo "make soak       20-minute soak of the gateway: reports/bench-soak-20min.json (make bench shows it)"
	@echo "make typecheck  tsc --noEmit"
	@echo "make lint       eslint (zero warnings), the folder rules (dependency-cruiser), nothing unused (knip)"
	@echo "make setup      install dependencies (npm ci) when package-lock.json changed"
	@echo "make suite      the conformance suite's release artifacts in dist/suite/ (bundle, single executable, npm tarball)"
	@echo "make suite-test build them and run each from an empty folder against the reference (minutes)"
	@echo "make clean      remove ./data and reports output"

## setup: idempotent; npm ci only when node_modules is missing or older than the lock file.
## run-setup installs only what running needs; setup adds the test packages.
setup: system-packages npm-packages
run-setup: run-packages npm-packages

npm-packages: node_modules/.package-lock.json
	@echo "Node $$($(NODE) --version) (the node devDependency; npm scripts run on it)"

node_modules/.package-lock.json: package-lock.json
	@command -v $(NPM) >/dev/null || { echo "npm is not installed: install Node.js 20 or later with npm first" >&2; exit 1; }
	$(NPM) ci --no-audit --no-fund
	@touch $@

# install-packages: apt-get installs those of the given packages that are missing.
define install-packages
	@missing=""; \
	for p in $(1); do \
	  dpkg-query -W -f='$${Status}' "$$p" 2>/dev/null | grep -q 'install ok installed' || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "installing system packages:$$missing"; \
	  $(SUDO) apt-get update && $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y $$missing; \
	fi
endef

run-packages:
	$(call install-packages,$(RUN_PACKAGES))

system-packages:
	$(call install-packages,$(SYSTEM_PACKAGES))

run: run-setup
	$(NPM) start -- --control --enable-api $(ARGS)

test: setup
	$(NPM) test

bench: setup
	$(NPM) run bench

## soak: 20 minutes of mixed work against the gateway (bench/soak.ts); `make bench` includes the report.
soak: setup
	$(NPM) run soak

## suite: the conformance suite's release artifacts (conformance/release/build.ts; conformance/README.md).
## Only the npm packages are needed: Node 24 and esbuild come with them, no system package.
suite: npm-packages
	$(NODE) conformance/release/build.ts

## suite-test: builds them again and runs each from an empty folder (conformance/release/release.slow-test.ts).
suite-test: npm-packages
	$(NPM) run test:release

typecheck: setup
	$(NPM) run typecheck

lint: setup
	$(NPM) run lint
	$(NPM) run lint:deps
	$(NPM) run lint:unused

clean:
	rm -rf data
	find reports -mindepth 1 -maxdepth 1 ! -name .gitkeep -exec rm -rf {} +
