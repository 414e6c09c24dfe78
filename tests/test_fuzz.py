"""Fuzzing the server: every OpenAPI operation with schemathesis (in process), raw HTTP bodies,
headers and session ids against a real server, and malformed WebSocket frames.

The property everywhere: bad input gets a 4xx or an error message, never a 5xx, a hang or a dead
server, and a normal episode (reset triage/easy, one valid step) still plays afterwards.

What the WebSocket does with frames that are not a JSON object (a binary frame, a JSON array,
string, number or null) is OpenEnv's: it answers one ``SESSION_ERROR`` and closes the connection
normally (code 1000). These tests pin that down and check the server survives it. OpenEnv's
Task API routes answer 501 for this environment (it implements none of them): tolerated, and
only that 5xx.
"""

from __future__ import annotations

import contextlib
import json
import socket
import string
from collections.abc import Iterator
from typing import Any
from urllib.parse import quote

import httpx
import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from live_server import running_server
from schemathesis.checks import not_a_server_error
from starlette.testclient import TestClient
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import ClientConnection, connect

from inbox_triage.models import TriageAction
from inbox_triage.server.app import MAX_BODY_BYTES, build_app
from inbox_triage.server.sessions import RESET_FIELDS

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

# A valid first step on triage/easy (the Email Triage seed's own example).
VALID_ACTION = {
    "email_id": "e001",
    "priority": "urgent",
    "category": "customer_complaint",
    "route_to": "support_tier2",
    "summary": "Account hacked, needs immediate lock.",
    "flag_review": True,
    "reply_draft": "We are securing your account immediately.",
}
KNOBS = ["size", "ambiguity", "arrival_rate", "duplicate_rate", "sla_tightness"]
ACTION_FIELDS = sorted(TriageAction.model_fields)
TASKS = [
    "triage/easy",
    "triage/hard",
    "inbox/generated",
    "ticket/generated",
    "triage/pack_x",
    "medium_billing_bug_mix",
    "nope",
    "",
    "inbox/",
    "/",
    "triage/generated",
]
# Sized so the whole file runs in well under a minute and a half.
HTTP_FUZZ = settings(max_examples=250, deadline=None, suppress_health_check=list(HealthCheck))
WS_FUZZ = settings(max_examples=250, deadline=None, suppress_health_check=list(HealthCheck))

# ----------------------------------------------------------------------------- strategies
json_scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=30)
)
json_values = st.recursive(
    json_scalars,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner, max_size=4)
    ),
    max_leaves=12,
)
# Values more likely to reach the environment: the vocabulary's own words, ids, tasks.
plausible = (
    json_values
    | st.sampled_from(TASKS)
    | st.sampled_from(
        [
            "triage",
            "inbox",
            "ticket",
            "train",
            "validation",
            "test",
            "easy",
            "medium",
            "hard",
            "e001",
            "T-210",
            "urgent",
            "high",
            "billing",
            "finish",
            "classify_ticket",
            "triage_email",
            "close_ticket",
        ]
    )
    | st.integers(min_value=-3, max_value=300)
)
reset_bodies = st.dictionaries(
    st.sampled_from(sorted(RESET_FIELDS) + KNOBS + ["session_id", "colour"]),
    plausible,
    max_size=5,
)
step_bodies = st.dictionaries(
    st.sampled_from([*ACTION_FIELDS, "session_id", "action", "colour"]),
    plausible,
    max_size=5,
) | st.fixed_dictionaries(
    {"action": st.dictionaries(st.sampled_from(ACTION_FIELDS), plausible, max_size=4)}
)
odd_ids = st.text(max_size=80) | st.sampled_from(
    ["default", "..", ".", "a" * 64, "a" * 65, "-", "s-0000", "null", "%2F", "a/b", " ", "\u00e9"]
)
header_ids = st.text(
    alphabet=string.ascii_letters + string.digits + string.punctuation + " ", max_size=80
).map(str.strip)  # HTTP trims the ends anyway
CONTENT_TYPES = [
    None,
    "application/json",
    "text/plain",
    "application/x-www-form-urlencoded",
    "multipart/form-data; boundary=x",
    "application/json; charset=latin-1",
    "application/octet-stream",
    "garbage",
]


