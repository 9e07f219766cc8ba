"""``dealer serve`` through a real event's rounds (issue 35): the findings of the live-event and
reliability reviews (../shared/reviews/live-event-4.md, reliability-4.md), each reproduced as the
review found it.

In-process (httpx over the ASGI application of a real :class:`Live` session, real SQLite) on the
demo Swiss event (8 teams, 4 matches × 2 tables × 8 boards); the streams and the crash on a real
``dealer serve`` on loopback."""

from __future__ import annotations

import csv
import dataclasses
import json
import re
import socket
import time
from pathlib import Path
from typing import Any

import httpx
from conftest import run_dealer
from live_server import LiveServer
from test_serve_console import Venue, cli_json, event_file, form_nonce, run, said

from dealer.app import live
from dealer.app.session import EventSession
from dealer.formats.entry import SheetId, entry_path, sheet_tag, team_code

__all__ = ["event_file"]  # the fixture, from the console's tests
JSON = {"accept": "application/json"}


def _fill(event_file: Path, number: int, *, skip: set[str] = frozenset(), points: str = "40") -> None:  # type: ignore[assignment]
    """Every result of round ``number`` but those of the matches in ``skip``, imported as `dealer
    results import` does."""
    out = event_file.parent / "output" / "demo-swiss"
    assert run_dealer("results", "template", event_file, "--round", str(number), "--lang", "en").exit_code == 0
    with (out / f"results-template-round-{number:02d}.csv").open(encoding="utf-8-sig") as f:
        rows = [row for row in csv.DictReader(f) if row["match"] not in skip]
    for row in rows:
        row["defenders_points"] = points
    filled = event_file.parent / f"round-{number}.csv"
    with filled.open("w", encoding="utf-8", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    done = run_dealer("results", "import", event_file, filled)
    assert done.exit_code == 0, done.output


def _stored(event_file: Path) -> list[tuple[int, str, str, int, int | None]]:
    with EventSession.open(event_file) as session:
        assert session.store is not None
        return [tuple(r) for r in session.store.conn.execute(  # type: ignore[misc]
            "SELECT round, match, tbl, board, defenders_points FROM current_results ORDER BY round, match, tbl, board")]


# --- finding 2: a forfeit, and the round after it ----------------------------------------------------


def test_a_forfeited_match_leaves_the_next_round_open_and_its_sheet_takes_nothing(event_file: Path) -> None:
    """Review live-event-4 §2: a forfeit recorded for one match of round 1, the other matches
    complete, round 2 paired: every round-2 sheet answered 409 ("现在进行的是第 1 轮"), after a
    restart too. And §8: the forfeited table's page offered its 16 entry forms and stored 3."""
    async def round_one(venue: Venue) -> None:
        async with venue.client() as director, venue.client() as scorer:
            await venue.login(director)
            away = venue.on_db(lambda s: s.event.round(1).match("4")).away
            await venue.act(director, "forfeit", round="1", match="4", team=away, reason="雁塔队未到场")
            page = await scorer.get(venue.url("4", "A"))
            assert page.status_code == 200
            assert "本记分表不接受成绩" in page.text and "弃权" in page.text and "雁塔队未到场" in page.text
            assert 'class="enter"' not in page.text
            refused = await scorer.post(venue.url("4", "A") + "/enter", headers=JSON, data={
                "slot": "1", "defenders_points": "40", "nonce": venue.nonce("4", "A", "enter/1")})
            assert refused.status_code == 409 and "弃权" in refused.json()["message"]
            assert venue.on_db(lambda s: s.store.conn.execute("SELECT count(*) FROM live_entries").fetchone()[0]) == 0
    run(event_file, round_one)
    _fill(event_file, 1, skip={"4"})

    async def round_two(venue: Venue) -> None:
        async with venue.client() as director, venue.client() as phone:
            await venue.login(director)
            assert (await venue.console(director))["pending"] == {"unconfirmed": 0, "flags": 0}
            await venue.act(director, "pair")
            assert venue.on_db(live.open_round) == 2
            page = await phone.get(venue.url("1", "A", 2))
            assert page.status_code == 200, page.text  # was 409: "现在进行的是第 1 轮"
            await venue.enter(phone, "1", "A", 1, 45, number=2)
            old = await phone.get(venue.url("1", "A", 1))
            assert old.status_code == 409 and "现在进行的是第 2 轮" in old.text
    run(event_file, round_two)

    async def after_a_restart(venue: Venue) -> None:
        async with venue.client() as phone:
            assert (await phone.get(venue.url("2", "B", 2))).status_code == 200
    run(event_file, after_a_restart)


def test_a_declared_end_closes_every_sheet(event_file: Path) -> None:
    _fill(event_file, 1, skip={"3"})
    assert run_dealer("round", "end", event_file, "--reason", "hall closes").exit_code == 0

    async def scenario(venue: Venue) -> None:
        async with venue.client() as phone:
            page = await phone.get(venue.url("3", "A"))
            assert "本记分表不接受成绩" in page.text and "hall closes" in page.text and 'class="enter"' not in page.text
            refused = await phone.post(venue.url("3", "A") + "/enter", headers=JSON, data={
                "slot": "1", "defenders_points": "40", "nonce": venue.nonce("3", "A", "enter/1")})
            assert refused.status_code == 409
    run(event_file, scenario)


# --- finding 9: a sheet belongs to one pairing ------------------------------------------------------


def test_an_undone_pairing_voids_its_sheets_and_what_was_typed_on_them(event_file: Path) -> None:
    """Review reliability-4 finding 2: an entry typed on a pairing that was undone (then a team
    withdrawn and the round paired again) was shown on the new pairing's sheet and stored as the
    new teams' result by their confirmer."""
    first: dict[str, Any] = {}

    async def before(venue: Venue) -> None:
        async with venue.client() as scorer:
            first["url"] = venue.url("1", "A")
            first["home"] = venue.on_db(lambda s: s.event.round(1).match("1")).home
            await venue.enter(scorer, "1", "A", 1, 195)
    run(event_file, before)
    assert run_dealer("round", "undo", event_file, "--round", "1", "--reason", "wrong teams").exit_code == 0
    assert run_dealer("teams", "withdraw", event_file, first["home"], "--after-round", "0",
                      "--reason", "gone home").exit_code == 0
    assert run_dealer("round", "pair", event_file, "--round", "1", "--accept-warnings").exit_code == 0

    async def after(venue: Venue) -> None:
        async with venue.client() as scorer, venue.client() as confirmer:
            old = await scorer.get(first["url"])
            assert old.status_code == 410  # was 200, the new teams' names over the old entry
            assert "第 1 轮的编排已撤销（wrong teams）" in old.text
            posted = await scorer.post(first["url"] + "/enter", data={"slot": "2", "defenders_points": "40"})
            assert posted.status_code == 410
            new_url = venue.url("1", "A")
            assert new_url != first["url"] and "/1/1/A/2/" in new_url
            page = await confirmer.get(new_url)
            assert page.status_code == 200 and "195" not in page.text and 'class="confirm-form"' not in page.text
            sheet = venue.sheet("1", "A")
            confirm = await confirmer.post(new_url + "/confirm", headers=JSON, data={
                "code": venue.code(sheet.confirmer), "nonce": venue.nonce("1", "A", "confirm")})
            assert confirm.status_code == 409 and confirm.json()["key"] == "live.nothing_to_confirm"
    run(event_file, after)
    assert _stored(event_file) == []


def test_a_reprint_voids_what_the_lost_sheet_entered(event_file: Path) -> None:
    """Review reliability-4 finding 3: boards entered with a lost sheet (1A: 200 and 0) showed on
    the reprinted generation and were stored when the confirmer confirmed them."""
    async def scenario(venue: Venue) -> None:
        async with venue.client() as director, venue.client() as finder, venue.client() as confirmer:
            await venue.login(director)
            lost = venue.url("1", "A")
            await venue.enter(finder, "1", "A", 1, 200)
            await venue.enter(finder, "1", "A", 2, 0)
            console = (await director.get("/-/console")).text
            done = await director.post("/-/console/reprint", headers=JSON, data={
                "nonce": form_nonce(console, "reprint", "1-A"), "round": "1", "match": "1", "table": "A",
                "reason": "sheet lost"})
            assert done.status_code == 200, done.text
            for answer in (await finder.get(lost), await finder.post(lost + "/enter", data={"slot": "3"})):
                assert answer.status_code == 410 and "重新打印了此表（sheet lost）" in answer.text
            page = await confirmer.get(venue.url("1", "A"))
            assert page.status_code == 200 and 'class="confirm-form"' not in page.text  # was: 200 and 0 to confirm
            sheet = venue.sheet("1", "A")
            old_form = live.new_nonce(venue.state.key, live.sheet_form(dataclasses.replace(sheet.id, generation=1),
                                                                        "confirm"))
            reply = await confirmer.post(venue.url("1", "A") + "/confirm", headers=JSON, data={
                "code": venue.code(sheet.confirmer), "nonce": old_form})
            assert reply.status_code == 400  # a form of the lost sheet's page is not this sheet's
            reply = await confirmer.post(venue.url("1", "A") + "/confirm", headers=JSON, data={
                "code": venue.code(sheet.confirmer), "nonce": venue.nonce("1", "A", "confirm")})
            assert reply.status_code == 409 and reply.json()["key"] == "live.nothing_to_confirm"
    run(event_file, scenario)
    assert _stored(event_file) == []


def test_a_reprint_sent_again_after_a_crash_revokes_once(event_file: Path) -> None:
    """Review reliability-4 finding 7: kill -9 of the server during the console's reprint (after
    the revoke, before the PDF), then the same form sent again: the sheet was revoked twice
    (generation 3), and the first reprint's paper would have been dead."""
    import threading

    boards = event_file.parent / "boards"
    db = boards / "demo-swiss" / "results.sqlite"
    out = event_file.parent / "output" / "demo-swiss"
    server = LiveServer(event_file, boards).start()
    try:
        link = _director_link(event_file)
        with httpx.Client(base_url=server.base, follow_redirects=False) as director:
            assert director.get(link).status_code == 303
            console = director.get("/-/console").text
            form = {"nonce": form_nonce(console, "reprint", "2-B"), "round": "1", "match": "2", "table": "B",
                    "reason": "coffee on it"}
            threading.Thread(target=_quietly, args=(director, form), daemon=True).start()
            deadline = time.monotonic() + 20
            while _generation(db, "2", "B") != 2:  # the revoke is committed: the PDF is being made
                assert time.monotonic() < deadline, server.output()
                time.sleep(0.002)
            server.kill()
            server = LiveServer(event_file, boards, port=server.port).start()
            # the director's cookie outlives the server; the same form is sent again
            again = director.post("/-/console/reprint", data=form, headers=JSON, timeout=30)
            assert again.status_code == 200, again.text
            assert again.json()["repeated"]
        assert _generation(db, "2", "B") == 2  # was 3: revoked twice
        assert (out / "score-sheet-round-01-match-2-B-g2-zh.pdf").stat().st_size > 0
    finally:
        server.stop()


def _quietly(client: httpx.Client, form: dict[str, str]) -> None:
    try:
        client.post("/-/console/reprint", data=form, headers=JSON, timeout=30)
    except httpx.HTTPError:
        pass  # the server was killed under it


def _generation(db: Path, match: str, table: str) -> int:
    import sqlite3

    conn = sqlite3.connect(db, timeout=5)
    try:
        row = conn.execute("SELECT generation FROM live_sheets WHERE round = 1 AND match = ? AND tbl = ?",
                           (match, table)).fetchone()
        return int(row[0]) if row else 1
    finally:
        conn.close()


def _director_link(event_file: Path) -> str:
    made = run_dealer("serve", event_file, "--director-link")
    assert made.exit_code == 0, made.output
    found = re.search(r"/-/login\?token=\S+", made.output)
    assert found, made.output
    return found.group(0)


# --- finding 6: a dispute settled in one action -------------------------------------------------


def test_a_dispute_is_settled_from_the_console_in_one_action_and_the_table_reaches_its_recap(
        event_file: Path) -> None:
    """Review live-event-4 §6: 6B board 7 entered as 120, disputed with 140; the console's
    correction refused ("没有可更正的成绩"), the flag had to be cleared apart, and the table
    never reached its recap."""
    async def scenario(venue: Venue) -> None:
        async with venue.client() as director, venue.client() as scorer, venue.client() as other:
            await venue.login(director)
            for board in range(1, 9):
                await venue.enter(scorer, "3", "B", board, 120 if board == 7 else 40)
            await venue.confirm(other, "3", "B", [1, 2, 3, 4, 5, 6, 8])
            url = venue.url("3", "B")
            page = await other.get(url)
            disputed = await other.post(url + "/dispute", data={
                "slot": "7", "defenders_points": "140", "code": venue.code(venue.sheet("3", "B").confirmer),
                "nonce": form_nonce(page.text, "dispute", "7")})
            assert disputed.status_code == 303
            flag = next(f for f in (await venue.console(director))["flags"] if f["kind"] == "conflict")
            assert [c["text"] for c in flag["choices"]] == ["120", "140"]
            no_reason = await venue.act(director, "settle", 400, flag=str(flag["id"]), choice="second", reason="")
            assert "理由" in no_reason.text
            done = await venue.act(director, "settle", flag=str(flag["id"]), choice="second",
                                   reason="the curtain cards say 140")
            assert "第 7 副：裁定为 140" in said(await director.get(done.headers["location"]))
            grid = await venue.console(director)
            assert grid["flags"] == [] and grid["pending"]["unconfirmed"] == 4 * 2 * 8 - 8
            table = await scorer.get(url)
            assert 'class="recap-form"' in table.text and "全部结果已确认" in table.text
            sheet = venue.sheet("3", "B")
            for side, team in (("scorer", sheet.scorer), ("confirmer", sheet.confirmer)):
                page = await scorer.get(url)
                closed = await scorer.post(url + "/recap", headers=JSON, data={
                    "side": side, "code": venue.code(team), "nonce": form_nonce(page.text, "recap", side)})
                assert closed.status_code == 200, closed.text
            assert "本桌结束" in (await other.get(url)).text
    run(event_file, scenario)
    stored = {(m, t, b): p for _r, m, t, b, p in _stored(event_file)}
    assert stored[("3", "B", 7)] == 140 and stored[("3", "B", 1)] == 40
    history = cli_json("results", "history", event_file, "--round", "1", "--match", "3", "--table", "B",
                       "--board", "7")
    assert len(history) == 1 and "the curtain cards say 140" in history[0]["entered_by"]


def test_a_dispute_settled_at_the_table_clears_its_flag(event_file: Path) -> None:
    async def scenario(venue: Venue) -> None:
        async with venue.client() as director, venue.client() as scorer, venue.client() as other:
            await venue.login(director)
            await venue.enter(scorer, "1", "A", 1, 120)
            url = venue.url("1", "A")
            page = await other.get(url)
            await other.post(url + "/dispute", data={
                "slot": "1", "defenders_points": "140", "code": venue.code(venue.sheet("1", "A").confirmer),
                "nonce": form_nonce(page.text, "dispute", "1")})
            assert [f["kind"] for f in (await venue.console(director))["flags"]] == ["conflict"]
            await venue.enter(scorer, "1", "A", 1, 140)  # the scorer agrees, the other side confirms
            await venue.confirm(other, "1", "A", [1])
            assert (await venue.console(director))["flags"] == []
    run(event_file, scenario)


# --- finding 10: forms, fields, nonces ------------------------------------------------------------


def test_nonces_are_bound_to_their_form_and_said_tells_only_its_own_sheet(event_file: Path) -> None:
    """Review reliability-4 §8: any signed nonce was accepted by any sheet's form and by the
    console; a nonce spent on 1A replayed on 1B answered 1A's outcome, and ``?said=`` on any
    table page showed it."""
    async def scenario(venue: Venue) -> None:
        async with venue.client() as director, venue.client() as phone, venue.client() as second:
            await venue.login(director)
            page_a = await phone.get(venue.url("1", "A"))
            nonce = form_nonce(page_a.text, "enter", "1")
            spent = await phone.post(venue.url("1", "A") + "/enter", data={
                "slot": "1", "defenders_points": "55", "nonce": nonce})
            assert spent.status_code == 303
            replay = await phone.post(venue.url("1", "B") + "/enter", headers=JSON, data={
                "slot": "1", "defenders_points": "55", "nonce": nonce})
            assert replay.status_code == 400 and replay.json()["key"] == "live.bad_nonce"
            other_slot = await phone.post(venue.url("1", "A") + "/enter", headers=JSON, data={
                "slot": "2", "defenders_points": "55", "nonce": form_nonce(page_a.text, "enter", "3")})
            assert other_slot.status_code == 400
            assert "已录入 55" in (await phone.get(venue.url("1", "A") + f"?said={nonce}")).text
            assert "已录入 55" not in (await phone.get(venue.url("1", "B") + f"?said={nonce}")).text
            console_form = form_nonce((await director.get("/-/console")).text, "pair")
            as_table = await phone.post(venue.url("1", "B") + "/enter", headers=JSON, data={
                "slot": "1", "defenders_points": "55", "nonce": console_form})
            assert as_table.status_code == 400
            await venue.login(second)  # another director's session: not its form
            refused = await second.post("/-/console/pair", headers=JSON, data={"nonce": console_form})
            assert refused.status_code == 400 and refused.json()["key"] == "live.bad_nonce"
            as_other_action = await director.post("/-/console/print", headers=JSON, data={
                "nonce": console_form, "round": "1"})
            assert as_other_action.status_code == 400
    run(event_file, scenario)


def test_a_form_with_too_many_fields_is_refused_in_words(event_file: Path) -> None:
    """Review reliability-4 finding 4: more than 200 fields answered 500 with a traceback, with no
    tag or cookie needed."""
    body = "&".join(["a=1"] * 201)
    form = {"content-type": "application/x-www-form-urlencoded"}

    async def scenario(venue: Venue) -> None:
        async with venue.client() as director, venue.client() as phone:
            await venue.login(director)
            for client, path in ((phone, "/code"), (phone, venue.url("1", "A") + "/confirm"),
                                 (director, "/-/console/pair")):
                answer = await client.post(path, content=body, headers=form)
                assert answer.status_code == 413, (path, answer.status_code)
                assert "200" in answer.text and "Internal Server Error" not in answer.text
    run(event_file, scenario)


def test_a_slot_named_twice_is_confirmed_once_and_no_path_reaches_a_phone(event_file: Path) -> None:
    """Review reliability-4 finding 6: ``slots=2&slots=2`` answered 400 with the store's error
    and the laptop's path of the results database."""
    async def scenario(venue: Venue) -> None:
        async with venue.client() as scorer, venue.client() as other:
            await venue.enter(scorer, "1", "A", 2, 60)
            url = venue.url("1", "A")
            page = await other.get(url)
            body = "slots=2&slots=2&code={}&nonce={}".format(venue.code(venue.sheet("1", "A").confirmer),
                                                           form_nonce(page.text, "confirm"))
            answer = await other.post(url + "/confirm", content=body, headers={
                "content-type": "application/x-www-form-urlencoded"})
            assert answer.status_code == 303, answer.text
            assert str(event_file.parent) not in answer.text
            unknown = await other.post(url + "/confirm", headers=JSON, data={
                "slots": "99", "code": venue.code(venue.sheet("1", "A").confirmer),
                "nonce": venue.nonce("1", "A", "confirm")})
            assert unknown.status_code == 409 and str(event_file.parent) not in unknown.text
    run(event_file, scenario)
    assert [(m, t, b, p) for _r, m, t, b, p in _stored(event_file)] == [("1", "A", 2, 60)]


def test_a_refused_value_names_the_field_as_the_page_does(event_file: Path) -> None:
    """Review live-event-4 §12: "defenders_points：值 '83'：防守方得分必须是 5 的倍数"."""
    async def scenario(venue: Venue) -> None:
        async with venue.client() as phone:
            url = venue.url("1", "A")
            page = await phone.get(url)
            answer = await phone.post(url + "/enter", data={"slot": "1", "defenders_points": "83",
                                                            "nonce": form_nonce(page.text, "enter", "1")})
            assert answer.status_code == 400
            refusal = re.search(r'<div class="refusal" role="alert">(.*?)</div>\s*<form', answer.text, re.S)
            assert refusal, answer.text
            assert "抓分" in refusal.group(1) and "defenders_points" not in refusal.group(1)
            english = await phone.post(url + "/enter?lang=en", headers=JSON, data={
                "slot": "1", "defenders_points": "83", "nonce": form_nonce(page.text, "enter", "1")})
            assert "defenders_points" not in json.dumps(english.json()["problems"])
    run(event_file, scenario)


def test_the_guard_takes_the_pages_own_forms_and_refuses_other_sites(event_file: Path) -> None:
    """Review live-event-4 §1: the pages' ``Referrer-Policy: no-referrer`` made Chromium send
    ``Origin: null`` with every form, and the guard refused every console action."""
    async def scenario(venue: Venue) -> None:
        async with venue.client() as director:
            await venue.login(director)
            page = await director.get("/-/console")
            assert page.headers["referrer-policy"] == "same-origin"
            assert '<meta name="referrer" content="same-origin">' in page.text

            async def late(**headers: str) -> int:
                form = form_nonce((await director.get("/-/console")).text, "late")
                answer = await director.post("/-/console/late", headers=headers, data={
                    "nonce": form, "back": "1", "round": "1", "team": "T1", "minutes": "3", "reason": "bus"})
                return answer.status_code
            assert await late(origin="null") == 403
            assert await late(origin="http://evil.example") == 403
            assert await late(referer="http://evil.example/form") == 403
            assert await late(**{"sec-fetch-site": "cross-site"}) == 403
            assert await late(origin="http://127.0.0.1:8000", referer="http://127.0.0.1:8000/-/console") == 303
    run(event_file, scenario)


def test_the_paper_import_names_the_side_that_entered_and_the_one_that_confirmed(event_file: Path,
                                                                                 tmp_path: Path) -> None:
    """Review live-event-4 §12: the mismatch named "by live Osdi6Hnm", a device."""
    async def scenario(venue: Venue) -> None:
        async with venue.client() as scorer, venue.client() as other:
            await venue.enter(scorer, "1", "A", 1, 60)
            await venue.confirm(other, "1", "A", [1])
    run(event_file, scenario)
    with EventSession.open(event_file) as session:
        match = session.event.round(1).match("1")
        seats = match.seats("A")
        scorer, confirmer = (session.event.team(seats[side]) for side in ("EW", "NS"))
    slips = tmp_path / "paper.csv"
    slips.write_text("round,match,table,board,defenders_points\n1,1,A,1,65\n", encoding="utf-8")
    refused = run_dealer("results", "import", event_file, slips)
    assert refused.exit_code == 2
    assert f"live {scorer.id} {scorer.name} → {confirmer.id} {confirmer.name}" in refused.output


def test_the_console_says_what_an_owner_only_file_holds(event_file: Path) -> None:
    """Review live-event-4 §12: the console labelled the team cards "含牌面" (they hold codes)."""
    assert run_dealer("print", "team-cards", event_file).exit_code == 0
    assert run_dealer("print", "hand-records", event_file).exit_code == 0

    async def scenario(venue: Venue) -> None:
        async with venue.client() as director:
            await venue.login(director)
            files = {f["name"]: f["secret"] for f in (await venue.console(director))["files"]}
            assert files["team-cards-zh.pdf"] == "codes"
            assert next(v for k, v in files.items() if k.startswith("hand-records")) == "cards"
            page = (await director.get("/-/console")).text
            assert "team-cards-zh.pdf <small>（含各队代码" in page
            refused = await director.get("/-/console/file?name=team-cards-zh.pdf")
            assert refused.status_code == 403 and "含各队代码" in refused.text
    run(event_file, scenario)


# --- finding 3: what a match's teams see ---------------------------------------------------------------


def test_a_matchs_teams_see_its_result_on_their_sheets_once_both_tables_are_confirmed(event_file: Path) -> None:
    async def scenario(venue: Venue) -> None:
        async with venue.client() as scorer, venue.client() as other:
            for table in ("A", "B"):
                for board in range(1, 9):
                    await venue.enter(scorer, "2", table, board, 40 if table == "A" else 120)
                if table == "A":
                    page = await other.get(venue.url("2", "A"))
                    assert "本场结果" not in page.text  # table B has not played yet
                await venue.confirm(other, "2", table, list(range(1, 9)))
            page = await other.get(venue.url("2", "A"))
            assert "本场结果" in page.text
            twin = (await other.get(venue.url("2", "B") + "/state.json")).json()
            result = twin["match_result"]
            assert result["home_levels"] + result["away_levels"] > 0
            assert f"{result['home_levels']} : {result['away_levels']}" in page.text
            assert result["home_match_points"] + result["away_match_points"] == 2  # swiss: 2 / 1 / 0
    run(event_file, scenario)


# --- finding 4: pages that change by themselves; finding 10: a client gone mid-body -----------------


class _Events:
    """A server-sent-events stream read in a thread: the events it said, as they come."""

    def __init__(self, base: str, path: str) -> None:
        import queue
        import threading

        self.events: queue.Queue[str] = queue.Queue()
        self.client = httpx.Client(base_url=base, timeout=httpx.Timeout(5, read=None))
        self._thread = threading.Thread(target=self._read, args=(path,), daemon=True)
        self._thread.start()

    def _read(self, path: str) -> None:
        try:
            with self.client.stream("GET", path) as stream:
                for line in stream.iter_lines():
                    if line.startswith("event: "):
                        self.events.put(line.removeprefix("event: "))
        except httpx.HTTPError:
            pass  # closed by the test

    def next(self, within: float) -> str | None:
        import queue

        try:
            return self.events.get(timeout=within)
        except queue.Empty:
            return None

    def close(self) -> None:
        self.client.close()


def test_a_sheets_page_hears_of_its_own_changes_only_and_the_console_of_every_change(event_file: Path) -> None:
    """Review live-event-4 §4: the scorer's phone showed 待确认 after the other side disputed; the
    console's grid changed only on reload."""
    boards = event_file.parent / "boards"
    with LiveServer(event_file, boards) as server:
        venue_key = bytes.fromhex((boards / "demo-swiss" / "entry.key").read_text().strip())
        urls = {}
        with EventSession.open(event_file) as session:
            for match, table in (("1", "A"), ("2", "A")):
                sid = SheetId("demo-swiss", 1, match, table, 1)
                urls[match] = entry_path(sid, sheet_tag(venue_key, sid))
            confirmer = live.sheet_of(session.event, 1, "1", "A").confirmer
            code = team_code(venue_key, "demo-swiss", confirmer)
        scorer, other = httpx.Client(base_url=server.base), httpx.Client(base_url=server.base)
        page = scorer.get(urls["1"]).text
        assert f'data-events="{urls["1"]}/events"' in page and "/-/static/refresh.js" in page
        assert "本页不会自动更新" in page  # inside <noscript>
        sheet_stream, console_stream = _Events(server.base, urls["1"] + "/events"), _Events(server.base,
                                                                                            "/-/events")
        try:
            assert sheet_stream.next(5) == "changed" and console_stream.next(5) == "changed"  # on opening
            for url, slot in ((urls["1"], "1"), (urls["2"], "1")):
                form = form_nonce(scorer.get(url).text, "enter", slot)
                assert scorer.post(url + "/enter", data={"slot": slot, "defenders_points": "60",
                                                         "nonce": form}).status_code == 303
            assert sheet_stream.next(4) == "changed"  # its own entry (once: the two writes in a second)
            assert console_stream.next(4) == "changed"
            time.sleep(1.2)
            form = form_nonce(scorer.get(urls["2"]).text, "enter", "2")
            assert scorer.post(urls["2"] + "/enter", data={"slot": "2", "defenders_points": "65",
                                                           "nonce": form}).status_code == 303
            assert console_stream.next(4) == "changed"
            assert sheet_stream.next(2.5) is None  # another sheet's entry: nothing to show here
            page = other.get(urls["1"]).text
            disputed = other.post(urls["1"] + "/dispute", data={
                "slot": "1", "defenders_points": "80", "code": code, "nonce": form_nonce(page, "dispute", "1")})
            assert disputed.status_code == 303
            assert sheet_stream.next(4) == "changed"  # the other side's dispute: the scorer's page refreshes
            assert "有争议" in scorer.get(urls["1"]).text
        finally:
            sheet_stream.close()
            console_stream.close()
            scorer.close()
            other.close()
        assert "Traceback" not in server.output()


def test_a_client_gone_mid_body_leaves_no_traceback(event_file: Path) -> None:
    """Review reliability-4 finding 5: a POST whose client hung up after 6 of its 100 bytes printed
    ``ClientDisconnect``'s traceback on the director's terminal."""
    boards = event_file.parent / "boards"
    with LiveServer(event_file, boards) as server:
        for path in ("/code", "/-/console/pair"):
            with socket.create_connection(("127.0.0.1", server.port), timeout=5) as raw:
                raw.sendall(f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\n"
                            "Content-Type: application/x-www-form-urlencoded\r\nContent-Length: 100\r\n\r\n"
                            "code=A".encode())
            time.sleep(0.3)
        body = "&".join(["a=1"] * 250)
        answer = httpx.post(server.base + "/code", content=body,
                            headers={"content-type": "application/x-www-form-urlencoded"})
        assert answer.status_code == 413
        assert httpx.get(server.base + "/-/health").status_code == 200
    assert "Traceback" not in server.output() and "ClientDisconnect" not in server.output()
