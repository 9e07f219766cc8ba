"""Issue 38 (part A), clause by clause of the seeds: the event's officials and organisation as data
(seed 000 第二十二条), appeals and their decision (seed 000 第二十二条, seed 001 8(7), seed 002 八.8
and 七.6), the time limits of a play and of the kitty (seed 001 8(8), seed 002 八.7) in the profiles
and on the table papers, and the event file's new tables refused key by key."""

from __future__ import annotations

import datetime as dt
import re
import sqlite3
from pathlib import Path

from conftest import assert_one_error, event_file, report_json_of, run_dealer
from print_support import page_texts
from test_penalties import SEED_000, SEED_001, SEED_001_ROWS

from dealer.app.appeals import appeal_deadline, lodge_appeal
from dealer.app.session import EventSession
from dealer.errors import UserError
from dealer.files import load_event_text
from dealer.resources import load_profile
from dealer.store import schema

OFFICIALS_000 = """
[organization]
host = "国家体育总局社会体育指导中心"
venue = "北京"
appeal_minutes = 30

[officials]
chief_referee = "裁判长甲"
deputy_referees = ["副裁判长乙", "副裁判长丙"]
referees = ["裁判丁"]
arbitration = ["仲裁戊", "仲裁己", "仲裁庚"]
"""


def _ok(*args: object) -> str:
    code, out, err = run_dealer(*args)
    assert code == 0, out + err
    return out


def _boards_000(tmp_path: Path, extra: str = OFFICIALS_000, profile: str = "official-2002") -> tuple[Path, Path]:
    """Seed 000's one-match boards event with ``extra`` tables, dealt, every board 120 (a 2 : 2 draw)."""
    text = SEED_000.replace('profile = "official-2002"', f'profile = "{profile}"')
    event, boards = event_file(tmp_path, text + extra)
    _ok("deal", event, "--boards-dir", boards)
    for table in ("A", "B"):
        for board in (1, 2):
            _ok("results", "add", event, "--round", 1, "--match", 1, "--table", table, "--board", board,
                "--points", 120, "--boards-dir", boards)
    return event, boards


def test_seed_000_article_22_referees_and_arbitration_committee_as_data(tmp_path: Path) -> None:
    """第二十二条: 裁判长, 副裁判长 一至数人, 重大比赛应设立仲裁委员会 — the roster gives penalties, the
    committee decides appeals, and neither is free text any more."""
    event, boards = _boards_000(tmp_path)
    loaded = load_event_text(event.read_text(encoding="utf-8"), str(event))
    officials = loaded.organization.officials
    assert officials.roster == ("裁判长甲", "副裁判长乙", "副裁判长丙", "裁判丁")
    assert officials.deciders == ("仲裁戊", "仲裁己", "仲裁庚")
    penalty = ("results", "penalty", event, "--round", 1, "--team", "BJ", "--match-points", -1,
               "--reason", "迟交记分表", "--boards-dir", boards)
    assert_one_error(run_dealer(*penalty, "--by", "某人"), "'某人' is not an official of the event",
                     "裁判长甲、副裁判长乙、副裁判长丙、裁判丁")
    _ok(*penalty, "--by", "副裁判长乙")
    lodged = _ok("results", "appeal", event, "--round", 1, "--team", "BJ", "--against", "场分 -1 的判罚",
                 "--reason", "记分表按时交出", "--boards-dir", boards)
    assert "appeal 1 recorded" in lodged
    decide = ("results", "appeal", event, "--round", 1, "--team", "BJ", "--decide", "dismissed",
              "--reason", "记分表确实迟交", "--boards-dir", boards)
    assert_one_error(run_dealer(*decide, "--by", "裁判长甲"), "may not decide an appeal", "仲裁戊、仲裁己、仲裁庚")
    assert "appeal 1 dismissed" in _ok(*decide, "--by", "仲裁己")
    data = report_json_of(event, boards)
    assert data["appeals"][0]["decision"] == "dismissed" and data["status"]["appeals_pending"] == 0
    # the penalty stands: BJ 1 − 1 = 0 match points against SH's 1 (a 2 : 2 draw)
    points = {s["team"]: s["match_points"] for s in data["standings"]}
    assert points == {"BJ": 0, "SH": 1}
    # a second decision of the same appeal is refused: it has none open
    assert_one_error(run_dealer(*decide, "--by", "仲裁戊"), "has no open appeal in round 1")
    # a penalty is withdrawn by a referee or a committee member, nobody else
    withdraw = ("results", "penalty", event, "--round", 1, "--team", "BJ", "--withdraw", "--reason", "复核",
                "--boards-dir", boards)
    assert_one_error(run_dealer(*withdraw, "--by", "某人"), "'某人' is not an official of the event")
    _ok(*withdraw, "--by", "仲裁戊")
    # the appeal's rows are links of the hash chain: an edit outside the tool is found by the audit
    db = boards / "pen000" / "results.sqlite"
    assert run_dealer("results", "audit", event, "--boards-dir", boards).exit_code == 0
    conn = sqlite3.connect(db)
    conn.execute("DROP TRIGGER appeals_no_update")
    conn.execute("UPDATE appeals SET decision = 'upheld' WHERE kind = 'decide'")
    conn.execute(schema.TRIGGERS["appeals_no_update"])
    conn.commit()
    conn.close()
    code, out, err = run_dealer("results", "audit", event, "--boards-dir", boards)
    assert code == 1 and re.search(r"appeals #2 \(link \d+\): edited", err), out + err


