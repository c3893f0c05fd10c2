"""``python -m app <command>``: serve, migrate, lessons check, i18n, bench.

Each subcommand is one small function registered in ``build_parser``; later work (grading
workers, user admin) adds its own subparser there.
"""
from __future__ import annotations

import argparse
import sys
from typing import Any

from app.core.config import Settings


def port_in_use(host: str, port: int) -> str | None:
    """Why ``host:port`` cannot be served (in use, no such address), or None when it can. Checked
    before uvicorn starts: otherwise it prints "Application startup complete" and then dies on errno 98."""
    import socket

    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except OSError as exc:
        return str(exc)
    family, kind, proto, _, address = infos[0]
    with socket.socket(family, kind, proto) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as uvicorn binds
        try:
            sock.bind(address)
        except OSError as exc:
            return exc.strerror or str(exc)
    return None


def logging_config(level: str = "INFO") -> dict[str, Any]:
    """uvicorn's logging, plus the app's and the engine's loggers (the dispatcher's lines), in every worker."""
    import copy

    from uvicorn.config import LOGGING_CONFIG

    config = copy.deepcopy(LOGGING_CONFIG)
    config["formatters"]["app"] = {"format": "%(asctime)s %(levelname)s %(name)s: %(message)s"}
    config["handlers"]["app"] = {"class": "logging.StreamHandler", "formatter": "app", "stream": "ext://sys.stderr"}
    for name in ("app", "kernels"):
        config["loggers"][name] = {"handlers": ["app"], "level": level, "propagate": False}
    return config


def cmd_serve(args: argparse.Namespace) -> int:
    import os

    import uvicorn

    from app.core.db import make_engine
    from app.core.migrate import upgrade_to_head

    problem = port_in_use(args.host, args.port)
    if problem:
        print(f"error: cannot serve on {args.host}:{args.port}: {problem}. Stop the other server or pick "
              f"another port: python -m app serve --port {args.port + 1}", file=sys.stderr)
        return 1
    settings = Settings()
    settings.ensure_data_dir()
    engine = make_engine(settings.resolved_database_url)
    print(f"data folder: {settings.data_dir.resolve()}\n"
          f"database:    {engine.url.render_as_string(hide_password=True)}", flush=True)
    upgrade_to_head(engine)
    engine.dispose()
    # Migrated once, here: the workers only check the revision (each migrating would race on a fresh database).
    os.environ["MKC_MIGRATE_ON_START"] = "false"
    if args.workers > 1:
        # /metrics of any worker reports all of them: each writes its samples to this folder
        # (prometheus-client's multi-process mode), emptied here so a past run's samples are gone.
        import shutil

        folder = settings.data_dir / "prometheus"
        shutil.rmtree(folder, ignore_errors=True)
        folder.mkdir(parents=True)
        os.environ["PROMETHEUS_MULTIPROC_DIR"] = str(folder)
    from app.core.proxies import UVICORN_OPTIONS  # forwarded headers: the app decides (MKC_TRUSTED_PROXIES)
    from app.core.serving import EVENT_LOOP

    print(f"serving on http://{args.host}:{args.port}/ ({args.workers} worker(s))", flush=True)
    uvicorn.run("app.main:app", host=args.host, port=args.port, reload=args.reload,
                workers=None if args.reload else args.workers, access_log=not args.no_access_log,
                log_config=logging_config(args.log_level.upper()), loop=EVENT_LOOP, **UVICORN_OPTIONS)
    return 0


def cmd_migrate(_args: argparse.Namespace) -> int:
    from app.core.db import make_engine
    from app.core.migrate import current_revision, upgrade_to_head

    settings = Settings()
    settings.ensure_data_dir()
    engine = make_engine(settings.resolved_database_url)
    upgrade_to_head(engine)
    print(f"database at revision {current_revision(engine)} ({engine.url.render_as_string(hide_password=True)})")
    engine.dispose()
    return 0


def cmd_lessons_check(args: argparse.Namespace) -> int:
    from pathlib import Path

    from app.lessons.check import check_course
    from app.templating import STATIC_DIR

    settings = Settings()
    lessons_dir = Path(args.dir) if args.dir else settings.lessons_dir
    report = check_course(lessons_dir, STATIC_DIR, settings.kernels_dir, compile_cuda=not args.no_compile,
                          min_words=args.min_words, min_kernels=args.min_kernels)
    for problem in report.problems:
        print(problem, file=sys.stderr if problem.severity == "error" else sys.stdout)
    print(report.summary())
    if args.strict and report.warnings:
        return 1
    return 1 if report.errors else 0


