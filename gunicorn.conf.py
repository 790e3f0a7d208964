"""gunicorn settings for amem (`make run`, docs/deploy.md): `gunicorn -c gunicorn.conf.py amem_site.wsgi`.

ONE worker process: the embedded Qdrant shard (qdrant-edge) is opened by exactly one process,
the one serving the API; a second worker could not open it. Concurrency comes from threads
(gthread): model calls and database waits release the GIL. Keep AMEM_DB_POOL_SIZE ≥ AMEM_THREADS
on PostgreSQL so no thread waits for a connection (docs/configuration.md).
"""

import os

bind = os.environ.get("AMEM_BIND", "127.0.0.1:8000")
workers = 1  # never more: see above
worker_class = "gthread"
threads = int(os.environ.get("AMEM_THREADS", "8"))
# A worker process silent this long is restarted. With threads this is a liveness check, not a
# bound on a request (docs/deploy.md, "What bounds a request").
timeout = int(os.environ.get("AMEM_WORKER_TIMEOUT", "180"))
graceful_timeout = 30
keepalive = 5
accesslog = os.environ.get("AMEM_ACCESS_LOG", "-") or None
errorlog = "-"
loglevel = os.environ.get("AMEM_LOG_LEVEL", "info").lower()
# The app is imported in the worker (not the master): the process that serves owns the index.
preload_app = False


def post_worker_init(worker):
    """Open the index and start the outbox drainer in the serving process (engine/index_sync/outbox.py);
    gunicorn's own error answers become JSON (amem_site/gunicorn_errors.py).

    Idempotent: if the application starts it itself (amem_site/wsgi.py), this changes nothing.
    Without it, notes left dirty (a worker's writes, a kill mid-write) would wait for the next write.
    """
    from amem_site import gunicorn_errors
    from engine.index_sync import outbox

    gunicorn_errors.install()  # gunicorn's own 400/414/431 answers in JSON, like the API's
    outbox.start()
