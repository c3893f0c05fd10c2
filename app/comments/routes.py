"""Comments over HTTP. The JSON API (/api/...) serves the lesson page's script and API-token
clients alike; every state change goes through ``signed_in_writer`` (sign-in, then CSRF; API
tokens skip CSRF as the accounts code decides). A read-only HTML page lists a lesson's comments
for readers without JavaScript."""
from __future__ import annotations

from typing import Annotated

from fastapi import Request
from fastapi.responses import HTMLResponse
from pydantic import BaseModel, Field

from app.accounts.deps import OptionalAuthDep, SessionDep, WriterDep
from app.accounts.views import account_context, render
from app.comments import listing, schemas, service
from app.comments.messages import CommentsError
from app.comments.models import Comment
from app.comments.permissions import can_moderate
from app.comments.web import config, lesson_or_404, slugs, ui_lang
from app.core.answers import checked
from app.core.bodies import COMMENT_BODY_LIMIT, FORM_TEXT_BODY_LIMIT, make_router
from app.core.config import LANGUAGES
from app.core.ids import BodyRowId, OptionalRowIdQuery, PageNumber, RowId
from app.core.services import services
from app.i18n import ngettext_for

router = make_router()


# Text fields accept any JSON value: a non-string is refused by the service with the usual
# bilingual "empty" message instead of a framework validation error.
# The schema says what a comment's text must be; the service checks it (text that is blank once invisible
# characters are taken out, text over the site's length: a setting, 4000 characters unless the operator
# changed it) and refuses with its own message in the reader's language rather than a generic 422.
VISIBLE_TEXT = {"minLength": 1, "pattern": r"\S"}
CommentText = Annotated[str, Field(json_schema_extra=VISIBLE_TEXT, description=(
    "markdown with at least one visible character, at most the site's comment length (4000 by default)"))]
ReportReason = Annotated[str, Field(json_schema_extra=VISIBLE_TEXT, description=(
    "why, in a few words; at most the site's report length (1000 by default)"))]


class NewComment(BaseModel):
    body: CommentText
    lang: str | None = None  # omitted: ?lang=, then the reader's preference (app.comments.web.ui_lang)
    parent_id: BodyRowId | None = None


class EditComment(BaseModel):
    body: CommentText
    lang: str | None = None


class ReportComment(BaseModel):
    reason: ReportReason
    lang: str | None = None


def count_label(count: int, lang: str) -> str:
    ngettext = ngettext_for(lang)  # named so that the catalog extractor finds the msgids below
    return ngettext("%(num)d comment", "%(num)d comments", count) % {"num": count}


def comment_json(view: listing.CommentView) -> dict:
    return {"id": view.id, "parent_id": view.parent_id, "depth": view.depth, "author": view.author,
            "lang": view.lang, "html": view.html, "created_at": view.created_at.isoformat() + "Z",
            "edited": view.edited, "helpful": view.helpful, "state": view.state, "in_reply_to": view.in_reply_to}


def _fragment(request: Request, page: listing.ThreadPage, lang: str, auth, following: bool) -> str:
    context = account_context(request, lang, f"/lessons/{page.slug}", auth)
    context.update(thread=page, moderator=can_moderate(auth.user if auth else None), following=following,
                   count_text=count_label(page.count, lang))
    return services(request).templates.get_template("comments/_list.html").render(context)


@router.get("/api/lessons/{slug}/comments", response_model=schemas.CommentPage)
def list_comments(slug: str, request: Request, auth: OptionalAuthDep, db: SessionDep, lang: str = "ko",
                  sort: str = "newest", page: PageNumber = 1, focus: OptionalRowIdQuery = None):
    lang = ui_lang(request, lang if lang in LANGUAGES else None)
    lesson_or_404(request, slug)
    viewer = auth.user if auth else None
    thread_page = listing.thread_page(db, slug, viewer, sort=sort, page=page, page_size=config(request).page_size,
                                      focus=focus)
    following = service.is_following(db, viewer, service.thread_for(db, slug))
    return checked(schemas.CommentPage, {
        "count": thread_page.count, "count_text": count_label(thread_page.count, lang), "sort": thread_page.sort,
        "page": thread_page.page, "pages": thread_page.pages, "locked": thread_page.locked, "following": following,
        "comments": [comment_json(c) for c in thread_page.comments],
        "html": _fragment(request, thread_page, lang, auth, following),
    }, headers={"Cache-Control": "no-store"})


@router.post("/api/lessons/{slug}/comments", status_code=201, max_body_size=COMMENT_BODY_LIMIT,
             response_model=schemas.CommentPosted)
def create_comment(slug: str, data: NewComment, request: Request, auth: WriterDep, db: SessionDep):
    lang = ui_lang(request, data.lang)
    lesson_or_404(request, slug)
    comment = service.post(db, config(request), auth.user, slug, lang, data.body, data.parent_id, slugs(request))
    db.commit()
    return {"id": comment.id, "html": comment.body_html, "lang": comment.lang, "count": listing.visible_count(db, slug)}


