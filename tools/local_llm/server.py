"""Start and stop the local model server (server.mjs under node) as a child process."""

from __future__ import annotations

import re
import shutil
import subprocess
import threading
from collections import deque
from pathlib import Path
from typing import Self

from tools.local_llm.install import DEFAULT_MODEL, ensure_model, ensure_runtime, home

_READY_RE = re.compile(r"listening on (\d+)")


class LocalModelServer:
    """``with LocalModelServer() as server:`` → ``server.base_url`` is an OpenAI-compatible /v1.

    threads=1 by default: on a shared 2-core machine llama.cpp's threads wait on each other
    when another process holds a core (two threads measured 15× slower than one under load).
    """

    def __init__(
        self,
        model: str = DEFAULT_MODEL,
        *,
        port: int = 0,
        threads: int = 1,
        context_size: int = 4096,
        api_key: str = "",
        nice: int = 0,
        base: Path | None = None,
        log=print,
    ) -> None:
        self.model = model
        self.port = port
        self.threads = threads
        self.context_size = context_size
        self.api_key = api_key
        self.nice = nice
        self.base = base or home()
        self.log = log
        self.process: subprocess.Popen[str] | None = None
        self.output: deque[str] = deque(maxlen=50)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def start(self, timeout: float = 300) -> Self:
        if shutil.which("node") is None:
            raise RuntimeError("node >= 20 is needed for the local model server")
        folder = ensure_runtime(self.base, log=self.log)
        gguf = ensure_model(self.base, self.model, log=self.log)
        command = ["node", "server.mjs", "--model", str(gguf), "--port", str(self.port)]
        command += ["--threads", str(self.threads), "--ctx", str(self.context_size)]
        if self.api_key:
            command += ["--api-key", self.api_key]
        if self.nice:
            # `nice -n` on top of the caller's own niceness (a caller already under `nice`
            # passes 0: stacked, 10 + 10 is 19, and at 19 a busy machine starves the model).
            command = ["nice", "-n", str(self.nice), *command]
        self.process = subprocess.Popen(
            command,
            cwd=folder,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        ready = threading.Event()
        threading.Thread(target=self._read, args=(ready,), daemon=True).start()
        if not ready.wait(timeout) or self.process.poll() is not None:
            self.stop()
            raise RuntimeError("local model server did not start:\n" + "\n".join(self.output))
        return self

    def _read(self, ready: threading.Event) -> None:
        assert self.process is not None and self.process.stdout is not None
        for line in self.process.stdout:
            self.output.append(line.rstrip())
            match = _READY_RE.search(line)
            if match and not ready.is_set():
                self.port = int(match.group(1))
                ready.set()
        ready.set()  # the process ended: start() sees poll() and reports the output

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.process = None

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
