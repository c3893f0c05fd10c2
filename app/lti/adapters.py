"""pylti1p3 on FastAPI: the request, cookie and redirect classes pylti1p3 needs (the shape of its own
Flask and Django adapters), with the form read before pylti1p3 runs (it is synchronous)."""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from fastapi import Request
from fastapi.responses import RedirectResponse, Response
from pylti1p3.cookie import CookieService
from pylti1p3.message_launch import MessageLaunch
from pylti1p3.oidc_login import OIDCLogin
from pylti1p3.redirect import Redirect
from pylti1p3.request import Request as LtiRequest
from sqlalchemy.orm import Session

from app.lti.storage import DatabaseLaunchStorage, OneUseNonceSessionService
from app.lti.tool_config import DatabaseToolConf


class FastApiLtiRequest(LtiRequest):
    def __init__(self, request: Request, params: Mapping[str, Any]) -> None:
        self.request = request
        self.params = {k: v for k, v in params.items() if isinstance(v, str)}

    @property
    def session(self) -> None:
        return None

    def is_secure(self) -> bool:
        return self.request.url.scheme == "https"

    def get_param(self, key: str) -> str:
        return self.params.get(key)  # type: ignore[return-value]  # pylti1p3 checks for None

    def get_cookie(self, key: str) -> str | None:
        return self.request.cookies.get(key)


class FastApiCookieService(CookieService):
    """pylti1p3's state cookie. Over HTTPS it is ``SameSite=None; Secure``: the launch is a cross-site
    POST from the LMS (often inside its iframe), and a Lax cookie would not come back with it."""

    def __init__(self, request: FastApiLtiRequest) -> None:
        self._request = request
        self._to_set: dict[str, tuple[str, int | None]] = {}

    def _get_key(self, key: str) -> str:
        return f"{self._cookie_prefix}-{key}"

    def get_cookie(self, name: str) -> str | None:
        return self._request.get_cookie(self._get_key(name))

    def set_cookie(self, name: str, value: str | int, exp: int | None = 3600) -> None:
        self._to_set[self._get_key(name)] = (str(value), exp)

    def update_response(self, response: Response) -> Response:
        secure = self._request.is_secure()
        for key, (value, exp) in self._to_set.items():
            response.set_cookie(key, value, max_age=exp, path="/", httponly=True, secure=secure,
                                samesite="none" if secure else "lax")
        return response


class FastApiRedirect(Redirect[Response]):
    def __init__(self, location: str, cookies: FastApiCookieService) -> None:
        self._location, self._cookies = location, cookies

    def do_redirect(self) -> Response:
        return self._cookies.update_response(RedirectResponse(self._location, status_code=302))

    def do_js_redirect(self) -> Response:  # our pages run no inline script; a plain redirect does the same
        return self.do_redirect()

    def set_redirect_url(self, location: str) -> None:
        self._location = location

    def get_redirect_url(self) -> str:
        return self._location


class _Parts:
    """The request, cookies, session and storage one pylti1p3 call shares."""

    def __init__(self, request: Request, params: Mapping[str, Any], db: Session) -> None:
        self.request = FastApiLtiRequest(request, params)
        self.cookies = FastApiCookieService(self.request)
        self.storage = DatabaseLaunchStorage(db)
        self.storage.set_request(self.request)
        self.session = OneUseNonceSessionService(self.request, self.storage)
        self.config = DatabaseToolConf(db)


class FastApiOIDCLogin(OIDCLogin[FastApiLtiRequest, DatabaseToolConf, OneUseNonceSessionService,
                                 FastApiCookieService, Response]):
    def __init__(self, request: Request, params: Mapping[str, Any], db: Session) -> None:
        parts = _Parts(request, params, db)
        self.parts = parts
        super().__init__(parts.request, parts.config, parts.session, parts.cookies)

    def get_redirect(self, url: str) -> FastApiRedirect:
        return FastApiRedirect(url, self._cookie_service)


class FastApiMessageLaunch(MessageLaunch[FastApiLtiRequest, DatabaseToolConf, OneUseNonceSessionService,
                                         FastApiCookieService]):
    def __init__(self, request: Request, params: Mapping[str, Any], db: Session) -> None:
        parts = _Parts(request, params, db)
        self.parts = parts
        super().__init__(parts.request, parts.config, parts.session, parts.cookies)

    def _get_request_param(self, key: str) -> str:
        return self._request.get_param(key)
