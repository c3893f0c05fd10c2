"""The classes' JSON API, for a personal API token (Bearer) or the browser session (CSRF for
cookie callers on writes). Every route answers with a response model (app/classes/schemas.py), so
/docs shows it; refusals are ``{"error", "message", "params"}`` in the reader's language."""
from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request
from fastapi.responses import Response
from sqlalchemy.orm import Session

from app.accounts import auth as authn
from app.accounts.deps import AuthDep, OptionalAuthDep, SessionDep, WriterDep
from app.accounts.models import User
from app.accounts.roles import Permission, can
from app.accounts.users import find_user
from app.classes import assignments, boards, gradebook, insight, present, roster, schemas
from app.classes.messages import ClassesError
from app.classes.models import BoardStrike
from app.classes.web import Access, Course, class_access, course
from app.classes.work import recent_work
from app.core.bodies import make_router
from app.core.clock import utcnow
from app.core.ids import RowId
from app.core.languages import api_lang
from app.core.openapi import CSVResponse

router = make_router(prefix="/api", tags=["classes"])


def my_classes(db: Session, auth: authn.Auth, base_url: str) -> schemas.ClassList:
    out = []
    for row, role in roster.classes_of(db, auth.user.id):
        out.append(present.class_out(row, Access(row, role, auth.user), role, base_url))
    return schemas.ClassList(classes=out)


def class_detail(db: Session, access: Access, user: User, base_url: str) -> schemas.ClassDetail:
    views = assignments.for_class(db, access.row.id)
    if not access.can("assignments.manage"):  # learners see an assignment once it opens
        views = [a for a in views if a.is_open(utcnow())]
    base = present.class_out(access.row, access, access.role, base_url)
    return schemas.ClassDetail(**base.model_dump(),
                               assignments=[present.assignment_out(a, user.tz, access.row.tz) for a in views])


def class_gradebook(db: Session, access: Access, the_course: Course, user: User):
    views = assignments.for_class(db, access.row.id)
    rows = gradebook.build(db, roster.roster(db, access.row.id, "learner"), views, the_course.tiers)
    return views, rows, present.gradebook_out(access.row.id, rows, views, user.tz, access.row.tz)


def class_board(db: Session, access: Access, exercise: str, the_course: Course) -> schemas.BoardOut:
    if exercise not in the_course.exercises:
        raise ClassesError("not_found", status=404)
    if not access.row.board_enabled:
        raise ClassesError("board_off", status=404)
    may_strike = access.can("board.strike")
    hidden = boards.hidden_until(db, access.row, exercise)
    learners = boards.class_learners(db, access.row.id)
    entries = [] if hidden is not None and not may_strike else boards.entries(
        db, exercise, learners, gpu=access.row.board_gpu, tiers=the_course.tiers)
    out = present.board_out(exercise, access.row.id, entries, hidden, may_strike)
    if may_strike:
        out.strikes = [strike_out(s, name) for s, name in boards.strikes(db, exercise, learners)]
    return out


def site_board(db: Session, auth: authn.Auth | None, exercise: str, the_course: Course) -> schemas.BoardOut:
    if exercise not in the_course.exercises:
        raise ClassesError("not_found", status=404)
    may_strike = auth is not None and can(auth.user.role, Permission.REVIEW_SUBMISSIONS)
    entries = boards.entries(db, exercise, boards.site_learners(db), tiers=the_course.tiers)
    out = present.board_out(exercise, None, entries, None, may_strike)
    if may_strike:
        out.strikes = [strike_out(s, name) for s, name in boards.strikes(db, exercise)]
    return out


def my_assignments(db: Session, user: User, the_course: Course, lang: str) -> schemas.MyAssignments:
    from app.classes.roster import RosterMember

    now = utcnow()
    pairs = assignments.for_learner(db, user.id, now)
    me = [RosterMember(user.id, user.username, "learner", "", "", None)]
    [row] = gradebook.build(db, me, [a for _c, a in pairs], the_course.tiers)
    out = []
    for (cls, a), cell in zip(pairs, row.cells, strict=True):
        left = present.left_items(cell, the_course, lang)
        out.append(schemas.MyAssignment(assignment=present.assignment_out(a, user.tz, cls.tz), class_name=cls.name,
                                        score=cell.score, out_of=cell.out_of, late=cell.late,
                                        overdue=a.is_due(now) and bool(left), left=left))
    return schemas.MyAssignments(assignments=out)


