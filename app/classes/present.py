"""The service's answers as the API's response models (app/classes/schemas.py); the pages read the
same models, so a page and its JSON never disagree."""
from __future__ import annotations

import datetime as dt

from app.classes import schemas
from app.classes.assignments import AssignmentView, in_zone
from app.classes.boards import Entry
from app.classes.gradebook import Cell, Row
from app.classes.insight import AssignmentInsight
from app.classes.models import CourseClass
from app.classes.web import Access, Course
from app.classes.work import WorkRow
from app.core import vocabulary

TIME_FORMAT = "%Y-%m-%d %H:%M %Z"


def utc(when: dt.datetime | None) -> str | None:
    return when.isoformat() + "Z" if when is not None else None


def parse_utc(text: str) -> dt.datetime:
    """The inverse of ``utc``: "2026-12-04T14:59:00Z" -> naive UTC."""
    return dt.datetime.fromisoformat(text.removesuffix("Z"))


def deadline(when: dt.datetime, reader_tz: str, class_tz: str) -> schemas.Deadline:
    return schemas.Deadline(utc=when.isoformat() + "Z", yours=in_zone(when, reader_tz).strftime(TIME_FORMAT),
                            class_zone=in_zone(when, class_tz).strftime(TIME_FORMAT))


def class_out(row: CourseClass, access: Access | None, role: str | None, base_url: str = "") -> schemas.ClassOut:
    shows_invite = access is not None and access.can("roster.manage")
    code = row.invite_code if shows_invite else None
    return schemas.ClassOut(id=row.id, name=row.name, term=row.term, notice_lang=row.notice_lang, tz=row.tz, role=role,
                            invite_code=code, invite_url=f"{base_url}/{row.notice_lang}/join/{code}" if code else None,
                            board_enabled=row.board_enabled, board_hide_until_due=row.board_hide_until_due,
                            board_gpu=row.board_gpu)


def assignment_out(a: AssignmentView, reader_tz: str, class_tz: str) -> schemas.AssignmentOut:
    return schemas.AssignmentOut(id=a.id, class_id=a.class_id, title=a.title,
                                 opens=deadline(a.opens_at, reader_tz, class_tz), due=deadline(a.due_at, reader_tz, class_tz),
                                 complete_tier=a.complete_tier, late_policy=a.late_policy, lessons=a.lessons,
                                 exercises=a.exercises)


def cell_out(cell: Cell) -> schemas.GradeCell:
    return schemas.GradeCell(
        assignment_id=cell.assignment_id, score=cell.score, out_of=cell.out_of, late=cell.late,
        exercises=[schemas.ExerciseGrade(exercise=e.exercise, verdict=e.verdict, best_on_time=e.best_on_time,
                                         best_late=e.best_late, attempts=e.attempts, first_pass_at=utc(e.first_pass_at),
                                         complete=e.complete, late=e.late) for e in cell.exercises],
        lessons=[schemas.LessonGrade(lesson=c.lesson, read_at=utc(c.read_at), complete=c.complete, late=c.late)
                 for c in cell.lessons])


def gradebook_out(class_id: int, rows: list[Row], views: list[AssignmentView], reader_tz: str,
                  class_tz: str) -> schemas.Gradebook:
    return schemas.Gradebook(class_id=class_id, assignments=[assignment_out(a, reader_tz, class_tz) for a in views],
                             learners=[schemas.GradebookRow(user_id=r.user_id, username=r.username, email=r.email,
                                                            cells=[cell_out(c) for c in r.cells]) for r in rows])


def insight_out(report: AssignmentInsight, lang: str) -> schemas.InsightOut:
    return schemas.InsightOut(
        assignment_id=report.assignment_id, learners=report.learners, not_started=report.not_started,
        exercises=[schemas.ExerciseInsightOut(
            exercise=e.exercise, started=e.started, passed=e.passed,
            tiers=[schemas.TierCount(level=level, learners=n) for level, n in e.tiers],
            failure_codes=[schemas.CodeCount(code=c, label=vocabulary.label(vocabulary.CODE, c, lang), attempts=n)
                           for c, n in e.failure_codes],
            median_attempts_to_pass=e.median_attempts_to_pass, median_minutes_to_pass=e.median_minutes_to_pass)
            for e in report.exercises])


def board_out(exercise: str, class_id: int | None, entries: list[Entry], hidden_until: dt.datetime | None,
              may_strike: bool) -> schemas.BoardOut:
    return schemas.BoardOut(exercise=exercise, class_id=class_id, hidden_until=utc(hidden_until), entries=[
        schemas.BoardEntryOut(rank=e.rank, name=e.name, is_alias=e.is_alias,
                              submission_id=e.submission_id if may_strike else None, speedup_ci_low=e.ci_low,
                              speedup=e.value, speedup_ci_high=e.ci_high, against=e.against, gpu=e.gpu,
                              submitted_at=e.created_at.isoformat() + "Z") for e in entries])


def left_items(cell: Cell, course: Course, lang: str) -> list[schemas.LeftItem]:
    out = []
    for kind, ref in cell.left:
        if kind == "lesson":
            out.append(schemas.LeftItem(kind="lesson", ref=ref, title=course.lesson_title(ref), url=f"/{lang}/lessons/{ref}"))
        else:
            page = course.exercise_page.get(ref)
            out.append(schemas.LeftItem(kind="exercise", ref=ref, title=course.exercise_title(ref),
                                        url=f"/{lang}/lessons/{page}#exercise-title" if page else f"/{lang}/"))
    return out


def work_out(w: WorkRow) -> schemas.WorkOut:
    return schemas.WorkOut(id=w.id, learner=w.username, exercise=w.exercise_id, submitted_at=w.created_at.isoformat() + "Z",
                           state=w.state, verdict=w.verdict, overridden=w.overridden, speedup_ci_low=w.speedup_low,
                           source=w.source)
