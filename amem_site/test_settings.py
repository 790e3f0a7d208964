"""Settings for the test suite: the real settings, with a private data dir per run."""

import tempfile
from pathlib import Path

from amem_site.settings import *  # noqa: F403

AMEM_DATA_DIR = Path(tempfile.mkdtemp(prefix="amem-test-"))
AMEM_QDRANT_PATH = AMEM_DATA_DIR / "qdrant"
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
AMEM_PROCESS_ROLE = "web"
