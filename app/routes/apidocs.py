"""/docs (Swagger UI) and /redoc (ReDoc) from our own static files: they work offline and under our
Content-Security-Policy (FastAPI's built-in pages load from a CDN and start with an inline script)."""
from __future__ import annotations

from html import escape

from fastapi import Request
from fastapi.responses import HTMLResponse

from app.core.bodies import make_router
from app.core.languages import reader_language
from app.core.services import services

router = make_router(include_in_schema=False)

TITLES = {"ko": "API 문서", "en": "API documentation"}
NOSCRIPT = {"ko": "API 문서를 보려면 JavaScript가 필요해요. 스키마는 /openapi.json 에 있어요.",
            "en": "The API documentation needs JavaScript. The schema itself is at /openapi.json."}
BACK = {"ko": "← 코스로 돌아가기", "en": "← Back to the course"}
OTHER_VIEW = {"ko": "다른 보기", "en": "Other view"}


def _page(request: Request, head: str, body: str, other: str) -> HTMLResponse:
    """The documentation itself is the OpenAPI schema's English, so the page is lang="en"; the bar
    above it (a way back to the site, the other viewer) speaks the reader's language."""
    lang = reader_language(request)
    site = escape(services(request).settings.site_name)
    title = f"{TITLES[lang]} · {site}"
    bar = (f'<header class="apidocs-bar" lang="{lang}" data-apidocs-bar><a href="/{lang}/" data-back-to-site>'
           f'{BACK[lang]}</a> <span>{TITLES[lang]}</span> <a href="{other}">{OTHER_VIEW[lang]}: {other}</a></header>')
    return HTMLResponse(f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title lang="{lang}">{title}</title><link rel="icon" href="/static/img/favicon.svg" type="image/svg+xml">
{head}<link rel="stylesheet" href="/static/css/apidocs.css"></head>
<body>{bar}<noscript lang="{lang}">{NOSCRIPT[lang]}</noscript><main>{body}</main>
<script src="/static/js/apidocs.js"></script></body></html>""")


@router.get("/docs")
def swagger_ui(request: Request) -> HTMLResponse:
    return _page(request, '<link rel="stylesheet" href="/static/vendor/swagger-ui/swagger-ui.css">',
                 '<div id="swagger-ui" data-openapi="/openapi.json"></div>'
                 '<script src="/static/vendor/swagger-ui/swagger-ui-bundle.js"></script>', "/redoc")


@router.get("/redoc")
def redoc(request: Request) -> HTMLResponse:
    return _page(request, "", '<div id="redoc" data-openapi="/openapi.json"></div>'
                 '<script src="/static/vendor/redoc/redoc.standalone.js"></script>', "/docs")
