"""``/docs``: the API page, served with no request leaving the machine.

FastAPI's own page loads Swagger UI from a CDN, so offline it is blank. Here its files come
from the ``fastapi-offline`` wheel, read once and served by name from a fixed set. The
console's link opens the page beside it (``target="_blank"``), never in place of it.
``/redoc`` sends the reader to ``/docs``: ReDoc, even bundled, fetches its logo from its CDN.
"""

from __future__ import annotations

from functools import cache
from importlib.resources import files

from fastapi import FastAPI
from fastapi.openapi.docs import get_swagger_ui_html
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from inbox_triage.server.errors import error_response

FILES = {
    "swagger-ui-bundle.js": "text/javascript; charset=utf-8",
    "swagger-ui.css": "text/css; charset=utf-8",
}
REPLACED = {"/docs", "/docs/oauth2-redirect", "/redoc"}


@cache
def _file(name: str) -> bytes:
    return (files("fastapi_offline") / "static" / name).read_bytes()


def add_api_docs(app: FastAPI) -> None:
    """Replaces FastAPI's CDN-backed ``/docs`` with the offline page (``/redoc`` leads there)."""
    app.router.routes = [r for r in app.router.routes if getattr(r, "path", None) not in REPLACED]

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