@st.composite
def raw_bodies(draw: st.DrawFn, fields: st.SearchStrategy[dict[str, Any]]) -> bytes:
    """A body: JSON of the route's own fields, any JSON value, any bytes, or a huge string."""
    kind = draw(st.sampled_from(["fields", "json", "bytes", "huge", "empty", "truncated"]))
    if kind == "fields":
        return json.dumps(draw(fields)).encode()
    if kind == "json":
        return json.dumps(draw(json_values)).encode()
    if kind == "bytes":
        return draw(st.binary(max_size=200))
    if kind == "huge":
        size = draw(st.sampled_from([MAX_BODY_BYTES - 20, MAX_BODY_BYTES + 1, 300_000]))
        key = draw(st.sampled_from(["task", "summary", "session_id", "colour"]))
        return json.dumps({key: "x" * size}).encode()
    if kind == "truncated":
        return json.dumps(draw(fields))[:-1].encode()
    return b""


_NONE = object()  # no session_id field in the body


@st.composite
def session_placement(draw: st.DrawFn) -> tuple[dict[str, str], dict[str, str], Any]:
    """(headers, query, body session_id or a sentinel for none) naming an odd session id."""
    where = draw(st.sampled_from(["none", "header", "query", "body", "all"]))
    headers: dict[str, str] = {}
    query: dict[str, str] = {}
    body: Any = _NONE
    if where in ("header", "all"):
        headers["X-Session-Id"] = draw(header_ids)
    if where in ("query", "all"):
        query["session_id"] = draw(odd_ids)
    if where in ("body", "all"):
        body = draw(odd_ids | json_values)
    return headers, query, body


# ----------------------------------------------------------------------------- helpers
def plays_normally(client: httpx.Client | TestClient) -> None:
    """The default session plays: reset triage/easy, one valid step, a grade."""
    reset = client.post("/reset", json={"task": "triage/easy"})
    assert reset.status_code == 200, reset.text
    assert reset.json()["observation"]["task_id"] == "triage/easy"
    step = client.post("/step", json=VALID_ACTION)
    assert step.status_code == 200, step.text
    assert step.json()["reward"] > 0
    assert client.get("/grader").status_code == 200


def raw_status(http: httpx.Client, request: bytes) -> int:
    """The status a raw request gets (httpx refuses to send a malformed one)."""
    with socket.create_connection((http.base_url.host, http.base_url.port), timeout=15) as sock:
        sock.sendall(request)
        head = sock.recv(4096)
    return int(head.split(b" ", 2)[1])


def assert_not_5xx(response: httpx.Response) -> None:
    assert response.status_code < 500, (
        response.request.method,
        response.request.url,
        response.status_code,
        response.text[:500],
    )


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    # Room for every session the fuzzing opens: a full server's 503 is by design.
    with running_server("--max-sessions", "100000") as url:
        yield url


@pytest.fixture(scope="module")
def http(server: str) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=server, timeout=15.0) as client:
        yield client


# ----------------------------------------------------------------------------- schemathesis
APP = build_app(max_sessions=100_000, idle_timeout_s=None)
SCHEMA = schemathesis.openapi.from_asgi("/openapi.json", APP)
APP_CLIENT = TestClient(APP, raise_server_exceptions=False)


# OpenEnv's Task API (`/{env_name}/splits`, `/tasks`, `/num_tasks`, `/task`, `/task_range`)
# answers 501 "... is not supported for this environment" while InboxTriageEnv leaves
# list_splits/list_tasks/num_tasks/get_task/get_task_range unimplemented: a deliberate
# "not implemented", tolerated here (and only that), never a 500.
def is_unsupported_task_api(path: str, response: Any) -> bool:
    return (
        response.status_code == 501
        and path.startswith("/{env_name}/")
        and "is not supported for this environment" in response.json()["detail"]
    )


