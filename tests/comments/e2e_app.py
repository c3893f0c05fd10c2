"""The app for the comments browser tests: the real factory with roomier limits, because these
tests sign up several people and post a whole XSS corpus from one address within a minute."""
from __future__ import annotations

from app.accounts.ratelimit import Rate
from app.factory import create_app


def make_app():
    app = create_app()
    app.state.comments.comment_rates = [(1000, 60)]
    app.state.accounts.signup_per_ip = Rate(1000, 3600)
    return app
