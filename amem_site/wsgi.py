"""WSGI entry point (runserver and gunicorn both load it).

The serving process owns the embedded index: it opens it at start-up, so the first CLI call
after ``make run`` is forwarded rather than refused, and starts the outbox drainer that
indexes dirty notes in the background (engine/index_sync/outbox.py). A worker-role process
(AMEM_PROCESS_ROLE=worker) does neither.
"""

import logging
import os
import threading

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "amem_site.settings")
application = get_wsgi_application()


def _own_the_index() -> None:
    from engine.errors import AmemError
    from engine.index_sync import outbox
    from surfaces.local_bridge import local_token

    local_token()  # commands find it and ask this server first
    try:
        outbox.start()
    except AmemError as exc:  # e.g. another process holds the embedded index: serve, index later
        logging.getLogger("amem_site.wsgi").warning("index not opened at start-up: %s", exc)
        return
    # The server answers once the index is open; the model is made ready meanwhile (the recorded
    # ONNX graph, checked against its probe vectors: no PyTorch, onnx_encoder.py; PyTorch only
    # on a first start, to export and verify one). /healthz says "starting" (503) until it is
    # ready: ready means a write waits for no model load.
    from engine import runtime

    done = runtime.begin_warm_up()
    threading.Thread(target=_warm_model, args=(done,), name="amem-model-warm-up", daemon=True).start()


def _warm_model(done: threading.Event) -> None:
    from engine import runtime
    from engine.errors import AmemError

    try:
        runtime.embedder().warm()
    except AmemError as exc:  # said once here; the first write that needs the model says it again
        logging.getLogger("amem_site.wsgi").warning("embedding model not loaded at start-up: %s", exc)
    finally:
        done.set()


_own_the_index()
