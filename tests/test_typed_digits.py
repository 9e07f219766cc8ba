"""Only ASCII and full-width digits in numbers (security review, finding 8, and its follow-up).

A Chinese IME's full-width "５０", "Ａ", "１０", "过Ａ" are read as 50, A, 10, 过A; but a
superscript, subscript, circled, parenthesised, full-stop, fraction or mathematical digit is not a
digit typed by a person: NFKC used to read points ``⁸⁵`` / ``⑧⑤`` as 85, a level race's table
``①`` as table 1 and ``--round ²`` as round 2 (``results correct --round ² --withdraw`` withdrew
round 2's results). Each is now refused as not a whole number, naming the field, exit 2, nothing
stored; every way in is tried: ``results add`` / ``correct``, a results file, the table's live
page, the director's console, a registration sheet, a line-up, and the command line's
whole-number options (where click's ``int()`` read another script's "٢" and "𝟐" as 2).
"""

from __future__ import annotations

import sqlite3
import unicodedata
from pathlib import Path
from typing import Any

import pytest
from conftest import Outcome, assert_one_error, run_dealer
from serve_support import JSON, dealt_demo, level_race, nonce_of, run, served, stored_results
from test_levels import HEADER_ZH, SEED_001, SEED_001_ROWS, SEED_002, seed_001_database, seed_001_race
from test_results_support import HEADER, db_state, dealer_at, results_rows, write_csv, write_event

from dealer.app import live

#: 85 written with digits a person does not type as digits (each read as 85 by NFKC).
NOT_DIGITS_85 = {
    "superscript": "⁸⁵",
    "subscript": "₈₅",
    "circled": "⑧⑤",
    "full stop": "8⒌0",  # NFKC: "85.0"
    "mathematical bold": "𝟖𝟓",
    "one superscript digit": "8⁵",
}


def _boards(tmp_path: Path) -> tuple[str, Path]:
    return ("--boards-dir", tmp_path / "boards")


def _refused(outcome: Outcome, *texts: str) -> None:
    """Refused as input (exit 2), an ``error:`` naming ``texts``, no traceback."""
    assert outcome.exit_code == 2, outcome.output
    assert "error:" in outcome.stderr and "Traceback" not in outcome.output, outcome.output
    for text in texts:
        assert text in outcome.output, (text, outcome.output)


def _level_rows(tmp_path: Path, event_id: str = "four-deck-levels") -> list[tuple[Any, ...]]:
    with sqlite3.connect(tmp_path / "boards" / event_id / "results.sqlite") as conn:
        return conn.execute("SELECT * FROM level_results ORDER BY id").fetchall()


def _level_race(tmp_path: Path) -> Path:
    """Seed 001's level race (five tables a match) with all three rounds imported."""
    event = tmp_path / "levels.toml"
    event.write_text(SEED_001, encoding="utf-8")
    (tmp_path / "boards").mkdir(exist_ok=True)
    rows = tmp_path / "all.csv"
    rows.write_text(HEADER_ZH + "\n" + "".join(",".join(r) + "\n" for r in SEED_001_ROWS), encoding="utf-8")
    outcome = run_dealer("results", "import", event, rows, *_boards(tmp_path))
    assert outcome.exit_code == 0, outcome.output
    return event


# --- the rule itself -----------------------------------------------------------------------------


def test_the_fold_reads_full_width_forms_and_never_makes_a_digit_of_another_form() -> None:
    from dealer.numbers import fold_typed

    assert fold_typed("５０") == "50" and fold_typed("－４０") == "-40" and fold_typed("＋８５") == "+85"
    assert fold_typed("过Ａ") == "过A" and fold_typed("ＮＴ") == "NT" and fold_typed("ＨＯＭＥ") == "HOME"
    assert fold_typed("１\u3000２") == "1 2"  # the ideographic space is a wide space
    assert fold_typed("ｶ") == "カ"  # half-width katakana: <narrow>
    assert fold_typed("ﬁ") == "fi" and fold_typed("Cafe\u0301") == "Café"  # other foldings kept
    for text in [*NOT_DIGITS_85.values(), "⑻⑸", "½", "¹⁰", "①", "²", "㉑", "⓪", "㎡", "㏠", "🄂", "٨٥", "८५"]:
        assert fold_typed(text) == unicodedata.normalize("NFC", text), text
    assert fold_typed("85\u200b") == "85\u200b"  # a zero-width space stays (and is refused)


