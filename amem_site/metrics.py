"""GET /metrics: Prometheus text for operators, behind a token or a staff session.

Three kinds of figures, each from where it is true:

* this web process's HTTP traffic (route pattern, method, status; a latency histogram), counted
  by ``RequestMetrics`` below, and the engine's search and write histograms (engine/metrics.py);
* what every process shares, read from the database at scrape time by ``DatabaseCollector``:
  the outbox (notes waiting for the index), the review queues per agent, the task broker's
  queue, maintenance job runs by outcome and model calls, tokens and cost by tier. The worker
  runs the jobs and many model calls; counting them in its own memory would hide them here.

The route label is Django's URL pattern (``api/v1/memories/{note_id}`` style), never the raw
path, so ids do not make one series each.
"""

from __future__ import annotations

import hmac
import logging
import time
from collections.abc import Callable, Iterator
from typing import Any

from django.conf import settings
from django.db.models import Count, Min, Q, Sum
from django.http import HttpRequest, HttpResponse
from django.utils import timezone
from prometheus_client import CONTENT_TYPE_LATEST, REGISTRY, Counter, Histogram, generate_latest
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

log = logging.getLogger("amem.metrics")

HTTP_REQUESTS = Counter(
    "amem_http_requests", "HTTP requests by route pattern, method and status", ["route", "method", "status"]
)
HTTP_SECONDS = Histogram(
    "amem_http_request_seconds",
    "HTTP request time by route pattern",
    ["route"],
    buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0),
)


def _route(request: HttpRequest) -> str:
    match = getattr(request, "resolver_match", None)
    if match is None:
        return "unmatched"  # a 404 before routing: one series for every unknown path
    return match.route or match.view_name or "unnamed"


