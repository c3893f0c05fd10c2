"""The README's first hour is true: the ladder's size matches the kernels in kernels/ladder, and it
says how to become an admin, make graders, reach the graders' pages and reset a password, and what
the test command installs."""
from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")


def test_the_ladder_size_in_the_readme_is_the_number_of_rungs():
    rungs = sorted(p.name for p in (ROOT / "kernels" / "ladder").glob("[0-9][0-9]_*.cu"))
    stated = re.search(r"a GEMM ladder of (\d+) kernels", README)
    assert stated is not None and int(stated.group(1)) == len(rungs) == 16


def test_the_first_hour_names_every_step():
    for words in ("python -m app create-admin", "MKC_ADMIN_PASSWORD", "--password-stdin", "/{lang}/admin/users",
                  "/{lang}/graders", "python -m app reset-link", "PostgreSQL for the database tests", "apt-get"):
        assert words in README, words
