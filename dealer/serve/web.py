"""The requests and answers every face of the server shares: the language asked for, the pages'
words and rendering from the one Jinja environment, refusals with their statuses, form bodies and
the device cookie."""

from __future__ import annotations

import urllib.parse
from typing import Any

from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response

from dealer.app import live
from dealer.errors import EnvironmentProblem, Rejected, UserError
from dealer.render.strings import Strings, strings
from dealer.render.templates import environment
from dealer.words import words

DEVICE_COOKIE = "sjd_device"
LANGS = ("zh", "en")


def lang_of(request: Request) -> str:
    lang = request.query_params.get("lang", "zh")
    return lang if lang in LANGS else "zh"


def page_words(lang: str) -> Strings:
    """The pages' words (``[zh.serve]`` / ``[en.serve]`` of the catalog)."""
    return Strings(strings(lang)["serve"])


def render(template: str, context: dict[str, Any], lang: str, status: int = 200, **extra: Any) -> HTMLResponse:
    html = environment().get_template("serve/" + template).render(
        c=context, t=page_words(lang), lang=lang, html_lang="zh-Hans" if lang == "zh" else "en", **extra)
    return HTMLResponse(html, status_code=status)


def refusal_page(status: int, key: str, lang: str) -> tuple[bytes, bytes]:
    """The guard's answer (a foreign Host, a cross-site post, …) as a small page."""
    message = words(lang).text(key)
    html = environment().get_template("serve/refused.html").render(
        c={"status": status, "message": message, "problems": []}, t=page_words(lang), lang=lang,
        html_lang="zh-Hans" if lang == "zh" else "en")
    return b"text/html; charset=utf-8", html.encode("utf-8")


def _error_status(error: UserError) -> int:
    if isinstance(error, live.LiveRefused):
        return error.status
    if isinstance(error, EnvironmentProblem):
        return 503
    return 400


def refused(request: Request, error: UserError, lang: str) -> Response:
    status = _error_status(error)
    w = words(lang)
    problems = [p.text(w) for p in error.problems] if isinstance(error, Rejected) else []
    message = w.text(error.key, error.params) if not isinstance(error, Rejected) else w.message(error).split("\n")[0]
    if wants_json(request):
        return JSONResponse({"ok": False, "status": status, "key": error.key, "message": message,
                             "problems": problems, "field": getattr(error, "field", None)}, status_code=status)
    return render("refused.html", {"status": status, "message": message, "problems": problems}, lang, status)


def wants_json(request: Request) -> bool:
    return "application/json" in request.headers.get("accept", "")


async def form_of(request: Request) -> dict[str, list[str]]:
    """An ``application/x-www-form-urlencoded`` body (the only kind the pages post), bounded by the
    guard; repeated fields kept (the boards to confirm)."""
    body = (await request.body()).decode("utf-8", "replace")
    found: dict[str, list[str]] = {}
    for name, value in urllib.parse.parse_qsl(body, keep_blank_values=True, max_num_fields=200):
        found.setdefault(name, []).append(value)
    return found


def one(form: dict[str, list[str]], name: str) -> str:
    values = form.get(name)
    return values[-1] if values else ""


def device_of(request: Request) -> tuple[live.Device, bool]:
    """The request's device (its cookie, or a new id: ``True`` when the cookie must be set)."""
    cookie = request.cookies.get(DEVICE_COOKIE, "")
    new = not (8 <= len(cookie) <= 40 and cookie.replace("-", "").replace("_", "").isalnum())
    device_id = live.new_device_id() if new else cookie
    client = request.client
    return live.Device(device_id, client.host if client else None, request.headers.get("user-agent")), new


def with_device(response: Response, device: live.Device, new: bool) -> Response:
    if new:
        response.set_cookie(DEVICE_COOKIE, device.id, max_age=86400 * 3, httponly=True, samesite="lax", path="/")
    return response


