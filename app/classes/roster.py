"""Classes and their rosters: create and edit a class, invite codes, joining, adding members by
hand or from a CSV, roles inside a class, removing members.

This is the service other features build on (an LMS link maps its context to a class with
``find_by_external_id`` / ``create_class`` and syncs its roster with ``add_member``). Callers commit;
every function here only flushes. A member is one row per (class, user), kept unique by the database,
so two joins at once, or a join racing a CSV import, still give one row.
"""
from __future__ import annotations

import csv
import io
import secrets
from dataclasses import dataclass, field
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from sqlalchemy import func, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from app.accounts import users
from app.accounts.models import User
from app.accounts.users import find_user
from app.classes.messages import ClassesError
from app.classes.models import MEMBER_ROLES, ClassMember, CourseClass
from app.core.clock import utcnow
from app.core.db import lock_rows
from app.progress.once import insert_once

LANGUAGES = ("ko", "en")
# An invite code is typed by people from a slide: no 0/O, 1/I/L look-alikes.
INVITE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
INVITE_LENGTH = 8
CSV_MAX_ROWS = 2000
CSV_MAX_BYTES = 512 * 1024


def _clean_text(value: str | None, limit: int, code: str, *, required: bool = False) -> str:
    text = " ".join((value or "").split())
    if (required and not text) or len(text) > limit:
        raise ClassesError(code, status=400)
    return text


def valid_zone(name: str | None) -> str:
    """The IANA zone name as given; refuses (bad_timezone) a name the zone database does not know."""
    name = (name or "").strip()
    if not name or len(name) > 64:
        raise ClassesError("bad_timezone", status=400)
    try:
        return ZoneInfo(name).key
    except (ZoneInfoNotFoundError, ValueError, OSError):
        raise ClassesError("bad_timezone", status=400) from None


def _fields(name: str | None, term: str | None, notice_lang: str | None, tz: str | None) -> dict[str, str]:
    if notice_lang not in LANGUAGES:
        raise ClassesError("bad_language", status=400)
    return {"name": _clean_text(name, 120, "class_name_required", required=True),
            "term": _clean_text(term, 64, "term_too_long"), "notice_lang": notice_lang, "tz": valid_zone(tz)}


def new_invite_code() -> str:
    return "".join(secrets.choice(INVITE_ALPHABET) for _ in range(INVITE_LENGTH))


def create_class(db: Session, owner: User | None, name: str, *, term: str = "", notice_lang: str = "ko",
                 tz: str = "UTC", external_id: str | None = None) -> CourseClass:
    """A new class with an open invite code; ``owner`` (when given) becomes its first instructor."""
    values = _fields(name, term, notice_lang, tz)
    if external_id is not None and find_by_external_id(db, external_id) is not None:
        raise ClassesError("external_id_taken", status=409)
    row = CourseClass(**values, invite_code=new_invite_code(), external_id=external_id,
                      board_enabled=False, board_hide_until_due=False, board_gpu="",
                      created_by=owner.id if owner else None, created_at=utcnow())
    db.add(row)
    try:
        with db.begin_nested():
            db.flush()
    except IntegrityError:  # the same outside course linked by a concurrent request
        raise ClassesError("external_id_taken", status=409) from None
    if owner is not None:
        add_member(db, row, owner, role="instructor", source="owner")
    return row


def update_class(db: Session, row: CourseClass, *, name: str, term: str, notice_lang: str, tz: str) -> None:
    for key, value in _fields(name, term, notice_lang, tz).items():
        setattr(row, key, value)


def get_class(db: Session, class_id: int) -> CourseClass:
    row = db.get(CourseClass, class_id)
    if row is None:
        raise ClassesError("not_found", status=404)
    return row


def find_by_external_id(db: Session, external_id: str) -> CourseClass | None:
    return db.scalar(select(CourseClass).where(CourseClass.external_id == external_id))