def strike_out(entry: BoardStrike, learner: str | None = None) -> schemas.StrikeOut:
    return schemas.StrikeOut(id=entry.id, submission_id=entry.submission_id, class_id=entry.class_id,
                             grader=entry.grader_name, reason=entry.reason, created_at=entry.created_at.isoformat() + "Z",
                             learner=learner)


async def raw_body(request: Request) -> bytes:
    """The request body, read in an async dependency so that the handler's queries run in the threadpool."""
    return await request.body()


RawBodyDep = Annotated[bytes, Depends(raw_body)]


def _base(request: Request) -> str:
    return str(request.base_url).rstrip("/")


# ---- classes and rosters --------------------------------------------------------------------------

@router.get("/classes", response_model=schemas.ClassList)
def list_classes(request: Request, auth: AuthDep, db: SessionDep):
    """The classes you are in, with your role in each."""
    return my_classes(db, auth, _base(request))


@router.post("/classes", response_model=schemas.ClassDetail, status_code=201)
def create_class(data: schemas.ClassCreate, request: Request, auth: WriterDep, db: SessionDep):
    """Create a class (instructors and administrators); you become its instructor. Its invite code is open."""
    if not can(auth.user.role, Permission.CREATE_CLASSES):
        raise ClassesError("forbidden", status=403)
    row = roster.create_class(db, auth.user, data.name, term=data.term, notice_lang=data.notice_lang, tz=data.tz)
    db.commit()
    return class_detail(db, class_access(db, auth, row.id, "class.view"), auth.user, _base(request))


@router.get("/classes/{class_id}", response_model=schemas.ClassDetail)
def get_class(class_id: RowId, request: Request, auth: OptionalAuthDep, db: SessionDep):
    """One class and its assignments (learners see those already open); the invite code only for
    those who manage the roster."""
    access = class_access(db, auth, class_id, "class.view")
    return class_detail(db, access, access.user, _base(request))


@router.post("/classes/join", response_model=schemas.ClassOut)
def join_class(data: schemas.JoinRequest, request: Request, auth: WriterDep, db: SessionDep):
    """Join a class with its invite code, as a learner."""
    row = roster.join(db, data.code, auth.user)
    db.commit()
    return present.class_out(row, None, roster.member_role(db, row.id, auth.user.id))


@router.get("/classes/{class_id}/members", response_model=schemas.Roster)
def list_members(class_id: RowId, auth: OptionalAuthDep, db: SessionDep):
    """The roster (instructors and graders of the class)."""
    class_access(db, auth, class_id, "roster.view")
    return schemas.Roster(members=[schemas.MemberOut(user_id=m.user_id, username=m.username, role=m.role, email=m.email,
                                                     source=m.source) for m in roster.roster(db, class_id)])


@router.post("/classes/{class_id}/members", response_model=schemas.MemberOut, status_code=201)
def add_member(class_id: RowId, data: schemas.MemberAdd, auth: WriterDep, db: SessionDep):
    """Add an account by username with a role (learner, grader, instructor); an existing member gets the role."""
    access = class_access(db, auth, class_id, "roster.manage")
    user = find_user(db, data.username.strip())
    if user is None:
        raise ClassesError("user_unknown", {"username": data.username.strip()[:64]}, status=404)
    member, _created = roster.add_member(db, access.row, user, role=data.role, source="manual", email=data.email)
    db.commit()
    return schemas.MemberOut(user_id=user.id, username=user.username, role=member.role, email=member.email,
                             source=member.source)


@router.post("/classes/{class_id}/members.csv", response_model=schemas.ImportOut, max_body_size=roster.CSV_MAX_BYTES,
             openapi_extra=schemas.ROSTER_CSV_BODY)
