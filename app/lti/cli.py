"""``python -m app lti ...``: register an LMS, list registrations, rotate our key (the same as the
admin page /{lang}/admin/lti, for scripted set-ups). Prints no private key, ever."""
from __future__ import annotations

import argparse
import contextlib
import sys
from collections.abc import Iterator
from typing import TYPE_CHECKING

from sqlalchemy.orm import Session, sessionmaker

if TYPE_CHECKING:
    from app.core.config import Settings


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    lti = sub.add_parser("lti", help="LTI 1.3: register an LMS, list registrations, rotate our signing key")
    lti_sub = lti.add_subparsers(dest="lti_command", required=True)
    reg = lti_sub.add_parser("register", help="register a platform (the values come from the LMS)")
    reg.add_argument("--name", default="")
    reg.add_argument("--issuer", required=True)
    reg.add_argument("--client-id", required=True)
    reg.add_argument("--auth-login-url", required=True, help="the platform's OIDC authorisation URL")
    reg.add_argument("--auth-token-url", required=True, help="the platform's OAuth2 access token URL")
    reg.add_argument("--key-set-url", required=True, help="the platform's public keyset (JWKS) URL")
    reg.add_argument("--deployment-id", action="append", required=True, help="repeat for several")
    reg.add_argument("--audience", default="", help="the token audience when it is not the token URL")
    reg.set_defaults(func=cmd_register)
    lti_sub.add_parser("list", help="the registered platforms and their deployment ids").set_defaults(func=cmd_list)
    lti_sub.add_parser("rotate-key", help="retire our key pair and make a new one").set_defaults(func=cmd_rotate)
    lti_sub.add_parser("send-scores", help="one grade passback pass: find changed scores, send the due ones"
                       ).set_defaults(func=cmd_send_scores)


@contextlib.contextmanager
def _sessions() -> Iterator[tuple[Settings, sessionmaker[Session]]]:
    """The settings and a session factory on the migrated database, disposed of afterwards."""
    from app.core.config import Settings
    from app.core.db import make_engine, make_session_factory
    from app.core.migrate import upgrade_to_head

    settings = Settings()
    settings.ensure_data_dir()
    engine = make_engine(settings.resolved_database_url)
    upgrade_to_head(engine)
    try:
        yield settings, make_session_factory(engine)
    finally:
        engine.dispose()


@contextlib.contextmanager
def _db() -> Iterator[Session]:
    with _sessions() as (_, factory), factory() as db:
        yield db


def cmd_register(args: argparse.Namespace) -> int:
    from app.lti import registry
    from app.lti.messages import LtiError

    form = registry.PlatformForm(name=args.name, issuer=args.issuer, client_id=args.client_id,
                                 auth_login_url=args.auth_login_url, auth_token_url=args.auth_token_url,
                                 key_set_url=args.key_set_url, auth_audience=args.audience,
                                 deployment_ids=registry.split_deployments("\n".join(args.deployment_id)))
    with _db() as db:
        try:
            row = registry.register(db, form)
        except LtiError as exc:
            print(exc.message("en"), file=sys.stderr)
            return 1
        db.commit()
        print(f"registered {row.issuer} (client id {row.client_id})")
    return 0


def cmd_list(args: argparse.Namespace) -> int:
    from app.lti import registry

    with _db() as db:
        for platform in registry.all_platforms(db):
            deployments = ", ".join(registry.deployments(db, platform.id))
            print(f"{platform.id}\t{platform.issuer}\t{platform.client_id}\t{deployments}")
    return 0


def cmd_rotate(args: argparse.Namespace) -> int:
    from app.lti import keys

    with _db() as db:
        key = keys.rotate(db)
        db.commit()
        print(f"new key id {key.kid}")
    return 0


def cmd_send_scores(args: argparse.Namespace) -> int:
    from app.lessons.exercises import ExerciseInfoCache
    from app.lti import passback

    with _sessions() as (settings, factory):
        sent = passback.run_pass(factory, ExerciseInfoCache(settings.kernels_dir))
    print(f"tried {sent} sends")
    return 0
