"""Sign up, sign in, sign out, sessions, CSRF, rate limits and bad input, over HTTP."""
from __future__ import annotations

import datetime as dt

import pytest
from sqlalchemy import select, update

from app.accounts.auth import SESSION_COOKIE, AccountsConfig, digest
from app.accounts.models import AuthSession, User
from app.core.services import app_services
from app.progress.models import Event

from .conftest import PASSWORD, form_token, page_csrf, signin, signup


def test_signup_signs_in_with_a_safe_cookie(new_client, app):
    client = new_client()
    response = signup(client, "kim", tz="Asia/Seoul")
    assert response.status_code == 303 and response.headers["location"] == "/en/"
    cookie = response.headers["set-cookie"]
    assert f"{SESSION_COOKIE}=" in cookie and "HttpOnly" in cookie and "samesite=lax" in cookie.lower()
    assert "Max-Age=" in cookie
    page = client.get("/en/")
    assert 'data-signed-in="kim"' in page.text and "/en/profile" in page.text
    with app_services(app).session_factory() as db:
        user = db.scalar(select(User))
        assert user.tz == "Asia/Seoul" and user.role == "learner"
        assert user.password_hash.startswith("$argon2id$") and PASSWORD not in user.password_hash
        token = client.cookies.get(SESSION_COOKIE)
        assert db.scalar(select(AuthSession.token_hash)) == digest(token) != token  # only the hash is stored


def test_signin_wrong_password_and_unknown_user_same_message(new_client):
    signup(new_client(), "kim")
    client = new_client()
    for name, password in (("kim", "wrong password here"), ("nobody", PASSWORD)):
        response = signin(client, name, password)
        assert response.status_code == 400
        assert "Wrong username or password." in response.text
    assert "사용자 이름 또는 비밀번호가 올바르지 않아요." in signin(client, "kim", "nope nope nope", lang="ko").text
    ok = signin(client, "KIM", PASSWORD)  # names are case-insensitive
    assert ok.status_code == 303 and SESSION_COOKIE in ok.headers["set-cookie"]


def test_signin_makes_a_new_session_each_time(new_client, app):
    signup(new_client(), "kim")
    client = new_client()
    signin(client, "kim")
    first = client.cookies.get(SESSION_COOKIE)
    signin(client, "kim")
    assert client.cookies.get(SESSION_COOKIE) != first


@pytest.mark.parametrize("username, code, lang, text", [
    ("", "username_empty", "en", "Choose a username."),
    ("ab", "username_too_short", "en", "at least 3 characters"),
    ("x" * 33, "username_too_long", "en", "at most 32 characters"),
    ("<script>alert(1)</script>", "username_chars", "en", "only letters, digits"),
    ("a b c", "username_chars", "ko", "글자, 숫자"),
    ("bad\u200bname", "username_chars", "en", "only letters, digits"),
    ("admin", "username_taken", "ko", "이미 사용 중인 사용자 이름"),
])
def test_bad_usernames_are_rejected_in_both_languages(new_client, username, code, lang, text):
    response = signup(new_client(), username, lang=lang)
    assert response.status_code in (400, 409)
    assert f'data-error="{code}"' in response.text and text in response.text
    assert "<script>alert(1)</script>" not in response.text  # the echoed value is escaped


def test_unicode_usernames_are_welcome_and_unique_without_case(new_client, app):
    assert signup(new_client(), "김민지").status_code == 303
    assert signup(new_client(), "Müller").status_code == 303
    taken = signup(new_client(), "MÜLLER")
    assert taken.status_code == 409 and "That username is taken" in taken.text
    with app_services(app).session_factory() as db:
        assert sorted(u.username for u in db.scalars(select(User))) == ["Müller", "김민지"]


@pytest.mark.parametrize("password, code", [
    ("", "password_empty"), ("short", "password_too_short"), ("x" * 300, "password_too_long"),
    ("password123", "password_common"), ("aaaaaaaaaaaaaa", "password_common"), ("kimkimkim-123456", "password_has_username"),
])
def test_weak_passwords_are_rejected(new_client, password, code):
    response = signup(new_client(), "kim", password=password)
    assert response.status_code == 400 and f'data-error="{code}"' in response.text


