"""Rendering account pages: the shared page context plus who is signed in and a CSRF token."""
from __future__ import annotations

import re
import secrets
from typing import Any

from fastapi import Request
from fastapi.responses import HTMLResponse

from app.accounts.auth import VISITOR_CSRF_COOKIE, Auth
from app.core.services import services
from app.templating import page_context

# our own local paths, optionally with a section of the page (#exercise, #comments, a heading's id)
SAFE_NEXT = re.compile(r"^/(ko|en)(/[A-Za-z0-9\-_/]*)?(#[A-Za-z0-9\-_]{1,80})?$")


def safe_next(next_url: str | None, lang: str) -> str:
    """Only our own local paths: never an open redirect."""
    if next_url and SAFE_NEXT.match(next_url):
        return next_url
    return f"/{lang}/"


def account_context(request: Request, lang: str, path_in_lang: str, auth: Auth | None) -> dict[str, Any]:
    context = page_context(lang, path_in_lang, services(request).settings.site_name)
    context["user"] = auth.user if auth else None
    if auth is not None and auth.csrf_token:
        context["csrf_token"] = auth.csrf_token
    else:
        token = request.cookies.get(VISITOR_CSRF_COOKIE)
        if not token or len(token) > 100:
            token = secrets.token_urlsafe(32)
            request.state.new_visitor_csrf = token
        context["csrf_token"] = token
    return context


def render(request: Request, template: str, context: dict[str, Any], status: int = 200,
           headers: dict[str, str] | None = None) -> HTMLResponse:
    html = services(request).templates.get_template(template).render(context)
    response = HTMLResponse(html, status_code=status, headers=headers)
    new_token = getattr(request.state, "new_visitor_csrf", None)
    if new_token:
        response.set_cookie(VISITOR_CSRF_COOKIE, new_token, httponly=True, samesite="lax",
                            secure=request.url.scheme == "https", path="/")
    response.headers["Cache-Control"] = "no-store"
    return response
