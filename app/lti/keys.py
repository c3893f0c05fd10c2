"""Our signing keys: generated on first use, rotated on an admin's request, published as a JWKS.

The platform verifies what we sign (client assertions for service tokens, Deep Linking responses)
with the public key whose ``kid`` the token names; it fetches our JWKS to find it.
"""
from __future__ import annotations

import datetime as dt
import json
from typing import Any

from jwcrypto.jwk import JWK
from sqlalchemy import select
from sqlalchemy.orm import Session

from app.core.clock import utcnow
from app.lti.models import LtiKey

# A retired key stays published this long: platforms cache our JWKS, and a token signed just before
# the rotation must still verify.
RETIRED_KEY_GRACE = dt.timedelta(days=7)


def public_jwk(public_pem: str) -> dict[str, Any]:
    """The public key as a JWK with the ``kid`` pylti1p3 puts in our tokens' headers (its thumbprint)."""
    jwk: dict[str, Any] = json.loads(JWK.from_pem(public_pem.encode()).export_public())
    jwk.update(alg="RS256", use="sig")
    return jwk


def _new_key(db: Session) -> LtiKey:
    key = JWK.generate(kty="RSA", size=2048)
    public_pem = key.export_to_pem().decode()
    row = LtiKey(kid=public_jwk(public_pem)["kid"], public_pem=public_pem, created_at=utcnow(),
                 private_pem=key.export_to_pem(private_key=True, password=None).decode())
    db.add(row)
    db.flush()
    return row


def signing_key(db: Session) -> LtiKey:
    """The newest active key, made when there is none (first use)."""
    row = db.scalar(select(LtiKey).where(LtiKey.retired_at.is_(None)).order_by(LtiKey.id.desc()).limit(1))
    return row if row is not None else _new_key(db)


def rotate(db: Session) -> LtiKey:
    """Retire every active key and make a new one; returns the new key."""
    now = utcnow()
    for row in db.scalars(select(LtiKey).where(LtiKey.retired_at.is_(None))):
        row.retired_at = now
    return _new_key(db)


def jwks(db: Session) -> dict[str, list[dict[str, Any]]]:
    """Every active key and the keys retired within the grace period (public halves only)."""
    since = utcnow() - RETIRED_KEY_GRACE
    rows = db.scalars(select(LtiKey).where((LtiKey.retired_at.is_(None)) | (LtiKey.retired_at > since))
                      .order_by(LtiKey.id.desc()))
    return {"keys": [public_jwk(row.public_pem) for row in rows]}
