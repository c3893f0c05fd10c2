"""The app for the comments browser tests: the real factory with roomier limits, because these
tests sign up several people and post a whole XSS corpus from one address within a minute."""
from __future__ import annotations

from app.accounts.auth import AccountsConfig
from app.accounts.ratelimit import Rate
from app.comments.limits import CommentsConfig
from app.core.services import app_services
from app.factory import create_app


def make_app():
    app = create_app()
    app_services(app).get(CommentsConfig).comment_rates = [(1000, 60)]
    app_services(app).get(AccountsConfig).signup_per_ip = Rate(1000, 3600)
    return app
