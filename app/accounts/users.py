"""Creating, authenticating, re-roling and deleting users."""
from __future__ import annotations

from collections.abc import Callable

from sqlalchemy import func, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from app.accounts import passwords as passwords  # re-exported: the profile page verifies with it
from app.accounts import usernames
from app.accounts.messages import AccountsError
from app.accounts.models import User
from app.accounts.roles import ROLES
from app.core.clock import utcnow, zone
from app.core.db import lock_rows


def valid_timezone(name: str | None) -> str:
    name = (name or "").strip()[:64]
    if not name or name == "UTC":
        return "UTC"
    tz = zone(name)
    return name if getattr(tz, "key", None) == name else "UTC"


def create_user(db: Session, username: str, password: str, *, role: str = "learner", tz: str = "UTC") -> User:
    """Validates, hashes and inserts; raises AccountsError(code, status=400 or 409)."""
    problem = usernames.username_problem(username)
    if problem:
        raise AccountsError(problem, status=409 if problem == "username_taken" else 400)
    name = usernames.normalize(username)
    problem = passwords.password_problem(password, name)
    if problem:
        raise AccountsError(problem, status=400)
    if role not in ROLES:
        raise AccountsError("bad_role", status=400)
    key = usernames.username_key(name)
    if db.scalar(select(User.id).where(User.username_key == key)) is not None:
        raise AccountsError("username_taken", status=409)
    if _looks_taken(db, name):
        raise AccountsError("confusable_username", status=409)
    user = User(username=name, username_key=key, password_hash=passwords.hash_password(password), role=role,
                tz=valid_timezone(tz), progress_epoch=0, created_at=utcnow())
    db.add(user)
    try:
        db.flush()
    except IntegrityError:  # a concurrent sign-up took the name between the check and the insert
        db.rollback()
        raise AccountsError("username_taken", status=409) from None
    return user


def _looks_taken(db: Session, name: str) -> bool:
    """An existing name looks like this one ("аlice1" in Cyrillic beside "alice1"): a scan of the names,
    fine for a course's thousands of accounts."""
    wanted = usernames.skeletons(name)
    return any(usernames.skeletons(other) & wanted for other in db.scalars(select(User.username)))


def find_user(db: Session, username: str) -> User | None:
    if not username or len(username) > 200:
        return None
    return db.scalar(select(User).where(User.username_key == usernames.username_key(username)))


def authenticate(db: Session, username: str, password: str) -> User | None:
    user = find_user(db, username)
    if user is None or not password or len(password) > passwords.MAX_LENGTH:
        passwords.verify_password(password or "", passwords.dummy_hash())  # same time either way
        return None
    ok, new_hash = passwords.verify_password(password, user.password_hash)
    if not ok:
        return None
    if new_hash:
        user.password_hash = new_hash
    return user


def admin_count(db: Session) -> int:
    return db.scalar(select(func.count()).select_from(User).where(User.role == "admin")) or 0


def _keep_an_admin(db: Session, user: User) -> None:
    """Refuse (409 last_admin) when ``user`` is, by the locked count, the last administrator. Two admins
    demoting each other at once both counted two admins and both went ahead: every change that can take
    an administrator away counts under one lock (``lock_rows``)."""
    lock_rows(db, User.role, User.role == "admin")
    role = db.scalar(select(User.role).where(User.id == user.id))
    if role == "admin" and admin_count(db) <= 1:
        raise AccountsError("last_admin", status=409)


def change_role(db: Session, user: User, role: str) -> None:
    if role not in ROLES:
        raise AccountsError("bad_role", status=400)
    if role != "admin":
        _keep_an_admin(db, user)
    user.role = role


# Checks a feature above this one makes before an account goes; each raises an AppError to refuse (the
# classes feature: not while the account is a class's last instructor). A list to append to, because
# app.accounts must not import the features built on it.
BEFORE_DELETE: list[Callable[[Session, User], object]] = []


def delete_user(db: Session, user: User) -> None:
    """Removes the user and, through ON DELETE CASCADE, sessions, tokens, events, XP, achievements."""
    _keep_an_admin(db, user)
    for check in BEFORE_DELETE:
        check(db, user)
    db.delete(user)
    db.flush()
