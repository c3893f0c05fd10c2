"""HTML fragments (a rung's source, a submission's result, the panel's history) are fetched by the
page's scripts. Opened directly, as a page (a copied address, a new tab), one would render as a bare
page without the site around it: those requests go to the page that holds the fragment instead.
Browsers say which is which in ``Sec-Fetch-Dest``: "document" for a page, "empty" for fetch()."""
from __future__ import annotations

from starlette.requests import Request


def opened_as_page(request: Request) -> bool:
    return request.headers.get("sec-fetch-dest") == "document"
