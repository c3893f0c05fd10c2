"""The database rate limiter's rules, with the clock passed in: at most ``limit`` actions per window
even after the limit is lowered (slots a higher limit left behind do not count), and a refused action
uses up nothing in the other limits it was checked against. SQLite and PostgreSQL."""
from __future__ import annotations

import pytest

from app.accounts.ratelimit import Rate, take

T0 = 1_800_000_000.0


@pytest.fixture
def db(migrated_db):
    return migrated_db


def _allowed(db, limits, now, times: int) -> list[bool]:
    out = []
    for _ in range(times):
        out.append(take(db, limits, now=now).allowed)
        db.commit()
    return out


def test_a_lowered_limit_counts_only_its_own_slots(db):
    assert _allowed(db, [("signin", "10.0.0.1", Rate(10, 60))], T0, 8) == [True] * 8
    # the operator lowers the limit to 5 per minute; a minute later the old slots are free again
    later = T0 + 61
    assert _allowed(db, [("signin", "10.0.0.1", Rate(5, 60))], later, 6) == [True] * 5 + [False]


def test_a_refused_action_uses_up_nothing_in_its_other_limits(db):
    per_user, per_ip = ("signin_user", "lee", Rate(3, 60)), ("signin_ip", "10.0.0.1", Rate(1, 60))
    assert take(db, [per_user, per_ip], now=T0).allowed
    db.commit()
    refused = take(db, [per_user, per_ip], now=T0 + 1)
    db.commit()
    assert (refused.allowed, refused.wait) == (False, 59)
    # the refusal took no slot of the per-user limit: two of its three are still free
    assert _allowed(db, [per_user], T0 + 2, 3) == [True, True, False]


def test_a_subject_has_its_own_bucket(db):
    assert _allowed(db, [("signin", "10.0.0.1", Rate(2, 60))], T0, 3) == [True, True, False]
    assert _allowed(db, [("signin", "10.0.0.2", Rate(2, 60))], T0, 1) == [True]
    assert _allowed(db, [("signin", "10.0.0.1", Rate(2, 60))], T0 + 60, 1) == [True]  # the window moved on
