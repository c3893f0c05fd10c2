"""An LMS for the tests, built on ``lti1p3platform`` (an independent Python implementation of the
platform side of LTI 1.3): OIDC login initiation, the signed launch, Deep Linking's return, the
OAuth2 token endpoint, Names and Role Provisioning and Assignment and Grade Services.

What is ours here is only the glue a web framework needs (routes, in-memory course data). Every JWT
the platform signs or checks goes through lti1p3platform.
"""
from __future__ import annotations

import json
import typing as t
from dataclasses import dataclass, field
from urllib.parse import parse_qs

from fastapi import FastAPI, Request
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from jwcrypto.jwk import JWK
from lti1p3platform.ltiplatform import LTI1P3PlatformConfAbstract
from lti1p3platform.membership import Context
from lti1p3platform.message_launch import LTIAdvantageMessageLaunchAbstract
from lti1p3platform.oidc_login import OIDCLoginAbstract
from lti1p3platform.registration import Registration
from lti1p3platform.request import Request as PlatformRequest
from lti1p3platform.request import TRequest
from lti1p3platform.score import UpdateScoreStatus
from lti1p3platform.service_connector import AssignmentsGradesService, NamesRoleProvisioningService

CLIENT_ID = "tool-client-7"
DEPLOYMENT_ID = "deployment-1"
LEARNER = "http://purl.imsglobal.org/vocab/lis/v2/membership#Learner"
INSTRUCTOR = "http://purl.imsglobal.org/vocab/lis/v2/membership#Instructor"
TEACHING_ASSISTANT = "http://purl.imsglobal.org/vocab/lis/v2/membership/Instructor#TeachingAssistant"


def new_key_pair() -> tuple[str, str]:
    key = JWK.generate(kty="RSA", size=2048)
    return key.export_to_pem(private_key=True, password=None).decode(), key.export_to_pem().decode()


@dataclass
class Person:
    sub: str
    name: str
    roles: list[str]
    locale: str = "en"


@dataclass
class LaunchPlan:
    """What the next launch for a login hint carries (the test sets it before the browser starts)."""

    person: Person
    context_id: str = "course-101"
    context_title: str = "CUDA 101"
    custom: dict[str, str] = field(default_factory=dict)
    deep_link: bool = False
    document_target: str = "iframe"
    expires_in: int = 300
    deployment_id: str = DEPLOYMENT_ID


class PlatformState:
    def __init__(self, tool_url: str, platform_url: str) -> None:
        self.tool_url, self.url = tool_url, platform_url
        self.private_pem, self.public_pem = new_key_pair()
        self.plans: dict[str, LaunchPlan] = {}
        self.roster: dict[str, list[Person]] = {}
        self.line_items: dict[str, dict[str, t.Any]] = {}
        self.scores: dict[str, list[dict[str, t.Any]]] = {}
        self.deep_link_items: list[dict[str, t.Any]] = []
        self.score_outage = 0  # answer the next N score posts with 503 (an LMS that is down)


def make_conf(state: PlatformState, deployment_id: str = DEPLOYMENT_ID) -> LTI1P3PlatformConfAbstract:
    class Conf(LTI1P3PlatformConfAbstract):
        def init_platform_config(self, **kwargs: t.Any) -> None:
            pass

        def get_registration_by_params(self, **kwargs: t.Any) -> Registration:
            return (Registration().set_iss(state.url).set_client_id(CLIENT_ID).set_deployment_id(deployment_id)
                    .set_oidc_login_url(f"{state.tool_url}/lti/login").set_launch_url(f"{state.tool_url}/lti/launch")
                    .set_deeplink_launch_url(f"{state.tool_url}/lti/launch")
                    .set_tool_key_set_url(f"{state.tool_url}/lti/jwks")
                    .set_platform_private_key(state.private_pem).set_platform_public_key(state.public_pem))

    conf = Conf()
    conf.get_registration()
    return conf


class PlainRequest(PlatformRequest):
    def __init__(self, data: TRequest) -> None:
        self.request = data


