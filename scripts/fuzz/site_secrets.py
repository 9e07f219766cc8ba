"""Secrecy and withholding scans of sites built at several states of an event.

States (each built from scratch under WORK, then ``dealer site`` into ``s/``, rebuilt once so
that the previous generation ``.s-previous`` is scanned too):

- ``demo-none``: the demo dealt, the sample travellers in (round 3 match 2 table B board 16
  missing), nothing released;
- ``demo-set1``: the same with set 1 released (the positive control: its 64 hands);
- ``demo-midround``: rounds 1-2 in and released; of round 3 only table A of both matches and
  boards 1-8 of match 1 table B (every board of set 3 in play);
- ``swiss-mid``: the Swiss demo, rounds 1-2 in, sets 1-2 released, round 3 paired and half of
  its results in;
- ``demo-key``: the last slip in, sets 1-3 released, the key released (control: the key);
- ``demo-end-early``: the end declared with the slip missing, sets 1-2 released, set 3 with
  --accept-missing, the key;
- ``swiss-ended``: the Swiss ended after round 2 (``round end``), sets 1-2 released, 3-4
  declared unused, the key released (sets 3-4 must still not be shown as played).

For each: secrecy scan (scanner.scan) of the site, its previous generation and any hidden
sibling, with the released sets as the positive control; the withholding check
(scanner.withheld_check); and for the states with boards in play a *differential* check: the
same event built from the same results minus every result of the in-play boards must give the
same site (JSON twins, CSV, XLSX cells), once times, chain heads and release times are taken out.
Any difference is a withheld result showing through (a total, a count, a flag).

``--pdf`` builds with the PDF downloads (hand records, report) for demo-set1 and demo-key.

Usage: site_secrets.py [--work /tmp/fuzz-secrets] [--pdf] [--states a,b]
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import re
import shutil
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import common
import scanner
from common import run

B = ["--boards-dir", "b"]


def ok(r: common.Run) -> common.Run:
    if r.rc != 0:
        raise RuntimeError(f"dealer {' '.join(r.args)} -> {r.rc}: {r.err[-600:]}")
    return r


def travellers(filter_out=None) -> str:
    lines = common.SAMPLE_TRAVELLERS.read_text(encoding="utf-8").splitlines()
    head = [x for x in lines if x.startswith("#") or x.startswith("round,")]
    rows = [x for x in lines if x and not x.startswith("#") and not x.startswith("round,")]
    if filter_out:
        rows = [x for x in rows if not filter_out(x.split(","))]
    return "\n".join(head + rows) + "\n"


#: The key a twin deals with (the state's own): the same boards, so that only the results differ.
DEAL_KEY: list[Path] = []


def deal(root: Path) -> None:
    ok(run(["deal", "e.toml", *B, *(["--key-file", str(DEAL_KEY[0])] if DEAL_KEY else [])], root))


def demo_base(root: Path, csv_text: str) -> None:
    root.mkdir(parents=True)
    shutil.copy(common.DATA / "demo-event.toml", root / "e.toml")
    deal(root)
    (root / "t.csv").write_text(csv_text, encoding="utf-8")
    ok(run(["results", "import", "e.toml", "t.csv", *B], root))


def rel(root: Path, *args: str) -> None:
    ok(run(["release", "e.toml", *args, "--reason", "r", *B], root))


# --- the states: each builds root and returns the in-play filter for its differential twin ----


def midround_keep(f: list[str]) -> bool:
    """Round 3: table A of both matches, boards 1-8 of match 1 table B."""
    if f[0] != "3":
        return True
    return f[2] == "A" or (f[1] == "1" and f[2] == "B" and int(f[3]) <= 8)


def st_demo_none(root: Path, twin: bool) -> None:
    demo_base(root, travellers((lambda f: f[0] == "3" and f[3] == "16") if twin else None))


def st_demo_set1(root: Path, twin: bool) -> None:
    st_demo_none(root, twin)
    rel(root, "--set", "1")


def st_demo_midround(root: Path, twin: bool) -> None:
    demo_base(root, travellers((lambda f: f[0] == "3") if twin else (lambda f: not midround_keep(f))))
    rel(root, "--set", "1")
    rel(root, "--set", "2")


def st_swiss_mid(root: Path, twin: bool) -> None:
    root.mkdir(parents=True)
    shutil.copy(common.DATA / "demo-swiss.toml", root / "e.toml")
    deal(root)
    for n in (1, 2, 3):
        ok(run(["round", "pair", "e.toml", "--round", str(n), *B], root))
        text = common.sample_round(root, "e.toml", n)
        if n == 3:
            lines = text.splitlines()
            head, rows = lines[:2], lines[2:]
            rows = [] if twin else rows[: len(rows) // 2]
            text = "\n".join(head + rows) + "\n"
        (root / f"r{n}.csv").write_text(text, encoding="utf-8")
        if text.count("\n") > 2:
            ok(run(["results", "import", "e.toml", f"r{n}.csv", *B], root))
        if n < 3:
            rel(root, "--set", str(n))


def st_demo_key(root: Path, twin: bool) -> None:
    st_demo_none(root, False)
    (root / "m.csv").write_text("round,match,table,board,defenders_points\n3,2,B,16,45\n")
    ok(run(["results", "import", "e.toml", "m.csv", *B], root))
    for n in (1, 2, 3):
        rel(root, "--set", str(n))
    rel(root, "--key")


def st_demo_end_early(root: Path, twin: bool) -> None:
    st_demo_none(root, False)
    ok(run(["round", "end", "e.toml", "--reason", "slip lost", *B], root))
    rel(root, "--set", "1")
    rel(root, "--set", "2")
    rel(root, "--set", "3", "--accept-missing")
    rel(root, "--key")


def st_swiss_ended(root: Path, twin: bool) -> None:
    root.mkdir(parents=True)
    shutil.copy(common.DATA / "demo-swiss.toml", root / "e.toml")
    deal(root)
    for n in (1, 2):
        ok(run(["round", "pair", "e.toml", "--round", str(n), *B], root))
        (root / f"r{n}.csv").write_text(common.sample_round(root, "e.toml", n), encoding="utf-8")
        ok(run(["results", "import", "e.toml", f"r{n}.csv", *B], root))
        rel(root, "--set", str(n))
    ok(run(["round", "end", "e.toml", "--reason", "hall closed", *B], root))
    rel(root, "--set", "3", "--unused")
    rel(root, "--set", "4", "--unused")
    rel(root, "--key")


STATES = {
    "demo-none": (st_demo_none, True), "demo-set1": (st_demo_set1, True), "demo-midround": (st_demo_midround, True),
    "swiss-mid": (st_swiss_mid, True), "demo-key": (st_demo_key, False), "demo-end-early": (st_demo_end_early, False),
    "swiss-ended": (st_swiss_ended, False),
}
PDF_STATES = {"demo-set1", "demo-key"}


# --- differential --------------------------------------------------------------------------

VOLATILE_KEYS = {"last_update", "results_chain_head", "at", "released_at", "key_released_at", "size"}
TIME = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?([+-]\d\d:\d\d|Z)?")
HEX64 = re.compile(r"\b[0-9a-f]{64}\b")


def _strip(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _strip(v) for k, v in value.items() if k not in VOLATILE_KEYS}
    if isinstance(value, list):
        return [_strip(v) for v in value]
    if isinstance(value, str):
        return HEX64.sub("<hex>", TIME.sub("<time>", value))
    return value


def site_view(out: Path) -> dict[str, Any]:
    """What a player reads: every JSON twin (volatile keys out), CSV, XLSX cell values, HTML
    text with times and digests masked."""
    import openpyxl

    view: dict[str, Any] = {}
    for path in sorted(out.rglob("*")):
        if not path.is_file():
            continue
        name = str(path.relative_to(out))
        if name.startswith(".") or name.startswith("assets/"):
            continue
        if path.suffix == ".json" and not name.startswith("downloads/"):
            view[name] = _strip(json.loads(path.read_bytes()))
        elif path.suffix == ".csv":
            view[name] = list(csv.reader(io.StringIO(path.read_text(encoding="utf-8-sig"))))
        elif path.suffix == ".xlsx":
            wb = openpyxl.load_workbook(path, read_only=True, data_only=True)
            view[name] = {ws.title: [list(r) for r in ws.iter_rows(values_only=True)] for ws in wb.worksheets}
            wb.close()
        elif path.suffix == ".html":
            text = path.read_text(encoding="utf-8")
            text = HEX64.sub("<hex>", TIME.sub("<time>", text))
            text = re.sub(r"\d{4}-\d\d-\d\d \d\d:\d\d(:\d\d)?", "<time>", text)
            view[name] = text
    return view


def pdf_text(path: Path) -> str:
    """A PDF's text (pypdfium2) with times and digests masked."""
    texts = [b for w, b in scanner.file_texts(path) if w.startswith("pdf") and not b.startswith(b"<pdf")]
    text = texts[-1].decode("utf-8", "replace") if texts else ""
    text = re.sub(r"\d{4}-\d\d-\d\d[ T]\d\d:\d\d(:\d\d)?(\.\d+)?([+-]\d\d:\d\d)?", "<time>", text)
    return re.sub(r"[0-9a-f]{12,}", "<hex>", text)


