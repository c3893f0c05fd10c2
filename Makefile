# Tasks of the project; each is one command you can type yourself (CONTRIBUTING.md).
PY ?= .venv/bin/python

.PHONY: help install serve test test-fast lint i18n lessons editor gpu-test bench

help:  ## list the tasks
	@grep -E '^[a-z0-9-]+:.*## ' Makefile | sed 's/:.*## /\t/'

install:  ## the virtual environment with the test tools
	[ -x $(PY) ] || python3 -m venv .venv
	$(PY) -m pip install -q -e '.[test]' -c tests/constraints.txt

serve: install  ## the site on http://127.0.0.1:8000/
	$(PY) -m app serve

test:  ## what CI runs: system packages, lint, types, every test
	bash tests/run.sh

test-fast: install  ## every test but the browser ones
	$(PY) -m pytest -q -m "not e2e"

lint: install  ## ruff and mypy on their configured scope
	$(PY) -m ruff check
	$(PY) -m mypy

i18n: install  ## extract strings, update both catalogs, compile
	$(PY) -m app i18n update

lessons: install  ## validate every lesson
	$(PY) -m app lessons check

editor:  ## rebuild the CodeMirror bundle (needs node and npm)
	cd static/editor && npm ci && npm run build

gpu-test:  ## GPU tests (on a machine with an NVIDIA GPU)
	python3 -m pytest -q -m gpu tests/gpu tests/exercises tests/insight tests/ladder

bench: install  ## lesson page against the bare baseline (needs wrk)
	$(PY) -m app bench