def test_no_character_but_an_ascii_or_full_width_digit_folds_into_a_digit() -> None:
    """Every code point with a decomposition (one without is left as it is: NFKC and NFC do not
    change it), decided by it: <wide> and <narrow> forms are folded as NFKC folds them; every other
    form NFKC folds is folded too unless its NFKC form holds a digit, and then it is left as it is."""
    from dealer.numbers import fold_typed

    ascii_digits = set("0123456789")
    decomposed = [chr(p) for p in range(0x80, 0x110000) if unicodedata.decomposition(chr(p))]
    assert len(decomposed) > 5000
    for char in decomposed:
        point = ord(char)
        folded = fold_typed(char)
        nfkc = unicodedata.normalize("NFKC", char)
        tag = unicodedata.decomposition(char).split(" ", 1)[0]
        if tag in ("<wide>", "<narrow>"):
            assert folded == nfkc, hex(point)
        elif any(c.isdigit() for c in nfkc) and nfkc != unicodedata.normalize("NFC", char):
            assert folded == char, hex(point)
        else:
            assert folded == nfkc, hex(point)
        if ascii_digits & set(folded):
            assert char.isascii() or 0xFF10 <= point <= 0xFF19, hex(point)
        assert fold_typed(folded) == folded, hex(point)


def test_whole_numbers_are_ascii_or_full_width_digits() -> None:
    """The director's console reads numbers with ``whole_number_or_none``: full-width digits are
    the same number there too; any other digits are not a number."""
    from dealer.numbers import whole_number, whole_number_or_none

    assert whole_number("８５") == 85 and whole_number("－４０") == -40 and whole_number("８5") == 85
    assert whole_number("85.0") == 85 and whole_number("+85") == 85  # a spreadsheet's float, a sign
    assert whole_number_or_none("１") == 1
    for text in [*NOT_DIGITS_85.values(), "٨٥", "८५", "85\u200b", "²"]:
        assert whole_number(text) is None, text


def test_a_team_code_in_full_width_digits_is_the_code_and_in_circled_digits_is_not() -> None:
    from dealer.formats.entry import normal_code, same_code

    full_width = "".join(chr(0xFF10 + int(d)) for d in "042917")
    circled = "⓪④②⑨①⑦"
    assert same_code("042917", full_width) and same_code("042917", " 042 917 ")
    assert not same_code("042917", circled) and not same_code("042917", "⁰⁴²⁹¹⁷")
    assert normal_code("ＡＢＣＤ－ＥＦＧＨ") == "ABCDEFGH"
    assert normal_code("ABCD-EFG⑧") != normal_code("ABCD-EFG8")


# --- results add / correct -----------------------------------------------------------------------


@pytest.mark.parametrize(("field", "text", "message"), [
    *(("--points", text, "expected the defenders' points as a whole number") for text in NOT_DIGITS_85.values()),
    ("--round", "¹", "expected the round number as a whole number"),
    ("--board", "①", "expected the board number as a whole number"),
    ("--board", "₁", "expected the board number as a whole number"),
], ids=[*NOT_DIGITS_85, "round superscript", "board circled", "board subscript"])
def test_results_add_refuses_digits_that_are_not_typed_digits(tmp_path: Path, field: str, text: str,
                                                                 message: str) -> None:
    event = write_event(tmp_path)
    values = {"--round": "1", "--board": "1", "--points": "85"} | {field: text}
    before = db_state(tmp_path)
    outcome = run_dealer("results", "add", event, "--round", values["--round"], "--match", "1", "--table", "A",
                         "--board", values["--board"], "--points", values["--points"], *_boards(tmp_path))
    _refused(outcome, field, repr(text), message)
    assert db_state(tmp_path) == before


