"""The director's console of ``dealer serve`` (issue 23): login by a one-time link, the round grid
from entries made through the table's routes, and each action changing what its command would.

In-process: httpx over the ASGI application of a real :class:`Live` session on the demo Swiss
event dealt into tmp_path (real SQLite, real PDFs)."""

from __future__ import annotations

import asyncio
import csv
import json
import re
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
from conftest import run_dealer

import dealer
from dealer.app import live
from dealer.app.session import EventSession
from dealer.formats.entry import entry_path, parse_entry_path, sheet_tag, team_code
from dealer.serve.app import DIRECTOR_COOKIE, Live, create_app, new_director_link
from dealer.serve.security import RateLimit
from dealer.words import words

DEMO_SWISS = Path(dealer.__file__).parent / "data" / "demo-swiss.toml"
BASE = "http://127.0.0.1:8000"


@pytest.fixture
def event_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The demo Swiss event (T1 with four registered players), dealt, round 1 paired; run from
    tmp_path (the print pack goes to output/ under the current directory, as the command's does)."""
    monkeypatch.chdir(tmp_path)
    text = DEMO_SWISS.read_text(encoding="utf-8").replace(
        'name = "东风队"\n', 'name = "东风队"\nplayers = ["张伟", "王芳", "李娜", "刘洋"]\n', 1)
    path = tmp_path / "ev.toml"
    path.write_text(text, encoding="utf-8")
    assert run_dealer("deal", path).exit_code == 0
    assert run_dealer("round", "pair", path, "--round", "1").exit_code == 0
    return path


class Venue:
    """The server of one event, its clients (each a device with its own cookies) and the
    director's link."""

    def __init__(self, event_file: Path) -> None:
        self.event_file = event_file
        self.state = Live(event_file)
        self.app = create_app(self.state, "127.0.0.1", 8000, rate=RateLimit(1000, 1000))

    def client(self) -> httpx.AsyncClient:
        return httpx.AsyncClient(transport=httpx.ASGITransport(app=self.app, client=("127.0.0.1", 5000)),
                                 base_url=BASE)

    def link(self) -> str:
        return self.state.executor.submit(lambda: new_director_link(self.state.session)).result()

    def nonce(self, match: str, table: str, form: str, number: int = 1) -> str:
        """A nonce of a form of a table's page, as the page holds it."""
        return live.new_nonce(self.state.key, live.sheet_form(self.sheet(match, table, number).id, form))

    def console_nonce(self, director: httpx.AsyncClient, action: str) -> str:
        """A nonce of a console form, as the console's page holds it (bound to the director's session)."""
        return live.new_nonce(self.state.key, live.console_form(director.cookies[DIRECTOR_COOKIE], action))

    def on_db(self, use: Callable[[EventSession], Any]) -> Any:
        return self.state.executor.submit(lambda: use(self.state.session)).result()

    def sheet(self, match: str, table: str, number: int = 1) -> live.Sheet:
        return self.on_db(lambda s: live.sheet_of(s.event, number, match, table,
                                                  live.generation(s.store, number, match, table)))

    def url(self, match: str, table: str, number: int = 1) -> str:
        sid = self.sheet(match, table, number).id
        return entry_path(sid, sheet_tag(self.state.key, sid))

    def locked(self, match: str, table: str) -> bool:
        sheet = self.sheet(match, table)
        return bool(self.on_db(lambda s: live.sheet_state(s, sheet).locked))

    def code(self, team: str) -> str:
        return team_code(self.state.key, self.state.session.event.id, team)

    async def login(self, client: httpx.AsyncClient) -> None:
        answer = await client.get(f"/-/login?token={self.link()}")
        assert answer.status_code == 303

    async def enter(self, device: httpx.AsyncClient, match: str, table: str, board: int, points: int,
                    number: int = 1) -> None:
        url = self.url(match, table, number)
        page = await device.get(url)
        answer = await device.post(url + "/enter", data={"slot": str(board), "defenders_points": str(points),
                                                         "nonce": form_nonce(page.text, "enter", str(board))})
        assert answer.status_code == 303, answer.text

    async def confirm(self, device: httpx.AsyncClient, match: str, table: str, boards: list[int]) -> None:
        url = self.url(match, table)
        page = await device.get(url)
        data: list[tuple[str, str]] = [("slots", str(b)) for b in boards]
        data += [("code", self.code(self.sheet(match, table).confirmer)), ("nonce", form_nonce(page.text, "confirm"))]
        answer = await device.post(url + "/confirm", content=_body(data),
                                   headers={"content-type": "application/x-www-form-urlencoded"})
        assert answer.status_code == 303, answer.text

    async def console(self, director: httpx.AsyncClient, round_number: int | None = None) -> dict[str, Any]:
        answer = await director.get("/-/console.json" + (f"?round={round_number}" if round_number else ""))
        assert answer.status_code == 200, answer.text
        result: dict[str, Any] = answer.json()
        return result

    async def act(self, director: httpx.AsyncClient, action: str, status: int = 303, key: str | None = None,
                  **fields: str) -> httpx.Response:
        """Post the console's ``action`` form (the one whose ``data-key`` is ``key``, where there are
        several), with its nonce as the console's page holds it."""
        if key is None and action in ("unlock", "reprint"):
            key = f"{fields['match']}-{fields['table']}"
        if key is None and action in ("clear-flag", "settle"):
            key = fields["flag"]
        page = await director.get("/-/console?round=" + fields.get("back", fields.get("round", "1")))
        answer = await director.post(f"/-/console/{action}", data={
            "nonce": form_nonce(page.text, action, key), "back": "1", **fields})
        assert answer.status_code == status, answer.text
        return answer

    def close(self) -> None:
        self.state.close()


def form_nonce(html: str, action: str, key: str | None = None) -> str:
    """The nonce of the page's form posting to ``action`` (the one whose ``data-key`` is ``key``:
    a board, a recap's side, a console flag's id or a sheet's ``match-table``; found by its place
    on the page too, as a page without ``data-key`` holds it)."""
    nonce = r'<input type="hidden" name="nonce" value="([^"]+)"'
    head = rf'action="[^"]*/{action}(?:\?[^"]*)?"'
    keyed = rf'[^>]*data-key="{re.escape(key)}"' if key is not None else r'[^>]*'
    found = re.search(rf'{head}{keyed}>\s*(?:<input type="hidden" name="(?:slot|side)"[^>]*>\s*)?' + nonce, html)
    if found is None and key is not None:
        k = re.escape(key)
        if "-" in key:  # a console sheet's form: its hidden round, match and table after the nonce
            match, table = (re.escape(part) for part in key.split("-", 1))
            found = re.search(rf'{head}[^>]*>\s*{nonce}[^<]*>(?:\s*<input type="hidden" name="(?:back|round)"[^>]*>)*'
                              rf'\s*<input type="hidden" name="match" value="{match}"><input type="hidden" '
                              rf'name="table" value="{table}">', html)
        else:  # a board's form, in its article; a recap's, by its side
            found = (re.search(rf'data-slot="{k}"[^>]*>\s*<input[^>]*>\s*' + nonce, html) if action == "enter"
                     else re.search(rf'{head}[^>]*>\s*<input type="hidden" name="side" value="{k}">\s*' + nonce, html)
                     if action == "recap" else re.search(rf'id="b{k}".*?{head}[^>]*>\s*<input[^>]*>\s*' + nonce,
                                                          html, re.S))
    assert found is not None, f"no {action} form on the page"
    return found.group(1)


def _body(pairs: list[tuple[str, str]]) -> bytes:
    import urllib.parse

    return urllib.parse.urlencode(pairs).encode()


def run(event_file: Path, scenario: Callable[[Venue], Awaitable[None]]) -> None:
    venue = Venue(event_file)
    try:
        asyncio.run(scenario(venue))
    finally:
        venue.close()


def said(answer: httpx.Response) -> str:
    found = re.search(r'<p class="said" role="status">(.*?)</p>', answer.text, re.S)
    assert found, answer.text[:2000]
    return found.group(1)


def cli_json(*args: object) -> Any:
    outcome = run_dealer(*args, "--json")
    assert outcome.exit_code == 0, outcome.output
    return json.loads(outcome.stdout)


# --- login -----------------------------------------------------------------------------------------


def test_a_director_link_logs_in_once_with_a_strict_http_only_cookie(event_file: Path) -> None:
    async def scenario(venue: Venue) -> None:
        token = venue.link()
        async with venue.client() as first, venue.client() as second, venue.client() as stranger:
            answer = await first.get(f"/-/login?token={token}")
            assert answer.status_code == 303 and answer.headers["location"] == "/-/console"
            cookie = answer.headers["set-cookie"]
            assert cookie.startswith(DIRECTOR_COOKIE + "=")
            assert "HttpOnly" in cookie and "samesite=strict" in cookie.lower()
            assert (await first.get("/-/console")).status_code == 200
            reused = await second.get(f"/-/login?token={token}")
            assert reused.status_code == 403
            assert words("zh").text("serve.link_used") in reused.text
            for answer in (await stranger.get("/-/console"), await stranger.get("/-/console.json"),
                           await stranger.get("/-/console/missing?round=1"),
                           await stranger.post("/-/console/pair", data={"nonce": venue.nonce("1", "A", "confirm")}),
                           await second.post("/-/console/unlock", data={"nonce": venue.nonce("1", "A", "confirm"),
                                                                        "round": "1", "match": "1", "table": "A"})):
                assert answer.status_code == 403
                assert words("zh").text("serve.director_only") in answer.text
    run(event_file, scenario)


# --- the grid --------------------------------------------------------------------------------------


def test_the_grid_shows_entered_confirmed_conflict_and_flags_in_colour_and_words(event_file: Path) -> None:
    async def scenario(venue: Venue) -> None:
        async with venue.client() as director, venue.client() as scorer, venue.client() as other, \
                venue.client() as third:
            await venue.login(director)
            empty = await venue.console(director)
            assert empty["round"] == 1 and empty["counts"]["missing"] == 4 * 2 * 8
            assert empty["oldest_unconfirmed"] is None
            await venue.enter(scorer, "1", "A", 1, 40)  # entered, waiting
            await venue.enter(scorer, "1", "A", 2, 60)
            await venue.confirm(other, "1", "A", [2])  # confirmed
            await venue.enter(scorer, "1", "A", 3, 80)
            url = venue.url("1", "A")
            disputed = await other.post(url + "/dispute", data={
                "slot": "3", "defenders_points": "120", "code": venue.code(venue.sheet("1", "A").confirmer),
                "nonce": venue.nonce("1", "A", "dispute/3")})
            assert disputed.status_code == 303
            await third.get(url)  # a third device that only looks: no flag
            assert not [f for f in venue.on_db(lambda s: live.open_flags(s, 1)) if f["kind"] == "devices"]
            await venue.enter(third, "1", "A", 7, 50)  # a third device that writes: flagged
            # far apart: board 4 at both tables of match 1
            await venue.enter(scorer, "1", "A", 4, 10)
            await venue.confirm(other, "1", "A", [1, 4])
            await venue.enter(scorer, "1", "B", 4, 150)
            await venue.confirm(other, "1", "B", [4])

            grid = await venue.console(director)
            sheet = next(s for s in grid["sheets"] if s["match"] == "1" and s["table"] == "A")
            cells = {c["slot"]: c for c in sheet["cells"]}
            assert [cells[b]["state"] for b in "1234"] == ["confirmed", "confirmed", "conflict", "confirmed"]
            assert cells["7"]["state"] == "entered"
            assert cells["5"]["state"] == "missing"
            assert cells["3"]["flagged"] and not cells["4"]["flagged"]
            table_b = next(s for s in grid["sheets"] if s["match"] == "1" and s["table"] == "B")
            assert [c["flagged"] for c in table_b["cells"]][3] is True  # raised on the second table's board 4
            assert sheet["devices"] == 3 and sheet["last_contact_age"] is not None
            kinds = sorted(f["kind"] for f in grid["flags"])
            assert kinds == ["conflict", "devices", "far-apart"]
            assert grid["counts"]["confirmed"] == 4 and grid["counts"]["conflict"] == 1
            first = next(m for m in grid["matches"] if m["match"] == "1")
            assert first["counts"] == {"missing": 10, "entered": 1, "confirmed": 4, "conflict": 1}

            await venue.enter(scorer, "1", "A", 6, 30)  # waiting: the oldest unconfirmed entry
            grid = await venue.console(director)
            assert grid["oldest_unconfirmed"] is not None and grid["oldest_unconfirmed"]["age"] >= 0
            page = await director.get("/-/console")
            row = re.search(r'<tr class="">\s*<th scope="row"><a href="#sheet-1-A">1A</a></th>(.*?)</tr>',
                            page.text, re.S)
            assert row, page.text
            assert re.findall(r'<td class="s-([a-z]+)" title="第 \d+ 副：([^"]+)">([^<]+)', row.group(1))[:7] == [
                ("confirmed", "已确认", "✓"), ("confirmed", "已确认", "✓"), ("flagged", "提示", "提"),
                ("confirmed", "已确认", "✓"), ("missing", "未录入", "未"), ("entered", "待确认", "待"),
                ("entered", "待确认", "待")]
            assert "两桌抓分相差 140 分" in page.text and "本表已有 3 部设备录入或确认" in page.text
            assert "最早的待确认录入" in page.text
            english = await director.get("/-/console?lang=en")
            assert "confirmed" in english.text and "Needs the director (3)" in english.text

            # clear a flag with a reason: gone from the open flags (as the store keeps it)
            flag = next(f for f in grid["flags"] if f["kind"] == "devices")
            refused = await venue.act(director, "clear-flag", 400, flag=str(flag["id"]), reason=" ")
            assert "理由" in refused.text
            done = await venue.act(director, "clear-flag", flag=str(flag["id"]), reason="a spare phone")
            assert "said=" in done.headers["location"]
            assert f"提示 {flag['id']} 已清除" in said(await director.get(done.headers["location"]))
            assert [f["kind"] for f in venue.on_db(lambda s: live.open_flags(s, 1))].count("devices") == 0
            missing = await director.get("/-/console/missing?round=1")
            assert missing.status_code == 200 and "第 1 轮第 1 场" in missing.text
    run(event_file, scenario)


# --- the actions ----------------------------------------------------------------------------------


def test_unlock_revoke_and_reprint(event_file: Path) -> None:
    async def scenario(venue: Venue) -> None:
        async with venue.client() as director, venue.client() as scorer, venue.client() as other:
            await venue.login(director)
            await venue.enter(scorer, "2", "A", 1, 40)
            url = venue.url("2", "A")
            await other.get(url)
            for _ in range(live.LOCK_AFTER):
                wrong = await other.post(url + "/confirm", data={"code": "000000",
                                                                 "nonce": venue.nonce("2", "A", "confirm")})
                assert wrong.status_code in (403, 423)
            assert wrong.status_code == 423
            assert venue.locked("2", "A")
            grid = await venue.console(director)
            assert next(s for s in grid["sheets"] if s["match"] == "2" and s["table"] == "A")["locked"]
            await venue.act(director, "unlock", round="1", match="2", table="A")
            assert not venue.locked("2", "A")

            no_reason = await venue.act(director, "reprint", 400, round="1", match="2", table="A", reason="")
            assert venue.on_db(lambda s: live.generation(s.store, 1, "2", "A")) == 1 and "refusal" in no_reason.text
            nonce = venue.console_nonce(director, "reprint")
            fields = {"nonce": nonce, "back": "1", "round": "1", "match": "2", "table": "A", "reason": "coffee"}
            answer = await director.post("/-/console/reprint", data=fields, headers={"accept": "application/json"})
            assert answer.status_code == 200, answer.text
            reply = answer.json()
            assert reply["ok"] and "第 2 版" in reply["message"]
            again = await director.post("/-/console/reprint", data=fields, headers={"accept": "application/json"})
            assert again.json()["repeated"] and again.json()["file"] == reply["file"]
            assert venue.on_db(lambda s: live.generation(s.store, 1, "2", "A")) == 2  # revoked once
            pdf = await director.get(reply["file"])
            assert pdf.status_code == 200 and pdf.content.startswith(b"%PDF")
            import io

            from pypdf import PdfReader

            assert len(PdfReader(io.BytesIO(pdf.content)).pages) == 1
            from test_print_entry import qr_per_page

            printed = event_file.parent / "output" / "demo-swiss" / reply["file"].split("name=")[1]
            assert [q for q in qr_per_page(printed)[0] if "/t/SJE1/" in q] == [BASE + venue.url("2", "A")]
            assert parse_entry_path(venue.url("2", "A"))[0].generation == 2
            assert (await scorer.get(url)).status_code == 410  # the printed sheet no longer opens
            assert (await scorer.get(venue.url("2", "A"))).status_code == 200  # the reprinted one does
            assert (await venue.client().get(reply["file"])).status_code == 403
            assert (await director.get("/-/console/file?name=../ev.toml")).status_code == 404
    run(event_file, scenario)


def test_results_forfeit_lateness_penalty_lineup_and_release(event_file: Path) -> None:
    async def scenario(venue: Venue) -> None:
        async with venue.client() as director, venue.client() as scorer, venue.client() as other:
            await venue.login(director)
            ev = venue.event_file
            team = venue.on_db(lambda s: s.event.round(1).match("2")).home
            t1_match = venue.on_db(lambda s: next(m for m in s.event.round(1).matches if "T1" in (m.home, m.away)))
            # line-up (before the round's first result), as `dealer lineup` shows it
            await venue.act(director, "lineup", round="1", team="T1", players_A="张伟,王芳", players_B="李娜,刘洋")
            shown = cli_json("lineup", ev, "--round", "1")
            assert [(x["team"], x["tables"]) for x in shown["lineups"]] == [
                ("T1", [{"table": "A", "players": ["张伟", "王芳"]}, {"table": "B", "players": ["李娜", "刘洋"]}])]
            bad = await venue.act(director, "lineup", 400, round="1", team="T1", players_A="张伟,无名")
            assert "无名" in bad.text

            # a correction of a confirmed result, as `dealer results history` shows it
            await venue.enter(scorer, "1", "A", 2, 60)
            await venue.confirm(other, "1", "A", [2])
            no_reason = await venue.act(director, "correct", 400, round="1", match="1", table="A", board="2",
                                        defenders_points="65", reason="")
            assert "refusal" in no_reason.text
            await venue.act(director, "correct", round="1", match="1", table="A", board="2", defenders_points="65",
                            reason="misread the slip")
            rows = cli_json("results", "history", ev, "--round", "1", "--match", "1", "--table", "A", "--board", "2")
            assert [(r["defenders_points"], r["current"]) for r in rows] == [(60, False), (65, True)]

            # forfeit, lateness, penalty: the actions the commands store
            await venue.act(director, "forfeit", round="1", match="2", team=team, reason="did not come")
            await venue.act(director, "late", round="1", team="T1", minutes="10", reason="traffic")
            nonce = venue.console_nonce(director, "penalty")
            fields = {"nonce": nonce, "back": "1", "round": "1", "team": "T1", "kind": "net_levels", "amount": "-1",
                      "reason": "slow play"}
            for _ in range(2):  # a double tap records it once
                assert (await director.post("/-/console/penalty", data=fields)).status_code == 303
            with EventSession.open(ev) as session:
                assert session.store is not None
                forfeits = [a.data for a in session.store.actions(("forfeit",)) if not a.undone]
                assert forfeits == [{"team": team, "match": "2", "forfeit": True}]
                late = [a.data for a in session.store.actions(("late",)) if not a.undone]
                assert late and late[0]["team"] == "T1" and late[0]["minutes"] == 10
                penalties = [(p.team, p.kind) for p in session.store.penalties() if p.kind != "undo"]
                assert penalties == [("T1", "net_levels")]
                by = {a.entered_by for a in session.store.actions(("forfeit", "late"))}
                assert len(by) == 1 and next(iter(by)).startswith("director ")
            grid = await venue.console(director)
            assert next(m for m in grid["matches"] if m["match"] == "2")["forfeited"]
            assert t1_match.id  # T1 plays in round 1

            # a release, as `dealer release` stores it (the set still played: refused, then accepted)
            early = await venue.act(director, "release", 400, set="1", reason="done")
            assert "refusal" in early.text
            neither = await venue.act(director, "release", 400, reason="done")
            assert words("zh").text("site.set_or_key") in neither.text  # the use case's rule, as the command's
            await venue.act(director, "release", set="1", reason="round over", accept_missing="1")
            with EventSession.open(ev) as session:
                assert list(session.released_sets()) == [1]
            json_reply = await director.post("/-/console/late", data={"nonce": "forged.nonce", "round": "1",
                                                                      "team": "T1", "minutes": "5", "reason": "x"},
                                             headers={"accept": "application/json"})
            assert json_reply.status_code == 400 and json_reply.json()["key"] == "live.bad_nonce"
    run(event_file, scenario)


@pytest.mark.slow
def test_print_the_rounds_paperwork_and_download_it(event_file: Path) -> None:
    async def scenario(venue: Venue) -> None:
        async with venue.client() as director:
            await venue.login(director)
            answer = await venue.act(director, "print", round="1")
            page = await director.get(answer.headers["location"])
            # The round's whole paperwork (issue 38): with its 座位图 (round 1 has no bulletin to post yet).
            assert "第 1 轮的文件已生成：9 个文件" in said(page)
            names = [f["name"] for f in (await venue.console(director))["files"]]
            assert "pairings-round-01-zh.pdf" in names and "score-sheets-set-01-zh.pdf" in names
            assert "seating-round-01-zh.pdf" in names
            pairings = await director.get("/-/console/file?name=pairings-round-01-zh.pdf")
            assert pairings.status_code == 200 and pairings.content.startswith(b"%PDF")
            hands = await director.get("/-/console/file?name=hand-records-set-01-zh.pdf")
            assert hands.status_code == 403  # it shows cards: not over the network
            out = event_file.parent / "output" / "demo-swiss"
            assert (out / "travellers-set-01-zh.pdf").stat().st_size > 0
    run(event_file, scenario)


# --- pairing the next round -------------------------------------------------------------------------


def _fill_round(event_file: Path, leave: tuple[tuple[str, str, str], ...] = ()) -> None:
    """Every result of round 1 (but those of ``leave``: match, table, board), imported as `dealer
    results import` does."""
    assert run_dealer("results", "template", event_file, "--round", "1", "--lang", "en").exit_code == 0
    template = event_file.parent / "output" / "demo-swiss" / "results-template-round-01.csv"
    with template.open(encoding="utf-8-sig") as f:
        rows = [row for row in csv.DictReader(f) if (row["match"], row["table"], row["board"]) not in leave]
    for row in rows:
        row["defenders_points"] = "40"
    filled = event_file.parent / "round-1.csv"
    with filled.open("w", encoding="utf-8", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    assert run_dealer("results", "import", event_file, filled).exit_code == 0


def test_pairing_is_refused_while_results_are_unconfirmed_and_works_when_forced(event_file: Path) -> None:
    async def scenario(venue: Venue) -> None:
        async with venue.client() as director, venue.client() as scorer:
            await venue.login(director)
            await venue.enter(scorer, "1", "A", 1, 40)
            refused = await venue.act(director, "pair", 400)  # as `dealer round pair` refuses it
            assert "第 1 轮缺少成绩" in refused.text
            assert run_dealer("round", "show", venue.event_file, "--round", "2").exit_code != 0
            no_reason = await venue.act(director, "pair", 400, force="1", reason="")
            assert words("zh").text("console.force_needs_reason") in no_reason.text
            done = await venue.act(director, "pair", force="1", reason="the last table plays on")
            assert "第 2 轮已编排：4 场，0 个轮空（强制：the last table plays on）" in said(
                await director.get(done.headers["location"]))
            shown = cli_json("round", "show", venue.event_file, "--round", "2")
            assert len(shown["matches"]) == 4
            log = venue.on_db(lambda s: [json.loads(r["detail"]) for r in s.store.conn.execute(
                "SELECT detail FROM live_log WHERE action = 'pair'")])
            assert log and log[0]["note"] == "the last table plays on"
            grid = await venue.console(director)
            assert grid["rounds"] == [1, 2] and grid["next_round"] == 3
    run(event_file, scenario)


def test_pairing_waits_for_the_flags_of_the_round_before_from_the_console_and_the_command_line(
        event_file: Path) -> None:
    _fill_round(event_file, leave=(("1", "A", "4"),))  # table B took 40 on board 4

    async def scenario(venue: Venue) -> None:
        async with venue.client() as director, venue.client() as scorer, venue.client() as other:
            await venue.login(director)
            await venue.enter(scorer, "1", "A", 4, 160)  # far apart from table B's
            await venue.confirm(other, "1", "A", [4])
            grid = await venue.console(director, 1)
            assert grid["pending"] == {"unconfirmed": 0, "flags": 1}
            refused = await venue.act(director, "pair", 400)
            assert "第 1 轮的成绩还有 1 个提示未处理" in refused.text
            command = run_dealer("round", "pair", venue.event_file, "--round", "2")
            assert command.exit_code == 2 and "1 open flag(s)" in command.stderr
            assert "--allow-incomplete" in command.stderr
            await venue.act(director, "clear-flag", flag=str(grid["flags"][0]["id"]), reason="both slips checked")
            await venue.act(director, "pair")
            assert len(cli_json("round", "show", venue.event_file, "--round", "2")["matches"]) == 4
    run(event_file, scenario)


def test_pairing_works_once_the_round_is_done(event_file: Path) -> None:
    _fill_round(event_file)

    async def scenario(venue: Venue) -> None:
        async with venue.client() as director:
            await venue.login(director)
            grid = await venue.console(director, 1)
            assert grid["pending"] == {"unconfirmed": 0, "flags": 0}
            await venue.act(director, "pair")
            assert len(cli_json("round", "show", venue.event_file, "--round", "2")["matches"]) == 4
            assert (await venue.console(director))["round"] == 2  # the round open for entry now
    run(event_file, scenario)
