"""Platform registrations: what an admin enters from the LMS (issuer, client id, URLs, deployments)."""
from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import urlsplit

from sqlalchemy import delete, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from app.core.clock import utcnow
from app.lti.messages import LtiError
from app.lti.models import LtiDeployment, LtiPlatform

LOCAL_HOSTS = {"localhost", "127.0.0.1", "::1"}


@dataclass
class PlatformForm:
    name: str
    issuer: str
    client_id: str
    auth_login_url: str
    auth_token_url: str
    key_set_url: str
    deployment_ids: list[str]
    auth_audience: str = ""


def _url_ok(url: str) -> bool:
    """https everywhere; plain http only to this machine (a test platform or a developer's LMS)."""
    parts = urlsplit(url)
    return bool(parts.netloc) and (parts.scheme == "https" or (parts.scheme == "http" and parts.hostname in LOCAL_HOSTS))


def split_deployments(text: str) -> list[str]:
    """Deployment ids typed one per line or separated by commas; blanks and repeats dropped."""
    seen: list[str] = []
    for part in text.replace(",", "\n").splitlines():
        part = part.strip()
        if part and part not in seen:
            seen.append(part)
    return seen


def validate(form: PlatformForm) -> PlatformForm:
    fields = [form.issuer, form.client_id, form.auth_login_url, form.auth_token_url, form.key_set_url]
    fields = [f.strip() for f in fields]
    if not all(fields) or not form.deployment_ids or any(len(f) > 255 for f in fields[:2]) \
            or any(len(f) > 500 for f in fields[2:]) or any(len(d) > 255 for d in form.deployment_ids) \
            or len(form.name) > 100:
        raise LtiError("platform_field", status=400)
    urls = fields[2:] + ([form.auth_audience.strip()] if form.auth_audience.strip() else [])
    if not all(_url_ok(u) for u in urls):
        raise LtiError("platform_url", status=400)
    return PlatformForm(name=form.name.strip() or fields[0], issuer=fields[0], client_id=fields[1],
                        auth_login_url=fields[2], auth_token_url=fields[3], key_set_url=fields[4],
                        deployment_ids=form.deployment_ids, auth_audience=form.auth_audience.strip())


def register(db: Session, form: PlatformForm) -> LtiPlatform:
    """Stores a new platform and its deployments; 409 when the issuer and client id are registered."""
    form = validate(form)
    row = LtiPlatform(name=form.name, issuer=form.issuer, client_id=form.client_id,
                      auth_login_url=form.auth_login_url, auth_token_url=form.auth_token_url,
                      key_set_url=form.key_set_url, auth_audience=form.auth_audience or None, created_at=utcnow())
    db.add(row)
    try:
        db.flush()
    except IntegrityError:
        db.rollback()
        raise LtiError("platform_exists", status=409) from None
    db.add_all(LtiDeployment(platform_id=row.id, deployment_id=d) for d in form.deployment_ids)
    db.flush()
    return row


def set_deployments(db: Session, platform: LtiPlatform, deployment_ids: list[str]) -> None:
    if not deployment_ids or any(len(d) > 255 for d in deployment_ids):
        raise LtiError("platform_field", status=400)
    db.execute(delete(LtiDeployment).where(LtiDeployment.platform_id == platform.id))
    db.add_all(LtiDeployment(platform_id=platform.id, deployment_id=d) for d in deployment_ids)
    db.flush()


def deployments(db: Session, platform_id: int) -> list[str]:
    return list(db.scalars(select(LtiDeployment.deployment_id).where(LtiDeployment.platform_id == platform_id)
                           .order_by(LtiDeployment.id)))


def find(db: Session, issuer: str, client_id: str | None) -> LtiPlatform | None:
    """The registration of ``issuer`` (and ``client_id`` when the platform sends it; when it does not,
    only an issuer registered once is unambiguous)."""
    query = select(LtiPlatform).where(LtiPlatform.issuer == issuer)
    if client_id:
        return db.scalar(query.where(LtiPlatform.client_id == client_id))
    rows = list(db.scalars(query.limit(2)))
    return rows[0] if len(rows) == 1 else None


def all_platforms(db: Session) -> list[LtiPlatform]:
    return list(db.scalars(select(LtiPlatform).order_by(LtiPlatform.id)))


def remove(db: Session, platform_id: int) -> bool:
    result = db.execute(delete(LtiPlatform).where(LtiPlatform.id == platform_id))
    return bool(getattr(result, "rowcount", 0))