def test_password_mismatch(new_client):
    client = new_client()
    token = form_token(client, "/ko/signup")
    response = client.post("/ko/signup", data={"csrf_token": token, "username": "kim", "password": PASSWORD,
                                               "password2": PASSWORD + "x"})
    assert response.status_code == 400 and "두 비밀번호가 일치하지 않아요." in response.text


def test_signout_ends_the_session_on_the_server(user_client, app):
    cookie = user_client.cookies.get(SESSION_COOKIE)
    csrf = page_csrf(user_client)
    response = user_client.post("/signout", data={"csrf_token": csrf, "next": "/en/"}, follow_redirects=False)
    assert response.status_code == 303
    with app_services(app).session_factory() as db:
        assert db.scalar(select(AuthSession).where(AuthSession.token_hash == digest(cookie))) is None
    user_client.cookies.set(SESSION_COOKIE, cookie)  # a stolen copy of the old cookie is worthless
    assert "data-signed-in" not in user_client.get("/en/").text


def test_sign_out_everywhere(new_client):
    laptop, phone = new_client(), new_client()
    signup(laptop, "kim")
    signin(phone, "kim")
    assert "data-signed-in" in phone.get("/en/").text
    laptop.post("/signout-everywhere", data={"csrf_token": page_csrf(laptop), "lang": "en"})
    assert "data-signed-in" not in phone.get("/en/").text
    assert "data-signed-in" not in laptop.get("/en/").text


def test_expired_session_is_signed_out_and_removed(user_client, app):
    with app_services(app).session_factory() as db:
        db.execute(update(AuthSession).values(expires_at=dt.datetime(2020, 1, 1)))
        db.commit()
    assert "data-signed-in" not in user_client.get("/en/").text
    assert user_client.get("/api/me").status_code == 401
    with app_services(app).session_factory() as db:
        assert db.scalar(select(AuthSession)) is None


def test_an_expired_session_is_refused_by_the_api_with_no_page_view_first(user_client, app):
    """The API judges expiry itself: no page view has run (and deleted the row) before these calls."""
    csrf = page_csrf(user_client)
    with app_services(app).session_factory() as db:
        db.execute(update(AuthSession).values(expires_at=dt.datetime(2020, 1, 1)))
        db.commit()
    done = user_client.post("/api/progress/lessons/naive-vs-tiled-gemm/complete", json={}, headers={"X-CSRF-Token": csrf})
    # refused; the expired session's CSRF token is no longer anyone's, so the CSRF check may answer first
    assert done.status_code in (401, 403) and done.json()["error"] in ("auth_required", "csrf"), done.text
    assert user_client.get("/api/me").status_code == 401
    with app_services(app).session_factory() as db:
        assert db.scalar(select(AuthSession)) is None
        assert db.scalar(select(Event).where(Event.kind == "lesson_completed")) is None
    assert "data-signed-in" not in user_client.get("/en/").text


def test_a_session_expiring_in_a_minute_still_works(user_client, app):
    with app_services(app).session_factory() as db:
        db.execute(update(AuthSession).values(expires_at=dt.datetime.now(dt.UTC).replace(tzinfo=None)
                                              + dt.timedelta(minutes=1)))
        db.commit()
    assert user_client.get("/api/me").json()["user"]["username"] == "kim"
    assert 'data-signed-in="kim"' in user_client.get("/en/").text


def test_session_lifetime_comes_from_config(new_client, app):
    app_services(app).get(AccountsConfig).session_ttl = dt.timedelta(hours=2)
    client = new_client()
    assert "Max-Age=7200" in signup(client, "kim").headers["set-cookie"]
    with app_services(app).session_factory() as db:
        row = db.scalar(select(AuthSession))
        assert dt.timedelta(hours=1, minutes=59) < row.expires_at - row.created_at <= dt.timedelta(hours=2)


