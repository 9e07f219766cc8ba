"""What the table papers tell players: the profile's conversion table printed on result slips
and score sheets equals `dealer rules explain` for every profile, and table B never holds table
A's result (one slip per table, and a sheet holds one table's slips only)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from conftest import run_dealer as run
from print_support import decode_qr_codes, page_texts

from dealer.app.dealing import deal_event
from dealer.files import load_event_text
from dealer.formats.qr import TravellerId, parse_payload
from dealer.render.writers import profile_title
from dealer.resources import demo_event_text, load_profile, profile_ids
from dealer.store.folder import EventFolder

PROFILE_DECKS = {"official-2002": 2, "renmin-shuangsheng": 2, "shenzhen-community": 2, "four-deck-2v2": 4}


def event_text(profile: str) -> str:
    text = demo_event_text().replace('profile = "official-2002"', f'profile = "{profile}"')
    return text.replace("decks = 2 ", f"decks = {PROFILE_DECKS[profile]} ")


def explained_rows(profile: str, decks: int, lang: str) -> list[tuple[str, str]]:
    """(range, result) rows of the conversion table that `dealer rules explain` prints."""
    code, stdout, _ = run("rules", "explain", profile, "--decks", decks, "--lang", lang)
    assert code == 0
    lines = stdout.splitlines()
    start = next(i for i, line in enumerate(lines) if line.strip().startswith(("级分换算表（", "conversion table (")))
    rows = []
    for line in lines[start + 1:]:
        if not line.startswith("    "):
            break
        found = re.fullmatch(r"\s+(\S+(?: \S+)?)  (.+)", line)
        assert found, line
        rows.append((found.group(1), found.group(2)))
    return rows


def squeezed(text: str) -> str:
    return re.sub(r"\s+", "", text)


def test_every_profile_is_covered() -> None:
    assert set(PROFILE_DECKS) == set(profile_ids())


@pytest.mark.parametrize("profile", sorted(PROFILE_DECKS))
def test_explained_conversion_rows_are_the_profiles_conversion(profile: str) -> None:
    """Each row's ends (and one step past an open end) convert as the row says."""
    decks = PROFILE_DECKS[profile]
    rules = load_profile(profile)
    rows = explained_rows(profile, decks, "en")
    assert len(rows) >= 5
    for range_text, result in rows:
        ends = [int(x) for x in re.findall(r"-?\d+", range_text)]
        for points in ends:
            converted = rules.level_points(decks, points)
            levels = converted.declarer_levels if converted.outcome == "declarer" else converted.defenders_levels
            assert f"+{levels}" in result or (levels == 0 and ": 0" in result), (range_text, result, converted)
            assert ("declarer" in result) == (converted.outcome == "declarer")
        further = re.search(r"\+1 per (\d+) (fewer|more)", result)
        if further:
            step = int(further.group(1)) * (-1 if further.group(2) == "fewer" else 1)
            converted = rules.level_points(decks, ends[0] + step)
            after = converted.declarer_levels if converted.outcome == "declarer" else converted.defenders_levels
            assert after == int(re.search(r"\+(\d+)", result).group(1)) + 1  # type: ignore[union-attr]


@pytest.fixture(scope="module")
def printed(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, str, str], Path]:
    """Result slips (board 1 only) and score sheets of set 1, for every profile; English too for one."""
    root = tmp_path_factory.mktemp("tables")
    files = {}
    for profile in sorted(PROFILE_DECKS):
        text = event_text(profile)
        event = load_event_text(text, profile)
        boards = root / profile / "boards"
        deal_event(event, EventFolder(event.id, boards))
        event_file = root / profile / "event.toml"
        event_file.write_text(text, encoding="utf-8")
        for lang in ("zh", "en") if profile == "official-2002" else ("zh",):
            for kind, extra in (("travellers", ("--board", 1)), ("score-sheets", ())):
                out = root / profile / f"{kind}-{lang}"
                code, _, stderr = run("print", kind, event_file, "--boards-dir", boards, "--set", 1, "--lang", lang,
                                      "--out", out, "--jobs", 1, *extra)
                assert code == 0, stderr
                [files[(profile, kind, lang)]] = out.glob("*.pdf")
    return files


@pytest.mark.parametrize(("profile", "kind", "lang"), [
    (p, k, lang) for p in sorted(PROFILE_DECKS) for k in ("travellers", "score-sheets")
    for lang in (("zh", "en") if p == "official-2002" else ("zh",))
])
def test_printed_conversion_table_equals_rules_explain(
    printed: dict[tuple[str, str, str], Path], profile: str, kind: str, lang: str
) -> None:
    rows = explained_rows(profile, PROFILE_DECKS[profile], lang)
    # Printed as one paragraph: each row's points and result, in order, rows separated by "|".
    expected = "|".join(squeezed(r + o) for r, o in rows)
    pages = page_texts(printed[(profile, kind, lang)])
    assert pages
    name = profile_title(load_profile(profile), lang)  # the rules by their title, not the id (issue 38)
    for text in pages:
        assert squeezed(name) in squeezed(text) and profile not in text
        assert expected in squeezed(text), (profile, kind, lang)


SLIP_HEAD = re.compile(r"^([AB]) 桌 · 第 (\d+) 副", re.M)


def test_table_b_never_holds_table_as_result(tmp_path: Path) -> None:
    """Shown on the printed slips of a whole set: every slip names one table and has one result
    row; every sheet holds slips of one table only, so the stack cut from table A's sheets goes to
    table A and nothing table B holds has room for (or shows) A's result. The slips' QR codes
    still name every board of every match."""
    text = demo_event_text()
    event = load_event_text(text, "demo")
    boards = tmp_path / "boards"
    deal_event(event, EventFolder(event.id, boards))
    event_file = tmp_path / "event.toml"
    event_file.write_text(text, encoding="utf-8")
    code, _, stderr = run("print", "travellers", event_file, "--boards-dir", boards, "--set", 2, "--out", tmp_path,
                          "--jobs", 1)
    assert code == 0, stderr
    pdf = tmp_path / "travellers-set-02-zh.pdf"
    slips: dict[tuple[str, str, int], int] = {}
    for page, page_text in enumerate(page_texts(pdf)):
        heads = SLIP_HEAD.findall(page_text)
        assert heads and len({table for table, _ in heads}) == 1, (page, heads)
        assert page_text.count("将牌花色") == page_text.count("南北签名") == len(heads)  # one result row each
        assert "B 桌" not in page_text if heads[0][0] == "A" else "A 桌" not in page_text
        match = re.search(r"第 (\d+) 场", page_text)
        assert match
        for table, board in heads:
            key = (match.group(1), table, int(board))
            slips[key] = slips.get(key, 0) + 1
    matches = [m for m in event.matches() if m.set == 2]
    assert slips == {(m.id, table, b): 1 for m in matches for table in "AB" for b in range(1, 17)}
    payloads = [parse_payload(p) for p in decode_qr_codes(pdf)]
    assert sorted((p.match, p.board) for p in payloads if isinstance(p, TravellerId)) == sorted(
        (m.id, b) for m in matches for _ in "AB" for b in range(1, 17))