@SCHEMA.parametrize()
@settings(max_examples=50, deadline=None, suppress_health_check=list(HealthCheck))
def test_every_openapi_operation_answers_without_a_server_error(case):
    response = case.call()
    if not is_unsupported_task_api(case.operation.path, response):
        case.validate_response(response, checks=[not_a_server_error])
    plays_normally(APP_CLIENT)


@pytest.mark.parametrize(
    "route, body",
    [
        ("splits", None),
        ("tasks", {"split": "test"}),
        ("num_tasks", {"split": "test"}),
        ("task", {"split": "test", "index": 0}),
        ("task_range", {"split": "test", "start": 0, "stop": 2}),
    ],
)
def test_the_task_api_for_our_env_is_a_501_or_an_answer_never_a_500(route, body):
    if body is None:
        response = APP_CLIENT.get(f"/inbox_triage/{route}")
    else:
        response = APP_CLIENT.post(f"/inbox_triage/{route}", json=body)
    assert response.status_code == 200 or is_unsupported_task_api("/{env_name}/", response), (
        response.status_code,
        response.text,
    )
    assert APP_CLIENT.get("/not_our_env/splits").status_code == 404


# ----------------------------------------------------------------------------- raw HTTP
@HTTP_FUZZ
@given(
    route=st.sampled_from(["/reset", "/step", "/sessions"]),
    body=st.data(),
    content_type=st.sampled_from(CONTENT_TYPES),
    placement=session_placement(),
)
def test_posted_bodies_never_get_a_server_error(http, route, body, content_type, placement):
    headers, query, body_id = placement
    fields = reset_bodies if route == "/reset" else step_bodies
    raw = body.draw(raw_bodies(fields))
    if body_id is not _NONE and raw.startswith(b"{"):
        try:
            data = json.loads(raw)
        except ValueError:  # not JSON, or not even UTF-8 (b'{\x80')
            pass
        else:
            raw = json.dumps({**data, "session_id": body_id}).encode()
    if content_type is not None:
        headers = {**headers, "Content-Type": content_type}
    assert_not_5xx(http.post(route, content=raw, headers=headers, params=query))
    plays_normally(http)


@HTTP_FUZZ
@given(
    method_route=st.sampled_from(
        [
            ("GET", "/state"),
            ("GET", "/grader"),
            ("DELETE", None),
            ("POST", "/step"),
            ("POST", "/reset"),
        ]
    ),
    placement=session_placement(),
    session_id=odd_ids,
)
def test_odd_session_ids_never_get_a_server_error(http, method_route, placement, session_id):
    method, route = method_route
    headers, query, body_id = placement
    if route is None:
        route = "/sessions/" + quote(session_id, safe="")
    body = None if body_id is _NONE else json.dumps({"session_id": body_id}).encode()
    assert_not_5xx(http.request(method, route, headers=headers, params=query, content=body))
    plays_normally(http)


def test_body_framing_edge_cases_never_get_a_server_error(http):
    big = json.dumps({"task": "x" * 1_000_000}).encode()

    def chunks() -> Iterator[bytes]:  # no Content-Length: the route itself has to count
        for start in range(0, len(big), 65536):
            yield big[start : start + 65536]

    for route in ("/reset", "/step"):
        chunked = http.post(route, content=chunks())
        assert chunked.status_code == 413, chunked.text
        for length in (b"abc", b"-1", b"99999999999999999999", b" 2", b"1", b"0", b"2, 2"):
            status = raw_status(
                http,
                b"POST " + route.encode() + b" HTTP/1.1\r\nHost: x\r\n"
                b"Content-Length: " + length + b"\r\n\r\n{}",
            )
            assert status < 500, (route, length, status)
        assert_not_5xx(http.post(route, json=["a", "list"]))
        assert_not_5xx(http.post(route, content='{"task": "\u00e9"}'.encode("latin-1")))
    # A session opened and closed twice; state and grader on a fresh, unreset session.
    opened = http.post("/sessions")
    assert opened.status_code == 201
    sid = opened.json()["session_id"]
    assert http.get("/state", headers={"X-Session-Id": sid}).status_code == 200
    assert http.get("/grader", headers={"X-Session-Id": sid}).status_code == 409
    assert http.post("/step", headers={"X-Session-Id": sid}, json=VALID_ACTION).status_code == 409
    assert http.delete(f"/sessions/{sid}").status_code == 200
    assert http.delete(f"/sessions/{sid}").status_code == 404
    plays_normally(http)