# ---- CSRF ------------------------------------------------------------------------------------------

def test_forms_without_or_with_a_wrong_csrf_token_are_refused(new_client):
    client = new_client()
    form_token(client, "/en/signup")  # sets the visitor cookie
    data = {"username": "kim", "password": PASSWORD, "password2": PASSWORD}
    assert client.post("/en/signup", data=data).status_code == 403
    refused = client.post("/en/signup", data={**data, "csrf_token": "forged"})
    assert refused.status_code == 403 and "did not come from this site" in refused.text
    other = new_client()  # a token from another browser does not fit this one's cookie
    assert client.post("/en/signup", data={**data, "csrf_token": form_token(other, "/en/signup")}).status_code == 403


def test_signed_in_forms_and_api_need_the_session_token(user_client):
    csrf = page_csrf(user_client)
    assert user_client.post("/signout", data={"next": "/en/"}).status_code == 403
    assert user_client.post("/en/profile/tokens", data={"name": "x", "csrf_token": "nope"}).status_code == 403
    api = user_client.post("/api/progress/lessons/naive-vs-tiled-gemm/complete", json={})
    assert api.status_code == 403 and api.json()["error"] == "csrf"
    ok = user_client.post("/api/progress/lessons/naive-vs-tiled-gemm/complete", json={},
                          headers={"X-CSRF-Token": csrf})
    assert ok.status_code == 200


def test_cross_origin_post_is_refused_even_with_a_token(user_client):
    csrf = page_csrf(user_client)
    response = user_client.post("/api/progress/lessons/naive-vs-tiled-gemm/complete", json={},
                                headers={"X-CSRF-Token": csrf, "Origin": "https://evil.example"})
    assert response.status_code == 403


# ---- rate limits -----------------------------------------------------------------------------------

def test_signin_is_rate_limited_per_ip_and_username(new_client, app):
    signup(new_client(), "kim")
    client = new_client()
    limit = app_services(app).get(AccountsConfig).signin_per_user.limit
    for _ in range(limit):
        assert signin(client, "kim", "wrong password!!").status_code == 400
    blocked = signin(client, "kim", PASSWORD)  # even the right password waits
    assert blocked.status_code == 429 and "Too many attempts" in blocked.text and "Retry-After" in blocked.headers
    assert signin(client, "someone-else", "whatever pw").status_code == 400  # other names are not blocked


def test_signup_is_rate_limited_per_ip(new_client, app):
    limit = app_services(app).get(AccountsConfig).signup_per_ip.limit
    client = new_client()
    for i in range(limit):
        signup(client, f"user{i}", password="short")
    response = signup(client, "late", lang="ko")
    assert response.status_code == 429 and "시도가 너무 많아요" in response.text


def test_sliding_window_forgets_old_attempts(new_client, app):
    from app.accounts import ratelimit

    new_client()  # the app starts: its database is migrated
    rate = ratelimit.Rate(2, 10)
    with app_services(app).session_factory() as db:
        take = lambda now: ratelimit.take(db, [("test", "k", rate)], now=now)  # noqa: E731
        assert take(0.0).allowed and take(1.0).allowed
        assert take(5.0).wait == 5  # the first slot frees at 10
        assert take(10.5).allowed
        assert take(10.6).wait == 1  # the second frees at 11
        assert ratelimit.take(db, [("test", "other", rate)], now=10.6).allowed  # buckets are apart
        db.commit()


def test_pruning_forgets_only_free_slots(new_client, app):
    from sqlalchemy import func, select

    from app.accounts import ratelimit
    from app.accounts.models import RateSlot

    new_client()
    rate = ratelimit.Rate(2, 10)
    with app_services(app).session_factory() as db:
        assert ratelimit.take(db, [("test", "a", rate)], now=0.0).allowed  # slot taken until 10
        assert ratelimit.take(db, [("test", "b", ratelimit.Rate(3, 100))], now=0.0).allowed  # until 100
        db.commit()
        ratelimit.prune(db, now=50.0)
        db.commit()
        assert db.scalar(select(func.count()).select_from(RateSlot)) == 1  # only b's taken slot is left
        assert not ratelimit.take(db, [("test", "b", ratelimit.Rate(1, 100))], now=50.0).allowed  # still counted
        assert ratelimit.take(db, [("test", "a", rate)], now=50.0).allowed  # a's slot comes back, free