def test_results_add_reads_full_width_digits_and_correct_refuses_other_digits(tmp_path: Path) -> None:
    event = write_event(tmp_path)
    slot = ("--round", "1", "--match", "1", "--table", "A", "--board", "2")
    added = run_dealer("results", "add", event, *slot, "--points", "８5", *_boards(tmp_path))
    assert added.exit_code == 0 and "board 2: 85 points" in added.output, added.output
    before = db_state(tmp_path)
    for text in NOT_DIGITS_85.values():
        _refused(run_dealer("results", "correct", event, "--round", "1", "--match", "1", "--table", "A",
                            "--board", "2", "--points", text.replace("8", "9").replace("⁸", "⁹"),
                            "--reason", "x", *_boards(tmp_path)), "--points")
    # A withdrawal names its slot by the same reading: ¹ is not board 1, nor round 1.
    _refused(run_dealer("results", "correct", event, "--round", "1", "--match", "1", "--table", "A",
                        "--board", "²", "--withdraw", "--reason", "x", *_boards(tmp_path)),
             "--board", "expected the board number as a whole number")
    _refused(run_dealer("results", "correct", event, "--round", "¹", "--match", "1", "--withdraw",
                        "--reason", "x", *_boards(tmp_path)),
             "--round", "expected the round number as a whole number")
    assert db_state(tmp_path) == before


def test_a_superscript_round_withdraws_nothing(tmp_path: Path) -> None:
    """The review's case: ``results correct --round ² --match 1 --withdraw`` withdrew round 2
    match 1's five table results."""
    event = _level_race(tmp_path)
    before = _level_rows(tmp_path)
    for text in ("²", "②", "₂", "⑵", "𝟐"):
        _refused(run_dealer("results", "correct", event, "--round", text, "--match", "1", "--withdraw",
                            "--reason", "x", *_boards(tmp_path)),
                 "--round", repr(text), "expected the round number as a whole number")
        assert _level_rows(tmp_path) == before
    withdrawn = run_dealer("results", "correct", event, "--round", "２", "--match", "1", "--withdraw",
                           "--reason", "x", *_boards(tmp_path))  # full-width: round 2
    assert withdrawn.exit_code == 0 and "withdrew 5 result(s) of round 2 match 1" in withdrawn.output


def test_a_level_races_table_and_games_refuse_circled_and_superscript_digits(tmp_path: Path) -> None:
    event = tmp_path / "levels.toml"
    event.write_text(SEED_001, encoding="utf-8")
    (tmp_path / "boards").mkdir()
    common = ("--round", "1", "--match", "1", "--home-level", "5", "--away-level", "3")
    for table in ("①", "²", "⑴", "⒈"):
        _refused(run_dealer("results", "add", event, *common, "--table", table, *_boards(tmp_path)),
                 "--table", repr(table))
    for games in ("²", "①", "¹²"):
        _refused(run_dealer("results", "add", event, *common, "--table", "1", "--home-games", games,
                            *_boards(tmp_path)), "--home-games", "expected the games won as a whole number")
    assert not (tmp_path / "boards" / "four-deck-levels" / "results.sqlite").exists() or _level_rows(tmp_path) == []
    added = run_dealer("results", "add", event, *common, "--table", "１", "--home-games", "１２",
                       *_boards(tmp_path))
    assert added.exit_code == 0 and "added round 1 match 1 table 1" in added.output, added.output
    with sqlite3.connect(tmp_path / "boards" / "four-deck-levels" / "results.sqlite") as conn:
        assert conn.execute("SELECT tbl, home_games FROM level_results").fetchall() == [(1, 12)]
    history = run_dealer("results", "history", event, "--table", "①", *_boards(tmp_path))
    _refused(history, "--table")


