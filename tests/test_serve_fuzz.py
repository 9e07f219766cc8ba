"""``dealer serve`` under random requests (issue 35; review reliability-4 row 1: 46 × 500 and 68
tracebacks in 11,864 fuzzed requests): every route of the table, the console, the live pages and
the static files, with the nonces their pages hold and fuzzed fields, values and bodies (non-UTF-8,
NUL, full-width and other digits, hundreds of repeated fields, a body cut short). Every answer is
2xx, 3xx or 4xx: an exception escaping the application would fail the request here (httpx raises
what the ASGI application raises). Seeded: the same requests every run."""

from __future__ import annotations

import random
import re
import urllib.parse
from collections import Counter
from pathlib import Path

from test_serve_console import Venue, event_file, run

__all__ = ["event_file"]  # the fixture, from the console's tests
SEED = 35
REQUESTS = 1000
VALUES = ["", "0", "40", "85", "-5", "８5", "⁸⁵", "٨٥", "85.0", "+85", "1e3", "9" * 40, "\x00", "NT", "S", "Ｋ",
          "过A", "A", "B", "1", "2", "99", "<script>x</script>", "' OR 1=1 --", "\ufffd", "é" * 300,
          "../../ev.toml", "%00", "１２３４５６", "①②③", "first", "second", "typed", "T1", "T3"]
FIELDS = ["slot", "slots", "defenders_points", "trump", "code", "side", "nonce", "round", "match", "table", "board",
          "team", "reason", "minutes", "kind", "amount", "flag", "choice", "force", "withdraw", "set", "key",
          "home_level", "away_level", "players_A", "paper_lang", "back", "x"]
TABLE_ACTIONS = ["enter", "confirm", "dispute", "recap", "nothing"]
CONSOLE_ACTIONS = ["correct", "forfeit", "late", "penalty", "lineup", "release", "pair", "clear-flag", "settle",
                   "unlock", "reprint", "bogus"]
PAGES = ["/", "/-/health", "/-/console", "/-/console.json", "/-/console/missing?round=1", "/-/console/missing?round=x",
         "/-/console/file?name=..%2Fev.toml", "/-/console/file?name=team-cards-zh.pdf", "/live/standings",
         "/live/standings.json", "/live/round/1", "/live/round/9.json", "/live/match/1/1", "/live/match/1/x.json",
         "/live/team-t1.html", "/live/nothing.html", "/-/static/table.js", "/-/static/nothing.js",
         "/live/assets/site.css", "/t/SJE1/demo-swiss/1/1/A/1/AAAAAAAAAAAAAAAA", "/t/SJE1/x/1/1/A/1/short"]


def _forms(html: str) -> list[tuple[str, list[tuple[str, str]], list[str]]]:
    """Each form a page holds: where it posts, its hidden fields, the names of the others."""
    found = []
    for action, inner in re.findall(r'<form method="post" action="([^"]+)"[^>]*>(.*?)</form>', html, re.S):
        hidden = re.findall(r'<input type="hidden" name="([^"]+)" value="([^"]*)"', inner)
        shown = sorted(set(re.findall(r'<(?:input|select)(?![^>]*type="hidden")[^>]*name="([^"]+)"', inner)))
        found.append((action.replace("&amp;", "&"), hidden, shown))
    return found


def _filled(rng: random.Random, hidden: list[tuple[str, str]], shown: list[str]) -> bytes:
    """A form of a page as a person might fill it: its hidden fields (a nonce, where it applies),
    every other field a value of :data:`VALUES`, now and then one left out or named twice."""
    pairs = [pair for pair in hidden if rng.random() > 0.05]
    pairs += [(name, rng.choice(VALUES)) for name in shown if rng.random() > 0.1]
    if rng.random() < 0.1 and pairs:
        pairs.append(rng.choice(pairs))
    return urllib.parse.urlencode(pairs).encode()


def _body(rng: random.Random, nonces: list[str]) -> bytes:
    """A form body: a few fields, a nonce the pages hold now and then, sometimes hundreds of
    repeated fields or bytes that are no UTF-8."""
    pairs = [(rng.choice(FIELDS), rng.choice(VALUES)) for _ in range(rng.randint(0, 8))]
    if nonces and rng.random() < 0.7:
        pairs.append(("nonce", rng.choice(nonces)))
    if rng.random() < 0.03:
        pairs += [("slots", "1")] * rng.randint(150, 260)
    body = urllib.parse.urlencode(pairs).encode()
    if rng.random() < 0.05:
        body += b"&code=\xff\xfe\x00"
    return body


def test_random_requests_answer_in_words_and_never_500(event_file: Path) -> None:
    statuses: Counter[int] = Counter()

    async def scenario(venue: Venue) -> None:
        rng = random.Random(SEED)
        form = {"content-type": "application/x-www-form-urlencoded"}
        async with venue.client() as director, venue.client() as phone:
            await venue.login(director)
            sheets = [venue.url(m, t) for m in "1234" for t in "AB"]
            nonces: list[str] = []
            for _ in range(REQUESTS):
                kind = rng.random()
                accept = {"accept": "application/json"} if rng.random() < 0.5 else {}
                if kind < 0.35:  # a table's page, then one of its forms, filled or made up
                    url = rng.choice(sheets)
                    page = await phone.get(url)
                    statuses[page.status_code] += 1
                    nonces = re.findall(r'name="nonce" value="([^"]+)"', page.text) or nonces
                    forms = _forms(page.text)
                    if forms and rng.random() < 0.6:
                        action, hidden, shown = rng.choice(forms)
                        answer = await phone.post(action, content=_filled(rng, hidden, shown),
                                                  headers={**form, **accept})
                    else:
                        answer = await phone.post(url + "/" + rng.choice(TABLE_ACTIONS), content=_body(rng, nonces),
                                                  headers={**form, **accept})
                elif kind < 0.65:  # the console, then one of its forms, filled or made up
                    page = await director.get("/-/console")
                    statuses[page.status_code] += 1
                    nonces = re.findall(r'name="nonce" value="([^"]+)"', page.text) or nonces
                    # printing (a round's papers, a reprint's PDF) has its own tests: seconds a request here
                    forms = [f for f in _forms(page.text) if "/print" not in f[0] and "/reprint" not in f[0]]
                    if forms and rng.random() < 0.6:
                        action, hidden, shown = rng.choice(forms)
                        answer = await director.post(action, content=_filled(rng, hidden, shown),
                                                     headers={**form, **accept})
                    else:
                        answer = await director.post("/-/console/" + rng.choice(CONSOLE_ACTIONS),
                                                     content=_body(rng, nonces), headers=form)
                elif kind < 0.75:  # the fallback code
                    answer = await phone.post("/code", content=_body(rng, nonces), headers=form)
                else:  # a page, or its twin
                    path = rng.choice(PAGES)
                    answer = await rng.choice((phone, director)).get(path)
                statuses[answer.status_code] += 1
                assert answer.status_code < 500, (answer.request.method, answer.request.url, answer.text[:500])
    run(event_file, scenario)
    assert sum(statuses.values()) >= REQUESTS
    # the fuzzing reached past the guards (a refused pairing is the use case's 400, as the command's)
    assert {200, 303, 400, 403, 404} <= set(statuses), statuses