def cmd_lessons_new(args: argparse.Namespace) -> int:
    from pathlib import Path

    from app.lessons.scaffold import ScaffoldError, scaffold_lesson

    settings = Settings()
    lessons_dir = Path(args.dir) if args.dir else settings.lessons_dir
    try:
        folder = scaffold_lesson(lessons_dir, args.slug, kernels_dir=settings.kernels_dir, order=args.order,
                                 exercise=args.exercise)
    except ScaffoldError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(f"created {folder}/ (lesson.yaml, en.md, ko.md) as a draft.\n"
          f"Write both languages, then run: python -m app lessons check")
    return 0


def cmd_i18n(args: argparse.Namespace) -> int:
    from app.core.config import LANGUAGES
    from app.i18n import tools

    if args.action == "update":
        template = tools.extract()
        for lang in LANGUAGES:
            missing = tools.update(lang, template)
            print(f"{tools.po_path(lang)}: {len(template)} messages, {len(missing)} untranslated")
    for path in tools.compile_all():
        print(f"compiled {path}")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m app", description="Matrix Kernels course site",
                                     epilog="Settings are MKC_* environment variables: see the README's table.")
    sub = parser.add_subparsers(dest="command", metavar="command")

    serve = sub.add_parser("serve", help="apply migrations, then run the web server",
                           description="Apply pending migrations once, then run the web server (uvicorn).",
                           formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    serve.add_argument("--host", default="127.0.0.1", help="address to listen on (0.0.0.0: every interface)")
    serve.add_argument("--port", type=int, default=8000, help="TCP port")
    serve.add_argument("--reload", action="store_true", help="restart on code changes (development)")
    serve.add_argument("--workers", type=int, default=1, help="web worker processes")
    serve.add_argument("--no-access-log", action="store_true", help="do not log each request")
    serve.add_argument("--log-level", default="info", choices=["debug", "info", "warning", "error"],
                       help="level of the app's, the engine's and uvicorn's logs")
    serve.set_defaults(func=cmd_serve)

    migrate = sub.add_parser("migrate", help="apply pending database migrations")
    migrate.set_defaults(func=cmd_migrate)

    lessons = sub.add_parser("lessons", help="lesson catalog tools")
    lessons_sub = lessons.add_subparsers(dest="lessons_command", required=True)
    check = lessons_sub.add_parser("check", help="validate every lesson; prints file:line problems, exit 1 on error")
    check.add_argument("--dir", help="lessons folder (default: MKC_LESSONS_DIR or ./lessons)")
    check.add_argument("--strict", action="store_true", help="treat warnings as errors")
    check.add_argument("--no-compile", action="store_true", help="skip compiling ```cuda blocks with NVRTC")
    check.add_argument("--min-words", type=int, default=900, help="English prose words a published lesson needs")
    check.add_argument("--min-kernels", type=int, default=8, help="complete cuda kernels the published course needs")
    check.set_defaults(func=cmd_lessons_check)
    new = lessons_sub.add_parser("new", help="scaffold lessons/NN-slug/ (draft) with lesson.yaml, en.md and ko.md")
    new.add_argument("slug", help="URL name: lowercase letters, digits, hyphens (e.g. warp-tiling)")
    new.add_argument("--order", type=int, help="lesson number (default: one after the last)")
    new.add_argument("--exercise", help="exercise id in kernels/<id>/ (e.g. gemm)")
    new.add_argument("--dir", help="lessons folder (default: MKC_LESSONS_DIR or ./lessons)")
    new.set_defaults(func=cmd_lessons_new)

    i18n = sub.add_parser("i18n", help="gettext catalogs")
    i18n.add_argument("action", choices=["compile", "update"], help="compile .po → .mo, or extract + update + compile")
    i18n.set_defaults(func=cmd_i18n)

    from app.accounts.admin_cli import add_parser as add_create_admin

    add_create_admin(sub)

    from app.lti.cli import add_parser as add_lti

    add_lti(sub)

    from app.submissions.cli import add_parser as add_dispatcher

    add_dispatcher(sub)

    from app.cluster.watch import add_parser as add_queue
    from app.cluster.worker import add_parser as add_worker

    add_worker(sub)
    add_queue(sub)

    # Parsed by app/bench/web.py (see main below); listed here so --help shows it.
    sub.add_parser("bench", help="wrk benchmark of a lesson page against the bare baseline (bench --help)", add_help=False)
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["bench"]:
        # The benchmark has its own parser; hand it every remaining option untouched.
        from app.bench.web import main as bench_main

        return bench_main(argv[1:])
    parser = build_parser()
    args = parser.parse_args(argv)
    if getattr(args, "func", None) is None:  # no command: say what there is
        parser.print_help()
        return 0
    from pydantic import ValidationError

    try:
        code: int = args.func(args)  # every command returns its exit status
        return code
    except ValidationError as exc:  # a setting that does not parse: name it, no traceback
        for error in exc.errors():
            name = "MKC_" + "_".join(str(part) for part in error["loc"]).upper()
            print(f"error: setting {name}: {error['msg']} (got {error.get('input')!r})", file=sys.stderr)
        return 2