# --- a results file ------------------------------------------------------------------------------


@pytest.mark.parametrize(("column", "text"), [
    *(("defenders_points", text) for text in NOT_DIGITS_85.values()),
    ("round", "¹"), ("board", "③"), ("board", "₃"),
], ids=[*NOT_DIGITS_85, "round superscript", "board circled", "board subscript"])
def test_a_results_file_with_such_digits_is_refused_whole(tmp_path: Path, column: str, text: str) -> None:
    event = write_event(tmp_path)
    good = {"round": "1", "match": "1", "table": "B", "board": "3", "defenders_points": "85"}
    rows = [["1", "1", "A", "1", "８0"], [good[key] if key != column else text for key in HEADER]]
    path = write_csv(tmp_path / "slips.csv", HEADER, rows)
    before = db_state(tmp_path)
    outcome = run_dealer("results", "import", event, path, *_boards(tmp_path))
    _refused(outcome, f'"{column}"', repr(text), "as a whole number")
    assert db_state(tmp_path) == before
    # The same file with full-width digits instead is read.
    rows[1] = [good[key] if key != column else "".join(chr(0xFF10 + int(d)) for d in good[key]) for key in HEADER]
    imported = run_dealer("results", "import", event, write_csv(tmp_path / "ime.csv", HEADER, rows),
                          *_boards(tmp_path))
    assert imported.exit_code == 0 and "imported 2 row(s)" in imported.output, imported.output


def test_a_level_race_file_with_a_circled_table_or_superscript_games_is_refused(tmp_path: Path) -> None:
    event = tmp_path / "levels.toml"
    event.write_text(SEED_001, encoding="utf-8")
    (tmp_path / "boards").mkdir()
    header = HEADER_ZH + ",主队胜局"
    for row, column in (("1,1,①,5,3,,", "桌"), ("1,1,1,5,3,,²", "主队胜局"), ("¹,1,1,5,3,,", "轮次")):
        path = tmp_path / "r.csv"
        path.write_text(f"{header}\n{row}\n", encoding="utf-8")
        _refused(run_dealer("results", "import", event, path, *_boards(tmp_path)), f'"{column}"')
    path.write_text(f"{header}\n１,１,１,５,３,,１２\n", encoding="utf-8")
    imported = run_dealer("results", "import", event, path, *_boards(tmp_path))
    assert imported.exit_code == 0 and "imported 1 row(s)" in imported.output, imported.output
    assert len(_level_rows(tmp_path)) == 1


# --- the table's live page -----------------------------------------------------------------------


def test_the_live_page_refuses_such_points_and_reads_full_width_ones_and_codes(tmp_path: Path) -> None:
    event_file = dealt_demo(tmp_path)
    with served(event_file) as server:
        url = server.sheet_url(1, "1", "A")  # table A: T1 keeps score, T2 confirms

        async def play() -> None:
            async with server.client() as scorer, server.client() as other:
                for text in NOT_DIGITS_85.values():
                    page = await scorer.get(url)
                    reply = await scorer.post(url + "/enter", data={
                        "slot": "1", "nonce": nonce_of(page.text, "1"), "defenders_points": text}, headers=JSON)
                    assert reply.status_code == 400, (text, reply.text)
                    state = (await scorer.get(url + "/state.json")).json()
                    assert "85" not in str(state["slots"][0]), (text, state["slots"][0])
                page = await scorer.get(url)
                reply = await scorer.post(url + "/enter", data={
                    "slot": "1", "nonce": nonce_of(page.text, "1"), "defenders_points": "８5"}, headers=JSON)
                assert reply.status_code == 200, reply.text
                code = server.code_of("T2")
                circled = "".join("⓪" if d == "0" else chr(0x2460 + int(d) - 1) for d in code)
                page = await other.get(url)
                wrong = await other.post(url + "/confirm", data={"nonce": nonce_of(page.text, "confirm"),
                                                                 "code": circled}, headers=JSON)
                assert wrong.status_code == 403, wrong.text
                assert stored_results(event_file) == []
                page = await other.get(url)
                full_width = "".join(chr(0xFF10 + int(d)) for d in code)
                done = await other.post(url + "/confirm", data={"nonce": nonce_of(page.text, "confirm"),
                                                                "code": full_width}, headers=JSON)
                assert done.status_code == 200, done.text

        run(play())
    assert [(row["board"], row["defenders_points"]) for row in stored_results(event_file)] == [(1, 85)]


