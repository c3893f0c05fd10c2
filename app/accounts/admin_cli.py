"""``python -m app create-admin``: the first administrator (later ones are promoted on /admin/users)."""
from __future__ import annotations

import argparse
import getpass
import sys


def add_parser(sub) -> None:
    p = sub.add_parser("create-admin", help="create an administrator account (or promote an existing user)")
    p.add_argument("username")
    p.add_argument("--password-stdin", action="store_true",
                   help="read the password from standard input (else MKC_ADMIN_PASSWORD, else a prompt)")
    p.set_defaults(func=cmd_create_admin)


def _password(args: argparse.Namespace) -> str:
    if args.password_stdin:
        return sys.stdin.readline().rstrip("\n")
    from app.core.config import Settings

    password = Settings().admin_password.get_secret_value()
    if password:
        return password
    first = getpass.getpass("Password: ")
    if first != getpass.getpass("Password again: "):
        raise SystemExit("the two passwords do not match")
    return first


def cmd_create_admin(args: argparse.Namespace) -> int:
    from app.accounts import users
    from app.accounts.messages import AccountsError
    from app.core.config import Settings
    from app.core.db import make_engine, make_session_factory
    from app.core.migrate import upgrade_to_head

    settings = Settings()
    settings.ensure_data_dir()
    engine = make_engine(settings.resolved_database_url)
    upgrade_to_head(engine)
    try:
        with make_session_factory(engine)() as db:
            existing = users.find_user(db, args.username)
            if existing is not None:
                users.change_role(db, existing, "admin")
                db.commit()
                print(f"{existing.username} is now an admin")
                return 0
            try:
                user = users.create_user(db, args.username, _password(args), role="admin")
            except AccountsError as exc:
                print(exc.message("en"), file=sys.stderr)
                return 1
            db.commit()
            print(f"created admin {user.username}")
            return 0
    finally:
        engine.dispose()
