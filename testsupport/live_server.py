"""A real amem server for tests: gunicorn (gunicorn.conf.py) as a subprocess on a free port.

Each server has its own data dir and database (a SQLite file, or a fresh PostgreSQL database
dropped afterwards), is migrated with manage.py and gets one agent with a key. Tests talk to it
over HTTP on 127.0.0.1, as a client would, and may kill it (SIGKILL) and start it again.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
import uuid
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
GUNICORN = Path(sys.executable).with_name("gunicorn")
PG_ADMIN_URL = os.environ.get("AMEM_TEST_PG_ADMIN_URL", "postgres://postgres@127.0.0.1:5432/postgres")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def postgres_available() -> bool:
    try:
        import psycopg

        with psycopg.connect(PG_ADMIN_URL, connect_timeout=3):
            return True
    except Exception:
        return False


def _pg_admin(sql: str) -> None:
    import psycopg

    with psycopg.connect(PG_ADMIN_URL, autocommit=True) as conn:
        conn.execute(sql)


@dataclass
class Response:
    status: int
    body: object
    headers: dict


@dataclass
class LiveServer:
    data_dir: Path
    backend: str = "sqlite"  # sqlite | postgres
    threads: int = 8
    pool_size: int = 8
    env_extra: dict = field(default_factory=dict)
    port: int = field(default_factory=free_port)
    key: str = ""
    process: subprocess.Popen | None = None
    database: str = ""

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def database_url(self) -> str:
        if self.backend == "postgres":
            return PG_ADMIN_URL.rsplit("/", 1)[0] + f"/{self.database}"
        return f"sqlite:///{self.data_dir / 'amem.sqlite3'}"

    def env(self) -> dict:
        return {
            **{k: v for k, v in os.environ.items() if not k.startswith(("AMEM_", "DJANGO_", "DATABASE_URL"))},
            "DJANGO_SETTINGS_MODULE": "amem_site.settings",
            "AMEM_DATA_DIR": str(self.data_dir),
            "DATABASE_URL": self.database_url,
            "AMEM_LLM_PROVIDER": "none",
            "AMEM_THREADS": str(self.threads),
            "AMEM_DB_POOL_SIZE": str(self.pool_size),
            "AMEM_BIND": f"127.0.0.1:{self.port}",
            "AMEM_ACCESS_LOG": "",
            "AMEM_LOG_LEVEL": "warning",
            "AMEM_API_RATE": "1000000/m",
            "AMEM_API_BAD_KEY_RATE": "1000000/m",
            "TOKENIZERS_PARALLELISM": "false",
            **self.env_extra,
        }

    def manage(self, *args: str) -> str:
        done = subprocess.run(
            [sys.executable, "manage.py", *args], cwd=ROOT, env=self.env(), capture_output=True, text=True, timeout=300
        )
        if done.returncode != 0:
            raise RuntimeError(f"manage.py {' '.join(args)} failed:\n{done.stdout}\n{done.stderr}")
        return done.stdout

    def prepare(self, agent: str = "alice") -> LiveServer:
        self.data_dir.mkdir(parents=True, exist_ok=True)
        if self.backend == "postgres":
            self.database = f"amem_reliability_live_{uuid.uuid4().hex[:10]}"
            _pg_admin(f'CREATE DATABASE "{self.database}"')
        self.manage("migrate", "--verbosity", "0")
        out = self.manage("amem_agent", "create", agent)
        self.key = next(line.split(": ", 1)[1] for line in out.splitlines() if line.startswith("api key: "))
        return self

    def start(self, timeout: float = 180, *, until_ready_line: bool = False) -> LiveServer:
        """Start gunicorn as ``make run`` does; return once /healthz says 200, or with
        ``until_ready_line`` once the log has the line the README tells a user to wait for."""
        self.log = open(self.data_dir / "server.log", "ab")  # noqa: SIM115 - closed in stop()
        self.process = subprocess.Popen(
            [str(GUNICORN), "-c", "gunicorn.conf.py", "amem_site.wsgi"],
            cwd=ROOT,
            env=self.env(),
            stdout=self.log,
            stderr=subprocess.STDOUT,
        )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"the server exited ({self.process.returncode}):\n{self.read_log()}")
            if until_ready_line:
                if f"amem: ready on {self.url}" in self.read_log():
                    return self
            else:
                try:
                    if self.call("GET", "/healthz", key=None).status == 200:
                        return self
                except OSError:
                    pass
            time.sleep(0.3)
        raise RuntimeError(f"the server did not answer within {timeout} s:\n{self.read_log()}")

    def create_agents(self, names: list[str]) -> list[str]:
        """More agents, one key each, in one manage.py call; returns their keys in order."""
        script = (
            "from memories.models import Agent, ApiKey\n"
            f"for name in {names!r}:\n"
            "    print(ApiKey.issue(Agent.objects.create(id=name), name='test')[1])\n"
        )
        # The shell also prints how many objects it imported: keep the keys only.
        return [word for word in self.manage("shell", "-c", script).split() if word.startswith("amem_")]

    def sql(self, query: str) -> list[tuple]:
        """Rows of a read-only query, straight from the server's database."""
        if self.backend == "postgres":
            import psycopg

            with psycopg.connect(self.database_url) as conn:
                return conn.execute(query).fetchall()
        import sqlite3

        with sqlite3.connect(self.data_dir / "amem.sqlite3", timeout=30) as conn:
            return conn.execute(query).fetchall()

    def dirty_notes(self) -> int:
        """Notes the index does not hold yet (the server's outbox drainer indexes them)."""
        return self.sql("SELECT count(*) FROM memories_note WHERE index_dirty")[0][0]

    def wait_indexed(self, timeout: float = 180) -> None:
        """Until every note is in the index (searches never index; the drainer does, in the background)."""
        deadline = time.monotonic() + timeout
        while (left := self.dirty_notes()) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert left == 0, f"{left} notes still not indexed after {timeout} s"

    def read_log(self) -> str:
        return (self.data_dir / "server.log").read_text(errors="replace")[-5000:]

    def kill9(self) -> None:
        """SIGKILL the master and its worker at once: nothing gets to clean up."""
        assert self.process is not None
        worker_pids = subprocess.run(
            ["pgrep", "-P", str(self.process.pid)], capture_output=True, text=True
        ).stdout.split()
        for pid in [self.process.pid, *map(int, worker_pids)]:
            with contextlib.suppress(ProcessLookupError):
                os.kill(int(pid), signal.SIGKILL)
        self.process.wait(timeout=30)
        self.process = None
        self.log.close()

    def stop(self) -> None:
        if self.process is not None:
            self.process.terminate()
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.kill9()
                return
            self.process = None
            self.log.close()

    def drop(self) -> None:
        self.stop()
        if self.backend == "postgres" and self.database:
            _pg_admin(f'DROP DATABASE IF EXISTS "{self.database}" WITH (FORCE)')

    def call(
        self,
        method: str,
        path: str,
        body: object = None,
        *,
        key: str | None = "",
        timeout: float = 120,
        headers: dict | None = None,
    ):
        """One HTTP request; ``key=""`` means this server's agent key, None no key."""
        headers = {"Content-Type": "application/json", **(headers or {})}
        token = self.key if key == "" else key
        if token is not None:
            headers["Authorization"] = f"Bearer {token}"
        # bytes are sent as they are (a body json.dumps could not make, say one nested 10,000 deep)
        data = body if isinstance(body, bytes) else json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(self.url + path, data=data, headers=headers, method=method)
        try:
            with urllib.request.urlopen(request, timeout=timeout) as answer:
                raw, status, got = answer.read(), answer.status, dict(answer.headers)
        except urllib.error.HTTPError as exc:
            raw, status, got = exc.read(), exc.code, dict(exc.headers)
        try:
            parsed = json.loads(raw) if raw else None
        except ValueError:
            parsed = raw.decode(errors="replace")
        return Response(status, parsed, got)
