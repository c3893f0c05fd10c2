"""LTI tables: registered platforms, their deployments, our signing keys, launch state, LMS identities.

A platform's private key never reaches us (we read its public keys from its JWKS URL). Our own private
keys live only here and are never rendered or logged; the JWKS endpoint publishes their public halves.
"""
from __future__ import annotations

import datetime as dt

from sqlalchemy import Boolean, DateTime, Float, ForeignKey, Integer, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from app.core.clock import utcnow
from app.core.db import Base


class LtiPlatform(Base):
    """One registration: the values an admin copies from the LMS's developer-key / tool page."""

    __tablename__ = "lti_platform"
    __table_args__ = (UniqueConstraint("issuer", "client_id", name="uq_lti_platform_issuer_client"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(100))
    issuer: Mapped[str] = mapped_column(String(255))
    client_id: Mapped[str] = mapped_column(String(255))
    auth_login_url: Mapped[str] = mapped_column(String(500))
    auth_token_url: Mapped[str] = mapped_column(String(500))
    key_set_url: Mapped[str] = mapped_column(String(500))
    # Moodle and Canvas take the token URL as the audience of our client assertion; some platforms differ
    auth_audience: Mapped[str | None] = mapped_column(String(500), nullable=True)
    created_at: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow)


class LtiDeployment(Base):
    """A deployment id the platform told the admin; launches naming any other are refused."""

    __tablename__ = "lti_deployment"
    __table_args__ = (UniqueConstraint("platform_id", "deployment_id", name="uq_lti_deployment_platform_dep"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    platform_id: Mapped[int] = mapped_column(ForeignKey("lti_platform.id", ondelete="CASCADE"), index=True)
    deployment_id: Mapped[str] = mapped_column(String(255))


class LtiKey(Base):
    """Our RSA key pair. The newest active key signs; retired keys stay in the JWKS for a while so that
    tokens signed just before a rotation still verify at the platform."""

    __tablename__ = "lti_key"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    kid: Mapped[str] = mapped_column(String(100), unique=True)
    private_pem: Mapped[str] = mapped_column(Text)
    public_pem: Mapped[str] = mapped_column(Text)
    created_at: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow)
    retired_at: Mapped[dt.datetime | None] = mapped_column(DateTime, nullable=True)


class LtiLaunchValue(Base):
    """pylti1p3's launch-data storage (nonces, state, verified launches, one-time hand-offs), shared by
    every server process. A nonce is deleted when a launch uses it, so a replayed id_token finds none."""

    __tablename__ = "lti_launch_value"

    key: Mapped[str] = mapped_column(String(255), primary_key=True)
    value: Mapped[str] = mapped_column(Text)
    expires_at: Mapped[dt.datetime] = mapped_column(DateTime, index=True)


class LtiIdentity(Base):
    """An LMS user (the platform's ``sub``) bound to one of our accounts: made on the first launch, or by
    the learner linking an account they already had after signing in to it."""

    __tablename__ = "lti_identity"
    __table_args__ = (UniqueConstraint("platform_id", "subject", name="uq_lti_identity_platform_subject"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    platform_id: Mapped[int] = mapped_column(ForeignKey("lti_platform.id", ondelete="CASCADE"), index=True)
    subject: Mapped[str] = mapped_column(String(255))
    user_id: Mapped[int] = mapped_column(ForeignKey("user.id", ondelete="CASCADE"), index=True)
    created_at: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow)


class LtiContext(Base):
    """An LMS course (context) as the platform names it, and the role each launched user has in it.
    Roles here are per course: an LMS instructor is not an instructor of the whole site."""

    __tablename__ = "lti_context"
    __table_args__ = (UniqueConstraint("platform_id", "context_id", name="uq_lti_context_platform_context"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    platform_id: Mapped[int] = mapped_column(ForeignKey("lti_platform.id", ondelete="CASCADE"), index=True)
    context_id: Mapped[str] = mapped_column(String(255))
    title: Mapped[str] = mapped_column(String(255), default="")
    # the Names and Role Provisioning Services URL from the latest launch (roster sync)
    memberships_url: Mapped[str | None] = mapped_column(String(500), nullable=True)
    # the Assignment and Grade Services line items URL from the latest launch (grade passback)
    lineitems_url: Mapped[str | None] = mapped_column(String(500), nullable=True)
    ags_scopes: Mapped[str] = mapped_column(String(500), default="")  # the scopes the LMS granted, space-separated
    created_at: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow)


class LtiMember(Base):
    """A user's role in an LMS course (learner, instructor or grader), from launches and roster syncs."""

    __tablename__ = "lti_member"
    __table_args__ = (UniqueConstraint("context_id", "subject", name="uq_lti_member_context_subject"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    context_id: Mapped[int] = mapped_column(ForeignKey("lti_context.id", ondelete="CASCADE"), index=True)
    subject: Mapped[str] = mapped_column(String(255))
    user_id: Mapped[int | None] = mapped_column(ForeignKey("user.id", ondelete="CASCADE"), nullable=True, index=True)
    name: Mapped[str] = mapped_column(String(200), default="")
    role: Mapped[str] = mapped_column(String(16))
    active: Mapped[bool] = mapped_column(Boolean, default=True)
    synced_at: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow)


class LtiLineItem(Base):
    """The LMS gradebook column of one of the class's assignments (its URL at the platform)."""

    __tablename__ = "lti_line_item"
    __table_args__ = (UniqueConstraint("context_id", "assignment_id", name="uq_lti_line_item_context_assignment"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    context_id: Mapped[int] = mapped_column(ForeignKey("lti_context.id", ondelete="CASCADE"), index=True)
    assignment_id: Mapped[int] = mapped_column(ForeignKey("assignment.id", ondelete="CASCADE"), index=True)
    url: Mapped[str] = mapped_column(String(500))
    created_at: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow)


class LtiScore(Base):
    """A learner's score on one assignment as the LMS should have it: the outbox of grade passback.

    One row per (course, assignment, learner). A change bumps ``version``; a sender claims the row
    with a lease (compare-and-set, like the submissions queue), posts that version's score, and records
    ``sent_version`` only under its own lease. A failure keeps the row pending with a later
    ``next_try_at``: retried, never dropped. Because a row holds only the latest score and its
    timestamp, a late retry can never put an older score over a newer one.
    """

    __tablename__ = "lti_score"
    __table_args__ = (UniqueConstraint("context_id", "assignment_id", "user_id", name="uq_lti_score_ctx_asg_user"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    context_id: Mapped[int] = mapped_column(ForeignKey("lti_context.id", ondelete="CASCADE"), index=True)
    assignment_id: Mapped[int] = mapped_column(ForeignKey("assignment.id", ondelete="CASCADE"), index=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("user.id", ondelete="CASCADE"), index=True)
    subject: Mapped[str] = mapped_column(String(255))  # the learner's LMS user id
    score: Mapped[float] = mapped_column(Float)
    out_of: Mapped[float] = mapped_column(Float)
    version: Mapped[int] = mapped_column(Integer, default=1)
    changed_at: Mapped[dt.datetime] = mapped_column(DateTime)  # the score's timestamp sent to the LMS
    sent_version: Mapped[int] = mapped_column(Integer, default=0)
    sent_score: Mapped[float | None] = mapped_column(Float, nullable=True)
    sent_at: Mapped[dt.datetime | None] = mapped_column(DateTime, nullable=True)
    attempts: Mapped[int] = mapped_column(Integer, default=0)  # failed sends since the last success
    last_error: Mapped[str] = mapped_column(String(200), default="")
    next_try_at: Mapped[dt.datetime] = mapped_column(DateTime, index=True)
    lease_owner: Mapped[str | None] = mapped_column(String(100), nullable=True)
    lease_expires_at: Mapped[dt.datetime | None] = mapped_column(DateTime, nullable=True)
