"""Which client address a request comes from, when a reverse proxy may stand in front.

``X-Forwarded-For`` and ``X-Forwarded-Proto`` are believed only from the addresses named in
``MKC_TRUSTED_PROXIES`` (comma-separated IPs or networks, e.g. ``127.0.0.1`` or ``10.0.0.0/8``; empty,
the default, believes no one). Per-IP limits (sign-up, sign-in, problem reports) key on the result.

Uvicorn believes those headers from 127.0.0.1 unless told otherwise (its ``--proxy-headers`` is on by
default), so a visitor reaching a local server could name any address and dodge per-IP limits.
So the application does it itself, with uvicorn's own ProxyHeadersMiddleware and
our setting, and every way we start uvicorn (``python -m app serve``, the test/bench Server) turns
uvicorn's off. Starting uvicorn by hand? Pass ``--no-proxy-headers``.
"""
from __future__ import annotations

from typing import TypedDict

from fastapi import FastAPI
from uvicorn.middleware.proxy_headers import ProxyHeadersMiddleware

UVICORN_ARGS = ["--no-proxy-headers"]  # for command lines that start uvicorn


class UvicornOptions(TypedDict):
    """uvicorn.run's keyword arguments that this module decides (a TypedDict keeps ** type-checked)."""
    proxy_headers: bool


UVICORN_OPTIONS: UvicornOptions = {"proxy_headers": False}  # for uvicorn.run


def trusted_hosts(setting: str) -> list[str]:
    return [part.strip() for part in setting.split(",") if part.strip()]


def add_proxy_headers(app: FastAPI, setting: str) -> None:
    """Believe forwarded headers from the configured proxies only (nothing when the setting is empty)."""
    hosts = trusted_hosts(setting)
    if hosts:
        app.add_middleware(ProxyHeadersMiddleware, trusted_hosts=hosts)