def test_the_live_level_race_page_refuses_superscript_games(tmp_path: Path) -> None:
    event_file = level_race(tmp_path)
    with served(event_file) as server:
        sheet = server.on_db(lambda s: live.sheet_of(s.event, 1, s.event.rounds[0].matches[0].id, "1"))
        url = server.sheet_url(1, sheet.id.match, "1")

        async def play() -> None:
            async with server.client() as scorer:
                for games in ("²", "①", "¹²"):
                    page = await scorer.get(url)
                    reply = await scorer.post(url + "/enter", data={
                        "slot": "levels", "nonce": nonce_of(page.text, "levels"), "home_level": "8",
                        "away_level": "6", "home_games": games}, headers=JSON)
                    assert reply.status_code == 400, (games, reply.text)
                page = await scorer.get(url)
                reply = await scorer.post(url + "/enter", data={
                    "slot": "levels", "nonce": nonce_of(page.text, "levels"), "home_level": "8", "away_level": "6",
                    "home_games": "１２"}, headers=JSON)
                assert reply.status_code == 200, reply.text

        run(play())


# --- the director's console, a registration sheet, a line-up -------------------------------------


def test_the_directors_console_reads_a_full_width_round_and_refuses_a_superscript_one(tmp_path: Path) -> None:
    event_file = dealt_demo(tmp_path)
    with served(event_file) as server:

        async def play() -> None:
            async with server.client() as director:
                assert (await director.get(server.director_link())).status_code == 303
                shown = await director.get("/-/console.json?round=１")
                assert shown.status_code == 200, shown.text
                assert shown.json()["round"] == (await director.get("/-/console.json?round=1")).json()["round"]
                for text in ("¹", "①", "١"):
                    assert (await director.get(f"/-/console.json?round={text}")).status_code == 400, text

        run(play())


def test_a_registration_seed_in_superscript_digits_is_refused(tmp_path: Path) -> None:
    from registration_support import HEADER as SHEET_HEADER
    from registration_support import sheet_rows, write_xlsx

    rows = sheet_rows(4)
    rows[1][5] = "²"
    sheet = write_xlsx(tmp_path / "teams.xlsx", rows, SHEET_HEADER)
    outcome = run_dealer("init", tmp_path / "ruc.toml", "--profile", "renmin-shuangsheng", "--result", "levels",
                         "--teams", sheet)
    _refused(outcome, "expected a seed as a whole number from 1")
    assert not (tmp_path / "ruc.toml").exists()
    rows[1][5] = "２"  # full-width: seed 2
    write_xlsx(tmp_path / "teams.xlsx", rows, SHEET_HEADER)
    outcome = run_dealer("init", tmp_path / "ruc.toml", "--profile", "renmin-shuangsheng", "--result", "levels",
                         "--teams", sheet)
    assert outcome.exit_code == 0, outcome.output


def test_a_line_up_table_in_superscript_digits_is_refused_not_a_crash(tmp_path: Path) -> None:
    text = SEED_002.replace('id = "T1"\n', 'id = "T1"\nplayers = ["张伟", "王芳", "李雷", "韩梅"]\n', 1)
    event = tmp_path / "seed002.toml"
    event.write_text(text, encoding="utf-8")
    (tmp_path / "boards").mkdir()
    for table in ("²", "①"):
        _refused(run_dealer("lineup", event, "--round", "1", "--team", "T1", "--table", "1", "张伟,王芳",
                            "--table", table, "李雷,韩梅", *_boards(tmp_path)), "--table", repr(table))
    recorded = run_dealer("lineup", event, "--round", "1", "--team", "T1", "--table", "１", "张伟,王芳",
                          "--table", "２", "李雷,韩梅", *_boards(tmp_path))
    assert recorded.exit_code == 0, recorded.output


