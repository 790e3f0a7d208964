"""mem0's own client, pinned, in a venv of its own: for the live tests and the side-by-side benchmark.

mem0ai brings its own httpx, openai, qdrant-client and pydantic; a venv keeps them from meeting
amem's. It is installed from PyPI once into ``var/test-cache/`` (kept between runs, like the
OpenClaw gateway run keeps its npm install) and reused; a lock lets parallel test workers share it.
The scripts it runs talk to amem over HTTP only, like any mem0 user's code.
"""

from __future__ import annotations

import fcntl
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MEM0AI = "mem0ai==2.2.1"
VENV = Path(os.environ.get("AMEM_MEM0_VENV", ROOT / "var" / "test-cache" / MEM0AI.replace("==", "-")))


def python(venv: Path = VENV) -> Path:
    """The venv's interpreter, creating the venv and installing ``MEM0AI`` the first time."""
    interpreter = venv / "bin" / "python"
    done = venv / ".installed"
    venv.parent.mkdir(parents=True, exist_ok=True)
    with open(venv.parent / f"{venv.name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not done.exists():
            subprocess.run([sys.executable, "-m", "venv", "--clear", str(venv)], check=True, timeout=300)
            subprocess.run(
                [str(interpreter), "-m", "pip", "install", "--quiet", "--disable-pip-version-check", MEM0AI],
                check=True,
                timeout=900,
            )
            done.write_text(MEM0AI + "\n")
    return interpreter


def client_env(home: Path) -> dict[str, str]:
    """No telemetry (mem0 reports to PostHog by default) and mem0's config file under ``home``."""
    keep = {k: v for k, v in os.environ.items() if not k.startswith(("MEM0_", "AMEM_", "DJANGO_"))}
    return {**keep, "MEM0_TELEMETRY": "false", "MEM0_DIR": str(home), "HOME": str(home)}


def run(script: Path, args: dict, home: Path, timeout: float = 300) -> dict:
    """Run ``script`` in mem0's venv with ``args`` as JSON on stdin; its stdout's last line is JSON."""
    home.mkdir(parents=True, exist_ok=True)
    done = subprocess.run(
        [str(python()), str(script)],
        input=json.dumps(args),
        capture_output=True,
        text=True,
        env=client_env(home),
        timeout=timeout,
    )
    if done.returncode != 0:
        raise RuntimeError(f"{script.name} failed ({done.returncode}):\n{done.stdout[-3000:]}\n{done.stderr[-5000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])
