"""pylti1p3's tool configuration read from our database: registrations, deployments and our key."""
from __future__ import annotations

from typing import Any

from pylti1p3.deployment import Deployment
from pylti1p3.registration import Registration
from pylti1p3.tool_config.abstract import ToolConfAbstract
from sqlalchemy import select
from sqlalchemy.orm import Session

from app.lti import keys, registry
from app.lti.models import LtiDeployment, LtiPlatform


def registration_for(db: Session, platform: LtiPlatform) -> Registration:
    key = keys.signing_key(db)
    return (Registration().set_issuer(platform.issuer).set_client_id(platform.client_id)
            .set_auth_login_url(platform.auth_login_url).set_auth_token_url(platform.auth_token_url)
            .set_auth_audience(platform.auth_audience or platform.auth_token_url)
            .set_key_set_url(platform.key_set_url)
            .set_tool_private_key(key.private_pem).set_tool_public_key(key.public_pem))


class DatabaseToolConf(ToolConfAbstract[Any]):
    """Every issuer may have several client ids (one per LMS developer key), so pylti1p3 always asks by
    issuer and client id; a login without a client id is answered when the issuer is registered once."""

    def __init__(self, db: Session) -> None:
        self.db = db
        self.platform: LtiPlatform | None = None  # the registration the last lookup found

    def check_iss_has_one_client(self, iss: str) -> bool:
        return False

    def check_iss_has_many_clients(self, iss: str) -> bool:
        return True

    def _registration(self, iss: str, client_id: str | None) -> Registration | None:
        platform = registry.find(self.db, iss, client_id)
        self.platform = platform
        return registration_for(self.db, platform) if platform is not None else None

    def find_registration_by_issuer(self, iss: str, *args: Any, **kwargs: Any) -> Registration:
        return self._registration(iss, None)  # type: ignore[return-value]  # None: pylti1p3 refuses

    def find_registration_by_params(self, iss: str, client_id: str, *args: Any, **kwargs: Any) -> Registration:
        return self._registration(iss, client_id)  # type: ignore[return-value]

    def find_deployment(self, iss: str, deployment_id: str) -> Deployment | None:
        return self.find_deployment_by_params(iss, deployment_id, None)  # type: ignore[arg-type]

    def find_deployment_by_params(self, iss: str, deployment_id: str, client_id: str, *args: Any,
                                  **kwargs: Any) -> Deployment | None:
        platform = registry.find(self.db, iss, client_id)
        if platform is None or not isinstance(deployment_id, str):
            return None
        known = self.db.scalar(select(LtiDeployment.id).where(LtiDeployment.platform_id == platform.id,
                                                              LtiDeployment.deployment_id == deployment_id))
        return Deployment().set_deployment_id(deployment_id) if known is not None else None
