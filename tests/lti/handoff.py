"""Following a launch page's hand-off form, as a browser would (the token is in the form's body)."""
from __future__ import annotations

import re
from dataclasses import dataclass

from tests.scrape import first_group

ACTION = re.compile(r'<form method="post" action="(/(?:ko|en)/lti/continue)"')
TOKEN = re.compile(r'name="token" value="([A-Za-z0-9_-]+)"')


@dataclass
class HandOff:
    action: str  # /{lang}/lti/continue
    token: str

    def open(self, lms, browser, **kw):
        """The "Open in a new window" button."""
        return browser.post(lms.tool + self.action, data={"token": self.token}, **kw)

    def new_account(self, lms, browser, **kw):
        return browser.post(lms.tool + self.action + "/new", data={"token": self.token}, **kw)

    def link(self, lms, browser, csrf_token: str, **kw):
        return browser.post(lms.tool + self.action + "/link", data={"token": self.token, "csrf_token": csrf_token},
                            **kw)


def hand_off(page) -> HandOff:
    return HandOff(first_group(ACTION, page.text), first_group(TOKEN, page.text))
