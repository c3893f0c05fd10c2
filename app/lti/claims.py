"""What a verified launch says, read into our terms: the user, their role in the course, the course,
the language and the resource to open. Pure functions of the id_token's claims."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qs, urlsplit

LTI = "https://purl.imsglobal.org/spec/lti/claim/"
NRPS_CLAIM = "https://purl.imsglobal.org/spec/lti-nrps/claim/namesroleservice"
AGS_CLAIM = "https://purl.imsglobal.org/spec/lti-ags/claim/endpoint"
MEMBERSHIP = "http://purl.imsglobal.org/vocab/lis/v2/membership"

# Context (course) roles only: an institution role such as ".../institution/person#Instructor" says
# nothing about this course, so it never makes anyone an instructor here.
INSTRUCTOR_ROLES = {f"{MEMBERSHIP}#Instructor", "Instructor"}
GRADER_ROLES = {f"{MEMBERSHIP}/Instructor#TeachingAssistant", f"{MEMBERSHIP}#TeachingAssistant",
                "TeachingAssistant"}
RESOURCE_KINDS = ("lesson", "exercise", "assignment")


def course_role(roles: Any) -> str:
    """learner, grader (teaching assistant) or instructor; anything unknown is a learner."""
    names = {r for r in roles if isinstance(r, str)} if isinstance(roles, list) else set()
    if names & GRADER_ROLES:  # a TA also carries Instructor in some LMSes; the narrower role wins
        return "grader"
    if names & INSTRUCTOR_ROLES:
        return "instructor"
    return "learner"


def language(body: dict[str, Any], default: str) -> str:
    """ko when the LMS's locale is Korean, en when it is any other it names, else ``default``."""
    presentation = body.get(LTI + "launch_presentation")
    locale = presentation.get("locale") if isinstance(presentation, dict) else None
    locale = locale or body.get("locale")
    if not isinstance(locale, str) or not locale:
        return default
    return "ko" if locale.lower().replace("_", "-").split("-")[0] == "ko" else "en"


def parse_resource(value: Any) -> tuple[str, str] | None:
    """"lesson:<slug>", "exercise:<id>", "assignment:<id>" -> (kind, id); anything else -> None."""
    if not isinstance(value, str) or ":" not in value or len(value) > 200:
        return None
    kind, _, ident = value.partition(":")
    return (kind, ident) if kind in RESOURCE_KINDS and ident else None


def resource(body: dict[str, Any]) -> str | None:
    """The resource a link opens: the custom parameter ``resource`` that Deep Linking stored with the
    link, else ``?resource=`` on the target link URI (a link typed into the LMS by hand)."""
    custom = body.get(LTI + "custom")
    if isinstance(custom, dict) and isinstance(resource := custom.get("resource"), str):
        return resource
    target = body.get(LTI + "target_link_uri")
    if isinstance(target, str):
        found = parse_qs(urlsplit(target).query).get("resource")
        if found:
            return found[0]
    return None


def _object(body: dict[str, Any], claim: str) -> dict[str, Any]:
    """A claim that should be a JSON object, or {} when it is missing or something else."""
    value = body.get(claim)
    return value if isinstance(value, dict) else {}


@dataclass
class Launch:
    """The parts of a verified launch we keep (in the one-time hand-off; never the raw token)."""

    subject: str
    name: str
    role: str
    lang: str
    context_id: str | None
    context_title: str
    resource: str | None
    memberships_url: str | None
    lineitems_url: str | None
    ags_scopes: str
    document_target: str
    message_type: str
    resource_link_title: str

    @classmethod
    def from_claims(cls, body: dict[str, Any], default_lang: str) -> Launch:
        context, nrps, ags = _object(body, LTI + "context"), _object(body, NRPS_CLAIM), _object(body, AGS_CLAIM)
        scopes = [s for s in ags.get("scope") or [] if isinstance(s, str)] if isinstance(ags.get("scope"), list) else []
        presentation, link = _object(body, LTI + "launch_presentation"), _object(body, LTI + "resource_link")
        name = body.get("name") or " ".join(str(body.get(k, "")) for k in ("given_name", "family_name")).strip()
        return cls(
            subject=str(body.get("sub", ""))[:255],
            name=str(name or body.get("preferred_username") or "")[:200],
            role=course_role(body.get(LTI + "roles")),
            lang=language(body, default_lang),
            context_id=str(context["id"])[:255] if context.get("id") else None,
            context_title=str(context.get("title") or context.get("label") or "")[:255],
            resource=resource(body),
            memberships_url=str(nrps["context_memberships_url"])[:500] if nrps.get("context_memberships_url") else None,
            lineitems_url=str(ags["lineitems"])[:500] if isinstance(ags.get("lineitems"), str) else None,
            ags_scopes=" ".join(scopes)[:500],
            document_target=str(presentation.get("document_target", "")),
            message_type=str(body.get(LTI + "message_type", "")),
            resource_link_title=str(link.get("title") or "")[:200],
        )
