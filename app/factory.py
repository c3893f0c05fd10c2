"""The application factory: ``create_app(settings)`` builds a fresh, independent app."""
from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
from collections.abc import AsyncIterator

from fastapi import FastAPI
from fastapi.exceptions import RequestValidationError
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.middleware.gzip import GZipMiddleware

from app import models as _schema  # noqa: F401  (registers every feature's tables on Base.metadata)
from app.accounts.auth import AccountsConfig
from app.accounts.routes import router as accounts_router
from app.classes.lms import LmsGradebook
from app.comments.limits import CommentsConfig
from app.comments.routes import router as comments_router
from app.core import openapi, vocabulary
from app.core.config import Settings
from app.core.db import make_engine, make_session_factory
from app.core.errors import AppError
from app.core.head import HeadAsGetMiddleware
from app.core.headers import SecurityHeadersMiddleware
from app.core.migrate import require_head, upgrade_to_head
from app.core.page_cache import PageCache
from app.core.proxies import add_proxy_headers
from app.core.services import Services
from app.lessons.catalog import Catalog
from app.lessons.exercises import ExerciseInfoCache
from app.lessons.gate import load_checked_catalog
from app.lessons.measured import ResultsStore
from app.lti import passback as lti_passback
from app.lti import passback_status as lti_passback_status
from app.lti.admin import router as lti_admin_router
from app.lti.continue_routes import router as lti_continue_router
from app.lti.course_routes import router as lti_course_router
from app.lti.routes import router as lti_router
from app.notifications.routes import router as notifications_router
from app.profile.routes import router as profile_router
from app.progress.reader_cache import ReaderMemo
from app.progress.routes import router as progress_api_router
from app.reports.routes import router as reports_router
from app.routes import apidocs, errors, health, language, metrics, pages
from app.routes.bodies import EarlyRefusalMiddleware
from app.routes.ladder import router as ladder_router
from app.routes.static_files import CachedStaticFiles
from app.stats import ViewCounter
from app.submissions import runtime as submissions
from app.submissions.runtime import SubmissionsRuntime
from app.templating import STATIC_DIR, make_environment

log = logging.getLogger(__name__)
VIEW_FLUSH_SECONDS = 5.0


async def _flush_views_forever(shared: Services) -> None:
    while True:
        await asyncio.sleep(VIEW_FLUSH_SECONDS)
        try:
            await run_in_threadpool(shared.get(ViewCounter).flush, shared.session_factory)
        except Exception:
            log.exception("could not write lesson view counts")


def settle_heap() -> None:
    """Collect start-up's garbage, then freeze what is left (Python's gc.freeze).

    Why: a full (generation 2) collection walks every tracked object. After start-up that is ~160,000
    objects (modules, the lesson catalog, templates), and on a 2-core box the walk took 80-160 ms. It
    runs on the event loop's thread, so every request in flight waited for it; on a signed-in bench run
    that one pause was the p99 (found with a gc.callbacks probe under wrk). Frozen
    objects are still freed by reference counting; the collector just no longer walks them, so a full
    collection now sees only what requests created (~12,500 objects, 8 ms)."""
    gc.collect()
    gc.freeze()


