"""A value inside a Korean message cannot make the message slow. Korean particles are chosen from the
sound that ends the text before them; that text was searched with patterns anchored at its end, which
take time growing with the square of its length. A learner's kernel starting with a forbidden directive
of 60,000 characters ("#_111…1a") was refused with that whole name in the message, and every Korean view
of the submission (the learner's panel, the graders' pages) then took minutes (15 s at 30,000). The
particle now reads only the end of the text, and the engine names at most 32 characters of a directive
or pragma, as it already did for other refused tokens.

The old search holds Python's lock inside the regular-expression engine, where no in-process timeout can
stop it, so the checks run where they can be stopped: in a child process, and on a live server whose
client gives up after a minute (a bound on a hang; the fixed code answers at once)."""
from __future__ import annotations

import json
import subprocess
import sys

import httpx
import pytest
from sqlalchemy import select

from app.accounts.models import User
from app.bench.submissions_server import Server, add_users
from app.core.config import PROJECT_ROOT
from app.core.db import make_engine, make_session_factory
from app.submissions.models import Submission
from kernels.engine import codes
from kernels.engine.policy import SourceRejected, check_source
from tests.hardening.live import signed_in

NAME = "_" + "1" * 60_000 + "a"  # digits, then a letter: the old search's worst case, as long as a line of 64 KiB
PATIENCE_S = 60  # far beyond what the fixed code needs, far below what the old one did


def test_the_final_sound_reads_only_the_end_of_a_long_text():
    check = ("from app.i18n.korean import final_consonant, fix_particles\n"
             "long = '_' + '1' * 200_000 + 'a'\n"
             "assert final_consonant(long) == final_consonant('a') == 0\n"
             "assert final_consonant('x' * 200_000 + '_') is None\n"
             "assert fix_particles(long + '은/는 쓸 수 없어요.') == long + '는 쓸 수 없어요.'\n"
             "assert fix_particles(('1' * 1000 + 'x을/를 ') * 300).count('x를 ') == 300\n")
    done = subprocess.run([sys.executable, "-c", check], cwd=PROJECT_ROOT, capture_output=True, text=True,
                          timeout=PATIENCE_S)
    assert done.returncode == 0, done.stderr[-2000:]


@pytest.mark.parametrize("source, key", [("#" + NAME + "\n", "directive"), ("#pragma " + NAME + "\n", "pragma")])
def test_the_engine_names_at_most_32_characters_of_a_refused_directive(source, key):
    with pytest.raises(SourceRejected) as refused:
        check_source(source)
    assert refused.value.code in (codes.SOURCE_DIRECTIVE_FORBIDDEN, codes.SOURCE_PRAGMA_FORBIDDEN)
    assert refused.value.params[key] == NAME[:32]


@pytest.fixture
def server(tmp_path, db_url):
    srv = Server(tmp_path / "srv", database_url=db_url, dispatcher_enabled="false").start()
    yield srv
    srv.stop()


def test_a_stored_refusal_with_a_long_name_shows_in_korean_at_once(server):
    """A submission refused before the engine's bound keeps its long name: its Korean views answer."""
    token = add_users(server.db_url, ["kim"])["kim"]
    result = {"schema": "kernels-result/1", "verdict": "COMPILE_ERROR",
              "message": {"code": codes.SOURCE_DIRECTIVE_FORBIDDEN, "params": {"line": 1, "directive": NAME}},
              "tiers": [], "speedups": [], "correctness": [], "timings": []}
    engine = make_engine(server.db_url)
    with make_session_factory(engine)() as db:
        user_id = db.scalar(select(User.id).where(User.username == "kim"))
        row = Submission(user_id=user_id, exercise_id="gemm", source="#" + NAME, state="done",
                         verdict="COMPILE_ERROR", result=json.dumps(result))
        db.add(row)
        db.commit()
        sub_id = row.id
    engine.dispose()
    with httpx.Client(base_url=server.url, timeout=PATIENCE_S, headers={"Authorization": f"Bearer {token}"}) as api:
        panel = api.get(f"/api/panel/submissions/{sub_id}?lang=ko")
    assert panel.status_code == 200
    assert "1a는 쓸 수 없어요" in panel.json()["message"]
    page = signed_in(server.url, "kim")
    try:
        page.timeout = httpx.Timeout(PATIENCE_S)
        assert page.get(f"/ko/panel/submissions/{sub_id}").status_code == 200
    finally:
        page.close()