def find_by_invite(db: Session, code: str) -> CourseClass | None:
    code = (code or "").strip().upper()
    if not code or len(code) > 32:
        return None
    return db.scalar(select(CourseClass).where(CourseClass.invite_code == code))


def rotate_invite(db: Session, row: CourseClass) -> str:
    """A new code (which also opens a closed invite); the old link stops working."""
    row.invite_code = new_invite_code()
    db.flush()
    return row.invite_code


def close_invite(db: Session, row: CourseClass) -> None:
    row.invite_code = None
    db.flush()


# ---- members -----------------------------------------------------------------------------------

def member_role(db: Session, class_id: int, user_id: int) -> str | None:
    return db.scalar(select(ClassMember.role).where(ClassMember.class_id == class_id, ClassMember.user_id == user_id))


def add_member(db: Session, row: CourseClass, user: User, *, role: str = "learner", source: str = "manual",
               email: str = "") -> tuple[ClassMember, bool]:
    """Put ``user`` on the roster with ``role`` (an existing member gets the new role); returns the
    membership and whether it is new. One row per (class, user), whoever inserts first."""
    if role not in MEMBER_ROLES:
        raise ClassesError("bad_role", status=400)
    email = (email or "").strip()[:254]
    created = insert_once(db, ClassMember, class_id=row.id, user_id=user.id, role=role, source=source[:16],
                          email=email, joined_at=utcnow()) is not None
    member = db.scalar(select(ClassMember).where(ClassMember.class_id == row.id, ClassMember.user_id == user.id)
                       .execution_options(populate_existing=True))
    assert member is not None
    if not created and member.role != role:
        set_role(db, row, member, role)
    if email and not member.email:
        member.email = email
    return member, created


def set_role(db: Session, row: CourseClass, member: ClassMember, role: str) -> None:
    if role not in MEMBER_ROLES:
        raise ClassesError("bad_role", status=400)
    if member.role == "instructor" and role != "instructor":
        _keep_an_instructor(db, row, member)
    member.role = role
    db.flush()


def _keep_an_instructor(db: Session, row: CourseClass, member: ClassMember) -> None:
    """Refuse (409 last_instructor) when ``member`` is, by the locked count, the class's last instructor.
    Two instructors taking each other off at once both counted two and both went ahead, leaving none:
    every such change counts under a lock on the class's row."""
    lock_rows(db, CourseClass.name, CourseClass.id == row.id)
    role = db.scalar(select(ClassMember.role).where(ClassMember.id == member.id))
    if role is None:  # the other change took this member off the roster first
        raise ClassesError("not_member", status=404)
    if role != "instructor":
        return
    instructors = db.scalar(select(func.count()).select_from(ClassMember).where(
        ClassMember.class_id == row.id, ClassMember.role == "instructor")) or 0
    if instructors <= 1:
        raise ClassesError("last_instructor", status=409)


def _keep_classes_run(db: Session, user: User) -> None:
    """Refuse (409) to delete the account of a class's last instructor: the class would be left with
    learners and a gradebook that no one but an administrator could run."""
    for member, row in db.execute(select(ClassMember, CourseClass).join(CourseClass, CourseClass.id == ClassMember.class_id)
                                  .where(ClassMember.user_id == user.id, ClassMember.role == "instructor")
                                  .order_by(CourseClass.id)).all():
        try:
            _keep_an_instructor(db, row, member)
        except ClassesError as refused:
            if refused.code != "last_instructor":
                raise
            raise ClassesError("last_instructor_account", {"name": row.name}, status=409) from None


users.BEFORE_DELETE.append(_keep_classes_run)  # app.accounts.users.delete_user calls it


def remove_member(db: Session, row: CourseClass, user_id: int) -> None:
    member = db.scalar(select(ClassMember).where(ClassMember.class_id == row.id, ClassMember.user_id == user_id))
    if member is None:
        raise ClassesError("not_member", status=404)
    if member.role == "instructor":
        _keep_an_instructor(db, row, member)
    db.delete(member)
    db.flush()