# ----------------------------------------------------------------------------- WebSocket
def ws_url(server: str) -> str:
    return server.replace("http://", "ws://", 1) + "/ws"


def open_ws(server: str) -> ClientConnection:
    # No size limit here: validation errors echo the input, so answers can be as big as frames.
    return connect(ws_url(server), max_size=None, open_timeout=10, close_timeout=5)


def ask(ws: ClientConnection, frame: str | bytes) -> dict[str, Any]:
    ws.send(frame)
    return json.loads(ws.recv(timeout=15))


def closes_after_one_error(ws: ClientConnection, frame: str | bytes) -> None:
    """OpenEnv's answer to a frame that is not a JSON object: one error, then a normal close."""
    answer = ask(ws, frame)
    assert answer["type"] == "error" and answer["data"]["code"] == "SESSION_ERROR", answer
    with pytest.raises(ConnectionClosed) as closed:
        ws.recv(timeout=15)
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 1000


def plays_a_ws_episode(server: str) -> None:
    with open_ws(server) as ws:
        reset = ask(ws, json.dumps({"type": "reset", "data": {"task": "triage/easy"}}))
        assert reset["type"] == "observation", reset
        assert reset["data"]["observation"]["task_id"] == "triage/easy"
        step = ask(ws, json.dumps({"type": "step", "data": VALID_ACTION}))
        assert step["type"] == "observation", step
        assert step["data"]["observation"]["last_action_error"] is None
        assert step["data"]["reward"] > 0


def test_malformed_websocket_frames_get_errors_and_the_connection_stays(server):
    with open_ws(server) as ws:

        def code(frame: str) -> str:
            answer = ask(ws, frame)
            assert answer["type"] == "error", answer
            return answer["data"]["code"]

        assert code("{not json") == "INVALID_JSON"
        assert code("") == "INVALID_JSON"
        assert code("x" * 1_000_000) == "INVALID_JSON"  # ~1 MB
        assert code(json.dumps({"type": "teleport"})) == "UNKNOWN_TYPE"
        assert code(json.dumps({"data": {}})) == "UNKNOWN_TYPE"  # no type at all
        assert code(json.dumps({"type": ["reset"]})) == "UNKNOWN_TYPE"
        assert code(json.dumps({"type": 7, "data": None})) == "UNKNOWN_TYPE"
        assert code(json.dumps({"type": "step"})) == "VALIDATION_ERROR"  # no data
        assert code(json.dumps({"type": "step", "data": "finish"})) == "VALIDATION_ERROR"
        assert code(json.dumps({"type": "reset", "data": []})) == "VALIDATION_ERROR"
        assert code(json.dumps({"type": "state", "data": 5})) == "VALIDATION_ERROR"
        # An object of fields is an action: the episode answers it, as over HTTP and
        # in-process (here, with no episode yet, by saying so).
        huge = {"summary": "s" * 1_000_000}  # ~1 MB, over MAX_TEXT
        for action in ({"flag_review": "maybe"}, huge):
            answer = ask(ws, json.dumps({"type": "step", "data": action}))
            assert answer["type"] == "observation", answer
            assert answer["data"]["observation"]["last_action_error"]["field"] == "episode"
            assert "sss" not in json.dumps(answer)
        for bad in (
            {"task": "nope"},
            {"task": 5},
            {"mode": "triage", "seed": -1},
            {"mode": "triage", "size": 10**9},
            {"mode": "triage", "difficulty": [1]},
            {"task": "triage/easy", "split": "test"},
            {"task": "x" * 100_000},
        ):
            assert code(json.dumps({"type": "reset", "data": bad})) == "EXECUTION_ERROR", bad
        # Before any reset a step is refused inside an observation, as in-process.
        early = ask(ws, json.dumps({"type": "step", "data": {"action_type": "finish"}}))
        assert early["type"] == "observation"
        assert early["data"]["observation"]["last_action_error"]["field"] == "episode"
        state = ask(ws, json.dumps({"type": "state"}))
        assert state["type"] == "state" and state["data"]["step_count"] == 0
        # The same connection still plays an episode after all that.
        reset = ask(ws, json.dumps({"type": "reset", "data": {"task": "triage/easy"}}))
        assert reset["type"] == "observation"
        step = ask(ws, json.dumps({"type": "step", "data": VALID_ACTION}))
        assert step["data"]["reward"] > 0
    plays_a_ws_episode(server)


