"""``python -m app dispatcher``: a standalone grading dispatcher (one per GPU).

Use it when the web server runs with ``MKC_DISPATCHER_ENABLED=false``, or on a GPU machine that
shares the database with the web server. Stops cleanly on SIGTERM/SIGINT (finishing the job in
hand; a kill -9 leaves it to be reclaimed by the next holder of the lane).
"""
from __future__ import annotations

import argparse
import logging
import signal
import threading
from collections.abc import Callable

from app.core.config import Settings


# ``sub``: what ArgumentParser.add_subparsers() returns (argparse gives that class no public name).
def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("dispatcher", help="run a standalone grading dispatcher for one GPU")
    p.add_argument("--gpu-index", type=int, default=None, help="which GPU's lane to hold (default: settings)")
    p.add_argument("--lane", default=None, help="lane name (default: <host>:gpu<index>, or <host>:cpu)")
    p.add_argument("--once", action="store_true", help="grade what is claimable now, then exit")
    p.set_defaults(func=run)


def catalog_slugs(settings: Settings) -> Callable[[], frozenset[str]]:
    """The visible lessons' slugs (XP for a lesson completed by grading), outside a web app."""
    from app.lessons.catalog import Catalog
    from app.templating import STATIC_DIR

    catalog = Catalog(settings.lessons_dir, STATIC_DIR, settings.kernels_dir, settings.catalog_check_interval)

    def slugs() -> frozenset[str]:
        return frozenset(lesson.slug for lesson in catalog.snapshot().visible(settings.show_drafts))
    return slugs


def run(args: argparse.Namespace) -> int:
    from app.core.db import make_engine, make_session_factory
    from app.core.migrate import upgrade_to_head
    from app.submissions.dispatcher import Dispatcher
    from app.submissions.runtime import dispatcher_config

    if args.gpu_index is not None:  # bind this dispatcher's sandboxed GPU workers to that device
        import os

        os.environ["CUDA_VISIBLE_DEVICES"] = str(args.gpu_index)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    settings = Settings()
    settings.ensure_data_dir()
    engine = make_engine(settings.resolved_database_url)
    upgrade_to_head(engine)
    config = dispatcher_config(settings, args.gpu_index)
    if args.lane:
        config.lane = args.lane
    dispatcher = Dispatcher(make_session_factory(engine), config, lesson_slugs=catalog_slugs(settings))
    if args.once:
        while dispatcher.step():
            pass
        dispatcher.stop()
        engine.dispose()
        return 0
    done = threading.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: done.set())
    dispatcher.start()
    done.wait()
    dispatcher.stop(timeout=300)
    engine.dispose()
    return 0
