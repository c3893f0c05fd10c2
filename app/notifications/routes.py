"""The bell: a JSON summary for the header script, a notifications page with plain forms
(mark one read, mark all read, the on-reply/off setting), and the same actions as JSON."""
from __future__ import annotations

from typing import Any, Literal

from fastapi import Form, Request
from fastapi.responses import JSONResponse, RedirectResponse, Response
from pydantic import BaseModel, Field
from sqlalchemy.orm import Session

from app.accounts.deps import AuthDep, OptionalAuthDep, SessionDep, WriterDep
from app.accounts.models import User
from app.accounts.views import account_context, render
from app.comments.permissions import can_moderate
from app.comments.web import ui_lang
from app.core.answers import checked
from app.core.bodies import make_router
from app.core.ids import RowId
from app.core.languages import api_lang
from app.core.services import services
from app.lessons.catalog import Catalog
from app.lessons.exercises import ExerciseInfoCache
from app.notifications import schemas, service

router = make_router()


class Setting(BaseModel):
    # an unknown mode is refused, naming the field, rather than quietly stored as "reply"
    mode: Literal["reply", "off"] = Field(default="reply", description="reply: tell me of replies and followed threads; off: nothing")


def _open_reports(db: Session, user: User) -> int | None:
    if not can_moderate(user):
        return None
    from app.reports.service import open_count
    return open_count(db)


@router.get("/api/notifications/summary", response_model=schemas.Summary)
def summary(request: Request, auth: AuthDep, db: SessionDep) -> JSONResponse:
    return JSONResponse({"unread": service.unread_count(db, auth.user), "inbox": _open_reports(db, auth.user)},
                        headers={"Cache-Control": "no-store"})


def _exercises(request: Request, lang: str) -> dict[str, tuple[str, str | None]]:
    """exercise id -> (its title in ``lang``, the lesson page that holds its panel)."""
    shared = services(request)
    out: dict[str, tuple[str, str | None]] = {}
    for lesson in shared.get(Catalog).snapshot().visible(shared.settings.show_drafts):
        info = shared.get(ExerciseInfoCache).get(lesson.meta.exercise) if lesson.meta.exercise else None
        if info is not None:
            out[info.id] = (info.title.get(lang) or info.title.get("en") or info.id, f"/{lang}/lessons/{lesson.slug}")
    return out


def _texts(request: Request, items: list[service.NotificationView], lang: str) -> dict[int, dict[str, str | None]]:
    """notification id -> {text, link} (and a verdict change's or a strike's note) for every item, in
    ``lang``: the page and the API describe a notification with the same sentence and the same link."""
    exercises = _exercises(request, lang) if any(n.review or n.strike for n in items) else {}
    titles = _lesson_titles(request, lang) if any(not n.review and not n.strike for n in items) else {}
    out: dict[int, dict[str, str | None]] = {}
    for n in items:
        if n.strike:
            title, _page = exercises.get(n.strike["exercise"], (None, None))
            board = f"/{lang}/boards/{n.strike['exercise']}"
            if n.strike.get("class_id"):
                board = f"/{lang}/classes/{n.strike['class_id']}/boards/{n.strike['exercise']}"
            out[n.id] = {"text": service.strike_text(n, lang, title), "note": n.strike["note"], "link": board}
        elif n.review:
            title, page = exercises.get(n.review["exercise"], (None, None))
            out[n.id] = {"text": service.verdict_text(n, lang, title), "note": n.review["note"],
                         "link": f"{page}?submission={n.review['submission']}" if page else None}
        else:
            out[n.id] = {"text": service.comment_text(n, lang, titles.get(n.lesson_slug) if n.lesson_slug else None),
                         "link": f"/{lang}/lessons/{n.lesson_slug}#comment-{n.comment_id}"}
    return out


def _lesson_titles(request: Request, lang: str) -> dict[str, str]:
    return {lesson.slug: lesson.text(lang)[0].title for lesson in services(request).get(Catalog).snapshot().lessons}


