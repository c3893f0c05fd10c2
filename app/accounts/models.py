"""Account tables: users, server-side sessions and personal API tokens.

Secrets never sit in the database in the clear: a session cookie and an API token are random
strings the browser or script keeps; the server stores only their SHA-256 (a fast hash is
right here because the inputs are 256-bit random values, not guessable passwords).
"""
from __future__ import annotations

import datetime as dt

from sqlalchemy import DateTime, Float, ForeignKey, Integer, String
from sqlalchemy.orm import Mapped, mapped_column

from app.core.clock import utcnow
from app.core.db import Base


class User(Base):
    __tablename__ = "user"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    username: Mapped[str] = mapped_column(String(32))  # as typed (NFKC), shown on pages
    # casefolded username: "Kim" and "kim" cannot both exist
    username_key: Mapped[str] = mapped_column(String(64), unique=True)
    password_hash: Mapped[str] = mapped_column(String(255))
    role: Mapped[str] = mapped_column(String(16), default="learner")
    # IANA zone for calendar-day streaks; filled from the browser at sign-up
    tz: Mapped[str] = mapped_column(String(64), default="UTC")
    # bumped by "reset my progress": events/XP/achievements of older epochs stop counting
    progress_epoch: Mapped[int] = mapped_column(Integer, default=0)
    created_at: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow)


class AuthSession(Base):
    __tablename__ = "auth_session"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("user.id", ondelete="CASCADE"), index=True)
    csrf_token: Mapped[str] = mapped_column(String(64))
    created_at: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow)
    expires_at: Mapped[dt.datetime] = mapped_column(DateTime)
    user_agent: Mapped[str] = mapped_column(String(200), default="")


class ApiToken(Base):
    __tablename__ = "api_token"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("user.id", ondelete="CASCADE"), index=True)
    name: Mapped[str] = mapped_column(String(64))
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    prefix: Mapped[str] = mapped_column(String(16))  # first characters, to recognise a token in the list
    created_at: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow)
    last_used_at: Mapped[dt.datetime | None] = mapped_column(DateTime, nullable=True)
    revoked_at: Mapped[dt.datetime | None] = mapped_column(DateTime, nullable=True)


class RateSlot(Base):
    """One of the ``limit`` slots of a rate-limit bucket (app/accounts/ratelimit.py): an action takes a
    free slot and holds it for the window, so at most ``limit`` actions fall inside any window."""

    __tablename__ = "rate_slot"

    bucket: Mapped[str] = mapped_column(String(64), primary_key=True)  # SHA-256 of (name, subject, window)
    slot: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    free_at: Mapped[float] = mapped_column(Float, default=0.0)  # epoch seconds: taken until then


class PasswordReset(Base):
    """A one-time link an administrator made for a user who forgot their password (no email: the admin
    hands the link over). Only its SHA-256 is stored; redeeming sets ``used_at`` in one conditional
    UPDATE, so a link works once even when two tabs submit it at the same moment."""

    __tablename__ = "password_reset"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("user.id", ondelete="CASCADE"), index=True)
    created_by: Mapped[str] = mapped_column(String(64), default="")  # the admin's name, or "cli"
    created_at: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow)
    expires_at: Mapped[dt.datetime] = mapped_column(DateTime)
    used_at: Mapped[dt.datetime | None] = mapped_column(DateTime, nullable=True)
