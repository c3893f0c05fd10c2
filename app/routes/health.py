"""Health checks for a supervisor and a load balancer.

``/healthz`` is liveness: the process answers (no database, no disk): restart it when this fails.
``/readyz`` is readiness: the database answers a query, and in cluster mode which workers are
alive per GPU (``grading_worker`` rows younger than ``worker_stalled_seconds``). 503 with
``{"ok": false, "database": "unreachable"}`` while the database does not answer: send no traffic
here. No live GPU worker is reported (``gpu_workers: 0``, a warning) but is not a 503: the site
still takes submissions, which wait for a GPU.
"""
from __future__ import annotations

from typing import Any

from fastapi.responses import JSONResponse
from sqlalchemy import text
from starlette.concurrency import run_in_threadpool

from app.core.bodies import make_router
from app.core.services import Services, ServicesDep
from app.routes.errors import DATABASE_UNAVAILABLE, RETRY_AFTER_SECONDS

router = make_router(include_in_schema=False)
NO_STORE = {"Cache-Control": "no-store"}


@router.get("/healthz")
async def healthz() -> JSONResponse:
    return JSONResponse({"ok": True}, headers=NO_STORE)


def readiness(shared: Services) -> dict[str, Any]:
    settings = shared.settings
    with shared.session_factory() as db:
        db.execute(text("SELECT 1"))
        out: dict[str, Any] = {"ok": True, "database": "ok",
                     "mode": "cluster" if settings.queue == "procrastinate" else "one box", "warnings": []}
        if settings.queue == "procrastinate":
            from app.cluster import registry

            views = registry.workers(db, settings.worker_stalled_seconds)
            out["workers"] = registry.live_per_gpu(views)
            out["gpu_workers"] = sum(1 for w in views if w.live and w.gpu is not None)
            out["stale_workers"] = [w.name for w in views if not w.live]
            if not out["gpu_workers"]:
                out["warnings"].append("no live GPU worker: submissions wait")
            if out["stale_workers"]:
                out["warnings"].append("stale workers: " + ", ".join(out["stale_workers"]))
    return out


@router.get("/readyz")
async def readyz(shared: ServicesDep) -> JSONResponse:
    try:
        out = await run_in_threadpool(readiness, shared)
    except DATABASE_UNAVAILABLE:
        return JSONResponse({"ok": False, "database": "unreachable"}, status_code=503,
                            headers={**NO_STORE, "Retry-After": RETRY_AFTER_SECONDS})
    return JSONResponse(out, headers=NO_STORE)