def join(db: Session, code: str, user: User) -> CourseClass:
    """Join the class whose open invite is ``code``, as a learner (a member keeps the role they have)."""
    row = find_by_invite(db, code)
    if row is None:
        raise ClassesError("invite_closed", status=404)
    if member_role(db, row.id, user.id) is None:
        add_member(db, row, user, role="learner", source="invite")
    return row


@dataclass
class RosterMember:
    user_id: int
    username: str
    role: str
    email: str
    source: str
    joined_at: object


def roster(db: Session, class_id: int, role: str | None = None) -> list[RosterMember]:
    query = (select(ClassMember, User.username).join(User, User.id == ClassMember.user_id)
             .where(ClassMember.class_id == class_id).order_by(ClassMember.role, User.username_key))
    if role is not None:
        query = query.where(ClassMember.role == role)
    return [RosterMember(m.user_id, name, m.role, m.email, m.source, m.joined_at) for m, name in db.execute(query)]


def classes_of(db: Session, user_id: int) -> list[tuple[CourseClass, str]]:
    """The classes ``user_id`` is in, with their role in each, newest first."""
    rows = db.execute(select(CourseClass, ClassMember.role).join(ClassMember, ClassMember.class_id == CourseClass.id)
                      .where(ClassMember.user_id == user_id).order_by(CourseClass.created_at.desc(), CourseClass.id.desc()))
    return [(c, r) for c, r in rows]


# ---- CSV import --------------------------------------------------------------------------------

@dataclass
class ImportReport:
    added: list[str] = field(default_factory=list)
    already: list[str] = field(default_factory=list)
    unknown: list[str] = field(default_factory=list)  # usernames (or lines) with no account


def import_csv(db: Session, row: CourseClass, text: str | bytes, *, role: str = "learner") -> ImportReport:
    """Add the accounts a CSV names. A header row names a ``username`` column (an ``email`` column,
    when present, is kept on the roster for exports); a file without a header is one username per
    line. Unknown usernames are reported, never created; nothing is half-added: the caller commits
    the whole file or nothing."""
    if isinstance(text, bytes):
        if len(text) > CSV_MAX_BYTES:
            raise ClassesError("csv_too_large", {"rows": CSV_MAX_ROWS}, status=413)
        try:
            text = text.decode("utf-8-sig")
        except UnicodeDecodeError:
            raise ClassesError("csv_unreadable", status=400) from None
    if len(text) > CSV_MAX_BYTES:
        raise ClassesError("csv_too_large", {"rows": CSV_MAX_ROWS}, status=413)
    try:
        lines = [r for r in csv.reader(io.StringIO(text.lstrip("\ufeff"))) if any(c.strip() for c in r)]
    except csv.Error:
        raise ClassesError("csv_unreadable", status=400) from None
    header = [c.strip().lower() for c in lines[0]] if lines else []
    if "username" in header:
        name_col, email_col = header.index("username"), header.index("email") if "email" in header else None
        lines = lines[1:]
    elif len(header) == 1 and "@" not in header[0] and header[0] != "email":
        name_col, email_col = 0, None
    else:
        raise ClassesError("csv_unreadable", status=400)
    if len(lines) > CSV_MAX_ROWS:  # counted without the header: a file without one may not hold a row more
        raise ClassesError("csv_too_large", {"rows": CSV_MAX_ROWS}, status=413)
    report = ImportReport()
    for line in lines:
        name = line[name_col].strip() if name_col < len(line) else ""
        email = line[email_col].strip() if email_col is not None and email_col < len(line) else ""
        user = find_user(db, name)
        if user is None:
            report.unknown.append(name or ",".join(line)[:64])
            continue
        _member, created = add_member(db, row, user, role=role, source="csv", email=email) if member_role(
            db, row.id, user.id) is None else (None, False)
        (report.added if created else report.already).append(user.username)
    return report