@router.get("/api/notifications", response_model=schemas.NotificationList)
def list_notifications(request: Request, auth: AuthDep, db: SessionDep) -> JSONResponse:
    """Your latest notifications, each with its sentence in your language (?lang=ko|en, else your
    language cookie or Accept-Language) and the link it leads to; a verdict change also carries the
    grader's note."""
    items = service.recent(db, auth.user)
    lang = api_lang(request)
    texts = _texts(request, items, lang)
    notifications = [{"id": n.id, "kind": n.kind, "actor": n.actor, "lesson": n.lesson_slug, "comment_id": n.comment_id,
                      "lang": n.lang if n.review is None and n.strike is None else lang,
                      "read": n.read, "created_at": n.created_at.isoformat() + "Z",
                      **({"review": n.review} if n.review else {}),
                      **({"strike": n.strike} if n.strike else {}), **texts[n.id]}
                     for n in items]
    return checked(schemas.NotificationList, {"unread": service.unread_count(db, auth.user),
                                              "mode": service.mode_for(db, auth.user.id), "notifications": notifications},
                   headers={"Cache-Control": "no-store"})


@router.post("/api/notifications/{notification_id}/read", response_model=schemas.ReadOne)
def read_one_api(notification_id: RowId, request: Request, auth: WriterDep, db: SessionDep) -> dict[str, Any]:
    changed = service.mark_read(db, auth.user, notification_id)
    db.commit()
    return {"read": True, "changed": changed, "unread": service.unread_count(db, auth.user)}


@router.post("/api/notifications/read-all", response_model=schemas.ReadAll)
def read_all_api(request: Request, auth: WriterDep, db: SessionDep) -> dict[str, Any]:
    changed = service.mark_all_read(db, auth.user)
    db.commit()
    return {"changed": changed, "unread": 0}


@router.put("/api/notifications/settings", response_model=schemas.ModeOut)
def settings_api(data: Setting, request: Request, auth: WriterDep, db: SessionDep) -> dict[str, Any]:
    mode = service.set_mode(db, auth.user, data.mode)
    db.commit()
    return {"mode": mode}


# ---- the page -------------------------------------------------------------------------------------

@router.get("/{lang:lang}/notifications")
def notifications_page(lang: str, request: Request, auth: OptionalAuthDep, db: SessionDep) -> Response:
    ui_lang(request, lang)
    if auth is None or auth.via != "cookie":
        return RedirectResponse(f"/{lang}/signin?next=/{lang}/notifications", status_code=303)
    context = account_context(request, lang, "/notifications", auth)
    items = service.recent(db, auth.user)
    context.update(items=items, unread=service.unread_count(db, auth.user), texts=_texts(request, items, lang),
                   mode=service.mode_for(db, auth.user.id))
    return render(request, "comments/notifications.html", context)


@router.post("/{lang:lang}/notifications/{notification_id}/read")
def read_one_form(lang: str, notification_id: RowId, request: Request, auth: WriterDep,
                  db: SessionDep) -> RedirectResponse:
    service.mark_read(db, auth.user, notification_id)
    db.commit()
    return RedirectResponse(f"/{lang}/notifications", status_code=303)


@router.post("/{lang:lang}/notifications/read-all")
def read_all_form(lang: str, request: Request, auth: WriterDep, db: SessionDep) -> RedirectResponse:
    service.mark_all_read(db, auth.user)
    db.commit()
    return RedirectResponse(f"/{lang}/notifications", status_code=303)


@router.post("/{lang:lang}/notifications/settings")
def settings_form(lang: str, request: Request, auth: WriterDep, db: SessionDep, mode: str = Form("reply")) -> RedirectResponse:
    service.set_mode(db, auth.user, mode)
    db.commit()
    return RedirectResponse(f"/{lang}/notifications", status_code=303)