def view_diff(a: dict[str, Any], b: dict[str, Any]) -> list[str]:
    out = []
    for name in sorted(set(a) | set(b)):
        if a.get(name) != b.get(name):
            if name not in a or name not in b:
                out.append(f"{name}: only in {'twin' if name not in a else 'state'}")
                continue
            x, y = a[name], b[name]
            if isinstance(x, str):
                import difflib

                d = [line for line in difflib.unified_diff(y.splitlines(), x.splitlines(), lineterm="", n=0)
                     if line[:1] in "+-" and not line.startswith(("+++", "---"))]
                out.append(f"{name}: {' | '.join(d[:4])[:400]}")
            else:
                out.append(f"{name}: {_first_diff(x, y)[:400]}")
    return out


def _first_diff(x: Any, y: Any, path: str = "") -> str:
    if type(x) is not type(y):
        return f"{path}: {x!r} vs twin {y!r}"
    if isinstance(x, dict):
        for k in sorted(set(x) | set(y), key=str):
            if x.get(k) != y.get(k):
                return _first_diff(x.get(k), y.get(k), f"{path}.{k}")
    if isinstance(x, list):
        if len(x) != len(y):
            return f"{path}: length {len(x)} vs twin {len(y)}"
        for i, (p, q) in enumerate(zip(x, y)):
            if p != q:
                return _first_diff(p, q, f"{path}[{i}]")
    return f"{path}: {x!r} vs twin {y!r}"


