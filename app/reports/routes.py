"""'Report a problem' (a plain form that works without JavaScript, for visitors too, behind a
honeypot and a per-IP limit) and the instructors' inbox of problem and comment reports."""
from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Form, Request
from fastapi.responses import HTMLResponse, RedirectResponse

from app.accounts import auth as authn
from app.accounts.deps import AuthDep, OptionalAuthDep, SessionDep, WriterDep, csrf_protect
from app.accounts.views import account_context, render
from app.comments import service as comments
from app.comments.messages import CommentsError
from app.comments.permissions import can_moderate
from app.comments.web import config, lesson_or_404, ui_lang
from app.core.bodies import FORM_TEXT_BODY_LIMIT, make_router
from app.core.ids import RowId
from app.core.services import services
from app.lessons.catalog import Catalog, Lesson
from app.reports import service

router = make_router()
HONEYPOT = "website"  # a field people never see; bots that fill every field give themselves away


def _client_ip(request: Request) -> str:
    return request.client.host if request.client else "?"


def _form(request: Request, lang: str, lesson: Lesson, auth: authn.Auth | None, *, what: str = "", quote: str = "",
          error: str | None = None, status: int = 200, headers: dict[str, str] | None = None) -> HTMLResponse:
    context = account_context(request, lang, f"/lessons/{lesson.slug}/report", auth)
    context.update(lesson=lesson, title=lesson.text(lang)[0].title, what=what, quote=quote, error=error,
                   honeypot=HONEYPOT, max_what=config(request).problem_max_length,
                   max_quote=config(request).quote_max_length)
    return render(request, "reports/form.html", context, status=status, headers=headers)


@router.get("/{lang:lang}/lessons/{slug}/report")
def report_form(lang: str, slug: str, request: Request, auth: OptionalAuthDep, quote: str = "") -> HTMLResponse:
    ui_lang(request, lang)
    lesson = lesson_or_404(request, slug)
    return _form(request, lang, lesson, auth, quote=quote[:config(request).quote_max_length])


@router.post("/{lang:lang}/lessons/{slug}/report", dependencies=[Depends(csrf_protect)], max_body_size=FORM_TEXT_BODY_LIMIT)
def report_submit(lang: str, slug: str, request: Request, auth: OptionalAuthDep, db: SessionDep,
                  what: str = Form(""), quote: str = Form(""), website: str = Form("")) -> HTMLResponse:
    ui_lang(request, lang)
    lesson = lesson_or_404(request, slug)
    thanks = account_context(request, lang, f"/lessons/{slug}/report", auth)
    thanks.update(lesson=lesson, title=lesson.text(lang)[0].title)
    if website.strip():
        return render(request, "reports/thanks.html", thanks)  # looks accepted; nothing is stored
    try:
        service.submit(db, config(request), slug=slug, lang=lang, what=what, quote=quote,
                       user=auth.user if auth else None,
                       ip_digest=service.ip_hash(services(request).secret_key, _client_ip(request)))
    except CommentsError as exc:
        return _form(request, lang, lesson, auth, what=what[:5000], quote=quote[:5000], status=exc.status,
                     headers=exc.headers, error=exc.message(lang))
    db.commit()
    return render(request, "reports/thanks.html", thanks)


# ---- the inbox --------------------------------------------------------------------------------------

def _moderator(auth: AuthDep) -> authn.Auth:
    if not can_moderate(auth.user):
        raise CommentsError("forbidden", status=403)
    return auth


ModeratorDep = Annotated[authn.Auth, Depends(_moderator)]


def _moderator_writer(auth: WriterDep) -> authn.Auth:
    return _moderator(auth)


ModeratorWriterDep = Annotated[authn.Auth, Depends(_moderator_writer)]


@router.get("/{lang:lang}/reports")
def inbox(lang: str, request: Request, auth: ModeratorDep, db: SessionDep, status: str = "open") -> HTMLResponse:
    ui_lang(request, lang)
    resolved = status == "resolved"
    titles = {lesson.slug: {code: lesson.text(code)[0].title for code in ("ko", "en")}
              for lesson in services(request).get(Catalog).snapshot().lessons}
    context = account_context(request, lang, "/reports", auth)
    context.update(status="resolved" if resolved else "open", problems=service.problem_reports(db, resolved),
                   reported=service.reported_comments(db, resolved), titles=titles)
    return render(request, "reports/inbox.html", context)


@router.post("/{lang:lang}/reports/{report_id}/{action}")
def set_problem_state(lang: str, report_id: RowId, action: str, request: Request,
                      auth: ModeratorWriterDep, db: SessionDep) -> RedirectResponse:
    if action not in ("resolve", "reopen") or not service.set_problem_resolved(db, auth.user, report_id,
                                                                                action == "resolve"):
        raise CommentsError("not_found", status=404)
    db.commit()
    return RedirectResponse(f"/{lang}/reports", status_code=303)


@router.post("/{lang:lang}/reports/comments/{comment_id}/{action}")
def handle_comment_report(lang: str, comment_id: RowId, action: str, request: Request,
                          auth: ModeratorWriterDep, db: SessionDep) -> RedirectResponse:
    if action not in ("dismiss", "hide"):
        raise CommentsError("not_found", status=404)
    if action == "hide":
        comments.set_hidden(db, auth.user, comment_id, True)
    service.resolve_comment_reports(db, auth.user, comment_id)
    db.commit()
    return RedirectResponse(f"/{lang}/reports", status_code=303)
