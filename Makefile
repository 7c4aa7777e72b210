# livetab — the command contract: `make run`, `make test`; the rest below.
SHELL := /bin/bash
PY := .venv/bin/python
export PYTHONUNBUFFERED := 1

.PHONY: install run test test-fast chaos schema-fuzz proto proto-check lint bench mutation kafka-up kafka-down pg-up pg-down clean help

help:
	@echo "make run         embedded benchmark cycle on the bundled sample -> out/demo/"
	@echo "make test        install, start Kafka + PostgreSQL, run every test"
	@echo "make bench       benchmarks -> out/bench/*.json"
	@echo "make chaos       the long fault-injection run (2,000 requests, 3 kill rounds; make test runs a bounded one)"
	@echo "make mutation    mutation testing of the scoring core -> out/mutation/summary.{md,json} (long; not in make test)"
	@echo "                 MUTATION_ARGS='ids metrics' for some groups, '--fresh' to forget earlier results"
	@echo "make schema-fuzz schemathesis against the api, ~3000 cases (make test runs ~200)"
	@echo "make proto       regenerate protobuf stubs; make proto-check fails on a diff"
	@echo "make lint        ruff + mypy --strict (every package)"
	@echo "make kafka-up / kafka-down, pg-up / pg-down   local broker and database"

install:
	@deploy/install.sh

run: install
	$(PY) -m livetab_cli.main run --config deploy/demo.yaml

proto: install
	$(PY) -m grpc_tools.protoc -Iprotos --python_out=shared --pyi_out=shared --grpc_python_out=shared protos/livetab/v1/*.proto

proto-check: install
	@tmp=$$(mktemp -d); \
	$(PY) -m grpc_tools.protoc -Iprotos --python_out=$$tmp --pyi_out=$$tmp --grpc_python_out=$$tmp protos/livetab/v1/*.proto; \
	if diff -r -x __init__.py -x __pycache__ $$tmp/livetab/v1 shared/livetab/v1 >/dev/null; then echo "proto-check: stubs up to date"; rm -rf $$tmp; \
	else diff -r -x __init__.py -x __pycache__ $$tmp/livetab/v1 shared/livetab/v1 | head -20; rm -rf $$tmp; echo "proto-check: generated stubs differ from protos/ (run make proto)"; exit 1; fi

test: install proto-check
	@deploy/chromium.sh
	@deploy/k8s/build.sh >/dev/null
	$(PY) -m pytest

test-fast: install
	@deploy/chromium.sh
	$(PY) -m pytest -m "not e2e and not model and not kafka and not postgres and not k8s"

# The fault-injection suite at full size (tests/chaos): make test runs it bounded (~250 requests, one round).
chaos: install
	LIVETAB_CHAOS_REQUESTS=$${LIVETAB_CHAOS_REQUESTS:-2000} LIVETAB_CHAOS_ROUNDS=$${LIVETAB_CHAOS_ROUNDS:-3} LIVETAB_CHAOS_PG_STOP_S=$${LIVETAB_CHAOS_PG_STOP_S:-20} \
	  $(PY) -m pytest tests/chaos -m chaos -s

schema-fuzz: install  ## schemathesis, a few thousand cases against the api's OpenAPI schema
	LIVETAB_SCHEMA_EXAMPLES=300 $(PY) -m pytest services/api/tests/test_api_schema.py -q -s

lint: install
	.venv/bin/ruff check .
	.venv/bin/mypy shared/livetab services/*/livetab_* cli/livetab_cli

bench: install
	$(PY) -m bench

# Mutation testing (mutmut, one worker) of ids, metrics, the cache key, the worker's commit path, qagen's
# derivation and verification and the rule judge; see deploy/mutation.py and docs/mutation.md.
mutation: install
	$(PY) -m pip install -q -r requirements-mutation.txt
	$(PY) deploy/mutation.py $(MUTATION_ARGS)

kafka-up:
	@deploy/kafka.sh up
kafka-down:
	@deploy/kafka.sh down
pg-up:
	@deploy/postgres.sh up
pg-down:
	@deploy/postgres.sh down

clean:
	deploy/kafka.sh down || true
	deploy/postgres.sh down || true
	rm -rf .state out