def test_seed_000_an_appeal_after_the_window_is_refused_naming_its_deadline(tmp_path: Path) -> None:
    """第二十二条 with the event's window (appeal_minutes = 30 after the round's bulletin)."""
    event, boards = _boards_000(tmp_path)
    loaded = load_event_text(event.read_text(encoding="utf-8"), str(event))
    with EventSession.open(loaded, boards, write=True) as session:
        assert session.store is not None
        deadline = appeal_deadline(session.declared, session.store, 1)
        posted = session.store.round_entered_at(1)
        assert deadline is not None and posted is not None
        assert dt.datetime.fromisoformat(deadline) - dt.datetime.fromisoformat(posted) == dt.timedelta(minutes=30)
        late = dt.datetime.fromisoformat(deadline) + dt.timedelta(seconds=1)
        try:
            lodge_appeal(session, 1, "SH", "第 1 轮成绩", "太晚了", now=late)
        except UserError as error:
            assert error.key == "appeal.too_late" and error.params["minutes"] == 30
        else:
            raise AssertionError("an appeal after the deadline was taken")
        lodge_appeal(session, 1, "SH", "第 1 轮成绩", "按时", now=late - dt.timedelta(seconds=2))
        assert [a.team for a in session.store.appeals()] == ["SH"]


def test_seed_001_8_7_second_offence_goes_to_the_arbitration_committee(tmp_path: Path) -> None:
    """8(7): 如再次犯即由当值裁判提请比赛仲裁委员会宣布取消违规方比赛资格 — the profile's second warning
    disqualifies; the team appeals; while the appeal is open the standings are provisional; the
    committee upholds the disqualification (dismisses the appeal) and the standings are final."""
    text = SEED_001 + '\n[officials]\nreferees = ["当值裁判"]\narbitration = ["仲裁一", "仲裁二", "仲裁三"]\n' \
        '\n[[prizes]]\nname = "第一名"\nteams = 1\n'
    event, boards = event_file(tmp_path, text)
    rows = tmp_path / "r1.csv"
    rows.write_text(SEED_001_ROWS, encoding="utf-8")
    _ok("results", "import", event, rows, "--boards-dir", boards)
    warn = ("results", "warn", event, "--round", 1, "--team", "U1", "--reason", "交头接耳", "--boards-dir", boards)
    _ok(*warn, "--player", "甲一", "--by", "当值裁判")
    assert "disqualified" in _ok(*warn, "--player", "甲二", "--by", "当值裁判")
    assert report_json_of(event, boards)["status"]["final"]
    _ok("results", "appeal", event, "--round", 1, "--team", "U1", "--against", "取消比赛资格", "--reason", "并未交谈",
        "--boards-dir", boards)
    during = report_json_of(event, boards)
    assert not during["status"]["final"] and during["status"]["appeals_pending"] == 1
    assert during["prizes"] == []  # no prize while the appeal is open; the prize sheet says why
    _ok("print", "prizes", event, "--out", tmp_path / "p1", "--boards-dir", boards)
    sheet = "".join(page_texts(tmp_path / "p1" / "prizes-zh.pdf"))
    assert "临时成绩：1 项申诉待裁决（申诉 1）" in sheet and "后勤队" not in sheet
    _ok("results", "appeal", event, "--round", 1, "--team", "U1", "--decide", "dismissed", "--by", "仲裁二",
        "--reason", "两次警告属实", "--boards-dir", boards)
    after = report_json_of(event, boards)
    assert after["status"]["final"] and [s["team"] for s in after["standings"]] == ["U2", "U1"]
    assert [p["teams"] for p in after["prizes"]] == [["U2"]]
    _ok("print", "prizes", event, "--out", tmp_path / "p2", "--boards-dir", boards)
    assert "U2 后勤队" in "".join(page_texts(tmp_path / "p2" / "prizes-zh.pdf"))