class RequestMetrics:
    """Counts every request and times it; /metrics itself is left out of the figures it reports."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        started = time.perf_counter()
        response = self.get_response(request)
        route = _route(request)
        if route != "metrics":
            HTTP_REQUESTS.labels(route=route, method=request.method or "", status=str(response.status_code)).inc()
            HTTP_SECONDS.labels(route=route).observe(time.perf_counter() - started)
        return response


# The database's families: kind, help, labels (one place; describe() and the readers use it).
FAMILIES: dict[str, tuple[type[GaugeMetricFamily] | type[CounterMetricFamily], str, tuple[str, ...]]] = {
    "amem_outbox_notes": (GaugeMetricFamily, "Notes waiting for the index (the outbox)", ()),
    "amem_outbox_oldest_seconds": (GaugeMetricFamily, "How long the oldest note has waited for the index", ()),
    "amem_review_queue": (GaugeMetricFamily, "Review queues per agent", ("agent", "queue")),
    "amem_task_queue": (GaugeMetricFamily, "Tasks waiting on the django-q2 broker", ()),
    "amem_job_runs": (CounterMetricFamily, "Maintenance job runs by job and outcome", ("job", "outcome")),
    "amem_llm_calls": (CounterMetricFamily, "Model calls by tier, role and outcome", ("tier", "role", "outcome")),
    "amem_llm_tokens": (CounterMetricFamily, "Model tokens by tier and direction", ("tier", "direction")),
    "amem_llm_cost_usd": (CounterMetricFamily, "Model cost by tier, at AMEM_MODEL_PRICES", ("tier",)),
}


def family(name: str) -> Any:
    kind, text, labels = FAMILIES[name]
    return kind(name, text, labels=list(labels))


class DatabaseCollector(Collector):
    """Figures every process contributes to, read from the database when Prometheus scrapes."""

    def describe(self) -> Iterator[Metric]:
        # What register() asks for; without it, registering would query the database at import.
        return (family(name) for name in FAMILIES)

    def collect(self) -> Iterator[Metric]:
        yield from _outbox()
        yield _review_queues()
        broker = _broker_queue_size()
        if broker is not None:
            yield _single("amem_task_queue", broker)
        yield _job_runs()
        yield from _model_calls()


def _single(name: str, value: float) -> Metric:
    metric = family(name)
    metric.add_metric([], value)
    return metric


def _outbox() -> Iterator[Metric]:
    from memories.models import Note

    dirty = Note.objects.filter(index_dirty=True).aggregate(n=Count("pk"), oldest=Min("updated_at"))
    yield _single("amem_outbox_notes", dirty["n"])
    waited = (timezone.now() - dirty["oldest"]).total_seconds() if dirty["oldest"] else 0.0
    yield _single("amem_outbox_oldest_seconds", waited)


def _review_queues() -> Metric:
    from memories.models import Note, Pair

    queues = family("amem_review_queue")
    notes = (
        Note.objects.filter(is_active=True, erased_at__isnull=True)
        .values("agent_id")
        .annotate(low_quality=Count("pk", filter=Q(low_quality=True)))
    )
    waiting: dict[tuple[str, str], int] = {}
    for agent in notes:
        queues.add_metric([agent["agent_id"], "low_quality"], agent["low_quality"])
        waiting[(agent["agent_id"], "pending_merge")] = 0
    for row in Pair.objects.open().values("newer__agent_id", "kind").annotate(n=Count("pk")):
        queue = "pending_merge" if row["kind"] == Pair.MERGE else "conflicts"
        waiting[(row["newer__agent_id"], queue)] = row["n"]
    for (agent_id, queue), n in waiting.items():
        queues.add_metric([agent_id, queue], n)
    return queues


def _job_runs() -> Metric:
    from memories.models import JobRun

    jobs = family("amem_job_runs")
    for run in JobRun.objects.values("job", "outcome").annotate(n=Count("pk")):
        jobs.add_metric([run["job"], run["outcome"]], run["n"])
    return jobs


def _model_calls() -> Iterator[Metric]:
    from memories.models import LlmCall

    calls = family("amem_llm_calls")
    for kind in LlmCall.objects.values("tier", "role", "outcome").annotate(n=Count("pk")):
        calls.add_metric([kind["tier"], kind["role"], kind["outcome"]], kind["n"])
    yield calls
    tokens, cost = family("amem_llm_tokens"), family("amem_llm_cost_usd")
    for tier in LlmCall.objects.values("tier").annotate(tokens_in=Sum("tokens_in"), tokens_out=Sum("tokens_out")):
        spent_in, spent_out = tier["tokens_in"] or 0, tier["tokens_out"] or 0
        tokens.add_metric([tier["tier"], "in"], spent_in)
        tokens.add_metric([tier["tier"], "out"], spent_out)
        per_million_in, per_million_out = settings.AMEM_LLM_PRICES.get(tier["tier"], (0.0, 0.0))
        cost.add_metric([tier["tier"]], (spent_in * per_million_in + spent_out * per_million_out) / 1e6)
    yield tokens
    yield cost


def _broker_queue_size() -> int | None:
    from django_q.brokers import get_broker

    try:
        return int(get_broker().queue_size() or 0)
    except Exception as exc:  # the broker down: /healthz?deep says so; the scrape still answers
        log.warning("metrics: the task broker's queue could not be read: %s", exc)
        return None


REGISTRY.register(DatabaseCollector())


def _allowed(request: HttpRequest) -> bool:
    token = settings.AMEM_METRICS_TOKEN
    given = request.headers.get("Authorization", "")
    if token and given.startswith("Bearer ") and hmac.compare_digest(given[7:].encode(), token.encode()):
        return True
    user = getattr(request, "user", None)
    return bool(user is not None and user.is_active and user.is_staff)


def metrics(request: HttpRequest) -> HttpResponse:
    if not _allowed(request):
        return HttpResponse(
            "metrics: send 'Authorization: Bearer <AMEM_METRICS_TOKEN>' or sign in as staff\n",
            status=401 if not request.user.is_authenticated else 403,
            content_type="text/plain",
        )
    return HttpResponse(generate_latest(REGISTRY), content_type=CONTENT_TYPE_LATEST)
