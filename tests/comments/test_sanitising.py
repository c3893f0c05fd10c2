"""Comment markup: the subset renders, and no payload in the corpus yields markup that can run
script. The HTML is parsed (html.parser) and every tag and attribute checked against what the
renderer may legitimately produce."""
from __future__ import annotations

import re
from html.parser import HTMLParser

import pytest

from app.comments.limits import CommentsConfig
from app.comments.markup import render_comment, render_markdown, sanitise
from app.core.services import app_services
from tests.comments.conftest import LESSON
from tests.comments.xss_corpus import PAYLOADS

SAFE_TAGS = {"p", "br", "em", "strong", "a", "code", "pre", "span"}


class Collect(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict]] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))


LINK_REL = "nofollow noopener ugc"  # every link in a comment carries this rel


def assert_inert(html: str, *, rel: bool = True) -> None:
    """No tag, attribute or URL that can run script. ``rel=False`` for markdown's output alone, which
    leaves adding rel to the sanitiser."""
    parser = Collect()
    parser.feed(html)
    for tag, attrs in parser.tags:
        assert tag in SAFE_TAGS, (tag, html)
        for name, value in attrs.items():
            assert not name.startswith("on"), (name, html)
            assert name in {"href", "rel", "class"}, (name, html)
            if name == "href":
                assert value.lower().lstrip().startswith(("https://", "http://", "mailto:")), (value, html)
        if tag == "a" and rel:
            assert attrs.get("rel") == LINK_REL, html


@pytest.mark.parametrize("payload", PAYLOADS)
def test_payload_renders_inert(payload):
    assert_inert(render_comment(payload))


# Two independent walls: each must hold on its own, so one mistake in either is not a hole.
@pytest.mark.parametrize("payload", PAYLOADS)
def test_the_sanitiser_alone_makes_every_payload_inert(payload):
    """Raw payloads straight into nh3, as if the markdown renderer let everything through."""
    assert_inert(sanitise(payload))


@pytest.mark.parametrize("payload", PAYLOADS)
def test_markdown_alone_makes_every_payload_inert(payload):
    """The markdown renderer's own output, before the sanitiser: raw HTML off, unsafe links refused."""
    assert_inert(render_markdown(payload), rel=False)


@pytest.mark.parametrize("href", ["javascript:alert(1)", "JavaScript:alert(1)", " javascript:alert(1)",
                                  "vbscript:msgbox(1)", "data:text/html;base64,PHNjcmlwdD4=", "file:///etc/passwd"])
def test_the_sanitiser_alone_drops_script_and_other_unsafe_links(href):
    html = sanitise(f'<a href="{href}">x</a>')
    assert "href" not in html and html == f'<a rel="{LINK_REL}">x</a>'


def test_the_sanitiser_keeps_web_and_mail_links():
    html = sanitise('<a href="https://example.org/">w</a> <a href="mailto:kim@example.org">m</a>')
    assert html == (f'<a href="https://example.org/" rel="{LINK_REL}">w</a> '
                    f'<a href="mailto:kim@example.org" rel="{LINK_REL}">m</a>')


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
    app_services(app).get(CommentsConfig).comment_rates = [(1000, 60)]
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
