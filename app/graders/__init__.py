"""Graders' dashboard: every submission, filters, source + full result, re-run,
notes and verdict overrides with an audit trail (XP follows through the ledger), exports.

Modules: reviews (note/override/re-run and the XP they move; the audit-trail table and the effective
verdict are app.submissions' models and reviews, read by the panel and the profile too),
listing (filters, flagged-first order, CSV/JSON rows), api (token or cookie JSON/CSV), pages (HTML).
"""
