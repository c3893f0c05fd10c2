"""``/metrics`` for Prometheus (the maintained ``prometheus-client``).

Two sources:
- per process: request latency by route group (``mkc_http_request_duration_seconds``), observed by
  ``RequestTimer`` around every request. With ``python -m app serve --workers N`` each web process
  writes its samples to ``PROMETHEUS_MULTIPROC_DIR`` (``serve`` sets it) and a scrape of any one of
  them reads all of them (prometheus-client's multi-process mode).
- from the database at scrape time (the same for every process, so counted once): submissions by
  state, graded verdicts, wait / compile / GPU time of the last hour's jobs (gauge histograms: a
  window, not a counter since start), rows waiting for a compile budget or cool-down, and the
  cluster's workers with their names and the age of their last heartbeat.

Access: ``Authorization: Bearer <MKC_METRICS_TOKEN>`` from anywhere, or a client address in
``MKC_METRICS_ALLOW``; anyone else gets 403.
"""
from __future__ import annotations

import datetime as dt
import hmac
import ipaddress
import time
from collections import Counter
from collections.abc import Iterator

from fastapi import Request
from fastapi.responses import Response
from prometheus_client import CONTENT_TYPE_LATEST, REGISTRY, CollectorRegistry, Histogram, generate_latest, values
from prometheus_client.core import GaugeHistogramMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.multiprocess import MultiProcessCollector
from sqlalchemy import func, select
from starlette.concurrency import run_in_threadpool
from starlette.types import ASGIApp, Receive, Scope, Send

from app.core.bodies import make_router
from app.core.clock import utcnow
from app.core.errors import AppError
from app.core.services import services

router = make_router(include_in_schema=False)
WINDOW = dt.timedelta(hours=1)
WAIT_BUCKETS = (1, 5, 15, 30, 60, 120, 300, 600, 1800, 3600)
RUN_BUCKETS = (0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60)

REQUEST_SECONDS = Histogram("mkc_http_request_duration_seconds", "Time to answer a request, by route group",
                            ["group", "method"], buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10))


def route_group(scope: Scope) -> str:
    """A bounded label: the first part of the matched route's template (``/api/submissions/{sub_id}`` ->
    ``api/submissions``); ``events`` for live status streams; ``unmatched`` for 404s."""
    route = scope.get("route")
    path = getattr(route, "path", None)
    if not path:
        return "static" if scope.get("path", "").startswith("/static/") else "unmatched"
    if path.endswith("/events"):
        return "events"
    parts = [p for p in path.strip("/").split("/") if p and not p.startswith("{")]
    if parts[:1] == ["api"]:
        return "/".join(parts[:2])
    return parts[0] if parts else "index"


