"""gunicorn settings for amem (`make run`, docs/deploy.md): `gunicorn -c gunicorn.conf.py amem_site.wsgi`.

One worker process by default (`AMEM_WEB_PROCESSES`): the embedded Qdrant shard (qdrant-edge) is
opened by exactly one process, so with one worker that is the worker serving the API, and with
more the master starts an index process that owns it and the workers ask it
(amem_site/index_process.py). Concurrency within a worker comes from threads (gthread): model
calls and database waits release the GIL. Keep AMEM_DB_POOL_SIZE ≥ AMEM_THREADS on PostgreSQL so
no thread waits for a connection (docs/configuration.md).
"""

import os
import sys

from django.core.exceptions import ImproperlyConfigured

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "amem_site.settings")
try:
    # Every setting, checked in the master before a worker forks (amem_site/startup.py): one line
    # and exit 2, as manage.py does, instead of a worker that fails to boot (exit 3, a traceback).
    from amem_site.server_settings import check_server_settings
    from amem_site.startup import check_configuration

    server = check_server_settings()
    # Several web processes share the embedded index through a process that owns it
    # (amem_site/index_process.py); its socket is chosen before settings.py reads it.
    if server.processes > 1:
        from amem_site import index_process

        index_process.prepare()
    check_configuration()
    from django.conf import settings

    # With a Qdrant server every process opens the index itself (engine/runtime.py prefers it).
    serve_index = server.processes > 1 and not settings.AMEM_QDRANT_URL
    if server.processes > 1 and not settings.AMEM_CACHE_URL:
        # Said once, at start: the limit a key meets is no longer the one configured.
        print(
            f"amem: warning: {server.processes} web processes count rate limits each on their own "
            "(a key may make up to that many times AMEM_API_RATE); set AMEM_CACHE_URL to share them",
            file=sys.stderr,
        )
except ImproperlyConfigured as exc:
    print(f"amem: {exc}", file=sys.stderr)
    sys.exit(2)

bind = server.bind
workers = server.processes  # above 1: the index is served by a process of its own (see above)
worker_class = "gthread"
threads = server.threads
# A worker process silent this long is restarted. With threads this is a liveness check, not a
# bound on a request (docs/deploy.md, "What bounds a request").
timeout = server.timeout
# On SIGTERM, requests in flight get this long to finish: a stop takes under 10 s (docs/deploy.md).
graceful_timeout = 8
keepalive = 5
accesslog = server.access_log
# Paths and query strings redacted: no subject's name or search text in the log (amem_site/log_redaction.py).
logger_class = "amem_site.log_redaction.RedactingAccessLogger"
errorlog = "-"
loglevel = server.log_level
# The app is imported in the worker (not the master): the process that serves owns the index.
preload_app = False
# No control socket (gunicornc): amem does not use it, and its default path is one file in the
# user's home shared by every gunicorn of that user.
control_socket_disable = True


def post_worker_init(worker):
    """Open the index and start the outbox drainer in the serving process (engine/index_sync/outbox.py);
    gunicorn's own error answers become JSON (amem_site/gunicorn_errors.py).

    Idempotent: if the application starts it itself (amem_site/wsgi.py), this changes nothing.
    Without it, notes left dirty (a worker's writes, a kill mid-write) would wait for the next write.
    """
    from django.conf import settings

    from amem_site import gunicorn_errors, server_record
    from engine.index_sync import outbox

    gunicorn_errors.install()  # gunicorn's own 400/414/431 answers in JSON, like the API's
    outbox.start()
    # An index that lost notes (a deleted folder, a half-done rebuild) is said at start, loudly.
    import threading

    from engine.index_sync import coverage

    threading.Thread(target=coverage.report_at_start, name="amem-index-check", daemon=True).start()
    # Where this server listens, for the commands (amem_search, amem_mcp) to find it.
    for sock in worker.sockets:
        address = sock.getsockname()
        if isinstance(address, tuple):
            url = server_record.write(settings.AMEM_DATA_DIR, address[0], address[1], worker.ppid)
            threading.Thread(target=_say_ready, args=(url,), name="amem-ready", daemon=True).start()
            break


def _say_ready(url: str) -> None:
    """One line once commands can find this server and a write waits for nothing: then it is ready."""
    import sys

    from engine import runtime

    if runtime.wait_until_takes_writes(timeout=600):
        print(f"amem: ready on {url} (commands find it; writes are taken now)", file=sys.stderr, flush=True)


def on_starting(arbiter):
    if serve_index:
        from django.conf import settings

        from amem_site import index_process

        index_process.start(settings.AMEM_QDRANT_PATH)


def worker_exit(server, worker):
    from engine.index_sync import outbox

    outbox.stop()  # its last round writes what it held in memory (the searches' heat counts)


def on_exit(arbiter):
    """After the workers have stopped: the record commands read goes, then the index process."""
    from django.conf import settings

    from amem_site import server_record

    server_record.remove(settings.AMEM_DATA_DIR)
    if serve_index:
        from amem_site import index_process

        index_process.stop()
