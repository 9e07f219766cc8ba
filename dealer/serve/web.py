"""The requests and answers every face of the server shares: the language asked for, the pages'
words and rendering from the one Jinja environment, refusals with their statuses, form bodies and
the device cookie."""

from __future__ import annotations

import functools
import sys
import urllib.parse
from typing import Any

from starlette.requests import ClientDisconnect, Request
from starlette.responses import HTMLResponse, JSONResponse, Response

from dealer.app import live
from dealer.errors import EnvironmentProblem, FileProblem, Rejected, UserError
from dealer.render.strings import Strings, strings
from dealer.render.templates import environment
from dealer.words import Words

DEVICE_COOKIE = "sjd_device"
DIRECTOR_COOKIE = "sjd_director"
LANGS = ("zh", "en")
#: Fields a form may carry: a table's confirmation names its 16 boards, the console's forms fewer
#: than 20 fields; above it, 413 (parse_qsl would raise, and the answer was a 500).
MAX_FIELDS = 200
#: A field's code name → the page's word for it, where the page's word has another key.
FIELD_WORDS = {"round": "console_f_round", "match": "console_f_match", "table": "console_f_table",
               "board": "console_f_board", "team": "console_f_team", "reason": "console_reason",
               "minutes": "console_f_minutes", "set": "console_f_set", "kind": "console_f_kind",
               "amount": "console_f_amount", "choice": "console_f_choice", "declarer": "field_declarer",
               "level": "field_level", "ns_team": "side_NS", "ew_team": "side_EW", "home_team": "field_home_team",
               "away_team": "field_away_team", "note": "field_note", "entered_by": "field_entered_by",
               "code": "field_code", "slot": "console_f_board"}


class PageWords(Words):
    """The messages as the pages say them: a refused field named by its label on the page
    (抓分), never by its code name (``defenders_points``)."""

    def label(self, field: str) -> str:
        t = page_words(self.lang)
        return str(t.get(FIELD_WORDS.get(field, field), t.get("field_value")))


@functools.cache
def words(lang: str) -> PageWords:
    """The serve faces' messages (:class:`PageWords`)."""
    return PageWords(lang)


class ClientGone(Exception):
    """The client hung up before its request's body arrived: nobody is left to answer."""


def lang_of(request: Request) -> str:
    if not request.scope.get("query_string"):
        return "zh"  # most requests (a phone's posts): no query to parse
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


def error_text(error: UserError, lang: str) -> tuple[str, list[str]]:
    """A refusal's message and problems as a page says them. A file or the machine refusing
    (the results database, the disk) is said without its path or the store's words: those go
    to the server's own terminal, for the director."""
    w = words(lang)
    if isinstance(error, FileProblem | EnvironmentProblem):
        print(f"dealer serve: {words('en').text(error.key, error.params)}", file=sys.stderr, flush=True)
        return w.text("serve.server_problem"), []
    if isinstance(error, Rejected):
        return w.message(error).split("\n")[0], [p.text(w) for p in error.problems]
    return w.text(error.key, error.params), []


def refused(request: Request, error: UserError, lang: str) -> Response:
    status = _error_status(error)
    message, problems = error_text(error, lang)
    if wants_json(request):
        return JSONResponse({"ok": False, "status": status, "key": error.key, "message": message,
                             "problems": problems, "field": getattr(error, "field", None)}, status_code=status)
    return render("refused.html", {"status": status, "message": message, "problems": problems}, lang, status)


def wants_json(request: Request) -> bool:
    return "application/json" in request.headers.get("accept", "")


async def form_of(request: Request) -> dict[str, list[str]]:
    """An ``application/x-www-form-urlencoded`` body (the only kind the pages post), bounded by the
    guard; repeated fields kept (the boards to confirm). :class:`ClientGone` when the client hung
    up mid-body; 413 beyond :data:`MAX_FIELDS` fields."""
    try:
        body = (await request.body()).decode("utf-8", "replace")
    except ClientDisconnect:
        raise ClientGone() from None
    found: dict[str, list[str]] = {}
    try:
        pairs = urllib.parse.parse_qsl(body, keep_blank_values=True, max_num_fields=MAX_FIELDS)
    except ValueError:  # more fields than allowed
        raise live.LiveRefused("serve.too_many_fields", 413, limit=MAX_FIELDS) from None
    for name, value in pairs:
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


