"""Problem reports: checks, the per-IP rate limit, and the inbox's queries."""
from __future__ import annotations

import hashlib
import hmac
from dataclasses import dataclass

from sqlalchemy import delete, func, select, update
from sqlalchemy.orm import Session

from app.accounts.models import User
from app.comments.limits import CommentsConfig, take
from app.comments.messages import CommentsError
from app.comments.models import Comment, CommentReport, CommentThread
from app.comments.text import is_blank, normalise
from app.core.clock import utcnow
from app.core.db import rows_changed
from app.reports.models import ProblemReport


def ip_hash(secret: str, ip: str) -> str:
    """Keyed, so the stored value cannot be turned back into an address by trying them all."""
    return hmac.new(secret.encode(), ip.encode(), hashlib.sha256).hexdigest()


def submit(db: Session, cfg: CommentsConfig, *, slug: str, lang: str, what: str, quote: str,
           user: User | None, ip_digest: str) -> ProblemReport:
    what, quote = normalise(what or ""), normalise(quote or "").strip()
    if is_blank(what):
        raise CommentsError("problem_empty", status=400)
    if len(what) > cfg.problem_max_length:
        raise CommentsError("problem_too_long", {"max": cfg.problem_max_length}, status=400)
    if len(quote) > cfg.quote_max_length:
        raise CommentsError("quote_too_long", {"max": cfg.quote_max_length}, status=400)
    wait = take(db, "problem-report", ip_digest, [cfg.problem_reports])
    if wait:
        raise CommentsError("report_limited", {"seconds": wait}, status=429, headers={"Retry-After": str(wait)})
    row = ProblemReport(lesson_slug=slug, lang=lang, what=what, quote=quote, reporter_id=user.id if user else None,
                        ip_hash=ip_digest, created_at=utcnow())
    db.add(row)
    db.flush()
    return row


def open_count(db: Session) -> int:
    problems = db.scalar(select(func.count()).select_from(ProblemReport).where(ProblemReport.resolved_at.is_(None))) or 0
    comments = db.scalar(select(func.count(func.distinct(CommentReport.comment_id)))
                         .where(CommentReport.resolved_at.is_(None))) or 0
    return problems + comments


def problem_reports(db: Session, resolved: bool, limit: int = 200) -> list[tuple[ProblemReport, str | None]]:
    condition = ProblemReport.resolved_at.is_not(None) if resolved else ProblemReport.resolved_at.is_(None)
    return list(db.execute(select(ProblemReport, User.username).outerjoin(User, User.id == ProblemReport.reporter_id)
                           .where(condition).order_by(ProblemReport.created_at.desc()).limit(limit)))


def set_problem_resolved(db: Session, moderator: User, report_id: int, resolved: bool) -> bool:
    row = db.get(ProblemReport, report_id)
    if row is None:
        return False
    row.resolved_at, row.resolved_by = (utcnow(), moderator.id) if resolved else (None, None)
    return True


@dataclass
class ReportedComment:
    comment: Comment
    author: str | None
    slug: str
    reasons: list[tuple[str, str]]  # (reporter, reason)


def reported_comments(db: Session, resolved: bool) -> list[ReportedComment]:
    condition = CommentReport.resolved_at.is_not(None) if resolved else CommentReport.resolved_at.is_(None)
    rows = db.execute(select(CommentReport, User.username).join(User, User.id == CommentReport.reporter_id)
                      .where(condition).order_by(CommentReport.created_at.desc()).limit(500))
    grouped: dict[int, ReportedComment] = {}
    for report, reporter in rows:
        entry = grouped.get(report.comment_id)
        if entry is None:
            comment = db.get(Comment, report.comment_id)
            if comment is None:  # foreign keys keep it; only a row removed under us gets here
                continue
            author_row = db.get(User, comment.author_id) if comment.author_id else None
            author = author_row.username if author_row is not None else None
            thread = db.get(CommentThread, comment.thread_id)
            slug = thread.lesson_slug if thread is not None else ""
            entry = grouped[report.comment_id] = ReportedComment(comment, author, slug, [])
        entry.reasons.append((reporter, report.reason))
    return list(grouped.values())


def resolve_comment_reports(db: Session, moderator: User, comment_id: int) -> int:
    return rows_changed(db, update(CommentReport).where(CommentReport.comment_id == comment_id,
                                                        CommentReport.resolved_at.is_(None))
                        .values(resolved_at=utcnow(), resolved_by=moderator.id))


def count_by(db: Session, user: User) -> int:
    """Problem reports ``user`` sent (what "delete my account" asks about)."""
    return db.scalar(select(func.count()).select_from(ProblemReport).where(ProblemReport.reporter_id == user.id)) or 0


def erase_by(db: Session, user: User) -> int:
    """Delete the problem reports ``user`` sent; for an account deleted with its contributions."""
    return rows_changed(db, delete(ProblemReport).where(ProblemReport.reporter_id == user.id))