# --- the command line's whole-number options (click's int() reads "٢" as 2) ----------------------


def test_an_options_round_in_other_digits_is_refused_by_every_command(tmp_path: Path) -> None:
    """click's ``int()`` refused "²" and "②" already, but read "٢" and "𝟐" (decimal digits of
    other scripts) as 2; every whole-number option now reads digits as typed values are read."""
    event = _level_race(tmp_path)
    before = _level_rows(tmp_path)
    for text in ("٢", "𝟐", "²", "②"):
        for command in (("results", "history"), ("results", "missing"), ("lineup",), ("round", "show")):
            outcome = run_dealer(*command, event, "--round", text, *_boards(tmp_path))
            assert outcome.exit_code == 2 and f"'{text}' is not a valid integer" in outcome.output, (command, outcome)
        penalty = run_dealer("results", "penalty", event, "--round", "1", "--match", "1", "--team", "U1",
                             "--match-points", text, "--reason", "x", *_boards(tmp_path))
        assert penalty.exit_code == 2 and "is not a valid integer" in penalty.output, penalty.output
    assert _level_rows(tmp_path) == before
    for command in (("results", "history"), ("results", "missing")):  # full-width: round 2
        shown = run_dealer(*command, event, "--round", "２", *_boards(tmp_path))
        assert shown.exit_code == 0 and shown.stdout == run_dealer(*command, event, "--round", "2",
                                                                   *_boards(tmp_path)).stdout, shown.output


# --- a QR payload's numbers, and a level race's round and table read one way by every command ------


@pytest.mark.parametrize("qr", ["SJD1:T:hand:²:1:5", "SJD1:T:hand:١:1:5", "SJD1:T:hand:" + "1" * 5000 + ":1:5",
                                "SJD1:T:hand:01:1:5"], ids=["superscript", "arabic-indic", "5000-digits",
                                                            "leading-zero"])
def test_qr_payload_with_odd_digits_is_one_error(tmp_path: Path, qr: str) -> None:
    """A QR payload's numbers are decimal digits 0-9 without a leading zero
    (docs/qr.md); ``²``, ``١``, 5,000 digits and ``01`` are refused with one line, nothing stored."""
    event = write_event(tmp_path)
    result = dealer_at(tmp_path, "results", "add", event, "--qr", qr, "--table", "A", "--points", 35)
    assert_one_error(result, "--qr", "round must be a positive decimal number")
    assert results_rows(tmp_path) == []


def level_rows(tmp_path: Path) -> list[tuple[Any, ...]]:
    with sqlite3.connect(seed_001_database(tmp_path)) as conn:
        return conn.execute("SELECT * FROM level_results ORDER BY id").fetchall()


def current_tables(tmp_path: Path) -> dict[tuple[int, str], list[int]]:
    """(round, match) → the tables with a current (not withdrawn) result."""
    found: dict[tuple[int, str], list[int]] = {}
    with sqlite3.connect(seed_001_database(tmp_path)) as conn:
        for round_number, match, table in conn.execute(
                "SELECT round, match, tbl FROM current_level_results WHERE withdrawn = 0 ORDER BY tbl"):
            found.setdefault((round_number, match), []).append(table)
    return found


