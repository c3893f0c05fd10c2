"""Running pylti1p3's checks on a login or a launch, and naming what failed in our terms.

pylti1p3 raises one exception type with an English sentence; the sentence tells which check failed,
and that is mapped to one of our codes (app/lti/messages.py). The sentence itself may quote parts of
the token, so it goes to the log only at debug level and never onto a page.
"""
from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from fastapi import Request
from fastapi.responses import Response
from pylti1p3.exception import LtiException, OIDCException
from sqlalchemy.orm import Session

from app.lti import storage
from app.lti.adapters import FastApiMessageLaunch, FastApiOIDCLogin
from app.lti.messages import LtiError
from app.lti.models import LtiPlatform

log = logging.getLogger(__name__)

# (a fragment of pylti1p3's sentence, our code, HTTP status), first match wins
FAILURES = [
    ("Invalid Nonce", "launch_replayed", 403),
    ('"nonce" is empty', "launch_invalid", 400),
    ("State not found", "launch_state", 403),
    ("Missing state", "launch_state", 400),
    ("Signature has expired", "launch_expired", 403),
    ("Registration not found", "unknown_platform", 403),
    ("Client id not registered", "unknown_platform", 403),
    ("Could not find registration", "unknown_platform", 403),
    ("Unable to find deployment", "unknown_deployment", 403),
    ("deployment_id is not set", "unknown_deployment", 403),
    ("Can't decode id_token", "bad_signature", 403),
    ("Unable to find public key", "bad_signature", 403),
    ("JWT KID not found", "bad_signature", 403),
]


def refusal(exc: Exception) -> LtiError:
    text = str(exc)
    log.debug("LTI check failed: %s", text)
    for fragment, code, status in FAILURES:
        if fragment in text:
            return LtiError(code, status=status)
    return LtiError("launch_invalid", status=400)


def login(request: Request, params: Mapping[str, Any], db: Session, launch_url: str) -> Response:
    """OIDC login initiation: the redirect to the platform's authorisation URL, with a fresh state
    (also in a cookie) and nonce."""
    storage.purge_expired(db)
    oidc = FastApiOIDCLogin(request, params, db)
    target = params.get("target_link_uri")
    if isinstance(target, str) and target:
        # the link's own URI (it carries ?resource=) comes back to us as the launch's target_link_uri
        oidc.pass_params_to_launch({"target_link_uri": target[:500]})
    try:
        response = oidc.redirect(launch_url)
    except (LtiException, OIDCException) as exc:
        raise refusal(exc) from None
    return response


def launch(request: Request, params: Mapping[str, Any], db: Session) -> tuple[FastApiMessageLaunch, dict[str, Any], LtiPlatform]:
    """The verified launch: state, nonce (used up), registration, signature and expiry, deployment."""
    message = FastApiMessageLaunch(request, params, db)
    try:
        body = message.get_launch_data()
    except (LtiException, OIDCException) as exc:
        raise refusal(exc) from None
    except Exception as exc:  # a malformed token can trip the library before its own checks
        raise refusal(exc) from None
    platform = message.parts.config.platform
    if platform is None:
        raise LtiError("unknown_platform", status=403)
    return message, dict(body), platform
