"""Accounts: users, passwords, sessions, CSRF, rate limits, roles, API tokens."""
