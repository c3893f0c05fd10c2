"""A class's submissions page (/{lang}/classes/{id}/submissions) with work on it. Before the fix it answered
500 as soon as one learner of the class had submitted anything: its template called a vocabulary
function that had been removed as unused. An empty class showed the page, so nothing noticed."""
from __future__ import annotations

import json

import pytest

from app.accounts.users import find_user
from app.core.services import app_services
from app.submissions.models import Submission
from tests.accounts.conftest import page_csrf, set_role, settings, signup  # noqa: F401  (settings: SQLite and PostgreSQL)


def _store(app, username: str, state: str, verdict: str | None) -> int:
    result = {"verdict": verdict, "message": {"code": verdict, "params": {}}, "tiers": [], "speedups": []}
    with app_services(app).session_factory() as db:
        user = find_user(db, username)
        row = Submission(user_id=user.id, exercise_id="gemm", source="// mine", state=state, verdict=verdict,
                         result=json.dumps(result) if verdict else None)
        db.add(row)
        db.commit()
        return row.id


@pytest.mark.parametrize("lang, passed, waiting", [("en", "Passed", "Queued"), ("ko", "통과", "대기 중")])
def test_the_class_work_page_shows_each_submissions_status(new_client, app, lang, passed, waiting):
    teacher, learner = new_client(), new_client()
    assert signup(teacher, "kim").status_code == 303
    set_role(app, "kim", "instructor")
    teacher.headers["X-CSRF-Token"] = page_csrf(teacher)
    made = teacher.post("/api/classes", json={"name": "GPU 101"}).json()
    assert signup(learner, "lee").status_code == 303
    learner.headers["X-CSRF-Token"] = page_csrf(learner)
    assert learner.post("/api/classes/join", json={"code": made["invite_code"]}).status_code == 200
    graded = _store(app, "lee", "done", "PASSED")
    queued = _store(app, "lee", "queued", None)
    page = teacher.get(f"/{lang}/classes/{made['id']}/submissions")
    assert page.status_code == 200, page.text[-500:]
    assert f'data-submission="{graded}"' in page.text and f'data-submission="{queued}"' in page.text
    assert f'<td data-label="{"Verdict" if lang == "en" else "판정"}">{passed}' in page.text
    assert waiting in page.text


def test_every_vocabulary_name_a_template_calls_exists():
    """The templates reach app/core/vocabulary.py as ``vocab``; a name removed there fails here, not as a
    500 on the one page that used it."""
    import re
    from pathlib import Path

    from app.core import vocabulary
    from app.core.config import PROJECT_ROOT

    used = {(path.name, name) for path in Path(PROJECT_ROOT, "templates").rglob("*.html")
            for name in re.findall(r"\bvocab\.(\w+)", path.read_text(encoding="utf-8"))}
    assert len(used) >= 10
    assert [(page, name) for page, name in sorted(used) if not hasattr(vocabulary, name)] == []