@router.get("/api/comments/{comment_id}", response_model=schemas.CommentDetail)
def get_comment(comment_id: RowId, request: Request, auth: OptionalAuthDep, db: SessionDep):
    ui_lang(request)
    comment = db.get(Comment, comment_id)
    viewer = auth.user if auth else None
    if comment is None or comment.deleted_at is not None or (comment.hidden_at is not None and not can_moderate(viewer)):
        raise CommentsError("not_found", status=404)
    data = {"id": comment.id, "parent_id": comment.parent_id, "lang": comment.lang, "html": comment.body_html,
            "edited": comment.edited_at is not None, "helpful": comment.helpful_at is not None}
    if viewer is not None and viewer.id == comment.author_id:
        data["body"] = comment.body  # the markdown source, for the author's edit box
    return checked(schemas.CommentDetail, data)


@router.patch("/api/comments/{comment_id}", max_body_size=COMMENT_BODY_LIMIT, response_model=schemas.CommentEdited)
def edit_comment(comment_id: RowId, data: EditComment, request: Request, auth: WriterDep, db: SessionDep):
    ui_lang(request, data.lang)
    comment = service.edit(db, config(request), auth.user, comment_id, data.body)
    db.commit()
    return {"id": comment.id, "html": comment.body_html, "edited": comment.edited_at is not None}


@router.delete("/api/comments/{comment_id}", response_model=schemas.CommentDeleted)
def delete_comment(comment_id: RowId, request: Request, auth: WriterDep, db: SessionDep):
    ui_lang(request)
    service.delete(db, auth.user, comment_id)
    db.commit()
    return {"id": comment_id, "deleted": True}


@router.post("/api/comments/{comment_id}/helpful", response_model=schemas.MarkedHelpful)
def mark_helpful(comment_id: RowId, request: Request, auth: WriterDep, db: SessionDep):
    ui_lang(request)
    reply = service.mark_helpful(db, auth.user, comment_id, slugs(request))
    db.commit()
    return {"id": reply.id, "helpful": True}


@router.post("/api/comments/{comment_id}/hide", response_model=schemas.CommentVisibility)
def hide_comment(comment_id: RowId, request: Request, auth: WriterDep, db: SessionDep):
    ui_lang(request)
    service.set_hidden(db, auth.user, comment_id, True)
    db.commit()
    return {"id": comment_id, "hidden": True}


@router.post("/api/comments/{comment_id}/unhide", response_model=schemas.CommentVisibility)
# the name this action had first; API-token clients may still call it, so it stays as an alias, left out of
# the API docs so that one action is documented once
@router.post("/api/comments/{comment_id}/restore", response_model=schemas.CommentVisibility, include_in_schema=False)
def unhide_comment(comment_id: RowId, request: Request, auth: WriterDep, db: SessionDep):
    ui_lang(request)
    service.set_hidden(db, auth.user, comment_id, False)
    db.commit()
    return {"id": comment_id, "hidden": False}


@router.post("/api/comments/{comment_id}/report", status_code=201, max_body_size=FORM_TEXT_BODY_LIMIT,
             response_model=schemas.CommentReported)
def report_comment(comment_id: RowId, data: ReportComment, request: Request, auth: WriterDep, db: SessionDep):
    ui_lang(request, data.lang)
    row = service.report(db, config(request), auth.user, comment_id, data.reason)
    db.commit()
    return {"id": row.id, "reported": True}


@router.post("/api/lessons/{slug}/comments/lock", response_model=schemas.ThreadLock)
def lock_thread(slug: str, request: Request, auth: WriterDep, db: SessionDep):
    ui_lang(request)
    lesson_or_404(request, slug)
    service.set_locked(db, auth.user, slug, True)
    db.commit()
    return {"locked": True}


@router.post("/api/lessons/{slug}/comments/unlock", response_model=schemas.ThreadLock)
def unlock_thread(slug: str, request: Request, auth: WriterDep, db: SessionDep):
    ui_lang(request)
    lesson_or_404(request, slug)
    service.set_locked(db, auth.user, slug, False)
    db.commit()
    return {"locked": False}


@router.put("/api/lessons/{slug}/comments/follow", response_model=schemas.ThreadFollowing)
def follow_thread(slug: str, request: Request, auth: WriterDep, db: SessionDep):
    ui_lang(request)
    lesson_or_404(request, slug)
    service.set_following(db, auth.user, slug, True)
    db.commit()
    return {"following": True}


@router.delete("/api/lessons/{slug}/comments/follow", response_model=schemas.ThreadFollowing)
def unfollow_thread(slug: str, request: Request, auth: WriterDep, db: SessionDep):
    ui_lang(request)
    lesson_or_404(request, slug)
    service.set_following(db, auth.user, slug, False)
    db.commit()
    return {"following": False}


@router.get("/{lang:lang}/lessons/{slug}/comments")
def comments_page(lang: str, slug: str, request: Request, auth: OptionalAuthDep, db: SessionDep,
                  sort: str = "newest", page: PageNumber = 1) -> HTMLResponse:
    """The comments alone, rendered on the server: for readers without JavaScript."""
    ui_lang(request, lang)
    lesson = lesson_or_404(request, slug)
    viewer = auth.user if auth else None
    thread_page = listing.thread_page(db, slug, viewer, sort=sort, page=page, page_size=config(request).page_size)
    context = account_context(request, lang, f"/lessons/{slug}/comments", auth)
    context.update(lesson=lesson, title=lesson.text(lang)[0].title, thread=thread_page, moderator=can_moderate(viewer),
                   following=False, static_page=True, count_text=count_label(thread_page.count, lang))
    return render(request, "comments/page.html", context)