def import_members(class_id: RowId, body: RawBodyDep, auth: WriterDep, db: SessionDep):
    """Add learners from a CSV body (text/csv, UTF-8): a header row with a ``username`` column (an
    ``email`` column is kept for exports), or one username per line. Unknown usernames are listed, not created."""
    access = class_access(db, auth, class_id, "roster.manage")
    report = roster.import_csv(db, access.row, body)
    db.commit()
    return schemas.ImportOut(added=report.added, already=report.already, unknown=report.unknown)


@router.delete("/classes/{class_id}/members/{user_id}", status_code=204, response_class=Response)
def remove_member(class_id: RowId, user_id: RowId, auth: WriterDep, db: SessionDep):
    """Remove someone from the class (their submissions stay theirs; a class keeps one instructor)."""
    access = class_access(db, auth, class_id, "roster.manage")
    roster.remove_member(db, access.row, user_id)
    db.commit()
    return Response(status_code=204)


# ---- assignments, gradebook, insight --------------------------------------------------------------

@router.post("/classes/{class_id}/assignments", response_model=schemas.AssignmentOut, status_code=201)
def create_assignment(class_id: RowId, data: schemas.AssignmentCreate, request: Request,
                      auth: WriterDep, db: SessionDep):
    """Create an assignment; times are wall-clock in the class's zone unless they carry an offset."""
    access = class_access(db, auth, class_id, "assignments.manage")
    the_course = course(request, api_lang(request))
    row = assignments.create_assignment(
        db, access.row, title=data.title, opens_at=assignments.parse_local(data.opens_at, access.row.tz),
        due_at=assignments.parse_local(data.due_at, access.row.tz), lessons=data.lessons, exercises=data.exercises,
        complete_tier=data.complete_tier, late_policy=data.late_policy, known_lessons=the_course.lessons,
        known_exercises=the_course.tiers)
    db.commit()
    return present.assignment_out(assignments.get(db, class_id, row.id), auth.user.tz, access.row.tz)


@router.delete("/classes/{class_id}/assignments/{assignment_id}", status_code=204, response_class=Response)
def delete_assignment(class_id: RowId, assignment_id: RowId, auth: WriterDep, db: SessionDep):
    """Delete an assignment (the learners' submissions stay; only its gradebook column goes)."""
    class_access(db, auth, class_id, "assignments.manage")
    assignments.delete_assignment(db, class_id, assignment_id)
    db.commit()
    return Response(status_code=204)


@router.get("/classes/{class_id}/gradebook", response_model=schemas.Gradebook)
def get_gradebook(class_id: RowId, request: Request, auth: OptionalAuthDep, db: SessionDep):
    """Per learner × assignment: score out of items, late flag, and per exercise the best effective
    verdict, best level before and after the due time, attempts and first pass."""
    access = class_access(db, auth, class_id, "gradebook.view")
    return class_gradebook(db, access, course(request, api_lang(request)), access.user)[2]


@router.get("/classes/{class_id}/gradebook.csv", response_class=CSVResponse)
def gradebook_csv(class_id: RowId, request: Request, auth: OptionalAuthDep, db: SessionDep):
    """The gradebook for an LMS import: columns ``username``, ``email``, then per assignment
    ``<title> [score]``, ``<title> [out of]`` and ``<title> [late]`` (yes/no); one line per learner."""
    access = class_access(db, auth, class_id, "gradebook.view")
    views, rows, _out = class_gradebook(db, access, course(request, api_lang(request)), access.user)
    return Response(gradebook.to_csv(rows, views), media_type="text/csv; charset=utf-8",
                    headers={"Cache-Control": "no-store",
                             "Content-Disposition": f'attachment; filename="class-{class_id}-grades.csv"'})