# --- main ------------------------------------------------------------------------------------


def build_and_scan(name: str, work: Path, pdf: bool) -> dict[str, Any]:
    make, differential = STATES[name]
    root = work / name
    if root.exists():
        shutil.rmtree(root)
    started = time.time()
    make(root, False)
    site_args = ["site", "e.toml", *B, "--out", "s", *([] if pdf else ["--no-pdf"])]
    first = ok(run(site_args, root, timeout=900))
    second = ok(run(site_args, root, timeout=900))  # a rebuild: the previous generation exists too
    event_dirs = [p for p in (root / "b").iterdir() if p.is_dir()]
    folder = event_dirs[0]
    db = scanner.read_db(folder / "results.sqlite")
    report: dict[str, Any] = {"state": name, "pdf": pdf, "released": sorted(db["released"]),
                              "unused": sorted(db["unused"]), "key_released": db["key"],
                              "site": first.out.strip()[:200], "rebuild": second.out.strip()[:200]}
    # Sets declared unused are never shown as played: their hands count as secrets even after
    # the key (which derives them) is out.
    sec = scanner.secrets(folder, db["released"], db["key"])
    res = scanner.scan(root / "s", sec)
    report["secrecy"] = res.as_dict()
    report["secret_tokens"] = len(sec.tokens)
    report["secret_hands"] = len(sec.hands)
    hands = list(sec.control_hands.values())
    report["control_hands_found"] = f"{sum(1 for h in hands if res.control[h])}/{len(hands)}"
    key_labels = [label for label in sec.control_tokens.values() if label.startswith("key")]
    report["control_key_labels_found"] = sorted({label for label in key_labels if res.control[label]})[:6]
    codes = [label for label in sec.control_tokens.values() if "deal code" in label]
    report["control_deal_codes_found"] = f"{sum(1 for c in codes if res.control[c])}/{len(codes)}"
    if pdf:
        pdf_hits = [h for h in res.hits if h[1].startswith("pdf")]
        report["pdf_hits"] = len(pdf_hits)
    # negative control of the scanner itself: every set treated as secret must give hits when a
    # set is released
    if db["released"]:
        every = scanner.secrets(folder, set(), False)
        report["scanner_selfcheck_hits_if_released_were_secret"] = len(scanner.scan(root / "s", every).hits)
    w = scanner.withheld_check(root / "s", db, siblings=True)  # both built at this state
    report["withholding"] = w.as_dict()
    if differential:
        twin = work / (name + "-twin")
        if twin.exists():
            shutil.rmtree(twin)
        DEAL_KEY[:] = [folder / "deal.key"]
        try:
            make(twin, True)
        finally:
            DEAL_KEY.clear()
        ok(run(["site", "e.toml", *B, "--out", "s", "--no-pdf"], twin, timeout=900))
        if pdf:  # compare like with like; and the report PDFs' text, built with PDFs on both sides
            ok(run(["site", "e.toml", *B, "--out", "s3", "--no-pdf"], root, timeout=900))
            diff = view_diff(site_view(root / "s3"), site_view(twin / "s"))
            ok(run(["site", "e.toml", *B, "--out", "s-pdf"], twin, timeout=900))
            for lang in ("zh", "en"):
                a_text, b_text = (pdf_text(r / "downloads" / lang / "demo-results.pdf")
                                  for r in (root / "s", twin / "s-pdf"))
                if a_text != b_text:
                    diff.append(f"downloads/{lang}/demo-results.pdf: the text differs from the twin's")
                report[f"report_pdf_{lang}_chars"] = len(a_text)
        else:
            diff = view_diff(site_view(root / "s"), site_view(twin / "s"))
        report["differential"] = {"differences": len(diff), "list": diff[:40]}
        if name == "demo-none":  # positive control: a twin that also lacks one played board differs
            twin2 = work / (name + "-twin-control")
            if twin2.exists():
                shutil.rmtree(twin2)
            DEAL_KEY[:] = [folder / "deal.key"]
            try:
                demo_base(twin2, travellers(lambda f: (f[0] == "3" and f[3] == "16") or (f[0] == "1" and f[1] == "1"
                                                                                        and f[2] == "A" and f[3] == "1")))
            finally:
                DEAL_KEY.clear()
            ok(run(["site", "e.toml", *B, "--out", "s", "--no-pdf"], twin2, timeout=900))
            control = view_diff(site_view(twin / "s"), site_view(twin2 / "s"))
            report["differential_control_one_played_board_removed"] = {"differences": len(control),
                                                                       "sample": control[:5]}
        # positive control of the differential: the director's report does differ
        a = run(["report", "e.toml", "--json", *B], root)
        b = run(["report", "e.toml", "--json", *B], twin)
        report["differential_control_report_differs"] = a.out != b.out
    report["seconds"] = round(time.time() - started, 1)
    return report


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--work", default="/tmp/fuzz-secrets")
    ap.add_argument("--pdf", action="store_true")
    ap.add_argument("--states", default=",".join(STATES))
    ap.add_argument("--out", default=None)
    a = ap.parse_args()
    work = Path(a.work)
    work.mkdir(parents=True, exist_ok=True)
    reports = []
    for name in a.states.split(","):
        common.log(f"state {name}")
        rep = build_and_scan(name, work, pdf=a.pdf and name in PDF_STATES)
        reports.append(rep)
        common.log(json.dumps({k: rep[k] for k in rep if k not in ("secrecy", "withholding", "differential")},
                              ensure_ascii=False))
        common.log(f"  secrecy hits {rep['secrecy']['hits']}  withholding leaks {rep['withholding']['leaks']}  "
                   f"differential {rep.get('differential', {}).get('differences')}")
    common.write_json(Path(a.out) if a.out else work / "report.json", reports)
    for rep in reports:
        print(rep["state"], "pdf" if rep["pdf"] else "", "| hits", rep["secrecy"]["hits"], "| files",
              rep["secrecy"]["files"], "| control hands", rep["control_hands_found"], "| codes",
              rep["control_deal_codes_found"], "| key", rep["control_key_labels_found"][:2], "| withheld",
              rep["withholding"]["in_play"], "leaks", rep["withholding"]["leaks"], "ctl", rep["withholding"]["control_shown_ok"],
              "| diff", rep.get("differential", {}).get("differences"), rep.get("differential_control_report_differs"))


if __name__ == "__main__":
    main()
