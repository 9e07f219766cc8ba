"""Can ``dealer release --key`` be had before the event is over, and can play go on after it?

Scripted scenarios (each on a fresh copy of a base state, or a fresh event): every step is a
``dealer`` command with the exit statuses it may end with, or an edit of the event file. A step
whose status is not among those expected is printed as a FINDING; ``observe`` steps (what the
tool does after the key is out: results still imported, rounds still paired) are printed for
the report without a verdict. After each scenario the site is built and scanned: when the key
was released it must be on the site (positive control: verify.json and downloads/boards/deal.key),
and when not, no form of it may be.

Usage: key_early.py [--work /tmp/fuzz-key]
"""

from __future__ import annotations

import argparse
import re
import shutil
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import common
import scanner
from common import run

B = ["--boards-dir", "b"]
REL = ["release", "e.toml", "--reason", "r", *B]


def edit(pattern: str, repl: str, flags: int = re.S) -> tuple[str, str, str, int]:
    return ("edit", pattern, repl, flags)


def cmd(*args: str, ok: tuple[Any, ...] = (0,), observe: bool = False) -> tuple[str, list[str], tuple[Any, ...], bool]:
    return ("cmd", list(args), ok, observe)


def key(ok: tuple[Any, ...] = (2,)) -> tuple[str, list[str], tuple[Any, ...], bool]:
    return cmd(*REL, "--key", ok=ok)


def relset(n: int, *extra: str, ok: tuple[Any, ...] = (0,)) -> tuple[str, list[str], tuple[Any, ...], bool]:
    return cmd(*REL, "--set", str(n), *extra, ok=ok)


ROUND3 = r"\[\[rounds\]\]\s*number = 3.*"  # the demo's last round, to the end of the file

SCENARIOS: list[tuple[str, str, list[Any]]] = [
    ("demo: every set released (one with --accept-missing), slip missing, no end", "demo", [
        relset(2), relset(3, "--accept-missing"), key()]),
    ("demo: key straight away", "demo", [key()]),
    ("demo: sets 2-3 declared unused while played", "demo", [
        relset(2, "--unused", ok=(2,)), relset(3, "--unused", ok=(2,)), key()]),
    ("demo: round 3 dropped from the event file (its results are stored)", "demo", [
        edit(ROUND3, ""), relset(3, "--unused", ok=(2,)), key()]),
    ("demo rounds 1-2 only: round 3 dropped, set 3 unused, key; round 3 put back and played", "demo12", [
        relset(2), cmd("site", "e.toml", "--no-pdf", *B, "--out", "s"),
        edit(ROUND3, ""), relset(3, "--unused", ok=(0, 2)), key(ok=(0, 2)),
        ("restore",), cmd("results", "import", "e.toml", "r3.csv", *B, ok=(0, 2), observe=True),
        cmd("report", "e.toml", "--json", *B, ok=(0, 2), observe=True),
        cmd("print", "travellers", "e.toml", "--set", "3", "--format", "html", *B, ok=(0, 2), observe=True),
        relset(3, ok=(0, 2))]),
    ("swiss: rounds = 2 in the event file, sets 3-4 unused, key; rounds = 4 put back", "swiss", [
        relset(2), edit(r"rounds = 4 ", "rounds = 2 "), edit(r"# sets = 4 ", "sets = 4 "),
        relset(3, "--unused", ok=(0, 2)), relset(4, "--unused", ok=(0, 2)),
        key(ok=(0, 2)), ("restore",),
        cmd("round", "pair", "e.toml", "--round", "3", *B, ok=(2,)),
        cmd("results", "import", "e.toml", "r3.csv", *B, ok=(2,), observe=True),
        cmd("round", "end", "e.toml", "--withdraw", "--reason", "x", *B, ok=(2,), observe=True)]),
    ("swiss: key after round 2 without an end", "swiss", [relset(2), relset(3, "--unused", ok=(2,)), key()]),
    ("swiss: end declared, sets 3-4 unused, key; then withdraw, undo, pair", "swiss", [
        relset(2), cmd("round", "end", "e.toml", "--reason", "hall closed", *B),
        relset(3, "--unused"), relset(4, "--unused"), key(ok=(0,)),
        cmd("round", "end", "e.toml", "--withdraw", "--reason", "x", *B, ok=(2,)),
        cmd("round", "undo", "e.toml", "--round", "2", "--reason", "x", *B, ok=(2,)),
        cmd("round", "pair", "e.toml", "--round", "3", *B, ok=(2,))]),
    ("swiss: round 3 paired, end declared before it is played, set 3 released unplayed, key; round 3 results", "swiss", [
        relset(2), cmd("round", "pair", "e.toml", "--round", "3", *B),
        cmd("round", "end", "e.toml", "--reason", "hall closed", *B),
        relset(3, ok=(2,)), relset(3, "--accept-missing"), relset(4, "--unused"), key(ok=(0,)),
        cmd("results", "import", "e.toml", "r3.csv", *B, ok=(0, 2), observe=True),
        cmd("site", "e.toml", "--no-pdf", *B, "--out", "s", ok=(0,), observe=True)]),
    ("swiss: end declared with round 2 still incomplete? (complete here) then withdrawn before key", "swiss", [
        cmd("round", "end", "e.toml", "--reason", "x", *B),
        cmd("round", "end", "e.toml", "--withdraw", "--reason", "y", *B),
        relset(2), relset(3, "--unused", ok=(2,)), key()]),
    ("demo: end declared after the sample (slip missing), all sets, key; the slip then imported", "demo", [
        cmd("round", "end", "e.toml", "--reason", "slip lost", *B), relset(2), relset(3, ok=(2,)),
        relset(3, "--accept-missing"), key(ok=(0,)),
        cmd("results", "import", "e.toml", "missing.csv", *B, ok=(0, 2), observe=True)]),
    ("levels: key of a level race", "levels", [key(), relset(1, ok=(2,))]),
]


