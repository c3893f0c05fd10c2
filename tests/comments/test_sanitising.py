"""Comment markup: the subset renders, and no payload in the corpus yields markup that can run
script. The HTML is parsed (html.parser) and every tag and attribute checked against what the
renderer may legitimately produce."""
from __future__ import annotations

import re
from html.parser import HTMLParser

import pytest

from app.comments.markup import LINK_REL, render_comment
from tests.comments.conftest import LESSON
from tests.comments.xss_corpus import PAYLOADS

SAFE_TAGS = {"p", "br", "em", "strong", "a", "code", "pre", "span"}


class Collect(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict]] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))


def assert_inert(html: str) -> None:
    parser = Collect()
    parser.feed(html)
    for tag, attrs in parser.tags:
        assert tag in SAFE_TAGS, (tag, html)
        for name, value in attrs.items():
            assert not name.startswith("on"), (name, html)
            assert name in {"href", "rel", "class"}, (name, html)
            if name == "href":
                assert value.lower().lstrip().startswith(("https://", "http://", "mailto:")), (value, html)
        if tag == "a":
            assert attrs.get("rel") == LINK_REL, html


@pytest.mark.parametrize("payload", PAYLOADS)
def test_payload_renders_inert(payload):
    assert_inert(render_comment(payload))


def test_subset_renders():
    html = render_comment("*em* **strong** `a<b` [site](https://example.org/a?b=1&c=2)\n\n```cuda\n__global__ void k() {}\n```")
    assert "<em>em</em>" in html and "<strong>strong</strong>" in html and "<code>a&lt;b</code>" in html
    assert f'<a href="https://example.org/a?b=1&amp;c=2" rel="{LINK_REL}">site</a>' in html
    assert re.search(r'<pre class="highlight"><code class="language-cuda"><span class="[a-z]+">__global__</span>', html)
    assert_inert(html)


def test_things_outside_the_subset_stay_text():
    html = render_comment("# Title\n\n- item\n\n![image](https://example.org/x.png)\n\n<b>bold</b>")
    assert "<h1>" not in html and "<ul>" not in html and "<img" not in html and "<b>" not in html
    assert "# Title" in html and "&lt;b&gt;bold&lt;/b&gt;" in html


def test_corpus_through_http_is_stored_and_served_inert(app, kim, visitor):
    app.state.comments.comment_rates = [(1000, 60)]
    for payload in PAYLOADS:
        kim.comment(payload)
    data = visitor.listing()
    assert data["count"] == len(PAYLOADS)
    for comment in data["comments"]:
        assert_inert(comment["html"])
    assert "<script" not in data["html"].lower()
    # the list fragment as a whole: nothing outside the template's own tags carries a handler
    parser = Collect()
    parser.feed(data["html"])
    for tag, attrs in parser.tags:
        assert tag not in {"script", "img", "svg", "iframe", "object", "embed", "math", "style", "base", "meta",
                           "form", "input", "details", "template"}, tag
        assert not any(name.startswith("on") for name in attrs), (tag, attrs)
        assert not any("javascript:" in (value or "").lower() for value in attrs.values()), (tag, attrs)
    # the no-JavaScript page shows the same comments as text
    page = visitor.client.get(f"/en/lessons/{LESSON}/comments").text
    assert "&lt;script&gt;alert(" in page and "<script>alert(" not in page
