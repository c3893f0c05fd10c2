"""``python -m app create-admin``: the first administrator (later ones are promoted on /admin/users),
and ``python -m app reset-link``: a one-time password-reset link for a user who forgot theirs.

Their messages are printed in English and then in Korean: a terminal has no reader's language."""
from __future__ import annotations

import argparse
import getpass
import sys
from typing import Any

from app.i18n import gettext_for


def add_parser(sub: Any) -> None:
    p = sub.add_parser("create-admin", help="create an administrator account (or promote an existing user)")
    p.add_argument("username")
    p.add_argument("--password-stdin", action="store_true",
                   help="read the password from standard input (else MKC_ADMIN_PASSWORD, else a prompt)")
    p.set_defaults(func=cmd_create_admin)
    r = sub.add_parser("reset-link", help="a one-time link with which a user who forgot their password sets a new one")
    r.add_argument("username")
    r.add_argument("--base-url", default="http://127.0.0.1:8000",
                   help="the site's address as users reach it (default: http://127.0.0.1:8000)")
    r.add_argument("--lang", choices=("ko", "en"), default="ko", help="the language of the page the link opens")
    r.set_defaults(func=cmd_reset_link)


def _say(msgid: str, *, error: bool = False, **params: Any) -> None:
    """One message in both languages (``msgid`` is a catalog msgid, marked where it is written)."""
    out = sys.stderr if error else sys.stdout
    for lang in ("en", "ko"):
        print(gettext_for(lang)(msgid) % params, file=out)


def _(text: str) -> str:  # marks a msgid for extraction; _say translates it
    return text


NO_PASSWORD = _("No password given and no terminal to ask for one. Set MKC_ADMIN_PASSWORD, or pipe the "
                "password in with --password-stdin.")
MISMATCH = _("The two passwords do not match.")
PROMOTED = _("%(name)s is now an administrator. Their password was not changed.")
PASSWORD_KEPT = _("The password you gave was not used: %(name)s already has one. If they forgot it, make a "
                  "one-time link with: python -m app reset-link %(name)s")
CREATED = _("Created the administrator %(name)s.")
NO_SUCH_USER = _("There is no user called %(name)s.")
RESET_LINK = _("A one-time password-reset link for %(name)s (it works once, for %(hours)s hours; give it to "
               "them yourself):")


def _given_password(args: argparse.Namespace) -> str | None:
    """The password from --password-stdin or MKC_ADMIN_PASSWORD, without asking; None when neither."""
    if args.password_stdin:
        return sys.stdin.readline().rstrip("\n")
    from app.core.config import Settings

    return Settings().admin_password.get_secret_value() or None


def _ask_password() -> str | None:
    """Ask at the terminal; None when there is no terminal to ask at (a script, a container)."""
    if not sys.stdin.isatty():
        return None
    try:
        first = getpass.getpass("Password / 비밀번호: ")
        again = getpass.getpass("Password again / 비밀번호 확인: ")
    except (EOFError, OSError):  # termios.error is an OSError: the terminal went away
        return None
    if first != again:
        _say(MISMATCH, error=True)
        raise SystemExit(2)
    return first


def _database() -> Any:
    from app.core.config import Settings
    from app.core.db import make_engine
    from app.core.migrate import upgrade_to_head

    settings = Settings()
    settings.ensure_data_dir()
    engine = make_engine(settings.resolved_database_url)
    upgrade_to_head(engine)
    return engine


def cmd_create_admin(args: argparse.Namespace) -> int:
    from app.accounts import users
    from app.accounts.messages import AccountsError
    from app.core.db import make_session_factory

    given = _given_password(args)
    engine = _database()
    try:
        with make_session_factory(engine)() as db:
            existing = users.find_user(db, args.username)
            if existing is not None:
                users.change_role(db, existing, "admin")
                db.commit()
                _say(PROMOTED, name=existing.username)
                if given is not None:
                    _say(PASSWORD_KEPT, name=existing.username)
                return 0
            password = given if given is not None else _ask_password()
            if password is None:
                _say(NO_PASSWORD, error=True)
                return 2
            try:
                user = users.create_user(db, args.username, password, role="admin")
            except AccountsError as exc:
                print(exc.message("en"), exc.message("ko"), sep="\n", file=sys.stderr)
                return 1
            db.commit()
            _say(CREATED, name=user.username)
            return 0
    finally:
        engine.dispose()


def cmd_reset_link(args: argparse.Namespace) -> int:
    from app.accounts import resets, users
    from app.core.db import make_session_factory

    engine = _database()
    try:
        with make_session_factory(engine)() as db:
            user = users.find_user(db, args.username)
            if user is None:
                _say(NO_SUCH_USER, error=True, name=args.username[:64])
                return 1
            token = resets.issue(db, user, "cli")
            db.commit()
            _say(RESET_LINK, name=user.username, hours=resets.LINK_HOURS)
            print(args.base_url.rstrip("/") + resets.path(args.lang, token))
            return 0
    finally:
        engine.dispose()
