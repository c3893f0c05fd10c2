"""Wiring the submissions part into an app: routes, change hub, dispatcher.

``install(app)`` at build time; ``start(app)`` / ``stop(app)`` from the app's lifespan. With
``MKC_DISPATCHER_ENABLED=false`` the web process only stores and shows submissions, and a
standalone ``python -m app dispatcher`` (one per GPU) grades them. With ``MKC_QUEUE=procrastinate``
(cluster mode, PostgreSQL) the web process defers a procrastinate job with each row and
``python -m app worker --gpu N`` processes grade them (app/cluster).
"""
from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from fastapi import FastAPI
from sqlalchemy.orm import Session, sessionmaker

from app.core.config import Settings
from app.core.services import app_services
from app.lessons.catalog import Catalog
from app.submissions.dispatcher import CompileFirst, DispatcherConfig, Grade
from app.submissions.events import ChangeHub
from app.submissions.lanes import bind_gpu, lane_index
from app.submissions.models import Submission
from app.submissions.pipeline import OneBoxPipeline

log = logging.getLogger(__name__)


class SubmissionsRuntime:
    def __init__(self) -> None:
        self.hub = ChangeHub()
        self.dispatcher: OneBoxPipeline | None = None  # one box: compile slots + the GPU stage
        # Cluster mode: defers the row's grading job inside the row's own transaction
        # (app.cluster.jobs.Enqueuer); None on one box, where the dispatcher reads the table itself.
        self.enqueue: Callable[[Session, Submission], Any] | None = None

    def wake(self) -> None:
        if self.dispatcher is not None:
            self.dispatcher.wake()


def dispatcher_config(settings: Settings, gpu_index: int | None = None) -> DispatcherConfig:
    gpu = {"auto": None, "on": True, "off": False}[settings.dispatcher_gpu]
    return DispatcherConfig(lane=settings.dispatcher_lane, gpu_index=settings.dispatcher_gpu_index
                            if gpu_index is None else gpu_index, lease_seconds=settings.submission_lease_seconds,
                            poll_seconds=settings.dispatcher_poll_seconds,
                            max_attempts=settings.submission_max_attempts, gpu=gpu,
                            gpu_budget_seconds=settings.gpu_budget_seconds)


def bound_dispatcher_config(settings: Settings, gpu_index: int | None = None) -> DispatcherConfig:
    """A dispatcher's config after binding its process to its GPU (``lanes.bind_gpu``: a given
    ``gpu_index`` always binds, the setting unless the operator bound the process; nothing is bound
    for a dispatcher with ``MKC_DISPATCHER_GPU=off``), its lane named after the card it got."""
    config = dispatcher_config(settings, gpu_index)
    if gpu_index is not None or config.gpu is not False:
        config.gpu_index = lane_index(bind_gpu(config.gpu_index, explicit=gpu_index is not None), config.gpu_index)
    return config


def install(app: FastAPI) -> None:
    from app.submissions.routes import router

    app.include_router(router)  # its runtime (SubmissionsRuntime) is one of the services create_app builds


def lesson_slugs_of(app: FastAPI) -> Callable[[], frozenset[str]]:
    def slugs() -> frozenset[str]:
        shared = app_services(app)
        return frozenset(lesson.slug for lesson in shared.get(Catalog).snapshot().visible(shared.settings.show_drafts))
    return slugs


def start(app: FastAPI) -> None:
    shared = app_services(app)
    settings, runtime = shared.settings, shared.get(SubmissionsRuntime)
    if settings.queue == "procrastinate":  # GPU workers (`python -m app worker`) grade; no dispatcher here
        return  # (the app's factory gave runtime.enqueue app.cluster's Enqueuer: cluster builds on this package)
    if not settings.dispatcher_enabled or runtime.dispatcher is not None:
        return
    runtime.dispatcher = one_box(shared.session_factory, settings, bound_dispatcher_config(settings),
                                 lesson_slugs=lesson_slugs_of(app), notify=runtime.hub.notify)
    runtime.dispatcher.start()


def one_box(session_factory: sessionmaker[Session], settings: Settings, config: DispatcherConfig, *,
            lesson_slugs: Callable[[], frozenset[str]], notify: Callable[[int], None] | None = None,
            grade: Grade | None = None, compile_first: CompileFirst | None = None) -> OneBoxPipeline:
    """The one-box grader: ``MKC_COMPILE_SLOTS`` compile slots (at least one: on one box nobody else
    compiles), then the GPU stage."""
    return OneBoxPipeline(session_factory, config, slots=max(1, settings.compile_slots),
                          compile_budget_seconds=settings.compile_budget_seconds,
                          cache_dir=settings.data_dir / "cubin-cache", lesson_slugs=lesson_slugs, notify=notify,
                          grade=grade, compile_first=compile_first,
                          compile_slice_seconds=settings.compile_slice_seconds)


def stop(app: FastAPI, timeout: float = 10.0) -> None:
    runtime = app_services(app).get(SubmissionsRuntime)
    if runtime.dispatcher is not None:
        if not runtime.dispatcher.stop(timeout):
            log.warning("dispatcher still grading at shutdown; its job is reclaimed after the lease")
        runtime.dispatcher = None