class RequestTimer:
    """Pure ASGI middleware: how long each HTTP request took, by route group."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        try:
            await self.app(scope, receive, send)
        finally:
            REQUEST_SECONDS.labels(route_group(scope), scope.get("method", "")).observe(time.perf_counter() - started)


def allowed(request: Request) -> bool:
    settings = services(request).settings
    token = settings.metrics_token
    sent = request.headers.get("authorization", "")
    if token and hmac.compare_digest(sent.encode(), f"Bearer {token}".encode()):
        return True
    host = request.client.host if request.client else ""
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return False
    for entry in settings.metrics_allow.split(","):
        entry = entry.strip()
        if entry:
            try:
                if address in ipaddress.ip_network(entry, strict=False):
                    return True
            except ValueError:
                continue
    return False


def _buckets(values: list[float], bounds: tuple[float, ...]) -> list[tuple[str, float]]:
    out = [(str(float(b)), float(sum(1 for v in values if v <= b))) for b in bounds]
    return out + [("+Inf", float(len(values)))]


class DatabaseCollector:
    """The queue as the database shows it, read once per scrape."""

    def __init__(self, request: Request) -> None:
        self.session_factory = services(request).session_factory
        self.settings = services(request).settings

    def collect(self) -> Iterator[Metric]:
        from app.submissions import states
        from app.submissions.models import Submission

        since = utcnow() - WINDOW
        with self.session_factory() as db:
            by_state = dict(db.execute(select(Submission.state, func.count()).group_by(Submission.state)).all())
            verdicts = db.execute(select(Submission.verdict, func.count()).where(Submission.state == states.DONE)
                                  .group_by(Submission.verdict)).all()
            waiting = db.execute(select(Submission.waiting_reason, func.count()).where(
                Submission.state == states.QUEUED, Submission.waiting_reason.is_not(None))
                .group_by(Submission.waiting_reason)).all()
            recent = db.execute(select(Submission.created_at, Submission.claimed_at, Submission.started_at,
                                       Submission.finished_at, Submission.compile_ms)
                                .where(Submission.state == states.DONE, Submission.finished_at > since)).all()
            workers = []
            if self.settings.queue == "procrastinate":
                from app.cluster import registry

                workers = registry.workers(db, self.settings.worker_stalled_seconds)
        depth = GaugeMetricFamily("mkc_submissions", "Submissions by state now", labels=["state"])
        for state in states.ALL:
            depth.add_metric([state], by_state.get(state, 0))
        yield depth
        graded = GaugeMetricFamily("mkc_submissions_graded", "Graded submissions by verdict", labels=["verdict"])
        for verdict, n in verdicts:
            graded.add_metric([verdict or "none"], n)
        yield graded
        deferred = GaugeMetricFamily("mkc_submissions_deferred", "Queued submissions held back, by reason "
                                     "(compile_budget, compile_cooldown, compile_long)", labels=["reason"])
        for reason, n in waiting:  # never None: the query keeps only rows with a reason
            deferred.add_metric([str(reason)], n)
        yield deferred
        phases = {
            "wait": [(r.claimed_at - r.created_at).total_seconds() for r in recent if r.claimed_at and r.created_at],
            "compile": [r.compile_ms / 1000 for r in recent if r.compile_ms is not None],
            "gpu": [(r.finished_at - r.started_at).total_seconds() for r in recent if r.started_at and r.finished_at],
        }
        for phase, bounds, help_text in (("wait", WAIT_BUCKETS, "stored -> taken by a worker"),
                                         ("compile", RUN_BUCKETS, "the compile stage"),
                                         ("gpu", RUN_BUCKETS, "the GPU stage (checking and timing)")):
            values = phases[phase]
            family = GaugeHistogramMetricFamily(f"mkc_submission_{phase}_seconds",
                                                f"Jobs finished in the last hour: {help_text}")
            family.add_metric([], _buckets(values, bounds), gsum_value=sum(values))
            yield family
        live = GaugeMetricFamily("mkc_workers_live", "Live cluster workers per GPU", labels=["gpu"])
        for gpu, names in sorted(Counter("cpu" if w.gpu is None else str(w.gpu) for w in workers if w.live).items()):
            live.add_metric([gpu], names)
        yield live
        beat = GaugeMetricFamily("mkc_worker_heartbeat_age_seconds", "Seconds since each worker's last heartbeat",
                                 labels=["name", "gpu"])
        for w in workers:
            beat.add_metric([w.name, "cpu" if w.gpu is None else str(w.gpu)], w.last_seen_age_s)
        yield beat


def scrape(request: Request) -> bytes:
    database = CollectorRegistry(auto_describe=False)
    database.register(DatabaseCollector(request))
    if values.ValueClass is not values.MutexValue:  # PROMETHEUS_MULTIPROC_DIR was set (`serve --workers N`)
        processes = CollectorRegistry()
        MultiProcessCollector(processes)  # type: ignore[no-untyped-call]  # prometheus_client leaves its __init__ unannotated
    else:
        processes = REGISTRY
    return generate_latest(processes) + generate_latest(database)


@router.get("/metrics")
async def metrics(request: Request) -> Response:
    if not allowed(request):
        raise AppError.for_status(403)
    return Response(await run_in_threadpool(scrape, request), media_type=CONTENT_TYPE_LATEST,
                    headers={"Cache-Control": "no-store"})