@pytest.mark.parametrize("text", ["١", "²", "1½", "-1", "0"])
def test_a_whole_match_withdrawal_reads_the_round_as_add_does(tmp_path: Path, text: str) -> None:
    """`--round ²` was a traceback, `--round ١` withdrew round 1, `-1` said "round 0": each is
    now the refusal `results add` gives, and nothing is stored."""
    event = seed_001_race(tmp_path)
    before = level_rows(tmp_path)
    added = dealer_at(tmp_path, "results", "add", event, "--round", text, "--match", 1, "--table", 1,
                      "--home-level", "5", "--away-level", "3")
    withdrawn = dealer_at(tmp_path, "results", "correct", event, "--round", text, "--match", 1, "--withdraw",
                          "--reason", "x")
    assert_one_error(withdrawn, "--round", repr(text))
    assert "round 0" not in withdrawn.output
    if text in ("-1", "0"):  # whole numbers: no such round (add: not in the event)
        assert_one_error(added, "--round", f"round {text} is not in the event")
        assert "the round number must be 1 or more" in withdrawn.output
    else:  # ASCII or full-width digits, as `results add` and every file read them: ١ and ² are not 1 and 2
        assert_one_error(added, "--round", "expected the round number as a whole number")
        assert "expected the round number as a whole number" in withdrawn.output
    assert level_rows(tmp_path) == before


@pytest.mark.parametrize(("text", "number"), [("３", 3)])
def test_a_full_width_round_is_the_same_round_for_add_and_a_withdrawal(tmp_path: Path, text: str,
                                                                       number: int) -> None:
    """A Chinese IME's full-width digits: `--round ３` is round 3 for add and for a whole-match
    withdrawal alike (a superscript `²` is refused by both: above)."""
    event = seed_001_race(tmp_path)
    added = dealer_at(tmp_path, "results", "add", event, "--round", text, "--match", 1, "--table", 1,
                      "--home-level", "5", "--away-level", "3")
    assert added.exit_code == 0 and f"added round {number} match 1 table 1" in added.output, added.output
    withdrawn = dealer_at(tmp_path, "results", "correct", event, "--round", text, "--match", 1, "--withdraw",
                          "--reason", "x")
    assert withdrawn.exit_code == 0 and f"of round {number} match 1" in withdrawn.output, withdrawn.output


def test_a_round_written_as_a_spreadsheet_does_is_the_same_round_everywhere(tmp_path: Path) -> None:
    """`1.0` (a spreadsheet's whole number) is round 1 for add and for a withdrawal alike."""
    event = seed_001_race(tmp_path)
    result = dealer_at(tmp_path, "results", "correct", event, "--round", "1.0", "--match", 1, "--withdraw",
                       "--reason", "entered for the wrong match")
    assert result.exit_code == 0, result.output
    assert "withdrew 5 result(s) of round 1 match 1" in result.output
    assert current_tables(tmp_path) == {}


def test_a_table_letter_is_the_same_table_for_add_correct_and_history(tmp_path: Path) -> None:
    """`add --table A` took table 1 while `correct --table A --withdraw` was refused and
    `history --table A` showed every table."""
    event = seed_001_race(tmp_path)
    history = dealer_at(tmp_path, "results", "history", event, "--table", "B")
    assert history.exit_code == 0, history.output
    assert [line.split(":")[0].split()[-1] for line in history.stdout.splitlines()] == ["2"]
    result = dealer_at(tmp_path, "results", "correct", event, "--round", 1, "--match", 1, "--table", "A",
                       "--withdraw", "--reason", "x")
    assert result.exit_code == 0, result.output
    assert "corrected round 1 match 1 table 1: home 5 away 3 → withdrawn" in result.output
    assert current_tables(tmp_path) == {(1, "1"): [2, 3, 4, 5]}
    # A full-width letter is the letter (Ｂ is table 2, as B).
    assert dealer_at(tmp_path, "results", "history", event, "--table", "Ｂ").stdout == history.stdout
    for text in ("١", "ı"):  # "ı".upper() is "I": not a letter a table is written with
        before = level_rows(tmp_path)
        assert_one_error(dealer_at(tmp_path, "results", "correct", event, "--round", 1, "--match", 1,
                                   "--table", text, "--withdraw", "--reason", "x"), "--table", repr(text))
        assert_one_error(dealer_at(tmp_path, "results", "history", event, "--table", text), "--table")
        assert level_rows(tmp_path) == before
