"""The tool (our app) and an independent LTI 1.3 platform (lti1p3platform), both served over real HTTP
on 127.0.0.1, and a "browser" (an httpx client with its own cookie jar) that goes between them."""
from __future__ import annotations

import html
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

import httpx
import pytest

from app.core.services import app_services
from tests.lti.live import bound_socket, serve, url_of
from tests.lti.platform import CLIENT_ID, DEPLOYMENT_ID, LaunchPlan, PlatformState, make_platform
from tests.scrape import first_group

if TYPE_CHECKING:
    from fastapi import FastAPI

INPUT = re.compile(r'<input type="hidden" name="(\w+)" value="([^"]*)"')
ACTION = re.compile(r'<form[^>]*action="([^"]+)"')


@dataclass
class Lms:
    tool: str
    url: str
    state: PlatformState
    app: FastAPI

    def db(self):
        return app_services(self.app).session_factory()

    def browser(self) -> httpx.Client:
        return httpx.Client(timeout=30)

    def launch_form(self, browser: httpx.Client, hint: str, plan: LaunchPlan) -> tuple[str, dict[str, str]]:
        """The platform's auto-posting form (action, fields) after the OIDC round trip through our login."""
        self.state.plans[hint] = plan
        page = browser.get(f"{self.url}/start/{hint}", follow_redirects=True)
        assert page.status_code == 200, page.text
        fields = {name: html.unescape(value) for name, value in INPUT.findall(page.text)}
        return html.unescape(first_group(ACTION, page.text)), fields

    def launch(self, browser: httpx.Client, hint: str, plan: LaunchPlan) -> httpx.Response:
        action, fields = self.launch_form(browser, hint, plan)
        return browser.post(action, data=fields)


@pytest.fixture
def lms(settings, db_url):
    from app.factory import create_app
    from app.lti import registry

    # passback runs only when a test calls it (no background timing in tests)
    app = create_app(settings.model_copy(update={"database_url": db_url, "lti_passback_seconds": 0}))
    tool_socket, platform_socket = bound_socket(), bound_socket()
    tool_url, platform_url = url_of(tool_socket), url_of(platform_socket)
    state = PlatformState(tool_url, platform_url)
    with serve(app, tool_socket), serve(make_platform(state), platform_socket):
        with app_services(app).session_factory() as db:
            registry.register(db, registry.PlatformForm(
                name="Test LMS", issuer=platform_url, client_id=CLIENT_ID,
                auth_login_url=f"{platform_url}/authorize", auth_token_url=f"{platform_url}/token",
                key_set_url=f"{platform_url}/jwks", deployment_ids=[DEPLOYMENT_ID]))
            db.commit()
        yield Lms(tool_url, platform_url, state, app)