def test_seed_002_7_6_without_a_committee_the_referees_decide(tmp_path: Path) -> None:
    """七.6: 如果出现争议问题，提交本次比赛裁判组讨论决定 — with no 仲裁委员会 in the event file the
    referees decide an appeal (八.8's committee, when named, decides instead: the 20-team test)."""
    event, boards = _boards_000(tmp_path, '\n[officials]\nchief_referee = "组长"\nreferees = ["组员"]\n',
                                "renmin-shuangsheng")
    _ok("results", "appeal", event, "--round", 1, "--team", "SH", "--against", "第 1 副 A 桌成绩", "--reason", "有争议",
        "--boards-dir", boards)
    refused = run_dealer("results", "appeal", event, "--round", 1, "--team", "SH", "--decide", "upheld",
                         "--by", "旁人", "--reason", "x", "--boards-dir", boards)
    assert_one_error(refused, "the event's referees are: 组长、组员")
    assert "appeal 1 upheld" in _ok("results", "appeal", event, "--round", 1, "--team", "SH", "--decide", "upheld",
                                    "--by", "组员", "--reason", "裁判组讨论决定", "--boards-dir", boards)


def test_seed_001_8_8_and_seed_002_8_7_time_limits_in_the_profiles() -> None:
    """001 8(8): 每位队员在出牌时，允许有最多10秒钟的思考时间; 002 八.7: 选手每一次出牌时间应不超过20秒，
    庄家扣底牌时间应不超过1分30秒; the national rules (000) and seed 003 set none."""
    assert (load_profile("four-deck-2v2").play_seconds, load_profile("four-deck-2v2").kitty_seconds) == (10, None)
    renmin = load_profile("renmin-shuangsheng")
    assert (renmin.play_seconds, renmin.kitty_seconds, renmin.round_minutes) == (20, 90, 90)
    assert load_profile("official-2002").play_seconds is None


def test_seed_001_8_8_the_play_limit_is_on_the_level_score_sheets(tmp_path: Path) -> None:
    event, boards = event_file(tmp_path, SEED_001)
    out = tmp_path / "out"
    _ok("print", "score-sheets", event, "--round", 1, "--out", out, "--boards-dir", boards)
    (pdf,) = out.glob("level-sheets-*.pdf")
    text = re.sub(r"\s", "", "".join(page_texts(pdf)))  # the line may break inside it
    assert "每次出牌不超过10秒。" in text and "庄家扣底牌不超过" not in text  # the text sets no kitty limit


def test_seed_002_8_7_play_and_kitty_limits_are_on_the_table_cards(tmp_path: Path) -> None:
    text = SEED_000.replace('profile = "official-2002"', 'profile = "renmin-shuangsheng"')
    event, boards = event_file(tmp_path, text)
    _ok("deal", event, "--boards-dir", boards)
    out = tmp_path / "out"
    _ok("print", "table-cards", event, "--out", out, "--boards-dir", boards)
    (pdf,) = out.glob("table-cards-*.pdf")
    printed = re.sub(r"\s", "", "".join(page_texts(pdf)))
    assert printed.count("每次出牌不超过20秒；庄家扣底牌不超过1分30秒。") == 2  # tables A and B
    _ok("print", "table-cards", event, "--out", tmp_path / "en", "--lang", "en", "--boards-dir", boards)
    (pdf,) = (tmp_path / "en").glob("table-cards-*.pdf")
    assert "At most 20 s a play; at most 1 min 30 s for the kitty." in re.sub(r"\s+", " ", " ".join(page_texts(pdf)))


