"""Reply notifications carry their sentence and link like verdict notifications do, in the reader's
language; a comment posted through the API with ?lang=en is stored as English."""
from __future__ import annotations

from .conftest import LESSON


def test_a_reply_notification_has_text_and_link_in_both_languages(kim, lee):
    root = kim.comment("A question about tiles")
    reply = lee.comment("An answer", parent_id=root)
    for lang, words in (("en", "lee replied to your comment on"), ("ko", "lee 님이")):
        [note] = kim.client.get(f"/api/notifications?lang={lang}").json()["notifications"]
        assert note["kind"] == "reply" and words in note["text"], note
        assert note["link"] == f"/{lang}/lessons/{LESSON}#comment-{reply}"
    page = kim.client.get("/en/notifications").text
    assert f'href="/en/lessons/{LESSON}#comment-{reply}"' in page and "lee replied to your comment on" in page


def test_a_comment_posted_with_lang_en_in_the_query_is_english(kim):
    for query, expected in (("?lang=en", "en"), ("?lang=ko", "ko")):
        r = kim.send("POST", f"/api/lessons/{LESSON}/comments{query}", {"body": f"posted with {query}"})
        assert r.status_code == 201, r.text
        assert r.json()["lang"] == expected
    # a language in the body still wins over the query
    r = kim.send("POST", f"/api/lessons/{LESSON}/comments?lang=en", {"body": "body says ko", "lang": "ko"})
    assert r.json()["lang"] == "ko"
