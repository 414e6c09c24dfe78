"""``/docs``: the API page, served with no request leaving the machine, and the real request
and response schemas behind it (``/openapi.json``).

FastAPI's own page loads Swagger UI from a CDN, so offline it is blank. Here its files come
from the ``fastapi-offline`` wheel, read once and served by name from a fixed set. The
console's link opens the page beside it (``target="_blank"``), never in place of it.
``/redoc`` sends the reader to ``/docs``: ReDoc, even bundled, fetches its logo from its CDN.

FastAPI sees no model on the routes that read their JSON by hand (``server/api_models.py``
says why): :data:`ROUTES` says what each takes and answers, with examples that "Try it out"
can send, and :func:`add_api_docs` writes it into the schema. Nothing here changes what a
route does.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache
from importlib.resources import files
from typing import Any, Literal

from fastapi import FastAPI
from fastapi.openapi.docs import get_swagger_ui_html
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from pydantic import BaseModel
from pydantic.json_schema import models_json_schema

from inbox_triage.models import TriageState
from inbox_triage.server.api_models import (
    baseline_answer_model,
    baseline_model,
    console_models,
    error_model,
    reset_model,
    step_answer_model,
    step_model,
)
from inbox_triage.server.errors import error_response
from inbox_triage.server.sessions import SESSION_ID

FILES = {
    "swagger-ui-bundle.js": "text/javascript; charset=utf-8",
    "swagger-ui.css": "text/css; charset=utf-8",
}
REPLACED = {"/docs", "/docs/oauth2-redirect", "/redoc"}


@cache
def _file(name: str) -> bytes:
    return (files("fastapi_offline") / "static" / name).read_bytes()


# ------------------------------------------------------------------------------------ routes
HACKED = {
    "action_type": "triage_email",
    "email_id": "e001",
    "priority": "urgent",
    "category": "customer_complaint",
    "route_to": "support_tier2",
    "summary": "Account hacked, needs immediate lock.",
    "flag_review": True,
    "reply_draft": "We are sorry for the trouble. We have locked your account to keep it safe "
    "and our security team is restoring your access now; we will confirm within the hour.",
}
# Named examples; the first is what "Try it out" fills in. A step example plays in the episode
# that the reset example of the same name starts (the first: a reset with no body at all).
RESET_EXAMPLES: dict[str, dict[str, Any]] = {
    "triage": {},
    "ticket": {"task": "ticket/easy_password_reset"},
    "inbox": {"task": "inbox/medium_billing_bug_mix"},
    "generated": {"mode": "inbox", "split": "test", "difficulty": "hard", "seed": 7},
}
STEP_EXAMPLES: dict[str, dict[str, Any]] = {
    "triage": {"action": HACKED},
    "ticket": {"action": {"action_type": "set_priority", "value": "medium"}},
    "inbox": {
        "action": {
            "action_type": "classify_ticket",
            "ticket_id": "T-210",
            "priority": "high",
            "queue": "billing",
        }
    },
    "generated": {"action": {"action_type": "finish"}},
}
BASELINE_EXAMPLES: dict[str, dict[str, Any]] = {
    "fixed tasks": {"agent": "heuristic"},
    "generated": {"agent": "random", "tasks": ["inbox/generated"], "episodes": 3, "seed": 1},
}


@dataclass(frozen=True)
class Param:
    name: str
    where: Literal["query", "header"]
    description: str
    schema: dict[str, Any] = field(default_factory=lambda: {"type": "string"})
    required: bool = False


SESSION_HEADER = Param(
    "X-Session-Id",
    "header",
    "The HTTP session (a session_id field or query parameter does the same).",
    {"type": "string", "pattern": SESSION_ID.pattern},
)
TAB_HEADER = Param(
    "X-Session-Id",
    "header",
    "The tab's session (POST /sessions mints one).",
    {"type": "string", "pattern": SESSION_ID.pattern},
    required=True,
)
GRADE = {"type": "number", "minimum": 0, "maximum": 1}


def _record_params(prefix: str = "", which: str = "") -> tuple[Param, ...]:
    return (
        Param(f"{prefix}run", "query", f"A run the server shows{which}.", required=True),
        Param(f"{prefix}key", "query", f"The episode's key in that run{which}.", required=True),
    )


@dataclass(frozen=True)
class RouteDoc:
    """What one route takes and answers (models are made when the schema is first asked for)."""

    answer: Any  # a function giving the model, or None for an empty answer
    body: Any = None
    examples: Mapping[str, dict[str, Any]] | None = None
    params: tuple[Param, ...] = ()
    status: int = 200
    errors: tuple[int, ...] = (422,)
    description: str = ""


ROUTES: dict[tuple[str, str], RouteDoc] = {
    ("post", "/reset"): RouteDoc(
        step_answer_model,
        reset_model,
        RESET_EXAMPLES,
        (SESSION_HEADER,),
        errors=(400, 413, 422, 503),
        description="With no body: triage/easy, as the seeds expect. The answer's observation "
        "carries the action schema and the vocabulary of the episode.",
    ),
    ("post", "/step"): RouteDoc(
        step_answer_model,
        step_model,
        STEP_EXAMPLES,
        (SESSION_HEADER,),
        errors=(400, 404, 409, 413),
        description="An action the episode refuses is still a step: the answer's "
        "observation.last_action_error says which field and what it allows.",
    ),
    ("get", "/state"): RouteDoc(lambda: TriageState, params=(SESSION_HEADER,), errors=(400, 404)),
    ("post", "/baseline"): RouteDoc(
        baseline_answer_model,
        baseline_model,
        BASELINE_EXAMPLES,
        errors=(403, 409, 422, 503),
        description="Runs a built-in agent in the server, one run at a time, within a time limit.",
    ),
    ("post", "/web/api/leave"): RouteDoc(None, params=(TAB_HEADER,), status=204, errors=(404,)),
    ("get", "/web/api/resume"): RouteDoc(
        lambda: console_models()["resume"], params=(TAB_HEADER,), errors=(400, 404, 409)
    ),
    ("get", "/web/api/limits"): RouteDoc(
        lambda: console_models()["limits"], params=(TAB_HEADER,), errors=(400, 404, 409)
    ),
    ("get", "/web/api/setup"): RouteDoc(lambda: console_models()["setup"], errors=()),
    ("get", "/web/api/episodes"): RouteDoc(
        lambda: console_models()["episodes"],
        params=(
            Param("run", "query", "Only this run's episodes."),
            Param("agent", "query", "Only this agent's episodes."),
            Param("task", "query", "Only this task's episodes."),
            Param("min_grade", "query", "The lowest grade listed.", GRADE),
            Param("max_grade", "query", "The highest grade listed.", GRADE),
        ),
    ),
    ("get", "/web/api/replay"): RouteDoc(
        lambda: console_models()["replay"], params=_record_params()
    ),
    ("get", "/web/api/compare"): RouteDoc(
        lambda: console_models()["compare"],
        params=(*_record_params("a_", " (the first)"), *_record_params("b_", " (the second)")),
    ),
}
ERRORS = {
    400: "A malformed request (not JSON, a bad session id).",
    403: "Not allowed on this server.",
    404: "No such session or episode.",
    409: "Not now (no episode yet, the episode has ended, a run in progress).",
    413: "The body is too large.",
    422: "A field the route cannot use.",
    503: "The server is full, or a service it needs did not answer.",
}


def _json(ref: dict[str, Any]) -> dict[str, Any]:
    return {"application/json": {"schema": ref}}


def document(schema: dict[str, Any]) -> dict[str, Any]:
    """Writes :data:`ROUTES` into FastAPI's schema (in place) and returns it."""
    wanted: list[tuple[type[BaseModel], Literal["validation", "serialization"]]] = []
    for doc in ROUTES.values():
        if doc.body is not None:
            wanted.append((doc.body(), "validation"))
        if doc.answer is not None:
            wanted.append((doc.answer(), "serialization"))
    wanted.append((error_model(), "serialization"))
    refs, definitions = models_json_schema(wanted, ref_template="#/components/schemas/{model}")
    components = schema.setdefault("components", {}).setdefault("schemas", {})
    for name, definition in definitions.get("$defs", {}).items():
        if name in components and components[name] != definition:
            raise ValueError(f"two schemas are named {name}")
        components[name] = definition
    error = _json(refs[error_model(), "serialization"])
    for (method, path), doc in ROUTES.items():
        operation = schema["paths"][path][method]
        if doc.description:
            operation["description"] = doc.description
        parameters = [p for p in operation.get("parameters", []) if p["in"] == "path"]
        for param in doc.params:
            parameters.append(
                {
                    "name": param.name,
                    "in": param.where,
                    "required": param.required,
                    "description": param.description,
                    "schema": param.schema,
                }
            )
        if parameters:
            operation["parameters"] = parameters
        if doc.body is not None:
            content = _json(refs[doc.body(), "validation"])
            if doc.examples:
                content["application/json"]["examples"] = {
                    name: {"summary": name, "value": value} for name, value in doc.examples.items()
                }
            operation["requestBody"] = {"required": False, "content": content}
        answer: dict[str, Any] = {"description": "Success" if doc.status == 200 else "Done"}
        if doc.answer is not None:
            answer["content"] = _json(refs[doc.answer(), "serialization"])
        operation["responses"] = {
            str(doc.status): answer,
            **{str(code): {"description": ERRORS[code], "content": error} for code in doc.errors},
        }
    return schema