def test_next_parameter_cannot_redirect_off_site(new_client):
    client = new_client()
    token = form_token(client, "/en/signup")
    response = client.post("/en/signup", data={"csrf_token": token, "username": "kim", "password": PASSWORD,
                                               "password2": PASSWORD, "next": "https://evil.example/"},
                           follow_redirects=False)
    assert response.headers["location"] == "/en/"


def test_huge_and_odd_inputs_do_not_break_signin(new_client):
    client = new_client()
    assert signin(client, "x" * 3000, "y" * 3000).status_code == 400
    assert signin(client, "x" * 5000, "y" * 5000).status_code == 413  # past the form body cap (8 KiB)
    assert signin(client, "", "").status_code == 400
    assert signin(client, "\u0000", "\u0000pw").status_code == 400


def test_limits_and_session_lifetime_from_the_environment(monkeypatch):
    from pydantic import ValidationError

    from app.accounts.auth import AccountsConfig
    from app.core.config import Settings

    monkeypatch.setenv("MKC_SIGNUP_LIMIT", "20/60")
    monkeypatch.setenv("MKC_SESSION_HOURS", "1.5")
    cfg = AccountsConfig.from_settings(Settings())
    assert (cfg.signup_per_ip.limit, cfg.signup_per_ip.window) == (20, 60)
    assert cfg.session_ttl == dt.timedelta(minutes=90)
    assert (cfg.signin_per_ip.limit, cfg.signin_per_ip.window) == (40, 300)  # not set: the default
    monkeypatch.setenv("MKC_SIGNIN_IP_LIMIT", "nonsense")  # unreadable: refused at start, naming the setting
    with pytest.raises(ValidationError, match="signin_ip_limit"):
        Settings()


def test_signing_out_of_an_expired_session_just_leaves(user_client, app):
    csrf = page_csrf(user_client)
    with app_services(app).session_factory() as db:
        db.execute(update(AuthSession).values(expires_at=dt.datetime(2020, 1, 1)))
        db.commit()
    response = user_client.post("/signout", data={"csrf_token": csrf, "next": "/ko/"}, follow_redirects=False)
    assert response.status_code == 303 and response.headers["location"] == "/ko/"


def test_one_rule_decides_whether_a_cookie_names_a_live_session():
    """accounts.auth.live_session, shared by the API and the page views: too long a cookie is never
    looked up; an expired row goes to on_expired and signs nobody in; a live row is the answer."""
    from types import SimpleNamespace

    from app.accounts.auth import live_session

    looked_up, expired = [], []

    def lookup(rows):
        def find(token_hash):
            looked_up.append(token_hash)
            return rows.get(token_hash)
        return find

    now = dt.datetime.now(dt.UTC).replace(tzinfo=None)
    live = SimpleNamespace(expires_at=now + dt.timedelta(hours=1))
    old = SimpleNamespace(expires_at=now - dt.timedelta(seconds=1))
    rows = {digest("live"): live, digest("old"): old}
    assert live_session("x" * 201, lookup(rows), expired.append) is None and looked_up == []
    assert live_session("", lookup(rows), expired.append) is None and looked_up == []
    assert live_session("x" * 200, lookup(rows), expired.append) is None and len(looked_up) == 1
    assert live_session("old", lookup(rows), expired.append) is None and expired == [old]
    assert live_session("live", lookup(rows), expired.append) is live and expired == [old]


def test_an_overlong_cookie_is_a_visitor_on_pages_and_the_api(new_client):
    client = new_client()
    client.cookies.set(SESSION_COOKIE, "x" * 201)
    assert client.get("/api/me").status_code == 401
    assert "data-signed-in" not in client.get("/en/").text
