"""Graders' dashboard (issue 8): every submission, filters, source + full result, re-run,
notes and verdict overrides with an audit trail (XP follows through the ledger), exports.

Modules: models (the audit-trail table), reviews (note/override/re-run and the XP they move),
listing (filters, flagged-first order, CSV/JSON rows), api (token or cookie JSON/CSV), pages (HTML).
"""