def test_the_organization_and_officials_are_refused_key_by_key(tmp_path: Path) -> None:
    cases = [
        ('[organization]\nvenu = "北京"\n', "organization: unknown key(s) venu"),
        ('[organization]\nstart_times = ["9点"]\n', "organization.start_times[0]: expected a round's start"),
        ('[organization]\nstart_times = ["2026-12-05 10:00", "2026-12-05 09:00"]\n',
         "does not come after the round before"),
        ('[organization]\nappeal_minutes = -5\n', "organization.appeal_minutes: expected a whole number"),
        ('[officials]\nreferees = ["甲", "甲"]\n', "officials.referees[1]: '甲' is listed twice"),
        ('[officials]\narbitration = "甲"\nchief_referee = ""\n', "officials.chief_referee: expected a text"),
    ]
    for extra, message in cases:
        event, boards = event_file(tmp_path, SEED_000 + extra)
        refused = run_dealer("deal", event, "--boards-dir", boards)
        assert_one_error(refused, str(event), message)


def test_dealer_init_documents_every_key_of_the_organization_and_officials(tmp_path: Path) -> None:
    from dealer.organization import OFFICIALS_KEYS, ORGANIZATION_KEYS

    event = tmp_path / "e.toml"
    _ok("init", event, "--profile", "renmin-shuangsheng", "--boards-dir", tmp_path / "boards")
    text = event.read_text(encoding="utf-8")
    assert "# [organization]" in text and "# [officials]" in text
    for key in ORGANIZATION_KEYS | OFFICIALS_KEYS:
        assert f"# {key} = " in text, key
    # uncommented, the example is a valid event file's organisation
    lines = text.split("# [organization]")[1]
    body = "\n".join(line[2:].split("  #")[0] if (line.startswith("# ") and "=" in line) or line.startswith("# [")
                     else "" for line in ("# [organization]" + lines).splitlines())
    names = iter(f"某单位{n}" for n in range(1, 100))
    extra = re.sub("……", lambda _found: next(names), body)
    dated = SEED_000.replace('name = "Seed 000 penalties"', 'name = "Seed 000 penalties"\ndate = "2026-12-05"')
    loaded = load_event_text(dated + extra, str(tmp_path / "x.toml"))
    assert loaded.organization.appeal_minutes == 30
    assert loaded.organization.officials.chief_referee and len(loaded.organization.officials.arbitration) == 3


def test_an_open_appeal_is_on_the_report_the_site_and_the_console(tmp_path: Path) -> None:
    """Seed 002 八.8 seen by everyone: while the committee has not decided, the report's banner,
    the site's standings page and the director's console say the appeal and that the standings
    are provisional; once decided, the decision."""
    from dealer.serve.console import console_context

    event, boards = _boards_000(tmp_path)
    _ok("results", "appeal", event, "--round", 1, "--team", "SH", "--against", "第 2 副 B 桌成绩",
        "--reason", "得分记错", "--boards-dir", boards)
    _ok("report", event, "--format", "html", "--out", tmp_path / "rep", "--boards-dir", boards)
    report = re.sub(r"<[^>]+>", "", (tmp_path / "rep" / "pen000-results.html").read_text(encoding="utf-8"))
    assert "临时成绩：1 项申诉待裁决（申诉 1）" in report
    assert "申诉 1：第 1 轮 SH 上海，申诉事项：第 2 副 B 桌成绩" in report
    _ok("site", event, "--out", tmp_path / "site", "--no-pdf", "--boards-dir", boards)
    page = re.sub(r"<[^>]+>", "", (tmp_path / "site" / "standings.html").read_text(encoding="utf-8"))
    assert "申诉与仲裁" in page and "待裁决" in page and "临时成绩：1 项申诉待裁决" in page
    english = re.sub(r"<[^>]+>", "", (tmp_path / "site" / "en" / "standings.html").read_text(encoding="utf-8"))
    assert "Appeal 1: round 1, SH 上海, against 第 2 副 B 桌成绩" in english and "Pending." in english
    loaded = load_event_text(event.read_text(encoding="utf-8"), str(event))
    with EventSession.open(loaded, boards) as session:
        context = console_context(session, b"k" * 32, 1, "zh", "裁判长甲", "token")
    assert context["appeals"]["provisional"] == "临时成绩：1 项申诉待裁决（申诉 1），名次和奖项以裁决后为准。"
    assert context["appeals"]["lines"][0].endswith("待裁决。")
    _ok("results", "appeal", event, "--round", 1, "--team", "SH", "--decide", "dismissed", "--by", "仲裁戊",
        "--reason", "记分无误", "--boards-dir", boards)
    _ok("site", event, "--out", tmp_path / "site2", "--no-pdf", "--boards-dir", boards)
    page = re.sub(r"<[^>]+>", "", (tmp_path / "site2" / "standings.html").read_text(encoding="utf-8"))
    assert "裁决：驳回（仲裁戊，" in page and "临时成绩：1 项" not in page