@router.get("/classes/{class_id}/assignments/{assignment_id}/insight", response_model=schemas.InsightOut)
def get_insight(class_id: RowId, assignment_id: RowId, request: Request, auth: OptionalAuthDep, db: SessionDep):
    """Started, passed, learners per tier, the most common failure codes (labelled in your language),
    median attempts and minutes to a first pass, and who has not started."""
    access = class_access(db, auth, class_id, "insight.view")
    lang = api_lang(request)
    view = assignments.get(db, class_id, assignment_id)
    report = insight.assignment_insight(db, roster.roster(db, access.row.id, "learner"), view, course(request, lang).tiers)
    return present.insight_out(report, lang)


@router.get("/me/assignments", response_model=schemas.MyAssignments)
def get_my_assignments(request: Request, auth: AuthDep, db: SessionDep):
    """Your open assignments in every class you learn in, soonest due first, with what is left."""
    lang = api_lang(request)
    return my_assignments(db, auth.user, course(request, lang), lang)


@router.get("/classes/{class_id}/submissions", response_model=schemas.WorkList)
def class_submissions(class_id: RowId, auth: OptionalAuthDep, db: SessionDep):
    """The latest 200 submissions of the class's learners, newest first, with their source (the class's
    graders and instructors)."""
    class_access(db, auth, class_id, "submissions.view")
    return schemas.WorkList(submissions=[present.work_out(w) for w in recent_work(db, boards.class_learners(db, class_id))])


# ---- leaderboards ----------------------------------------------------------------------------------

@router.get("/classes/{class_id}/boards/{exercise}", response_model=schemas.BoardOut)
def get_class_board(class_id: RowId, exercise: str, request: Request, auth: OptionalAuthDep, db: SessionDep):
    """The class's board of one exercise (when its instructor turned boards on): one row per learner,
    ranked by the speedup's lower confidence bound. While hidden until the due time, learners get no entries."""
    access = class_access(db, auth, class_id, "class.board")
    return class_board(db, access, exercise, course(request, api_lang(request)))


@router.post("/classes/{class_id}/strikes", response_model=schemas.StrikeOut, status_code=201)
def strike_in_class(class_id: RowId, data: schemas.StrikeRequest, auth: WriterDep, db: SessionDep):
    """Strike a learner's submission from every board, with a reason; the learner is notified."""
    class_access(db, auth, class_id, "board.strike")
    entry = boards.strike(db, auth.user, data.submission_id, data.reason, class_id=class_id,
                          learners=boards.class_learners(db, class_id))
    db.commit()
    return strike_out(entry)


@router.get("/boards/{exercise}", response_model=schemas.BoardOut)
def get_site_board(exercise: str, request: Request, auth: OptionalAuthDep, db: SessionDep):
    """The site-wide board of one exercise: only learners who opted in."""
    return site_board(db, auth, exercise, course(request, api_lang(request)))


@router.post("/boards/strikes", response_model=schemas.StrikeOut, status_code=201)
def strike_site(data: schemas.StrikeRequest, auth: WriterDep, db: SessionDep):
    """Strike a submission from every board (site graders and administrators), with a reason."""
    if not can(auth.user.role, Permission.REVIEW_SUBMISSIONS):
        raise ClassesError("forbidden", status=403)
    entry = boards.strike(db, auth.user, data.submission_id, data.reason)
    db.commit()
    return strike_out(entry)


@router.get("/boards/profile/me", response_model=schemas.BoardProfileOut)
def get_board_profile(auth: AuthDep, db: SessionDep):
    """How you appear on leaderboards."""
    row = boards.profile(db, auth.user.id)
    return schemas.BoardProfileOut(use_alias=row.use_alias, alias=row.alias, site_board=row.site_board)


@router.put("/boards/profile/me", response_model=schemas.BoardProfileOut)
def put_board_profile(data: schemas.BoardProfileIn, auth: WriterDep, db: SessionDep):
    """Show your name or an alias on leaderboards, and whether you take part in the site-wide board."""
    row = boards.set_profile(db, auth.user, use_alias=data.use_alias, alias=data.alias, site_board=data.site_board)
    db.commit()
    return schemas.BoardProfileOut(use_alias=row.use_alias, alias=row.alias, site_board=row.site_board)