def add_api_docs(app: FastAPI) -> None:
    """Replaces FastAPI's CDN-backed ``/docs`` with the offline page (``/redoc`` leads there),
    and makes ``/openapi.json`` say what the hand-read routes take and answer."""
    app.router.routes = [r for r in app.router.routes if getattr(r, "path", None) not in REPLACED]
    documented: list[dict[str, Any]] = []

    def openapi() -> dict[str, Any]:
        schema = FastAPI.openapi(app)  # cached there until the routes change
        if not documented or documented[0] is not schema:
            documented[:] = [document(schema)]
        return schema

    app.openapi = openapi  # type: ignore[method-assign]

    @app.get("/docs", include_in_schema=False)
    async def docs() -> HTMLResponse:
        return get_swagger_ui_html(
            openapi_url=app.openapi_url or "/openapi.json",
            title="inbox-triage API",
            swagger_js_url="/web/swagger/swagger-ui-bundle.js",
            swagger_css_url="/web/swagger/swagger-ui.css",
            swagger_favicon_url="data:,",
        )

    @app.get("/redoc", include_in_schema=False)
    async def redoc() -> RedirectResponse:
        return RedirectResponse("/docs", status_code=307)

    @app.get("/web/swagger/{name}", include_in_schema=False)
    async def swagger_file(name: str) -> Response:
        if name not in FILES:
            return error_response(404, "file", "no such file", sorted(FILES))
        return Response(_file(name), media_type=FILES[name])