async def plain_request(request: Request) -> PlainRequest:
    body = await request.body()
    content_type = request.headers.get("content-type", "")
    form = {k: v[0] for k, v in parse_qs(body.decode()).items()} if "form" in content_type else {}
    payload = json.loads(body) if body and "json" in content_type else None
    return PlainRequest({"method": request.method, "form_data": form, "get_data": dict(request.query_params),
                         "headers": request.headers, "content_type": content_type,
                         "path": request.url.path, "json": payload})


def as_response(answer: t.Any) -> Response:
    return JSONResponse(answer.result, status_code=answer.code, media_type=answer.media_type) \
        if answer.result is not None else Response(status_code=answer.code)


def make_platform(state: PlatformState) -> FastAPI:
    app = FastAPI()

    @app.get("/jwks")
    def jwks() -> JSONResponse:
        return JSONResponse(make_conf(state).get_jwks())

    @app.get("/course/{hint}")
    def course_page(hint: str) -> HTMLResponse:
        """The LMS's course page with the tool in an iframe (where Canvas and Moodle put it)."""
        return HTMLResponse(f'<!doctype html><meta name="viewport" content="width=device-width">'
                            f'<h1>LMS course</h1><iframe id="tool" src="/start/{hint}" '
                            f'style="width:100%;height:600px;border:0"></iframe>')

    @app.get("/start/{hint}")
    def start(hint: str) -> Response:
        """The LMS page with the tool's link: it starts the third-party-initiated login."""
        plan = state.plans[hint]

        class Login(OIDCLoginAbstract):
            def set_lti_message_hint(self, **kwargs: t.Any) -> None:
                self._lti_message_hint = kwargs["hint"]

            def get_redirect(self, url: str) -> RedirectResponse:
                return RedirectResponse(url, status_code=302)

        login = Login(None, make_conf(state, plan.deployment_id))
        login.set_lti_message_hint(hint=hint)
        return login.initiate_login(hint)

    @app.get("/authorize")
    def authorize(request: Request) -> Response:
        """The OIDC authorisation endpoint: answers the tool's redirect with the signed launch form."""
        query = dict(request.query_params)
        plan = state.plans[query.get("lti_message_hint", "")]

        class Launch(LTIAdvantageMessageLaunchAbstract):
            def get_preflight_response(self) -> dict[str, t.Any]:
                return query

            def render_launch_form(self, launch_data: dict[str, t.Any], **kwargs: t.Any) -> HTMLResponse:
                return HTMLResponse(
                    f'<form method="post" action="{launch_data["launch_url"]}">'
                    f'<input type="hidden" name="id_token" value="{launch_data["id_token"]}">'
                    f'<input type="hidden" name="state" value="{launch_data["state"]}"></form>'
                    '<script>document.forms[0].submit()</script>')  # as an LMS does, in a browser

        launch = Launch(None, make_conf(state, plan.deployment_id))  # type: ignore[arg-type]
        person = plan.person
        launch.set_user_data(person.sub, person.roles, full_name=person.name)
        launch.set_launch_context_claim(plan.context_id, context_title=plan.context_title)
        launch.set_resource_link_claim("link-1", title="Lesson link")
        launch.set_launch_presentation_claim(document_target=plan.document_target)
        launch.set_extra_claims({"https://purl.imsglobal.org/spec/lti/claim/launch_presentation":
                                 {"document_target": plan.document_target, "locale": person.locale}})
        if plan.custom:
            launch.set_custom_parameters_claim(plan.custom)
        launch.set_nrps(f"{state.url}/nrps/{plan.context_id}")
        launch.set_ags(f"{state.url}/ags/{plan.context_id}/lineitems")
        if plan.deep_link:
            launch.set_dl(f"{state.url}/deep-link-return", title="Pick", accept_types={"ltiResourceLink"})
        launch.set_id_token_expiration(plan.expires_in)
        return launch.lti_launch()

    @app.post("/token")
    async def token(request: Request) -> JSONResponse:
        form = {k: v[0] for k, v in parse_qs((await request.body()).decode()).items()}
        return JSONResponse(make_conf(state).get_access_token(form))

    @app.post("/deep-link-return")
    async def deep_link_return(request: Request) -> HTMLResponse:
        form = {k: v[0] for k, v in parse_qs((await request.body()).decode()).items()}
        state.deep_link_items.extend(make_conf(state).validate_deeplinking_resp(form))
        return HTMLResponse("<p>saved</p>")

    @app.get("/nrps/{context_id}")
    async def nrps(context_id: str, request: Request) -> Response:
        class Roster(NamesRoleProvisioningService):
            def get_context_by_id(self) -> Context:
                return Context(id=context_id, label=context_id, title="CUDA 101")

            def get_member_data_page(self, page: int = 1, limit: int | None = None, role: str | None = None,
                                     since: str | None = None, **kwargs: t.Any) -> dict[str, t.Any]:
                people = state.roster.get(context_id, [])
                content = [{"user_id": p.sub, "name": p.name, "roles": p.roles, "status": "Active"} for p in people]
                return {"content": content, "has_next": False, "next": None}

        service = Roster(await plain_request(request), make_conf(state), f"{state.url}/nrps/{context_id}")
        return as_response(service.handle_resp(service.handle_get_members))

    def ags(request_data: PlainRequest, context_id: str, line_item: str | None = None) -> AssignmentsGradesService:
        base = f"{state.url}/ags/{context_id}/lineitems"

        class Gradebook(AssignmentsGradesService):
            def find_lineitems(self, page: int = 1, limit: int | None = None, line_item_id: str | None = None,
                               resource_link_id: str | None = None, resource_id: str | None = None,
                               tag: str | None = None, **kwargs: t.Any) -> dict[str, t.Any]:
                items = [i for i in state.line_items.values() if i["id"].startswith(base)]
                return {"content": items, "has_next": False, "next": None}

            def find_lineitem(self, line_item_id: str) -> dict[str, t.Any]:
                return state.line_items[line_item_id]

            def create_lineitem(self, creation_data: dict[str, t.Any]) -> dict[str, t.Any]:
                item = dict(creation_data, id=f"{base}/{len(state.line_items) + 1}")
                state.line_items[item["id"]] = item
                return item

            def update_lineitem(self, update_data: dict[str, t.Any]) -> dict[str, t.Any]:
                raise NotImplementedError

            def delete_lineitem(self, line_item_id: str) -> None:
                raise NotImplementedError

            def update_score(self, line_item_id: str, score: dict[str, t.Any]) -> UpdateScoreStatus:
                received = state.scores.setdefault(f"{base}/{line_item_id}", [])
                same_user = [s for s in received if s["userId"] == score["userId"]]
                if same_user and same_user[-1]["timestamp"] >= score["timestamp"]:
                    return UpdateScoreStatus.OLD_TIMESTAMP  # the spec: an older score never replaces a newer
                received.append(score)
                return UpdateScoreStatus.SUCCESS

            def get_results(self, line_item_id: str, page: int = 1, limit: int | None = None,
                            user_id: str | None = None) -> dict[str, t.Any]:
                raise NotImplementedError

        return Gradebook(request_data, make_conf(state), base, f"{base}/{line_item}" if line_item else None)

    @app.api_route("/ags/{context_id}/lineitems", methods=["GET", "POST"])
    async def line_items(context_id: str, request: Request) -> Response:
        service = ags(await plain_request(request), context_id)
        if request.method == "GET":
            answer = service.handle_resp(service.handle_get_lineitems)
            # the AGS line item container is a JSON array; lti1p3platform hands back its page object
            if answer.result is not None:
                answer.result = answer.result["content"]
            return as_response(answer)
        return as_response(service.handle_resp(service.handle_create_lineitem))

    @app.post("/ags/{context_id}/lineitems/{line_item}/scores")
    async def scores(context_id: str, line_item: str, request: Request) -> Response:
        if state.score_outage > 0:
            state.score_outage -= 1
            return Response(status_code=503)
        service = ags(await plain_request(request), context_id, line_item)
        return as_response(service.handle_resp(service.handle_update_score, line_item_id=line_item))

    return app
