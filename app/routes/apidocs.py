"""/docs (Swagger UI) and /redoc (ReDoc) from our own static files: they work offline and under our
Content-Security-Policy (FastAPI's built-in pages load from a CDN and start with an inline script)."""
from __future__ import annotations

from html import escape

from fastapi import Request
from fastapi.responses import HTMLResponse

from app.core.bodies import make_router
from app.i18n.requests import preferred_language

router = make_router(include_in_schema=False)

TITLES = {"ko": "API 문서", "en": "API documentation"}
NOSCRIPT = {"ko": "API 문서를 보려면 JavaScript가 필요해요. 스키마는 /openapi.json 에 있어요.",
            "en": "The API documentation needs JavaScript. The schema itself is at /openapi.json."}


def _page(request: Request, head: str, body: str) -> HTMLResponse:
    lang = preferred_language(request, request.app.state.settings.default_language)
    title = f"{TITLES[lang]} · {escape(request.app.state.settings.site_name)}"
    return HTMLResponse(f"""<!doctype html>
<html lang="{lang}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title}</title><link rel="icon" href="/static/img/favicon.svg" type="image/svg+xml">{head}</head>
<body><noscript>{NOSCRIPT[lang]}</noscript>{body}
<script src="/static/js/apidocs.js"></script></body></html>""")


@router.get("/docs")
def swagger_ui(request: Request) -> HTMLResponse:
    return _page(request, '<link rel="stylesheet" href="/static/vendor/swagger-ui/swagger-ui.css">',
                 '<div id="swagger-ui" data-openapi="/openapi.json"></div>'
                 '<script src="/static/vendor/swagger-ui/swagger-ui-bundle.js"></script>')


@router.get("/redoc")
def redoc(request: Request) -> HTMLResponse:
    return _page(request, "", '<div id="redoc" data-openapi="/openapi.json"></div>'
                 '<script src="/static/vendor/redoc/redoc.standalone.js"></script>')
