"""Launches that must be refused, each with a clear page in the reader's language, and no key or token
on the page or in the log. The platform is lti1p3platform; where a case needs a token no honest
platform would sign (wrong audience or issuer, a forged role), the test re-signs or edits the
platform's own token with PyJWT: the smallest platform side for that case."""
from __future__ import annotations

import base64
import html
import json
import logging

import jwt
import pytest

from tests.lti.platform import INSTRUCTOR, LEARNER, LaunchPlan, Person

KO = {"Accept-Language": "ko"}
EN = {"Accept-Language": "en"}


def plan(**kw) -> LaunchPlan:
    return LaunchPlan(Person("lms-zoe", "Zoe", [LEARNER]), **kw)


def resign(lms, token: str, **changes) -> str:
    """The platform's token with ``changes``, signed again with the platform's own key and kid."""
    body = jwt.decode(token, options={"verify_signature": False})
    body.update(changes)
    kid = jwt.get_unverified_header(token)["kid"]
    return jwt.encode(body, lms.state.private_pem, algorithm="RS256", headers={"kid": kid})


def assert_clean(page, fields, lms, caplog):
    """Neither the id_token nor any private key appears on the page or in the log."""
    shown = page.text + caplog.text
    assert fields["id_token"] not in shown
    assert fields["id_token"].split(".")[1] not in shown
    assert "PRIVATE KEY" not in shown
    assert lms.state.private_pem.splitlines()[1] not in shown


@pytest.mark.parametrize("headers, text", [
    (EN, "This launch was already used. Open the activity again from your course."),
    (KO, "이미 사용된 실행 요청이에요. 강좌에서 활동을 다시 열어 주세요."),
])
def test_a_replayed_id_token_is_refused(lms, headers, text, caplog):
    caplog.set_level(logging.DEBUG)
    browser = lms.browser()
    action, fields = lms.launch_form(browser, "zoe", plan())
    assert browser.post(action, data=fields).status_code == 200
    again = browser.post(action, data=fields, headers=headers)
    assert again.status_code == 403
    assert text in html.unescape(again.text)
    assert "frame-ancestors https:" in again.headers["content-security-policy"]  # readable inside the LMS
    assert_clean(again, fields, lms, caplog)


REFUSED = {  # case: (what the platform's launch carries, how the token is changed, headers, the page's sentence)
    "expired": ({"expires_in": -60}, {}, EN, "This launch has expired. Open the activity again from your course."),
    "wrong audience": ({}, {"aud": "someone-elses-client", "azp": "someone-elses-client"}, EN,
                       "This LMS (issuer and client id) is not registered here. Ask an administrator to register it."),
    "wrong issuer": ({}, {"iss": "https://evil.example"}, KO,
                     "이 LMS(발급자와 클라이언트 ID)는 여기에 등록되어 있지 않아요. 관리자에게 등록을 요청해 주세요."),
    "unknown deployment": ({"deployment_id": "not-registered"}, {}, EN,
                           "This deployment of the tool is not registered here. "
                           "Ask an administrator to add its deployment id."),
}


@pytest.mark.parametrize("case", list(REFUSED))
def test_a_launch_that_fails_a_check_is_refused(lms, caplog, case):
    """Expired: the platform signs it so. Wrong audience or issuer: the platform's own token, re-signed
    with its own key and kid (no honest platform sends one)."""
    caplog.set_level(logging.DEBUG)
    launch, changes, headers, text = REFUSED[case]
    browser = lms.browser()
    action, fields = lms.launch_form(browser, "x", plan(**launch))
    if changes:
        fields["id_token"] = resign(lms, fields["id_token"], **changes)
    page = browser.post(action, data=fields, headers=headers)
    assert page.status_code == 403
    assert text in html.unescape(page.text)
    assert_clean(page, fields, lms, caplog)


def test_a_learner_who_edits_the_role_claim_is_refused(lms, caplog):
    """The learner's own valid token, with Instructor written into its roles (signature unchanged)."""
    from sqlalchemy import func, select

    from app.lti.models import LtiMember

    browser = lms.browser()
    action, fields = lms.launch_form(browser, "forger", plan())
    header, body, signature = fields["id_token"].split(".")
    claims = json.loads(base64.urlsafe_b64decode(body + "=" * (-len(body) % 4)))
    claims["https://purl.imsglobal.org/spec/lti/claim/roles"] = [INSTRUCTOR]
    forged = base64.urlsafe_b64encode(json.dumps(claims).encode()).decode().rstrip("=")
    fields["id_token"] = f"{header}.{forged}.{signature}"
    page = browser.post(action, data=fields, headers=EN)
    assert page.status_code == 403
    assert "The launch's signature does not match the LMS's keys." in html.unescape(page.text)
    with lms.db() as db:
        assert db.scalar(select(func.count()).select_from(LtiMember)) == 0


def test_a_token_signed_with_another_key_is_refused(lms):
    from tests.lti.platform import new_key_pair

    browser = lms.browser()
    action, fields = lms.launch_form(browser, "other-key", plan())
    body = jwt.decode(fields["id_token"], options={"verify_signature": False})
    body["https://purl.imsglobal.org/spec/lti/claim/roles"] = [INSTRUCTOR]
    kid = jwt.get_unverified_header(fields["id_token"])["kid"]
    fields["id_token"] = jwt.encode(body, new_key_pair()[0], algorithm="RS256", headers={"kid": kid})
    page = browser.post(action, data=fields, headers=EN)
    assert page.status_code == 403
    assert "The launch's signature does not match the LMS's keys." in html.unescape(page.text)


def test_a_launch_without_our_state_cookie_is_refused(lms):
    action, fields = lms.launch_form(lms.browser(), "stolen", plan())
    page = lms.browser().post(action, data=fields, headers=EN)  # another browser: no state cookie
    assert page.status_code == 403
    assert "This launch did not start here" in html.unescape(page.text)


def test_garbage_is_refused_without_a_server_error(lms):
    browser = lms.browser()
    for data in ({}, {"state": "x"}, {"state": "x", "id_token": "a.b"}, {"state": "x", "id_token": "a.b.c"}):
        page = browser.post(lms.tool + "/lti/launch", data=data, headers=EN)
        assert page.status_code in (400, 403), (data, page.status_code)
    login = browser.get(lms.tool + "/lti/login", params={"iss": "https://unknown.example", "login_hint": "x"},
                        headers=EN)
    assert login.status_code == 403
    assert "is not registered here" in html.unescape(login.text)


def test_deep_linking_is_for_instructors_only(lms):
    browser = lms.browser()
    page = lms.launch(browser, "dl-learner", plan(deep_link=True))
    assert page.status_code == 403
    assert "Only an instructor of the course can choose what this link opens." in html.unescape(page.text)


def test_logins_from_one_address_are_capped(lms, monkeypatch):
    """The cap is generous (a lecture hall behind one NAT launches at once); the test lowers it."""
    from app.accounts.ratelimit import Rate
    from app.lti import routes

    monkeypatch.setattr(routes, "LOGINS_PER_IP", Rate.parse("2/3600"))
    browser = lms.browser()
    params = {"iss": lms.url, "login_hint": "x", "client_id": "tool-client-7"}
    assert [browser.get(lms.tool + "/lti/login", params=params).status_code for _ in range(2)] == [302, 302]
    third = browser.get(lms.tool + "/lti/login", params=params, headers=KO)
    assert third.status_code == 429 and int(third.headers["retry-after"]) > 0
    assert "요청이 너무 많아요. 잠시 기다린 뒤 다시 시도해 주세요." in html.unescape(third.text)
