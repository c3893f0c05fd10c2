"""``python -m app dispatcher``: a standalone one-box grader (one per GPU): compile slots, then the
GPU stage on one lane (app/submissions/pipeline.py). ``python -m app worker --gpu N`` runs the same
with ``MKC_QUEUE=embedded`` and is the documented way; ``dispatcher --gpu-index N`` is its alias.

Use it when the web server runs with ``MKC_DISPATCHER_ENABLED=false``, or on a GPU machine that
shares the database with the web server. Stops cleanly on SIGTERM/SIGINT (finishing the job in
hand; a kill -9 leaves it to be reclaimed by the next holder of the lane).
"""
from __future__ import annotations

import argparse
import faulthandler
import logging
import signal
import time
from collections.abc import Callable

from app.core.config import Settings
from app.submissions.dispatcher import CompileFirst, Grade

log = logging.getLogger(__name__)


# ``sub``: what ArgumentParser.add_subparsers() returns (argparse gives that class no public name).
def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("dispatcher", help="one box: a standalone grader for one GPU (alias of `worker --gpu N` "
                                          "with MKC_QUEUE=embedded)")
    p.add_argument("--gpu-index", type=int, default=None, help="which GPU's lane to hold (default: settings)")
    p.add_argument("--lane", default=None, help="lane name (default: <host>:gpu<index>, or <host>:cpu)")
    p.add_argument("--once", action="store_true", help="grade what is claimable now, then exit")
    p.set_defaults(func=run)


def catalog_slugs(settings: Settings) -> Callable[[], frozenset[str]]:
    """The visible lessons' slugs (XP for a lesson completed by grading), outside a web app."""
    from app.lessons.catalog import Catalog
    from app.lessons.gate import load_checked_catalog
    from app.templating import STATIC_DIR

    catalog = Catalog(settings.lessons_dir, STATIC_DIR, settings.kernels_dir, settings.catalog_check_interval,
                      load_checked_catalog)

    def slugs() -> frozenset[str]:
        return frozenset(lesson.slug for lesson in catalog.snapshot().visible(settings.show_drafts))
    return slugs


def run(args: argparse.Namespace) -> int:
    return serve(Settings(), gpu_index=args.gpu_index, lane=args.lane, once=args.once)


def serve(settings: Settings, *, gpu_index: int | None, lane: str | None = None, once: bool = False,
          slots: int | None = None, grade: Grade | None = None, compile_first: CompileFirst | None = None) -> int:
    """The one-box grader for one GPU outside the web process: ``python -m app dispatcher``, and
    ``python -m app worker --gpu N`` when ``MKC_QUEUE=embedded``. ``slots``: compile slots (default
    ``MKC_COMPILE_SLOTS``); ``grade``/``compile_first``: stand-ins (tests and benchmarks without a GPU)."""
    from app.core.db import make_engine, make_session_factory
    from app.core.migrate import upgrade_to_head
    from app.submissions.runtime import bound_dispatcher_config, one_box

    # before anything asks for a GPU: this dispatcher's sandboxed GPU workers run on its card
    config = bound_dispatcher_config(settings, gpu_index)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    settings.ensure_data_dir()
    if slots is not None:
        settings = settings.model_copy(update={"compile_slots": slots})
    engine = make_engine(settings.resolved_database_url)
    upgrade_to_head(engine)
    if lane:
        config.lane = lane
    # The one-box pipeline: compile slots (MKC_COMPILE_SLOTS) on CPU, then this GPU's lane.
    dispatcher = one_box(make_session_factory(engine), settings, config, lesson_slugs=catalog_slugs(settings),
                         grade=grade, compile_first=compile_first)
    if once:
        while dispatcher.step():
            pass
        dispatcher.stop()
        engine.dispose()
        return 0
    stopping: list[int] = []  # the signal that asked to stop (a plain list: safe to touch in a handler)
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda signum, _frame: stopping.append(signum))
    # SIGUSR1 writes every thread's stack to the log: what an operator needs when a drain takes long
    faulthandler.register(signal.SIGUSR1, all_threads=True)
    dispatcher.start()
    # Sleep in short steps: Python runs a signal's handler in the main thread only, and when the kernel
    # hands SIGTERM to another thread of this process (a GPU worker's reader, a compile slot) a main
    # thread blocked in one endless wait never sees it (seen on a GPU host: no drain until kill -9). The
    # handler only appends to a list: one that took a lock (Event.set) could run while the main thread
    # holds that same lock inside Event.wait, and hang it.
    while not stopping:
        time.sleep(0.5)
    log.info("draining: finishing the job in hand, taking no other")
    finished = dispatcher.stop(timeout=300)
    log.info("stopped (%s)", "drained" if finished else "a job was still running; it is reclaimed after its lease")
    engine.dispose()
    return 0
