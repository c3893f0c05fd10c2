"""pylti1p3's launch-data storage in our database, so that every server process sees the same nonces,
state and verified launches (pylti1p3's own choices are a process-local cache or a cookie session).

The one change to pylti1p3's behaviour: checking a nonce deletes it, in the launch's transaction
(``DELETE ... WHERE key = ? AND expires_at > now``; the row count says whether it was there). Two
posts of one id_token can therefore never both pass, whatever their timing: pylti1p3 alone only asks
whether the nonce exists.
"""
from __future__ import annotations

import datetime as dt
import json
from typing import Any

from pylti1p3.launch_data_storage.base import LaunchDataStorage
from pylti1p3.session import SessionService
from sqlalchemy import delete
from sqlalchemy.orm import Session

from app.core.clock import utcnow
from app.lti.models import LtiLaunchValue

DEFAULT_LIFETIME_S = 24 * 3600


class DatabaseLaunchStorage(LaunchDataStorage[Any]):
    def __init__(self, db: Session) -> None:
        super().__init__()
        self.db = db

    def get_session_cookie_name(self) -> str | None:
        # No per-browser key prefix: every key already holds a random uuid (state, nonce, launch id),
        # and a prefix cookie would have to cross the LMS's iframe too.
        return None

    def can_set_keys_expiration(self) -> bool:
        return True

    def _row(self, key: str) -> LtiLaunchValue | None:
        row = self.db.get(LtiLaunchValue, self._prepare_key(key)[:255])
        return row if row is not None and row.expires_at > utcnow() else None

    def get_value(self, key: str) -> Any:
        row = self._row(key)
        return json.loads(row.value) if row is not None else None

    def set_value(self, key: str, value: Any, exp: int | None = None) -> None:
        key = self._prepare_key(key)[:255]
        expires = utcnow() + dt.timedelta(seconds=exp or DEFAULT_LIFETIME_S)
        row = self.db.get(LtiLaunchValue, key)
        if row is None:
            self.db.add(LtiLaunchValue(key=key, value=json.dumps(value), expires_at=expires))
        else:
            row.value, row.expires_at = json.dumps(value), expires
        self.db.flush()

    def check_value(self, key: str) -> bool:
        return self._row(key) is not None

    def take(self, key: str) -> bool:
        """Delete ``key`` if it is there and unexpired; True when this call deleted it."""
        result = self.db.execute(delete(LtiLaunchValue).where(LtiLaunchValue.key == self._prepare_key(key)[:255],
                                                              LtiLaunchValue.expires_at > utcnow()))
        return bool(getattr(result, "rowcount", 0))


class OneUseNonceSessionService(SessionService):
    """pylti1p3's session service on our storage, with nonces that work once."""

    def __init__(self, request: Any, storage: DatabaseLaunchStorage) -> None:
        super().__init__(request)
        self.set_data_storage(storage)
        self.storage = storage

    def save_nonce(self, nonce: str) -> None:
        # a nonce lives as long as a launch may take to come back (pylti1p3's state cookie: 5 minutes)
        self.data_storage.set_value(self._get_key("nonce", nonce), True, exp=10 * 60)

    def check_nonce(self, nonce: str) -> bool:
        return self.storage.take(self._get_key("nonce", nonce))


def purge_expired(db: Session) -> int:
    """Drop expired values (run on every login: cheap, indexed, keeps the table small)."""
    result = db.execute(delete(LtiLaunchValue).where(LtiLaunchValue.expires_at <= utcnow()))
    return int(getattr(result, "rowcount", 0) or 0)
