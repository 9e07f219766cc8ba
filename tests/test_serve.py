"""`dealer serve`: a table's entry and confirmation, and every refusal with its documented status
(docs/serve.md, "Threat model"), driven in-process through the real application."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import run_dealer
from serve_support import JSON, dealt_demo, home_nonce, level_race, nonce_of, run, served, stored_results

from dealer.app import live
from dealer.resources import demo_event_text
from dealer.serve.security import RateLimit


@pytest.fixture
def event_file(tmp_path: Path) -> Path:
    return dealt_demo(tmp_path)


async def _enter(client, url: str, slot: str, points: str, **extra: str):  # type: ignore[no-untyped-def]
    page = await client.get(url)
    return await client.post(url + "/enter", data={"slot": slot, "nonce": nonce_of(page.text, slot),
                                                   "defenders_points": points, **extra}, headers=JSON)


def test_a_table_enters_its_boards_the_other_side_confirms_and_both_close_the_recap(event_file: Path) -> None:
    with served(event_file) as server:
        url = server.sheet_url(1, "1", "A")  # table A: T1 (home) E-W keeps score, T2 N-S confirms

        async def play() -> None:
            async with server.client() as scorer, server.client() as other:
                page = await scorer.get(url)
                assert page.status_code == 200
                assert page.headers["cache-control"] == "no-store"
                assert page.headers["referrer-policy"] == "same-origin"
                assert "东风队" in page.text and "长城队" in page.text and "第 1 副" in page.text
                for board in range(1, 17):
                    reply = await _enter(scorer, url, str(board), str(5 * board + 20))
                    assert reply.status_code == 200, reply.text
                # a double tap: the same nonce again stores nothing more
                page = await scorer.get(url)
                nonce = nonce_of(page.text, "16")
                again = [await scorer.post(url + "/enter", data={"slot": "16", "nonce": nonce,
                                                                 "defenders_points": "100"}, headers=JSON)
                         for _ in range(2)]
                assert [r.json()["repeated"] for r in again] == [False, True]
                assert stored_results(event_file) == []  # nothing counts before the other side confirms
                # the scorer's own phone cannot confirm
                page = await scorer.get(url)
                own = await scorer.post(url + "/confirm", data={"nonce": nonce_of(page.text, "confirm"),
                                                                "code": server.code_of("T2")}, headers=JSON)
                assert own.status_code == 403 and "这部手机" in own.json()["message"]
                page = await other.get(url)
                done = await other.post(url + "/confirm", data={"nonce": nonce_of(page.text, "confirm"),
                                                                "code": server.code_of("T2")})
                assert done.status_code == 303
                shown = await other.get(done.headers["location"])
                assert "已确认并保存 16 个成绩" in shown.text
                assert "东风队 上台" in shown.text or "升" in shown.text  # the result as a sentence
                for side, team, client in (("scorer", "T1", scorer), ("confirmer", "T2", other)):
                    page = await client.get(url)
                    reply = await client.post(url + "/recap", data={
                        "side": side, "nonce": nonce_of(page.text, "recap-" + side), "code": server.code_of(team)},
                        headers=JSON)
                    assert reply.status_code == 200, reply.text
                page = await scorer.get(url)
                assert "本桌结束" in page.text and 'class="enter"' not in page.text
                late = await scorer.post(url + "/enter", headers=JSON, data={
                    "slot": "1", "nonce": server.nonce(1, "1", "A", "enter/1"), "defenders_points": "40"})
                assert late.status_code == 409 and "只有裁判" in late.json()["message"]

        run(play())
    rows = stored_results(event_file)
    assert len(rows) == 16 and rows[15]["defenders_points"] == 100
    assert all(row["entered_by"].startswith("live") for row in rows)
    assert run_dealer("results", "audit", event_file).exit_code == 0


def test_a_table_sees_the_other_tables_result_on_a_board_only_once_its_own_is_confirmed(event_file: Path) -> None:
    with served(event_file) as server:
        table_a, table_b = server.sheet_url(1, "1", "A"), server.sheet_url(1, "1", "B")

        async def play() -> None:
            async with server.client() as a_scorer, server.client() as a_other, \
                    server.client() as b_scorer, server.client() as b_other:
                assert (await _enter(a_scorer, table_a, "1", "145")).status_code == 200
                page = await a_other.get(table_a)
                await a_other.post(table_a + "/confirm", data={"nonce": nonce_of(page.text, "confirm"),
                                                               "code": server.code_of("T2")})
                seen = await b_scorer.get(table_b + "/state.json")
                assert seen.json()["slots"][0]["other_table"] is None and "145" not in seen.text
                assert (await _enter(b_scorer, table_b, "1", "60")).status_code == 200
                assert "145" not in (await b_scorer.get(table_b)).text  # entered is not confirmed
                page = await b_other.get(table_b)
                await b_other.post(table_b + "/confirm", data={"nonce": nonce_of(page.text, "confirm"),
                                                               "code": server.code_of("T1")})
                seen = await b_scorer.get(table_b + "/state.json")
                assert seen.json()["slots"][0]["other_table"] == {"table": "A", "defenders_points": 145}

        run(play())
        log = server.on_db(lambda s: [dict(r) for r in s.store.conn.execute(
            "SELECT action, tbl, slot, device, address, at FROM live_log ORDER BY id")])
    assert [(r["action"], r["tbl"]) for r in log] == [("enter", "A"), ("confirm", "A"), ("enter", "B"),
                                                      ("confirm", "B")]
    assert all(r["device"] and r["address"] == "127.0.0.1" and r["at"] for r in log)


def test_a_refused_value_says_the_profiles_reason_and_keeps_what_was_typed(event_file: Path) -> None:
    with served(event_file) as server:
        url = server.sheet_url(1, "1", "B")

        async def play() -> None:
            async with server.client() as scorer:
                page = await scorer.get(url)
                reply = await scorer.post(url + "/enter", data={"slot": "4", "nonce": nonce_of(page.text, "4"),
                                                                "defenders_points": "83"})
                assert reply.status_code == 400
                assert "5 的倍数" in reply.text and 'value="83"' in reply.text
                english = await scorer.post(url + "/enter?lang=en", data={
                    "slot": "4", "nonce": nonce_of(page.text, "4"), "defenders_points": "83"}, headers=JSON)
                assert "multiple of 5" in " ".join(english.json()["problems"])

        run(play())


def test_five_wrong_team_codes_lock_the_sheet_until_the_director_unlocks_it(event_file: Path) -> None:
    with served(event_file) as server:
        url = server.sheet_url(1, "2", "A")

        async def play() -> None:
            async with server.client() as scorer, server.client() as other:
                assert (await _enter(scorer, url, "1", "60")).status_code == 200
                statuses = []
                for _ in range(6):
                    page = await other.get(url)
                    nonce = nonce_of(page.text, "confirm") if 'class="confirm-form"' in page.text else "x.y"
                    reply = await other.post(url + "/confirm", data={"nonce": nonce, "code": "000000"}, headers=JSON)
                    statuses.append(reply.status_code)
                assert statuses[:4] == [403] * 4 and statuses[4] == 423
                page = await other.get(url)
                assert "已锁定" in page.text
                sheet = server.on_db(lambda s: live.sheet_of(s.event, 1, "2", "A"))
                server.on_db(lambda s: live.unlock(s, sheet, "test"))
                page = await other.get(url)
                reply = await other.post(url + "/confirm", data={"nonce": nonce_of(page.text, "confirm"),
                                                                 "code": server.code_of(sheet.confirmer)}, headers=JSON)
                assert reply.status_code == 200

        run(play())


def test_forged_altered_revoked_and_other_rounds_sheets_are_refused_by_name(event_file: Path) -> None:
    with served(event_file) as server:
        url = server.sheet_url(1, "1", "A")
        tag = url.rsplit("/", 1)[1]
        altered = url[:-1] + ("A" if tag[-1] != "A" else "B")
        forged = url.replace("/1/1/A/1/", "/1/2/A/1/")  # another match under this sheet's tag

        async def play() -> None:
            async with server.client() as phone:
                for bad in (altered, forged):
                    reply = await phone.get(bad)
                    assert reply.status_code == 403 and "校验码错误" in reply.text
                assert (await phone.get(url.replace("/t/SJE1/", "/t/SJD1/"))).status_code == 404
                other_round = await phone.get(server.sheet_url(2, "1", "A"))
                assert other_round.status_code == 409
                assert "第 2 轮第 1 场 A 桌" in other_round.text and "第 1 轮" in other_round.text
                sheet = server.on_db(lambda s: live.sheet_of(s.event, 1, "1", "A"))
                assert server.on_db(lambda s: live.revoke(s, sheet, "sheet torn", "test")) == 2
                old = await phone.get(url)
                assert old.status_code == 410 and "已被替换" in old.text
                assert (await phone.get(server.sheet_url(1, "1", "A", 2))).status_code == 200

        run(play())


def test_the_guard_refuses_foreign_hosts_cross_site_posts_big_bodies_and_floods(event_file: Path) -> None:
    with served(event_file, rate=RateLimit(rate=1, burst=3)) as server:
        url = server.sheet_url(1, "1", "A")

        async def play() -> None:
            async with server.client() as phone:
                assert (await phone.get("/", headers={"host": "attacker.example"})).status_code == 400
                assert (await phone.get("/", headers={"host": "127.0.0.1:8000"})).status_code == 200
                assert (await phone.get("/", headers={"host": "localhost:8000"})).status_code == 200
                cross = await phone.post(url + "/enter", data={"slot": "1"}, headers={"origin": "http://evil.example"})
                assert cross.status_code == 403 and "其他网站" in cross.text
                big = await phone.post(url + "/enter", content=b"x" * 20_000,
                                       headers={"content-type": "application/x-www-form-urlencoded"})
                assert big.status_code == 413
                statuses = [(await phone.post("/code", data={"code": "AAAAAAAA"})).status_code for _ in range(4)]
                assert 429 in statuses
                assert (await phone.get("/")).status_code == 200  # reading is not limited

        run(play())


def test_a_director_link_works_once(event_file: Path) -> None:
    with served(event_file) as server:
        link = server.director_link()

        async def play() -> None:
            async with server.client() as director, server.client() as thief:
                assert (await director.get("/-/console")).status_code == 403
                first = await director.get(link)
                assert first.status_code == 303
                cookie = first.headers["set-cookie"].lower()
                assert "httponly" in cookie and "samesite=strict" in cookie
                assert (await director.get("/-/console")).status_code == 200
                reused = await thief.get(link)
                assert reused.status_code == 403 and "已被使用" in reused.text
                assert (await thief.get("/-/console")).status_code == 403

        run(play())


def test_a_third_device_that_writes_on_a_sheet_is_flagged_on_every_phone(event_file: Path) -> None:
    """Review live-event-4 §7: devices that look (a link preview, a player reading the sheet) and
    one phone moving from WeChat's browser to its own (the venue guide's advice: one address, two
    cookies) raise nothing; a third device that writes does."""
    with served(event_file) as server:
        url = server.sheet_url(1, "1", "A")
        confirmer = server.on_db(lambda s: live.sheet_of(s.event, 1, "1", "A")).confirmer

        def flags() -> list[str]:
            return [f["kind"] for f in server.on_db(lambda s: live.open_flags(s, 1))]

        async def play() -> None:
            async with server.client("192.168.1.21") as wechat, server.client("192.168.1.21") as browser, \
                    server.client("192.168.1.22") as other, server.client("192.168.1.23") as looker, \
                    server.client("192.168.1.24") as intruder:
                for phone in (wechat, other, looker, browser):
                    assert "部设备" not in (await phone.get(url)).text
                assert (await _enter(wechat, url, "1", "60")).status_code == 200
                assert (await _enter(browser, url, "2", "65")).status_code == 200  # the same phone, another browser
                page = await other.get(url)
                done = await other.post(url + "/confirm", data={"nonce": nonce_of(page.text, "confirm"),
                                                                "code": server.code_of(confirmer)}, headers=JSON)
                assert done.status_code == 200, done.text
                assert "devices" not in flags() and "部设备" not in (await looker.get(url)).text
                assert (await _enter(intruder, url, "3", "70")).status_code == 200
                assert "devices" in flags()
                assert "3 部设备" in (await wechat.get(url)).text and "3 部设备" in (await other.get(url)).text

        run(play())


def test_the_fallback_code_opens_the_sheet(event_file: Path) -> None:
    from dealer.formats.entry import SheetId, sheet_code

    with served(event_file) as server:
        code = sheet_code(server.key, SheetId("demo", 1, "2", "B", 1))

        async def play() -> None:
            async with server.client() as phone:
                nonce = home_nonce((await phone.get("/")).text)
                reply = await phone.post("/code", data={"code": code.lower()[:4] + "-" + code.lower()[4:],
                                                        "nonce": nonce})
                assert reply.status_code == 303 and reply.headers["location"] == server.sheet_url(1, "2", "B")
                assert (await phone.post("/code", data={"code": "AAAAAAAA", "nonce": nonce})).status_code == 404
                assert (await phone.post("/code", data={"code": code})).status_code == 400  # no form of ours

        run(play())


def test_a_level_race_table_is_entered_with_the_same_form(tmp_path: Path) -> None:
    event_file = level_race(tmp_path)
    with served(event_file) as server:
        sheet = server.on_db(lambda s: live.sheet_of(s.event, 1, s.event.rounds[0].matches[0].id, "1"))
        url = server.sheet_url(1, sheet.id.match, "1")

        async def play() -> None:
            async with server.client() as scorer, server.client() as other:
                page = await scorer.get(url)
                assert page.status_code == 200 and 'name="home_level"' in page.text
                assert '<option value="过A">' in page.text  # the profile's levels, 过A included
                tied = await scorer.post(url + "/enter", data={
                    "slot": "levels", "nonce": nonce_of(page.text, "levels"), "home_level": "8", "away_level": "8"},
                    headers=JSON)
                assert tied.status_code == 400  # equal levels need the last game's winner
                reply = await scorer.post(url + "/enter", data={
                    "slot": "levels", "nonce": nonce_of(page.text, "levels"), "home_level": "8", "away_level": "8",
                    "last_game": "home"}, headers=JSON)
                assert reply.status_code == 200, reply.text
                page = await other.get(url)
                assert "末局" in page.text
                page = await other.get(url)
                reply = await other.post(url + "/confirm", data={"nonce": nonce_of(page.text, "confirm"),
                                                                 "code": server.code_of(sheet.confirmer)}, headers=JSON)
                assert reply.status_code == 200, reply.text

        run(play())
    history = run_dealer("results", "history", event_file, "--round", "1")
    assert history.exit_code == 0 and "live" in history.stdout


def test_paper_slips_imported_after_live_entry_report_each_disagreement_and_overwrite_nothing(
        event_file: Path, tmp_path: Path) -> None:
    with served(event_file) as server:
        url = server.sheet_url(1, "1", "A")

        async def play() -> None:
            async with server.client() as scorer, server.client() as other:
                for board, points in ((1, "60"), (2, "85")):
                    assert (await _enter(scorer, url, str(board), points)).status_code == 200
                page = await other.get(url)
                await other.post(url + "/confirm", data={"nonce": nonce_of(page.text, "confirm"),
                                                         "code": server.code_of("T2")})

        run(play())
    slips = tmp_path / "paper.csv"
    slips.write_text("round,match,table,board,defenders_points\n1,1,A,1,60\n1,1,A,2,90\n1,1,B,1,40\n",
                     encoding="utf-8")
    refused = run_dealer("results", "import", event_file, slips)
    assert refused.exit_code == 2
    assert "row 3" in refused.output and "85" in refused.output and "90" in refused.output
    rows = stored_results(event_file)
    assert [(r["tbl"], r["board"], r["defenders_points"]) for r in rows] == [("A", 1, 60), ("A", 2, 85)]


def test_the_command_binds_this_machine_unless_told_lan_and_prints_director_links(event_file: Path) -> None:
    refused = run_dealer("serve", event_file, "--host", "10.1.2.3")
    assert refused.exit_code == 2 and "--lan" in refused.stderr
    wildcard = run_dealer("serve", event_file, "--lan", "--host", "0.0.0.0")
    assert wildcard.exit_code == 2 and "every interface" in wildcard.stderr
    links = [run_dealer("serve", event_file, "--director-link", "--port", "8123") for _ in range(2)]
    assert all(o.exit_code == 0 and "http://127.0.0.1:8123/-/login?token=" in o.stdout for o in links)
    assert links[0].stdout != links[1].stdout
    key = (event_file.parent / "boards" / "demo" / "deal.key").read_text().strip()
    assert all(key not in o.output for o in links)


def test_a_double_entry_event_counts_a_result_when_two_phones_agree(tmp_path: Path) -> None:
    event_file = tmp_path / "demo.toml"
    event_file.write_text(demo_event_text().replace('profile = "official-2002"',
                                                    'profile = "official-2002"\nlive_confirmation = "double-entry"'),
                          encoding="utf-8")
    assert run_dealer("deal", event_file).exit_code == 0
    with served(event_file) as server:
        url = server.sheet_url(1, "1", "A")

        async def play() -> None:
            async with server.client() as one, server.client() as two:
                assert (await _enter(one, url, "1", "60")).status_code == 200
                assert (await _enter(one, url, "2", "60")).status_code == 200
                agreed = await _enter(two, url, "1", "60")
                assert agreed.status_code == 200 and "已确认并保存 1 个成绩" in agreed.json()["message"]
                disagreed = await _enter(two, url, "2", "65")
                assert "不一致" in disagreed.json()["message"]
                state = (await one.get(url + "/state.json")).json()
                assert [s["state"] for s in state["slots"][:2]] == ["confirmed", "conflict"]

        run(play())
    assert [(r["board"], r["defenders_points"]) for r in stored_results(event_file)] == [(1, 60)]


def test_the_server_binds_where_the_printed_sheets_point() -> None:
    from dealer.serve.run import binding

    assert binding(False, None, None).url == "http://127.0.0.1:8000"
    assert binding(True, None, None, "http://192.168.1.10:8080").url == "http://192.168.1.10:8080"
    assert binding(True, "10.0.0.5", 9000, "http://192.168.1.10:8080").url == "http://10.0.0.5:9000"
    assert binding(False, None, None, "http://192.168.1.10:8080").url == "http://127.0.0.1:8080"