def create_app(settings: Settings | None = None) -> FastAPI:
    settings = settings or Settings()

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        settings.ensure_data_dir()
        shared.secret_key  # noqa: B018  (loaded, or generated into data_dir, now: a bad data_dir fails start-up)
        if settings.migrate_on_start:  # embedded use and tests; `serve` migrates once before its workers start
            await run_in_threadpool(upgrade_to_head, shared.engine)
        else:
            await run_in_threadpool(require_head, shared.engine)
        snapshot = shared.get(Catalog).snapshot()
        for problem in snapshot.problems:
            (log.error if problem.severity == "error" else log.warning)("lesson: %s", problem)
        if settings.freeze_heap:  # last step of start-up: what it built is frozen, requests' objects are not
            settle_heap()
        flusher = asyncio.create_task(_flush_views_forever(shared))
        if settings.queue == "procrastinate":  # cluster mode: a new row's job goes to the GPU workers' queue
            from app.cluster.jobs import Enqueuer

            shared.get(SubmissionsRuntime).enqueue = Enqueuer(settings.resolved_database_url)
        submissions.start(app)  # the grading dispatcher (a thread; see app/submissions/dispatcher.py)
        # LMS grade passback (app/lti/passback.py): changed scores go to connected LMSes
        passback = asyncio.create_task(lti_passback.run_forever(app)) if settings.lti_passback_seconds > 0 else None
        try:
            yield
        finally:
            if passback is not None:
                passback.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await passback
            await run_in_threadpool(submissions.stop, app)
            flusher.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await flusher
            shared.get(ViewCounter).flush(shared.session_factory)
            shared.engine.dispose()

    # Bodies are capped per router and route while they are read (app/core/bodies.py), not here: an
    # application-wide limit would answer refusals in English, around our error handlers.
    # /docs and /redoc are ours (app/routes/apidocs.py): served from static/, no CDN, no inline script.
    app = FastAPI(title=settings.site_name, lifespan=lifespan, docs_url=None, redoc_url=None,
                  openapi_url="/openapi.json", description=vocabulary.api_description())
    engine = make_engine(settings.resolved_database_url)
    page_cache = PageCache(enabled=not settings.debug)
    # Built once here, read by every module through app.core.services.services(request); nothing else is
    # kept on app.state.
    shared = app.state.services = Services.build(
        settings=settings, engine=engine, session_factory=make_session_factory(engine),
        templates=make_environment(auto_reload=True), page_cache=page_cache,
        # signed-in readers' pages: one cache per application, off when the visitors' cache is off (debug)
        reader_pages=PageCache(max_entries=4096, enabled=page_cache.enabled),
        parts=[Catalog(settings.lessons_dir, STATIC_DIR, settings.kernels_dir, settings.catalog_check_interval,
                       load_checked_catalog),
               ResultsStore(settings.results_dir, settings.kernels_dir / "ladder", settings.results_gpu,
                            recheck_s=settings.catalog_check_interval),
               ExerciseInfoCache(settings.kernels_dir),
               ViewCounter(),
               AccountsConfig.from_settings(settings),  # session lifetime and rate limits (tests tune these)
               CommentsConfig.from_settings(settings),  # comment length, rate limits, page size (tests tune these)
               SubmissionsRuntime(),  # change hub, dispatcher, the cluster's enqueuer
               ReaderMemo(),  # what the signed-in page path remembers between requests
               LmsGradebook(read=lti_passback_status.for_class)])  # what each class's LMS was sent

    app.add_middleware(EarlyRefusalMiddleware)
    app.add_middleware(SecurityHeadersMiddleware)
    # Compresses pages, JSON and static text (Starlette's own; it leaves event streams alone).
    app.add_middleware(GZipMiddleware, minimum_size=1000)
    app.add_middleware(metrics.RequestTimer)  # request latency by route group, for /metrics
    app.add_middleware(HeadAsGetMiddleware)  # outside compression: HEAD's headers are GET's, byte for byte
    add_proxy_headers(app, settings.trusted_proxies)  # outermost: every layer sees the client's address
    # Starlette types every handler as taking Exception, though it calls each only with the class it was
    # registered for; the handlers are typed with that class, so the stub's arg-type complaint is ignored.
    app.add_exception_handler(StarletteHTTPException, errors.http_error)  # type: ignore[arg-type]
    app.add_exception_handler(RequestValidationError, errors.validation_error)  # type: ignore[arg-type]
    openapi.install(app)  # /openapi.json: the /api/ operations and their documented refusals
    app.add_exception_handler(Exception, errors.server_error)
    for database_error in errors.DATABASE_UNAVAILABLE:
        app.add_exception_handler(database_error, errors.database_unavailable)
    app.add_exception_handler(AppError, errors.app_error)  # type: ignore[arg-type]  # every feature's refusals: JSON on /api/, else a page
    app.mount("/static", CachedStaticFiles(directory=STATIC_DIR), name="static")

    app.include_router(health.router)  # /healthz (liveness), /readyz (database, live workers)
    app.include_router(metrics.router)  # /metrics (Prometheus; MKC_METRICS_TOKEN / MKC_METRICS_ALLOW)
    # Lesson and index pages first: routes are matched in order, and these carry the traffic.
    app.include_router(apidocs.router)  # /docs, /redoc
    app.include_router(pages.router)
    app.include_router(language.router)
    app.include_router(progress_api_router)  # before the /{lang}/... pages, which would match /api/...
    app.include_router(accounts_router)
    app.include_router(profile_router)  # /{lang}/profile...
    app.include_router(comments_router)
    app.include_router(notifications_router)
    app.include_router(reports_router)
    app.include_router(ladder_router)  # /{lang}/ladder
    app.include_router(lti_router)  # /lti/login, /lti/launch, /lti/jwks and the pages a launch leads to
    app.include_router(lti_continue_router)  # /{lang}/lti/continue: sign-in after a launch
    app.include_router(lti_admin_router)  # /{lang}/admin/lti
    app.include_router(lti_course_router)  # /{lang}/lti/courses/{id}: an LMS course's class, roster sync, grades sent
    submissions.install(app)  # /api/exercises/{id}/submissions, /api/submissions/{id}[/events]
    from app.graders.api import router as graders_api_router
    from app.graders.pages import router as graders_pages_router
    from app.panel.routes import api_router as panel_api_router
    from app.panel.routes import router as panel_router

    app.include_router(panel_api_router)  # /api/panel/... (exercise config for the editor)
    app.include_router(graders_api_router)  # /api/graders/... before /{lang}/graders/... (same depth)
    app.include_router(panel_router)  # /{lang}/panel/... fragments
    app.include_router(graders_pages_router)  # /{lang}/graders dashboard
    from app.classes.api import router as classes_api_router
    from app.classes.pages import router as classes_pages_router

    app.include_router(classes_api_router)  # /api/classes/..., /api/boards/..., /api/me/assignments
    app.include_router(classes_pages_router)  # /{lang}/classes/..., /{lang}/boards/..., /{lang}/join/...
    app.include_router(pages.fallback_router)
    return app
