"""The classes' pages (HTML): my classes (create, join, how I appear on boards), a class (its
assignments with countdowns for everyone; roster, invite, settings and new assignments for those who
may), the gradebook, insight per assignment, the leaderboards, and the join page of an invite link.

Plain POST forms with the CSRF field, so every page works without JavaScript and from the keyboard.
A refused form is shown again with what was typed and the reason in the reader's language.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Annotated, Any

from fastapi import Depends, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from sqlalchemy.orm import Session

from app.accounts import auth as authn
from app.accounts.deps import OptionalAuthDep, SessionDep, csrf_protect
from app.accounts.roles import Permission, can
from app.accounts.users import find_user
from app.accounts.views import account_context, render
from app.classes import assignments, boards, insight, present, roster
from app.classes.api import class_board, class_detail, class_gradebook, my_assignments, my_classes, site_board
from app.classes.lms import LmsGradebook
from app.classes.messages import DONE, ClassesError
from app.classes.models import MEMBER_ROLES
from app.classes.web import Access, Course, class_access, course
from app.classes.work import recent_work
from app.core.bodies import FORM_TEXT_BODY_LIMIT, make_router
from app.core.errors import translate
from app.core.ids import RowId, row_id
from app.core.services import services

router = make_router(include_in_schema=False)
ZONES = ("Asia/Seoul", "UTC", "America/Los_Angeles", "America/New_York", "Europe/London", "Europe/Berlin",
         "Asia/Tokyo", "Asia/Shanghai", "Asia/Singapore", "Asia/Kolkata", "Australia/Sydney")


def _signin(lang: str, path: str) -> RedirectResponse:
    return RedirectResponse(f"/{lang}/signin?next=/{lang}{path}", status_code=303)


def _context(request: Request, lang: str, path: str, auth: authn.Auth, **extra: Any) -> dict[str, Any]:
    context = account_context(request, lang, path, auth)
    done = request.query_params.get("done", "")
    context.update(done_text=translate(DONE, done, lang) if done in DONE else "", error_text="", form={},
                   present=present, zone=assignments.in_zone, reader_tz=auth.user.tz)
    context.update(extra)
    return context


async def posted_form(request: Request, auth: OptionalAuthDep) -> dict[str, Any]:
    """The posted form after the CSRF check (empty for a visitor, whom the handler sends to sign in). Read
    in this async dependency so that the handlers are plain functions: their queries run in the
    threadpool, never on the event loop."""
    if auth is None:
        return {}
    await csrf_protect(request, auth)
    form = await request.form()
    return {key: (form.getlist(key) if key in ("lessons", "exercises") else str(form.get(key) or ""))
            for key in form.keys()}


FormDep = Annotated[dict[str, Any], Depends(posted_form)]


# ---- my classes ----------------------------------------------------------------------------------------

def _home(request: Request, lang: str, auth: authn.Auth, db: Session, status: int = 200, **extra: Any) -> HTMLResponse:
    the_course = course(request, lang)
    context = _context(request, lang, "/classes", auth, classes=my_classes(db, auth, "").classes,
                       can_create=can(auth.user.role, Permission.CREATE_CLASSES), zones=ZONES,
                       profile=boards.profile(db, auth.user.id), course=the_course,
                       mine=my_assignments(db, auth.user, the_course, lang).assignments)
    context.update(extra)
    return render(request, "classes/home.html", context, status=status)


def _home_form(request: Request, lang: str, auth: authn.Auth, db: Session, form_name: str, form: dict[str, Any],
               act: Callable[[], str]) -> Response:
    """One form of the classes home page: ``act`` does it and names where to go next; a refusal shows the
    page again with what was typed (as ``form_name``) and the reason, nothing stored."""
    try:
        target = act()
        db.commit()
    except ClassesError as exc:
        db.rollback()
        return _home(request, lang, auth, db, status=exc.status, error_text=exc.message(lang), **{form_name: form})
    return RedirectResponse(target, status_code=303)


@router.get("/{lang:lang}/classes")
def home(lang: str, request: Request, auth: OptionalAuthDep, db: SessionDep) -> Response:
    if auth is None:
        return _signin(lang, "/classes")
    return _home(request, lang, auth, db)


@router.post("/{lang:lang}/classes", max_body_size=FORM_TEXT_BODY_LIMIT)
def create(lang: str, request: Request, auth: OptionalAuthDep, form: FormDep, db: SessionDep) -> Response:
    if auth is None:
        return _signin(lang, "/classes")

    def act() -> str:
        if not can(auth.user.role, Permission.CREATE_CLASSES):
            raise ClassesError("forbidden", status=403)
        row = roster.create_class(db, auth.user, form.get("name", ""), term=form.get("term", ""),
                                  notice_lang=form.get("notice_lang", lang), tz=form.get("tz", ""))
        return f"/{lang}/classes/{row.id}?done=created"
    return _home_form(request, lang, auth, db, "form", form, act)


@router.post("/{lang:lang}/boards/profile", max_body_size=FORM_TEXT_BODY_LIMIT)
def save_profile(lang: str, request: Request, auth: OptionalAuthDep, form: FormDep, db: SessionDep) -> Response:
    if auth is None:
        return _signin(lang, "/classes")

    def act() -> str:
        boards.set_profile(db, auth.user, use_alias=form.get("use_alias") == "1", alias=form.get("alias", ""),
                           site_board=form.get("site_board") == "1")
        return f"/{lang}/classes?done=profile"
    return _home_form(request, lang, auth, db, "profile_form", form, act)


# ---- joining ---------------------------------------------------------------------------------------

@router.get("/{lang:lang}/join/{code}")
def join_page(lang: str, code: str, request: Request, auth: OptionalAuthDep, db: SessionDep) -> Response:
    code = code[:32]
    if auth is None:
        return _signin(lang, f"/join/{code}")
    row = roster.find_by_invite(db, code)
    context = _context(request, lang, f"/join/{code}", auth, row=row, code=code,
                       role=roster.member_role(db, row.id, auth.user.id) if row else None)
    return render(request, "classes/join.html", context, status=200 if row else 404)


@router.post("/{lang:lang}/join", max_body_size=FORM_TEXT_BODY_LIMIT)
def join(lang: str, request: Request, auth: OptionalAuthDep, form: FormDep, db: SessionDep) -> Response:
    if auth is None:
        return _signin(lang, "/classes")
    return _home_form(request, lang, auth, db, "join_form", form,
                      lambda: f"/{lang}/classes/{roster.join(db, form.get('code', ''), auth.user).id}?done=joined")


# ---- one class ---------------------------------------------------------------------------------------

def _class_page(request: Request, lang: str, db: Session, auth: authn.Auth, access: Access, status: int = 200,
                **extra: Any) -> HTMLResponse:
    the_course = course(request, lang)
    detail = class_detail(db, access, access.user, str(request.base_url).rstrip("/"))
    mine = [m for m in my_assignments(db, access.user, the_course, lang).assignments
            if m.assignment.class_id == access.row.id] if access.role == "learner" else []
    context = _context(request, lang, f"/classes/{access.row.id}", auth, access=access, row=access.row,
                       detail=detail, course=the_course, mine=mine, zones=ZONES, roles=MEMBER_ROLES,
                       members=roster.roster(db, access.row.id) if access.can("roster.view") else [])
    context.update(extra)
    return render(request, "classes/class.html", context, status=status)


@router.get("/{lang:lang}/classes/{class_id}")
def class_page(lang: str, class_id: RowId, request: Request, auth: OptionalAuthDep, db: SessionDep) -> Response:
    if auth is None:
        return _signin(lang, f"/classes/{class_id}")
    return _class_page(request, lang, db, auth, class_access(db, auth, class_id, "class.view"))


def _act_settings(db: Session, access: Access, form: Mapping[str, Any], the_course: Course) -> str:
    roster.update_class(db, access.row, name=form.get("name", ""), term=form.get("term", ""),
                        notice_lang=form.get("notice_lang", ""), tz=form.get("tz", ""))
    boards.set_board(access.row, enabled=form.get("board_enabled") == "1",
                     hide_until_due=form.get("board_hide_until_due") == "1", gpu=form.get("board_gpu", ""))
    return "settings"


def _act_invite(db: Session, access: Access, form: Mapping[str, Any], the_course: Course) -> str:
    if form.get("op") == "close":
        roster.close_invite(db, access.row)
        return "closed"
    roster.rotate_invite(db, access.row)
    return "rotated"


def _act_member(db: Session, access: Access, form: Mapping[str, Any], the_course: Course) -> str:
    name = form.get("username", "").strip()
    user = find_user(db, name)
    if user is None:
        raise ClassesError("user_unknown", {"username": name[:64]}, status=404)
    roster.add_member(db, access.row, user, role=form.get("role", "learner"), source="manual", email=form.get("email", ""))
    return "member"


def _row_id(form: Mapping[str, Any], key: str, code: str) -> int:
    """A row id from a form field; anything else (or one no row can have) is refused with ``code`` (404)."""
    value = row_id(form.get(key))
    if value is None:
        raise ClassesError(code, status=404)
    return value


def _act_remove(db: Session, access: Access, form: Mapping[str, Any], the_course: Course) -> str:
    roster.remove_member(db, access.row, _row_id(form, "user_id", "not_member"))
    return "removed"


def _act_assignment(db: Session, access: Access, form: Mapping[str, Any], the_course: Course) -> str:
    assignments.create_assignment(
        db, access.row, title=form.get("title", ""), opens_at=assignments.parse_local(form.get("opens_at"), access.row.tz),
        due_at=assignments.parse_local(form.get("due_at"), access.row.tz), lessons=form.get("lessons") or [],
        exercises=form.get("exercises") or [], complete_tier=form.get("complete_tier") or "passed",
        late_policy=form.get("late_policy", "mark"), known_lessons=the_course.lessons, known_exercises=the_course.tiers)
    return "assignment"


def _act_delete(db: Session, access: Access, form: Mapping[str, Any], the_course: Course) -> str:
    assignments.delete_assignment(db, access.row.id, _row_id(form, "assignment_id", "not_found"))
    return "deleted"


def _act_csv(db: Session, access: Access, form: Mapping[str, Any], the_course: Course) -> str:
    report = roster.import_csv(db, access.row, form.get("csv", ""))
    form_report = form.get("_report")
    if isinstance(form_report, dict):
        form_report.update(added=report.added, already=report.already, unknown=report.unknown)
    return "imported"


ACTIONS: dict[str, tuple[str, Callable[[Session, Access, Mapping[str, Any], Course], str]]] = {
    "settings": ("class.manage", _act_settings),
    "invite": ("roster.manage", _act_invite),
    "member": ("roster.manage", _act_member),
    "csv": ("roster.manage", _act_csv),
    "remove": ("roster.manage", _act_remove),
    "assignment": ("assignments.manage", _act_assignment),
    "delete": ("assignments.manage", _act_delete),
}


@router.post("/{lang:lang}/classes/{class_id}/{action}", max_body_size=FORM_TEXT_BODY_LIMIT)
def class_action(lang: str, class_id: RowId, action: str, request: Request,
                 auth: OptionalAuthDep, form: FormDep,
                 db: SessionDep) -> Response:
    if action not in ACTIONS:
        raise ClassesError("not_found", status=404)
    if auth is None:
        return _signin(lang, f"/classes/{class_id}")
    permission, handler = ACTIONS[action]
    access = class_access(db, auth, class_id, permission)
    report: dict[str, list[str]] = {}
    try:
        done = handler(db, access, {**form, "_report": report}, course(request, lang))
        db.commit()
    except ClassesError as exc:
        db.rollback()
        access = class_access(db, auth, class_id, "class.view")
        return _class_page(request, lang, db, auth, access, form=form, form_action=action, error_text=exc.message(lang),
                           status=exc.status)
    if action == "csv":  # the report is the answer: who was added, who was there, who has no account
        return _class_page(request, lang, db, auth, access, report=report,
                           done_text=translate(DONE, done, lang))
    return RedirectResponse(f"/{lang}/classes/{class_id}?done={done}", status_code=303)


# ---- gradebook, insight ------------------------------------------------------------------------------

@router.get("/{lang:lang}/classes/{class_id}/gradebook")
def gradebook_page(lang: str, class_id: RowId, request: Request, auth: OptionalAuthDep, db: SessionDep) -> Response:
    if auth is None:
        return _signin(lang, f"/classes/{class_id}/gradebook")
    access = class_access(db, auth, class_id, "gradebook.view")
    the_course = course(request, lang)
    _views, _rows, book = class_gradebook(db, access, the_course, auth.user)
    lms = services(request).get(LmsGradebook).read(db, access.row)
    context = _context(request, lang, f"/classes/{class_id}/gradebook", auth, row=access.row, book=book,
                       course=the_course, lms=lms)
    return render(request, "classes/gradebook.html", context)


@router.get("/{lang:lang}/classes/{class_id}/assignments/{assignment_id}/insight")
def insight_page(lang: str, class_id: RowId, assignment_id: RowId, request: Request,
                 auth: OptionalAuthDep, db: SessionDep) -> Response:
    if auth is None:
        return _signin(lang, f"/classes/{class_id}/assignments/{assignment_id}/insight")
    access = class_access(db, auth, class_id, "insight.view")
    the_course = course(request, lang)
    view = assignments.get(db, class_id, assignment_id)
    report = insight.assignment_insight(db, roster.roster(db, class_id, "learner"), view, the_course.tiers)
    context = _context(request, lang, f"/classes/{class_id}/assignments/{assignment_id}/insight", auth,
                       row=access.row, assignment=view, report=present.insight_out(report, lang), course=the_course)
    return render(request, "classes/insight.html", context)


@router.get("/{lang:lang}/classes/{class_id}/submissions")
def submissions_page(lang: str, class_id: RowId, request: Request, auth: OptionalAuthDep, db: SessionDep) -> Response:
    if auth is None:
        return _signin(lang, f"/classes/{class_id}/submissions")
    access = class_access(db, auth, class_id, "submissions.view")
    work = [present.work_out(w) for w in recent_work(db, boards.class_learners(db, class_id))]
    context = _context(request, lang, f"/classes/{class_id}/submissions", auth, row=access.row, work=work,
                       course=course(request, lang))
    return render(request, "classes/submissions.html", context)


# ---- leaderboards -------------------------------------------------------------------------------------

def _board_page(request: Request, lang: str, auth: authn.Auth, board: Any, path: str, strike_action: str,
                row: Any = None, status: int = 200, **extra: Any) -> HTMLResponse:
    the_course = course(request, lang)
    context = _context(request, lang, path, auth, board=board, row=row, course=the_course,
                       strike_action=strike_action, **extra)
    return render(request, "classes/board.html", context, status=status)


@router.get("/{lang:lang}/classes/{class_id}/boards/{exercise}")
def class_board_page(lang: str, class_id: RowId, exercise: str, request: Request,
                     auth: OptionalAuthDep, db: SessionDep) -> Response:
    path = f"/classes/{class_id}/boards/{exercise[:64]}"
    if auth is None:
        return _signin(lang, path)
    access = class_access(db, auth, class_id, "class.board")
    board = class_board(db, access, exercise, course(request, lang))
    return _board_page(request, lang, auth, board, path, f"/{lang}{path}/strike", access.row)


@router.get("/{lang:lang}/boards/{exercise}")
def site_board_page(lang: str, exercise: str, request: Request, auth: OptionalAuthDep, db: SessionDep) -> Response:
    path = f"/boards/{exercise[:64]}"
    if auth is None:
        return _signin(lang, path)
    board = site_board(db, auth, exercise, course(request, lang))
    return _board_page(request, lang, auth, board, path, f"/{lang}{path}/strike")


def _strike(request: Request, lang: str, auth: authn.Auth, db: Session, form: dict[str, Any], class_id: int | None,
            exercise: str) -> Response:
    if class_id is not None:
        access = class_access(db, auth, class_id, "board.strike")
        learners: list[int] | None = boards.class_learners(db, class_id)
        back = f"/{lang}/classes/{class_id}/boards/{exercise}"
        # The board is read before the strike, so an unknown exercise or a board that is off is refused
        # here. Read after a failed strike, its refusal came after the rollback had expired the signed-in
        # user, and the error page could no longer read them (a 500).
        board = class_board(db, access, exercise, course(request, lang))
    else:
        if not can(auth.user.role, Permission.REVIEW_SUBMISSIONS):
            raise ClassesError("forbidden", status=403)
        learners, back = None, f"/{lang}/boards/{exercise}"
        board = site_board(db, auth, exercise, course(request, lang))
    try:
        submission_id = _row_id(form, "submission_id", "not_on_board")
        boards.strike(db, auth.user, submission_id, form.get("reason", ""), class_id=class_id, learners=learners)
        db.commit()
    except ClassesError as exc:
        db.rollback()
        return _board_page(request, lang, auth, board, back[len(lang) + 1:], back + "/strike",
                           access.row if class_id is not None else None, form=form, error_text=exc.message(lang),
                           status=exc.status)
    return RedirectResponse(back + "?done=struck", status_code=303)


@router.post("/{lang:lang}/classes/{class_id}/boards/{exercise}/strike", max_body_size=FORM_TEXT_BODY_LIMIT)
def class_strike(lang: str, class_id: RowId, exercise: str, request: Request,
                 auth: OptionalAuthDep, form: FormDep,
                 db: SessionDep) -> Response:
    if auth is None:
        return _signin(lang, f"/classes/{class_id}")
    return _strike(request, lang, auth, db, form, class_id, exercise[:64])


@router.post("/{lang:lang}/boards/{exercise}/strike", max_body_size=FORM_TEXT_BODY_LIMIT)
def site_strike(lang: str, exercise: str, request: Request, auth: OptionalAuthDep,
                form: FormDep, db: SessionDep) -> Response:
    if auth is None:
        return _signin(lang, "/classes")
    return _strike(request, lang, auth, db, form, None, exercise[:64])