@pytest.mark.parametrize(
    "frame",
    [b"\x00\x01\xff", b'{"type": "reset", "data": {}}', "[1, 2]", "null", '"reset"', "42", "true"],
    ids=["binary", "binary-json", "array", "null", "string", "number", "bool"],
)
def test_frames_that_are_not_json_objects_end_only_their_own_connection(server, frame):
    with open_ws(server) as bystander, open_ws(server) as ws:
        reset = ask(bystander, json.dumps({"type": "reset", "data": {"task": "triage/easy"}}))
        assert reset["type"] == "observation"
        closes_after_one_error(ws, frame)
        with pytest.raises(ConnectionClosed):
            ws.send(json.dumps({"type": "state"}))
        # Another connection's episode is untouched.
        step = ask(bystander, json.dumps({"type": "step", "data": VALID_ACTION}))
        assert step["type"] == "observation" and step["data"]["reward"] > 0
    plays_a_ws_episode(server)


@pytest.mark.parametrize(
    "session_id", ["nope", "default", "s-0000000000000000", "../x", "a" * 2000, "%00", "\u00e9"]
)
def test_attaching_to_an_unknown_session_is_refused_and_closed(server, session_id):
    url = ws_url(server) + "?session_id=" + quote(session_id, safe="")
    with connect(url, max_size=None, open_timeout=10, close_timeout=5) as ws:
        answer = json.loads(ws.recv(timeout=15))
        assert answer["type"] == "error" and answer["data"]["code"] == "SESSION_ERROR", answer
        with pytest.raises(ConnectionClosed):
            ws.recv(timeout=15)
    plays_a_ws_episode(server)


def test_close_then_keep_sending(server):
    with open_ws(server) as ws:
        assert ask(ws, json.dumps({"type": "reset", "data": {}}))["type"] == "observation"
        ws.send(json.dumps({"type": "close"}))
        with pytest.raises(ConnectionClosed):
            ws.recv(timeout=15)
        with pytest.raises(ConnectionClosed):
            for _ in range(3):
                ws.send(json.dumps({"type": "step", "data": VALID_ACTION}))
    # A client that closes its side mid-stream, without waiting for answers.
    with open_ws(server) as ws:
        for _ in range(5):
            ws.send(json.dumps({"type": "reset", "data": {"mode": "inbox", "size": 30}}))
    plays_a_ws_episode(server)


class _Socket:
    """One connection reused across examples, reopened when the server closed it."""

    def __init__(self, server: str) -> None:
        self.server = server
        self.ws: ClientConnection | None = None
        self.stack = contextlib.ExitStack()

    def get(self) -> ClientConnection:
        if self.ws is None:
            self.ws = self.stack.enter_context(open_ws(self.server))
        return self.ws

    def drop(self) -> None:
        self.stack.close()
        self.ws = None


@pytest.fixture(scope="module")
def shared_ws(server: str) -> Iterator[_Socket]:
    holder = _Socket(server)
    yield holder
    holder.drop()


ws_types = st.sampled_from(["reset", "step", "state", "close", "mcp", "teleport", ""]) | json_values
ws_data = st.one_of(
    json_values,
    reset_bodies,
    st.dictionaries(st.sampled_from(ACTION_FIELDS), plausible, max_size=5),
    st.just(VALID_ACTION),
)