def make_demo12(work: Path) -> Path:
    """The demo dealt with rounds 1-2 of the sample in (round 3 not played), set 1 released."""
    root = work / "base-demo12"
    if root.exists():
        return root
    root.mkdir(parents=True)
    shutil.copy(common.DATA / "demo-event.toml", root / "e.toml")
    run(["deal", "e.toml", *B], root)
    lines = common.SAMPLE_TRAVELLERS.read_text(encoding="utf-8").splitlines()
    keep = [x for x in lines if not x[:2] == "3,"]
    r3 = [x for x in lines if x.startswith("round,") or x[:2] == "3,"]
    (root / "r12.csv").write_text("\n".join(keep) + "\n", encoding="utf-8")
    (root / "r3.csv").write_text("\n".join(r3) + "\n", encoding="utf-8")
    for args in (["results", "import", "e.toml", "r12.csv", *B], [*REL, "--set", "1"]):
        r = run(args, root)
        assert r.rc == 0, r.err
    return root


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--work", default="/tmp/fuzz-key")
    a = ap.parse_args()
    work = Path(a.work)
    if work.exists():
        shutil.rmtree(work)
    work.mkdir(parents=True)
    findings, statuses = [], common.Tally()
    for i, (name, state, steps) in enumerate(SCENARIOS):
        base = make_demo12(work) if state == "demo12" else common.build_state(state)
        case = work / f"k{i:02d}"
        common.copy_tree(base, case)
        original = (case / "e.toml").read_text(encoding="utf-8")
        print(f"\n== {name}")
        for step in steps:
            if step[0] == "edit":
                text = (case / "e.toml").read_text(encoding="utf-8")
                new = re.sub(step[1], step[2], text, flags=step[3])
                assert new != text, f"edit {step[1]!r} matched nothing"
                (case / "e.toml").write_text(new, encoding="utf-8")
                print(f"   edit {step[1]!r} -> {step[2]!r}")
                continue
            if step[0] == "restore":
                (case / "e.toml").write_text(original, encoding="utf-8")
                print("   event file restored")
                continue
            _, args, ok, observe = step
            r = run(args, case, timeout=300)
            statuses.count(" ".join(args[:2]) + (" --key" if "--key" in args else ""), r.rc)
            verdict = "observe" if observe else ("ok" if r.rc in ok else "FINDING")
            if r.traceback:
                verdict = "FINDING(traceback)"
            print(f"   {verdict:8} rc={r.rc} dealer {' '.join(a for a in args if a not in B)}\n"
                  f"            {(r.out.strip() or r.err.strip()).splitlines()[-1][:300] if (r.out.strip() or r.err.strip()) else ''}")
            if verdict.startswith("FINDING"):
                findings.append({"scenario": name, "args": args, "rc": r.rc, "expected": ok, "out": r.out[-400:],
                                 "err": r.err[-600:]})
        # the site at the end, scanned
        folder = next(p for p in (case / "b").iterdir() if p.is_dir())
        r = run(["site", "e.toml", "--no-pdf", *B, "--out", "s-final"], case, timeout=300)
        if r.rc == 0 and (folder / "results.sqlite").exists():
            db = scanner.read_db(folder / "results.sqlite")
            sec = scanner.secrets(folder, db["released"], db["key"])
            res = scanner.scan(case / "s-final", sec)
            key_found = sorted({lab for lab in res.control if lab.startswith("key")})
            print(f"   site: rc 0; released {sorted(db['released'])} unused {sorted(db['unused'])} key {db['key']}; "
                  f"secret hits {len(res.hits)}; key found on the site: {bool(key_found)}")
            if res.hits:
                findings.append({"scenario": name, "site_hits": res.hits[:5]})
            if db["key"] and not key_found:
                findings.append({"scenario": name, "control": "key released but not found on the site"})
        else:
            print(f"   site: rc {r.rc} {r.short()[:200]}")
    common.write_json(work / "report.json", {"findings": findings, "statuses": statuses.statuses})
    print(f"\nfindings: {len(findings)}")
    for f in findings:
        print(" ", str(f)[:600])


if __name__ == "__main__":
    main()
