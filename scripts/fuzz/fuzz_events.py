"""Event-file mutation fuzzer, mid-event.

Three base states (common.build_state): ``demo`` (dealt, the sample travellers in: round 3
match 2 table B board 16 missing; set 1 released; a site built), ``swiss`` (rounds 1-2 paired
and scored, set 1 released, a site built), ``levels`` (rounds 1-2 paired and scored, a site
built). Each case: a fresh copy of one state, 1-3 mutations of its event file (teams removed /
added / renamed, incl. non-ASCII ids, ids like ``n1`` or ``~1``, case variants; format and its
keys; result kind; tables; sets, boards, decks, kitty; profile; schedule; fixed rounds edited;
event id; prizes; names), then a random ordered subset of commands (``round pair``, ``results
import``, ``report --json``, ``print pairings``, ``site --no-pdf``, ``release`` in its forms,
``round end``, ``results missing``), each checked:

- exit status documented, no traceback, no time-out;
- a command that failed (exit ≠ 0) changed nothing: the database (every table and the schema,
  read from a copy) and every other file of the case folder (the site, its previous generation,
  the reports, the event folder) are as before;
- a site that was built: nothing of an unreleased set and no form of an unreleased key in any
  file of it, its previous generation, zip members (scanner.scan); no result of a board still in
  play (scanner.withheld_check); a released set's hands found (control, counted);
- ``release --key`` that succeeded is listed for triage (no base state is over);
- after a case whose commands changed the database, ``results audit`` exits 0.

Usage: fuzz_events.py --seed 1 --cases 100 [--state demo|swiss|levels|all] [--out report.json]
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import sys
import time
import tomllib
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import common
import scanner
from common import Tally, run

ODD_IDS = ["n1", "N1", "~1", "~2", "t1", "T1", "東風", "东风", "Ｔ1", "T\u200b1", "T1 ", " T1", "team-n1", "n9", "N9",
           "九队", "T-9", "x" * 41, "T_9", "1", "01", "<b>", "a/b", "..", "", "T9", "T10", "é", "E\u0301", "Ω"]
ODD_NAMES = ["新队", "", " ", "A\u202eB", "x" * 300, "<script>alert(1)</script>", "Team\x1b[31mRed", "队\n名", "Ñandú"]
MATCH_IDS = ["A", "a", "n1", "~1", "1 ", "01", "x" * 17, "m/1", "2", "1", "Ａ"]
PROFILES = ["official-2002", "four-deck-2v2", "renmin-shuangsheng", "shenzhen-community", "nope"]


def team_refs(doc: dict[str, Any]) -> list[dict[str, Any]]:
    return [m for r in doc.get("rounds", []) for m in r.get("matches", [])]


# --- mutations: each takes (rng, doc) and says what it did ------------------------------------


def m_remove_team(rng: random.Random, doc: dict[str, Any]) -> str:
    teams = doc.get("teams", [])
    if not teams:
        return "remove team: none"
    t = teams.pop(rng.randrange(len(teams)))
    return f"removed team {t.get('id')!r}"


def m_add_team(rng: random.Random, doc: dict[str, Any]) -> str:
    tid = rng.choice(ODD_IDS)
    team: dict[str, Any] = {"id": tid, "name": rng.choice(["新队", f"Team {tid}", "九队"])}
    if rng.random() < 0.3:
        team["seed"] = rng.randint(1, 10)
    if rng.random() < 0.3:
        team["club"] = rng.choice(["数学学院", "法学院", "新"])
    doc.setdefault("teams", []).insert(rng.randrange(len(doc.get("teams", [])) + 1), team)
    return f"added team {tid!r}"


def m_rename_team(rng: random.Random, doc: dict[str, Any]) -> str:
    teams = doc.get("teams", [])
    if not teams:
        return "rename: none"
    t = rng.choice(teams)
    old, new = t["id"], rng.choice(ODD_IDS + [t["id"].lower(), t["id"].upper()])
    t["id"] = new
    everywhere = rng.random() < 0.5
    if everywhere:
        for m in team_refs(doc):
            for side in ("home", "away"):
                if m.get(side) == old:
                    m[side] = new
    return f"renamed team {old!r} -> {new!r}{' (rounds too)' if everywhere else ''}"


def m_team_name(rng: random.Random, doc: dict[str, Any]) -> str:
    teams = doc.get("teams", [])
    if not teams:
        return "name: none"
    t = rng.choice(teams)
    t["name"] = rng.choice(ODD_NAMES)
    return f"team {t['id']!r} name -> {t['name'][:20]!r}"


def m_team_order(rng: random.Random, doc: dict[str, Any]) -> str:
    teams = doc.get("teams", [])
    rng.shuffle(teams)
    if rng.random() < 0.5 and teams:
        for i, t in enumerate(rng.sample(teams, len(teams))):
            t["seed"] = i + 1
        return "teams shuffled, seeds given"
    return "teams shuffled"


def m_format(rng: random.Random, doc: dict[str, Any]) -> str:
    kind = rng.choice(["fixed", "round-robin", "swiss", "knockout"])
    fmt: dict[str, Any] = {"kind": kind}
    if kind == "swiss":
        fmt["rounds"] = rng.choice([1, 2, 3, 4, 5, 8])
        if rng.random() < 0.5:
            fmt["first_round"] = rng.choice(["pinyin", "split", "lots"])
    elif kind == "round-robin" and rng.random() < 0.4:
        fmt[rng.choice(["cycles", "groups"])] = rng.choice([1, 2, 3])
    elif kind == "knockout" and rng.random() < 0.5:
        fmt["elimination"] = rng.choice(["single", "double"])
    if kind == "fixed":
        doc.pop("format", None) if rng.random() < 0.5 else doc.__setitem__("format", fmt)
        if "rounds" not in doc and rng.random() < 0.7:  # a fixed schedule of the teams there are
            ids = [t["id"] for t in doc.get("teams", [])]
            rounds = []
            for n in (1, 2):
                rng.shuffle(ids)
                rounds.append({"number": n, "matches": [
                    {"id": str(i + 1), "home": ids[2 * i], "away": ids[2 * i + 1], "set": n}
                    for i in range(len(ids) // 2)]})
            doc["rounds"] = rounds
    else:
        doc["format"] = fmt
        if rng.random() < 0.8:
            doc.pop("rounds", None)
    return f"format -> {fmt}"


def m_format_param(rng: random.Random, doc: dict[str, Any]) -> str:
    fmt = doc.setdefault("format", {"kind": "swiss", "rounds": 4})
    key, value = rng.choice([("rounds", rng.choice([0, 1, 2, 3, 5, 10])), ("cycles", 2), ("groups", 2),
                             ("first_round", "lots"), ("avoid_same_club", False), ("elimination", "double"),
                             ("grand_final", "single"), ("bracket", rng.choice(["standard", "../x", "nope"]))])
    fmt[key] = value
    return f"format.{key} = {value!r}"


def m_result_kind(rng: random.Random, doc: dict[str, Any]) -> str:
    ev = doc["event"]
    if ev.get("result") == "levels":
        ev["result"] = "boards"
        if rng.random() < 0.7:
            ev.pop("tables", None)
            ev.setdefault("boards_per_set", 8)
            ev["profile"] = rng.choice(["official-2002", "renmin-shuangsheng"])
            ev["decks"] = 2
        return "result -> boards"
    ev["result"] = "levels"
    if rng.random() < 0.8:
        ev["tables"] = rng.choice([1, 2, 5])
        for k in ("boards_per_set", "sets", "public_value_source"):
            ev.pop(k, None)
        if rng.random() < 0.5:
            ev["profile"], ev["decks"] = "four-deck-2v2", 4
        if rng.random() < 0.5:
            doc.pop("schedule", None)
    return "result -> levels"


def m_tables(rng: random.Random, doc: dict[str, Any]) -> str:
    doc["event"]["tables"] = rng.choice([0, 1, 2, 3, 5, 6, 16, 17, "2"])
    return f"tables = {doc['event']['tables']!r}"


def m_sets(rng: random.Random, doc: dict[str, Any]) -> str:
    ev = doc["event"]
    key = rng.choice(["sets", "boards_per_set", "decks", "kitty", "kitty_mode"])
    value = {"sets": rng.choice([1, 2, 3, 4, 5, 8]), "boards_per_set": rng.choice([1, 8, 15, 16, 17]),
             "decks": rng.choice([1, 2, 3, 4]), "kitty": rng.choice([4, 6, 8]),
             "kitty_mode": rng.choice(["in-hand", "separate"])}[key]
    ev[key] = value
    return f"event.{key} = {value!r}"


def m_profile(rng: random.Random, doc: dict[str, Any]) -> str:
    doc["event"]["profile"] = rng.choice(PROFILES)
    if rng.random() < 0.5:
        doc["event"]["decks"] = {"four-deck-2v2": 4}.get(doc["event"]["profile"], 2)
    return f"profile -> {doc['event']['profile']}"


def m_schedule(rng: random.Random, doc: dict[str, Any]) -> str:
    sch = doc.setdefault("schedule", {})
    what = rng.choice(["levels", "rotation", "override", "drop"])
    if what == "levels":
        sch["levels"] = ["2", "A"]
    elif what == "rotation":
        sch["declarer_rotation"] = ["E", "S", "W", "N"]
    elif what == "override":
        sch["overrides"] = [{"board": 16, "level": "A"}]
    else:
        doc.pop("schedule", None)
    return f"schedule {what}"


def m_rounds(rng: random.Random, doc: dict[str, Any]) -> str:
    rounds = doc.setdefault("rounds", [])
    what = rng.choice(["drop", "add", "set", "swap", "match_id", "dup", "unknown", "renumber"])
    if not rounds and what != "add":
        what = "add"
    ids = [t["id"] for t in doc.get("teams", [])]
    if what == "drop":
        r = rounds.pop(rng.randrange(len(rounds)))
        return f"dropped round {r.get('number')}"
    if what == "add":
        n = max((r.get("number", 0) for r in rounds), default=0) + 1
        ids2 = ids[:]
        rng.shuffle(ids2)
        rounds.append({"number": n, "matches": [{"id": str(i + 1), "home": ids2[2 * i], "away": ids2[2 * i + 1],
                                                 "set": rng.choice([1, 2, 3, n])} for i in range(len(ids2) // 2)]})
        return f"added round {n}"
    r = rng.choice(rounds)
    ms = r.get("matches", [])
    if not ms:
        return "round without matches"
    m = rng.choice(ms)
    if what == "set":
        m["set"] = rng.choice([1, 2, 3, 4, 0])
        return f"round {r['number']} match {m['id']} set -> {m['set']}"
    if what == "swap":
        m["home"], m["away"] = m["away"], m["home"]
        return f"round {r['number']} match {m['id']} home/away swapped"
    if what == "match_id":
        old = m["id"]
        m["id"] = rng.choice(MATCH_IDS)
        return f"round {r['number']} match {old} id -> {m['id']!r}"
    if what == "dup":
        ms.append(dict(m))
        return f"round {r['number']} match {m['id']} duplicated"
    if what == "unknown":
        m[rng.choice(["home", "away"])] = rng.choice(ODD_IDS)
        return f"round {r['number']} match {m['id']} team unknown"
    r["number"] = rng.choice([0, 4, 7, r["number"] + 10])
    return f"round renumbered -> {r['number']}"


def m_event_id(rng: random.Random, doc: dict[str, Any]) -> str:
    doc["event"]["id"] = rng.choice(["demo", "demo-swiss", "demo-levels", "other", "Demo", "demo2"])
    return f"event.id -> {doc['event']['id']}"


def m_misc(rng: random.Random, doc: dict[str, Any]) -> str:
    what = rng.choice(["prize", "noprize", "name", "date", "pvs"])
    if what == "prize":
        doc.setdefault("prizes", []).append({"name": rng.choice(ODD_NAMES[:3]) or "x", "teams": rng.choice([1, 2, 9])})
    elif what == "noprize":
        doc.pop("prizes", None)
    elif what == "name":
        doc["event"]["name"] = rng.choice(ODD_NAMES)
    elif what == "date":
        doc["event"]["date"] = rng.choice(["2027-02-30", "2026-12-01", "x"])
    else:
        doc["event"]["public_value_source"] = "福彩3D draw"
    return f"misc {what}"


# --- edits a director might make mid-event (mostly valid files) --------------------------------


def d_match_set(rng: random.Random, doc: dict[str, Any]) -> str:
    if not doc.get("rounds"):
        return m_add_team(rng, doc)
    r = rng.choice(doc["rounds"])
    m = rng.choice(r["matches"])
    m["set"] = rng.choice([1, 2, 3])
    return f"round {r['number']} match {m['id']} set -> {m['set']}"


def d_drop_last_round(rng: random.Random, doc: dict[str, Any]) -> str:
    if not doc.get("rounds"):
        doc.setdefault("format", {})["rounds"] = rng.choice([2, 3, 5])
        doc["format"].setdefault("kind", "swiss")
        return f"format rounds -> {doc['format']['rounds']}"
    r = doc["rounds"].pop()
    return f"dropped round {r['number']}"


def d_add_round(rng: random.Random, doc: dict[str, Any]) -> str:
    if "rounds" not in doc:
        return d_add_team(rng, doc)
    ids = [t["id"] for t in doc["teams"]]
    rng.shuffle(ids)
    n = len(doc["rounds"]) + 1
    s = rng.choice([1, 2, 3])
    doc["rounds"].append({"number": n, "matches": [{"id": str(i + 1), "home": ids[2 * i], "away": ids[2 * i + 1],
                                                    "set": s} for i in range(len(ids) // 2)]})
    return f"added round {n} on set {s}"


def d_swap(rng: random.Random, doc: dict[str, Any]) -> str:
    if not doc.get("rounds"):
        return m_team_order(rng, doc)
    r = rng.choice(doc["rounds"])
    m = rng.choice(r["matches"])
    m["home"], m["away"] = m["away"], m["home"]
    return f"round {r['number']} match {m['id']} home/away swapped"


def d_match_id(rng: random.Random, doc: dict[str, Any]) -> str:
    if not doc.get("rounds"):
        return d_add_team(rng, doc)
    r = rng.choice(doc["rounds"])
    m = rng.choice(r["matches"])
    old = m["id"]
    m["id"] = rng.choice(["A", "a", "n1", "N1", "m-1", "9"])
    return f"round {r['number']} match {old} id -> {m['id']}"


def d_add_team(rng: random.Random, doc: dict[str, Any]) -> str:
    tid = rng.choice(["T9", "n1", "N1", "九队", "东风", "t1", "T10", "x-1", "team-n1", "Ω"])
    if any(t["id"] == tid for t in doc["teams"]):
        tid += "b"
    doc["teams"].append({"id": tid, "name": rng.choice(["新队", "九队", f"Team {tid}"])})
    if rng.random() < 0.5:
        tid2 = rng.choice(["T11", "n2", "二队", "N9", "~1"])
        if not any(t["id"] == tid2 for t in doc["teams"]):
            doc["teams"].append({"id": tid2, "name": "又一队"})
            return f"added teams {tid!r}, {tid2!r}"
    return f"added team {tid!r}"


def d_rename_everywhere(rng: random.Random, doc: dict[str, Any]) -> str:
    t = rng.choice(doc["teams"])
    old = t["id"]
    new = rng.choice([old.lower(), "东风", "n1", "T99", "N" + old[-1]])
    if any(x["id"] == new for x in doc["teams"]):
        new += "x"
    t["id"] = new
    for m in team_refs(doc):
        for side in ("home", "away"):
            if m.get(side) == old:
                m[side] = new
    return f"renamed team {old!r} -> {new!r} everywhere"


def d_format(rng: random.Random, doc: dict[str, Any]) -> str:
    kind = rng.choice(["swiss", "round-robin", "knockout", "fixed"])
    if kind == "fixed":
        if "rounds" not in doc:
            return m_format(rng, doc)
        return d_swap(rng, doc)
    fmt: dict[str, Any] = {"kind": kind}
    if kind == "swiss":
        fmt["rounds"] = rng.choice([2, 3, 4, 5])
        fmt["avoid_same_club"] = rng.random() < 0.5
    if kind == "knockout" and rng.random() < 0.5:
        fmt["elimination"] = "double"
    doc["format"] = fmt
    doc.pop("rounds", None)
    if doc["event"].get("result") != "levels" and "sets" in doc["event"] and rng.random() < 0.5:
        doc["event"].pop("sets")
    return f"format -> {fmt}"


def d_swiss_rounds(rng: random.Random, doc: dict[str, Any]) -> str:
    fmt = doc.get("format")
    if not fmt or fmt.get("kind") != "swiss":
        return d_format(rng, doc)
    fmt["rounds"] = rng.choice([1, 2, 3, 5])
    if rng.random() < 0.5:
        doc["event"]["sets"] = rng.choice([2, 3, 4, 5])
    return f"swiss rounds -> {fmt['rounds']}, sets {doc['event'].get('sets')}"


def d_clubs_seeds(rng: random.Random, doc: dict[str, Any]) -> str:
    for t in doc["teams"]:
        if rng.random() < 0.5:
            t["club"] = rng.choice(["数学学院", "法学院"])
        if rng.random() < 0.3:
            t["mixed_club"] = not t.get("mixed_club", False)
    if rng.random() < 0.4:
        for i, t in enumerate(doc["teams"]):
            t["seed"] = len(doc["teams"]) - i
    return "clubs / seeds edited"


def d_result_kind(rng: random.Random, doc: dict[str, Any]) -> str:
    ev = doc["event"]
    if ev.get("result") == "levels":
        ev["result"] = "boards"
        ev.pop("tables", None)
        ev.update({"profile": "official-2002", "decks": 2, "boards_per_set": 16, "sets": 3})
        return "level race -> boards event (16 boards, 3 sets)"
    ev["result"], ev["tables"] = "levels", rng.choice([2, 5])
    for k in ("boards_per_set", "sets", "public_value_source", "kitty", "kitty_mode"):
        ev.pop(k, None)
    doc.pop("schedule", None)
    if rng.random() < 0.5:
        ev["profile"], ev["decks"] = "four-deck-2v2", 4
    if "rounds" in doc and rng.random() < 0.5:
        doc.pop("rounds")
        doc["format"] = {"kind": "round-robin"}
    return f"boards event -> level race ({ev['tables']} tables)"


def d_tables(rng: random.Random, doc: dict[str, Any]) -> str:
    if doc["event"].get("result") != "levels":
        return d_result_kind(rng, doc)
    doc["event"]["tables"] = rng.choice([1, 2, 4, 6])
    return f"tables -> {doc['event']['tables']}"


def d_names(rng: random.Random, doc: dict[str, Any]) -> str:
    t = rng.choice(doc["teams"])
    t["name"] = rng.choice(ODD_NAMES[:1] + ODD_NAMES[3:])
    return f"team {t['id']} name edited"


DIRECTOR = [d_match_set, d_drop_last_round, d_add_round, d_swap, d_match_id, d_add_team, d_rename_everywhere,
            d_format, d_swiss_rounds, d_clubs_seeds, d_result_kind, d_tables, d_names, m_remove_team]
DIRECTOR_WEIGHTS = [3, 3, 2, 1, 2, 4, 2, 3, 3, 1, 2, 1, 1, 1]

MUTATIONS = [m_remove_team, m_add_team, m_rename_team, m_team_name, m_team_order, m_format, m_format_param,
             m_result_kind, m_tables, m_sets, m_profile, m_schedule, m_rounds, m_event_id, m_misc]
WEIGHTS = [3, 3, 3, 1, 1, 2, 1, 2, 1, 1, 1, 1, 3, 1, 1]


# --- commands ----------------------------------------------------------------------------------


def commands_for(rng: random.Random, state: str) -> list[tuple[str, list[list[str]]]]:
    """(name, argument lists run one after the other) of a random ordered subset."""
    B = ["--boards-dir", "b"]
    pool: list[tuple[str, list[list[str]]]] = []
    nround = rng.choice([1, 2, 3, 3, 3, 4, 5])
    pool.append(("pair", [["round", "pair", "e.toml", "--round", str(nround), *B,
                           *(["--allow-incomplete"] if rng.random() < 0.3 else [])]]))
    imports = {"demo": ["missing.csv", "sample.csv"], "swiss": ["r3.csv", "r2.csv"],
               "levels": ["r3.csv", "r2.csv"]}[state]
    pool.append(("import", [["results", "import", "e.toml", rng.choice(imports), *B]]))
    pool.append(("report", [["report", "e.toml", "--json", *B]]))
    pool.append(("pairings", [["print", "pairings", "e.toml", "--round", str(rng.choice([1, 2, 3])),
                               "--format", rng.choice(["html", "pdf"]), *B]]))
    pool.append(("site", [["site", "e.toml", "--no-pdf", *B, "--out", rng.choice(["s", "s", "s2"])]]))
    n = str(rng.choice([1, 2, 3, 4]))
    pool.append(("release", [rng.choice([
        ["release", "e.toml", "--set", n, "--reason", "r", *B],
        ["release", "e.toml", "--set", n, "--reason", "r", "--accept-missing", *B],
        ["release", "e.toml", "--set", n, "--unused", "--reason", "r", *B],
        ["release", "e.toml", "--key", "--reason", "r", *B]])]))
    pool.append(("release-all", [*(["release", "e.toml", "--set", str(k), "--reason", "r",
                                    *(["--unused"] if rng.random() < 0.4 else ["--accept-missing"]), *B]
                                   for k in range(1, 6)),
                                 ["release", "e.toml", "--key", "--reason", "r", *B]]))
    pool.append(("end", [["round", "end", "e.toml", "--reason", "over", *B]]))
    pool.append(("missing", [["results", "missing", "e.toml", *B]]))
    weights = [3, 3, 2, 1, 4, 2, 1, 1, 1]
    k = rng.randint(1, 4)
    chosen: list[tuple[str, list[list[str]]]] = []
    for _ in range(k):
        pick = rng.choices(pool, weights)[0]
        chosen.append(pick)
    if rng.random() < 0.35 and not any(c[0] == "site" for c in chosen):
        chosen.append(pool[4])  # end with a site often: it is what the scans read
    return chosen


def command_name(args: list[str]) -> str:
    if args[0] in ("round", "results", "print"):
        return " ".join(args[:2])
    if args[0] == "release":
        return "release --key" if "--key" in args else "release --unused" if "--unused" in args else "release --set"
    return args[0]


def event_folders(case: Path) -> list[Path]:
    b = case / "b"
    return [p for p in sorted(b.iterdir()) if p.is_dir()] if b.is_dir() else []


def scan_site(case: Path, out: Path, tally: Tally, where: dict[str, Any], stats: dict[str, Any]) -> None:
    for folder in event_folders(case):
        dbp = folder / "results.sqlite"
        db = scanner.read_db(dbp) if dbp.exists() else {"results": {}, "released": set(), "unused": set(),
                                                          "key": False}
        sec = scanner.secrets(folder, db["released"], db["key"])
        if not sec.tokens and not sec.control_tokens:
            continue
        res = scanner.scan(out, sec)
        stats["scans"] += 1
        stats["files_scanned"] += res.files
        stats["control_hands"] += sum(1 for label in sec.control_hands.values() if res.control[label])
        stats["control_hands_expected"] += len(sec.control_hands)
        if res.hits:
            tally.find("secret-published", **where, folder=folder.name, hits=res.hits[:10], count=len(res.hits))
        w = scanner.withheld_check(out, db)
        stats["withheld_boards"] += sum(len(v) for v in w.in_play.values())
        stats["withheld_control_ok"] += w.shown_ok
        if w.leaks:
            tally.find("board-result-published", **where, leaks=w.leaks[:10], count=len(w.leaks))
        if w.shown_wrong:
            tally.find("result-shown-wrong", **where, wrong=w.shown_wrong[:5])


def run_case(rng: random.Random, case_no: int, state: str, work: Path, tally: Tally, stats: dict[str, Any],
             log_cases: list[dict[str, Any]]) -> None:
    base = common.build_state(state)
    case = work / f"case-{case_no:04d}"
    if case.exists():
        shutil.rmtree(case)
    common.copy_tree(base, case)
    doc = tomllib.loads((case / "e.toml").read_text(encoding="utf-8"))
    done = []
    semantic = rng.random() < 0.6
    for _ in range(rng.choice([1, 1, 2, 2, 3])):
        mutate = rng.choices(DIRECTOR, DIRECTOR_WEIGHTS)[0] if semantic else rng.choices(MUTATIONS, WEIGHTS)[0]
        try:
            done.append(mutate(rng, doc))
        except (IndexError, KeyError, ValueError) as error:
            done.append(f"{mutate.__name__} failed: {error!r}")
    (case / "e.toml").write_text(common.dump_toml(doc), encoding="utf-8")
    try:
        tomllib.loads((case / "e.toml").read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as error:
        tally.find("harness-toml", case=case_no, error=str(error))
    cmds = commands_for(rng, state)
    record: dict[str, Any] = {"case": case_no, "state": state, "semantic": semantic, "mutations": done,
                              "commands": []}
    db_changed = False
    invalid = 0  # commands run after the event file was refused as such (a couple are enough)
    for name, arg_lists in cmds:
        for args in arg_lists:
            if invalid >= 2:
                break
            dbs = {f.name: common.dump_db(f / "results.sqlite") for f in event_folders(case)}
            before = common.snapshot(case)
            r = run(args, case, timeout=240)
            cname = command_name(args)
            tally.count(cname, r.rc)
            record["commands"].append({"args": args, "rc": r.rc, "msg": r.short(), "s": round(r.seconds, 2)})
            if r.rc == 2 and r.err.startswith("error: e.toml:"):
                invalid += 1
            where = {"case": case_no, "state": state, "mutations": done, "args": args}
            if r.rc == "timeout":
                tally.find("timeout", **where)
            elif r.traceback:
                tally.find("traceback", **where, rc=r.rc, err=r.err[-2500:])
            elif r.rc not in common.DOCUMENTED or (r.rc == 1 and cname not in ("results audit",)):
                tally.find("undocumented-exit", **where, rc=r.rc, err=r.err[-500:])
            after_dbs = {f.name: common.dump_db(f / "results.sqlite") for f in event_folders(case)}
            after = common.snapshot(case)
            if r.rc != 0:
                changes = [f"{k}: {d}" for k in sorted(set(dbs) | set(after_dbs))
                           for d in common.db_diff(dbs.get(k), after_dbs.get(k))]
                files = common.snap_diff(before, after)
                if changes or files:
                    tally.find("failed-command-changed-state", **where, rc=r.rc, db=changes, files=files[:20],
                               err=r.short())
            else:
                if any(dbs.get(k) != after_dbs.get(k) for k in after_dbs):
                    db_changed = True
                if args[0] == "release" and "--key" in args and "nothing changed" not in r.out:
                    tally.find("key-released", **where, out=r.out[-300:],
                               earlier=[c["args"][:3] + [c["rc"]] for c in record["commands"][:-1]])
                if args[0] == "site":
                    out = case / args[args.index("--out") + 1]
                    scan_site(case, out, tally, where, stats)
    if db_changed:
        r = run(["results", "audit", "e.toml", "--boards-dir", "b"], case, timeout=240)
        tally.count("results audit (after)", r.rc)
        record["audit"] = r.rc
        if r.rc not in (0, 2):
            tally.find("audit-after-case", case=case_no, state=state, mutations=done, rc=r.rc, out=r.out[-800:],
                       err=r.err[-800:])
    log_cases.append(record)
    shutil.rmtree(case, ignore_errors=True)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--cases", type=int, default=50)
    ap.add_argument("--state", default="all")
    ap.add_argument("--work", default="/tmp/fuzz-events")
    ap.add_argument("--out", default=None, help="report JSON (default: WORK/report-SEED.json)")
    ap.add_argument("--budget", type=float, default=2400, help="stop starting cases after this many seconds")
    a = ap.parse_args()
    rng = random.Random(a.seed)
    work = Path(a.work)
    work.mkdir(parents=True, exist_ok=True)
    states = ["demo", "swiss", "levels"] if a.state == "all" else [a.state]
    for s in states:
        common.build_state(s)
    tally = Tally()
    stats = {"scans": 0, "files_scanned": 0, "control_hands": 0, "control_hands_expected": 0, "withheld_boards": 0,
             "withheld_control_ok": 0}
    cases: list[dict[str, Any]] = []
    started = time.time()
    done = 0
    for i in range(a.cases):
        if time.time() - started > a.budget:
            common.log(f"budget reached after {i} cases")
            break
        state = states[i % len(states)]
        run_case(rng, i, state, work, tally, stats, cases)
        done += 1
        if i % 10 == 0:
            common.log(f"[seed {a.seed}] case {i} ({state}) {time.time() - started:.0f} s, findings {len(tally.findings)}")
    report = {"seed": a.seed, "cases": done, "seconds": round(time.time() - started, 1), "statuses": tally.statuses,
              "stats": stats, "findings": tally.findings, "case_log": cases}
    common.write_json(Path(a.out) if a.out else work / f"report-{a.seed}.json", report)
    print(json.dumps({k: report[k] for k in ("seed", "cases", "seconds", "statuses", "stats")}, ensure_ascii=False))
    print(f"findings: {len(tally.findings)}")
    for f in tally.findings:
        print(" ", json.dumps(f, ensure_ascii=False, default=str)[:400])


if __name__ == "__main__":
    main()