@st.composite
def ws_frames(draw: st.DrawFn) -> str | bytes:
    kind = draw(
        st.sampled_from(["message", "message", "message", "no-data", "json", "text", "binary"])
    )
    if kind == "message":
        return json.dumps({"type": draw(ws_types), "data": draw(ws_data)})
    if kind == "no-data":
        return json.dumps({"type": draw(ws_types)})
    if kind == "json":
        return json.dumps(draw(json_values))
    if kind == "text":
        return draw(st.text(max_size=200))
    return draw(st.binary(min_size=1, max_size=200))


def _how_it_ends(frame: str | bytes) -> str | None:
    """None: answered and the connection stays; "error": one SESSION_ERROR then a close (not a
    JSON object); "close": a bare ``{"type": "close"}``, a close with no answer."""
    if isinstance(frame, bytes):
        return "error"
    try:
        value = json.loads(frame)
    except json.JSONDecodeError:
        return None  # INVALID_JSON, and the connection stays
    if not isinstance(value, dict):
        return "error"
    return "close" if value == {"type": "close"} else None


@WS_FUZZ
@given(frames=st.lists(ws_frames(), min_size=1, max_size=6))
def test_fuzzed_websocket_frames_are_answered_or_close_only_where_openenv_does(shared_ws, frames):
    for frame in frames:
        ws = shared_ws.get()
        ws.send(frame)
        ending = _how_it_ends(frame)
        if ending is not None:
            with pytest.raises(ConnectionClosed) as closed:
                if ending == "error":
                    answer = json.loads(ws.recv(timeout=15))
                    assert answer["data"]["code"] == "SESSION_ERROR", answer
                ws.recv(timeout=15)
            assert closed.value.rcvd is not None and closed.value.rcvd.code == 1000
            shared_ws.drop()
            continue
        answer = json.loads(ws.recv(timeout=15))
        assert answer["type"] in ("observation", "error", "state", "mcp"), answer
        if answer["type"] == "error":
            assert answer["data"]["code"] in (
                "INVALID_JSON",
                "UNKNOWN_TYPE",
                "VALIDATION_ERROR",
                "EXECUTION_ERROR",
            ), answer


reset_msgs = st.builds(
    lambda data: {"type": "reset", "data": data},
    st.one_of(
        st.fixed_dictionaries({"task": st.sampled_from(TASKS)}),
        st.fixed_dictionaries(
            {
                "mode": st.sampled_from(["triage", "inbox", "ticket", "nope"]),
                "seed": st.integers(min_value=-2, max_value=50),
                "size": st.integers(min_value=-1, max_value=60),
            }
        ),
        reset_bodies,
    ),
)
step_msgs = st.builds(
    lambda data: {"type": "step", "data": data},
    st.one_of(
        st.just(VALID_ACTION),
        st.just({"action_type": "finish"}),
        st.dictionaries(st.sampled_from(ACTION_FIELDS), plausible, max_size=4),
    ),
)


@WS_FUZZ
@given(
    messages=st.lists(reset_msgs | step_msgs | st.just({"type": "state"}), min_size=1, max_size=12)
)
def test_interleaved_resets_and_steps_always_answer(shared_ws, messages):
    ws = shared_ws.get()
    for message in messages:
        answer = ask(ws, json.dumps(message))
        if message["type"] == "state":
            assert answer["type"] == "state", answer
        elif answer["type"] == "error":
            assert answer["data"]["code"] in ("VALIDATION_ERROR", "EXECUTION_ERROR"), answer
        else:
            assert answer["type"] == "observation", answer
    # The connection still plays triage/easy from the start.
    reset = ask(ws, json.dumps({"type": "reset", "data": {"task": "triage/easy"}}))
    assert reset["data"]["observation"]["task_id"] == "triage/easy"
    step = ask(ws, json.dumps({"type": "step", "data": VALID_ACTION}))
    assert step["data"]["reward"] > 0


def test_after_all_the_fuzzing_the_server_still_plays(server, http):
    plays_a_ws_episode(server)
    plays_normally(http)
    assert http.get("/healthz").json()["status"] == "healthy"
