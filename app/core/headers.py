"""Security headers on every response, as a bare ASGI middleware (BaseHTTPMiddleware would
cost a task per request).

Content-Security-Policy: scripts only from our own origin, no inline script and no eval (our pages
need none: the theme script that runs before first paint is static/js/theme.js; tests/hardening/
test_headers.py opens the pages in Chromium and fails on any CSP violation). Styles may be inline
(style attributes in templates and the editor bundle's injected <style>): a style cannot run code.
No framing (frame-ancestors and X-Frame-Options), forms post only to us, no plugins, no <base>.
HSTS only on HTTPS responses (a plain-HTTP development server must not pin itself).
A response that sets its own Content-Security-Policy (the pages an LMS frames, app/lti/framing.py)
decides its framing there: X-Frame-Options, which cannot name an allowed framer, is then left off.
"""
from __future__ import annotations

from starlette.types import ASGIApp, Message, Receive, Scope, Send

CONTENT_SECURITY_POLICY = "; ".join([
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    "font-src 'self'",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
])

SECURITY_HEADERS = [
    (b"content-security-policy", CONTENT_SECURITY_POLICY.encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"strict-origin-when-cross-origin"),
    (b"x-frame-options", b"DENY"),
    (b"cross-origin-opener-policy", b"same-origin"),
    (b"cross-origin-resource-policy", b"same-origin"),
    (b"permissions-policy", b"camera=(), microphone=(), geolocation=(), payment=(), usb=()"),
]
HSTS = (b"strict-transport-security", b"max-age=31536000; includeSubDomains")


class SecurityHeadersMiddleware:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        extra = SECURITY_HEADERS + [HSTS] if scope.get("scheme") == "https" else SECURITY_HEADERS

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                present = {name for name, _ in message.get("headers", [])}
                if b"content-security-policy" in present:
                    present.add(b"x-frame-options")
                message["headers"] = list(message.get("headers", [])) + [h for h in extra if h[0] not in present]
            await send(message)

        await self.app(scope, receive, send_with_headers)
