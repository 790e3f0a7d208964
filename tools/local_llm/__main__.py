"""python -m tools.local_llm [--model smollm2-135m] [--port 8081] [--threads 1]

Installs what is missing into the cache (AMEM_LOCAL_LLM_HOME, default ~/.cache/amem/local-llm),
starts the server and prints the settings that point amem at it. Ctrl-C stops it.
"""

from __future__ import annotations

import argparse
import signal
import threading

from tools.local_llm.install import DEFAULT_MODEL, MODELS
from tools.local_llm.server import LocalModelServer


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m tools.local_llm", description=__doc__.splitlines()[0])
    parser.add_argument("--model", choices=sorted(MODELS), default=DEFAULT_MODEL)
    parser.add_argument("--port", type=int, default=0, help="0 picks a free port")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--ctx", type=int, default=4096, help="context size in tokens")
    parser.add_argument("--api-key", default="", help="require this bearer key (to try a refusing provider)")
    args = parser.parse_args()
    server = LocalModelServer(
        args.model, port=args.port, threads=args.threads, context_size=args.ctx, api_key=args.api_key
    )
    server.start()
    print(f"serving {MODELS[args.model].note}")
    print("point amem at it with:")
    print("  export AMEM_LLM_PROVIDER=openai")
    print(f"  export AMEM_LLM_BASE_URL={server.base_url}")
    print(f"  export AMEM_LLM_MODEL={args.model}")
    print("  export AMEM_LLM_TIMEOUT=120")
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    try:
        stop.wait()
    except KeyboardInterrupt:
        pass
    finally:
        server.stop()


if __name__ == "__main__":
    main()
