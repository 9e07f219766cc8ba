"""Scoring benchmark: a synthetic league of 2,000 teams × 20 rounds × 16 boards at two tables.

    .venv/bin/python benchmarks/score.py [--teams 2000] [--rounds 20] [--keep DIR] [--field-runs 2]
    .venv/bin/python benchmarks/score.py --field-only DIR [--field-runs 3]

1. writes an event file (round-robin by the circle method, one board set per round) and one
   traveller CSV per round (32,000 rows each at full size: 640,000 in all) into a temporary folder;
2. imports the CSV files through the real importer (validation, one transaction per file), and in
   the same run a baseline: the same files read with `csv` and inserted with a plain SQLite
   `executemany` (a 5-column table, no index, one transaction per file); prints both rates and
   their ratio; and, to show how much of the import is storing, the storing floor: the same rows
   read and validated beforehand (not timed), then only linked into the hash chain and inserted
   into a fresh database of the project's schema (its append-only guards and indexes), one
   transaction per file, as the import does it. The import cannot beat that floor;
3. in a fresh process, reads the current results from SQLite, scores every match and computes the
   standings with the profile's tie-break chain; prints rows/s and the peak memory (max RSS) of
   that process. Target: scoring under 5 s and 1.5 GB on a 2-core machine;
4. runs `dealer report` for every format (html, pdf, csv, xlsx, json) as its own process and prints
   its wall and CPU time and its peak memory (max RSS of the child, from getrusage). Target (issue
   11): under 30 s and 1.5 GB at 2,000 teams × 20 rounds;
5. what the field says (issue 39: each board's datum, every pair's butler; `"field"` of the JSON,
   `field.csv`, the XLSX's field sheets, the pairs' tables): the same report (every format, the
   library's `write_reports` from the scored event) in fresh processes without the field's
   figures and with them, alternately, `--field-runs` times each; prints the best of each and their
   ratio. Target: the field adds at most 20 % to the report's time. `--field-only DIR` runs this
   step alone on a league kept by `--keep DIR` (with `PYTHONPATH=TREE`, of another source tree).

Import target (issue 11): at least 0.5 of the plain `executemany` rate measured in the same run.
"""

from __future__ import annotations

import argparse
import csv
import os
import random
import resource
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from dealer.event import Event

BOARDS = 16


def pairings(teams: int, rounds: int) -> list[list[tuple[int, int]]]:
    """The first ``rounds`` rounds of the Berger round robin (team indexes; dealer.tournament)."""
    from dealer.tournament.round_robin import berger_table

    return [[(home - 1, away - 1) for home, away in rnd if max(home, away) <= teams]  # odd: the bye dropped
            for rnd in berger_table(teams)[:rounds]]


def write_event(folder: Path, teams: int, rounds: int) -> Path:
    lines = [
        "[event]", 'id = "bench"', 'name = "Synthetic league"', 'profile = "official-2002"',
        "decks = 2", f"boards_per_set = {BOARDS}", f"sets = {rounds}", "",
    ]
    for t in range(teams):
        lines += ["[[teams]]", f'id = "T{t + 1:04d}"', f'name = "Team {t + 1}"',
                  f"mixed_club = {'true' if t % 7 == 0 else 'false'}", ""]
    for r, matches in enumerate(pairings(teams, rounds), start=1):
        lines += ["[[rounds]]", f"number = {r}", "matches = ["]
        lines += [f'  {{ id = "{m}", home = "T{a + 1:04d}", away = "T{b + 1:04d}", set = {r} }},'
                  for m, (a, b) in enumerate(matches, start=1)]
        lines += ["]", ""]
    path = folder / "bench.toml"
    path.write_text("\n".join(lines), encoding="utf-8")
    return path


def write_travellers(folder: Path, teams: int, rounds: int, seed: int = 1) -> list[Path]:
    rng = random.Random(seed)  # synthetic results only; nothing here is dealt
    values = list(range(-40, 241, 5))
    weights = [1 if p < 0 else 4 if p < 80 else 3 if p < 120 else 1 for p in values]
    paths = []
    for r in range(1, rounds + 1):
        path = folder / f"round-{r:02d}.csv"
        points = rng.choices(values, weights, k=teams // 2 * BOARDS * 2)
        with path.open("w", encoding="utf-8", newline="") as stream:
            writer = csv.writer(stream)
            writer.writerow(["round", "match", "table", "board", "defenders_points"])
            k = 0
            for m in range(1, teams // 2 + 1):
                for b in range(1, BOARDS + 1):
                    for table in ("A", "B"):
                        writer.writerow((r, m, table, b, points[k]))
                        k += 1
        paths.append(path)
    return paths


def plain_executemany(files: list[Path], database: Path) -> tuple[int, float]:
    """The baseline: rows read with `csv` and inserted with `executemany`, one transaction a file."""
    start = time.perf_counter()
    conn = sqlite3.connect(database, isolation_level=None)
    conn.execute("CREATE TABLE results (round INTEGER, match TEXT, tbl TEXT, board INTEGER, points INTEGER)")
    rows = 0
    for path in files:
        with path.open(encoding="utf-8", newline="") as stream:
            reader = csv.reader(stream)
            next(reader)
            batch = list(reader)
        conn.execute("BEGIN")
        conn.executemany("INSERT INTO results VALUES (?, ?, ?, ?, ?)", batch)
        conn.execute("COMMIT")
        rows += len(batch)
    conn.close()
    return rows, time.perf_counter() - start


def storing_floor(event: Event, files: list[Path], boards_root: Path) -> tuple[int, float]:
    """Rows and seconds of storing alone: each file read and validated first (not timed), then
    linked and inserted into a fresh results database with the importer's own call."""
    from dealer.app import EventSession
    from dealer.app.dealing import deal_event
    from dealer.app.kinds import BOARD_RESULTS
    from dealer.app.result_files import _validate_rows, read_file
    from dealer.store.folder import EventFolder
    from dealer.store.schema import BOARDS

    event_folder = EventFolder(event.id, boards_root)
    deal_event(event, event_folder)
    session = EventSession.open(event, event_folder, write=True)
    store = session.writable_store()
    rows, seconds = 0, 0.0
    for path in files:
        parsed = read_file(path)
        batch = _validate_rows(event, BOARD_RESULTS, parsed)
        start = time.perf_counter()
        with store.transaction():
            store.insert(BOARDS, batch, source=parsed.source, import_kind="file", sha256=parsed.sha256)
        seconds += time.perf_counter() - start
        rows += len(batch)
    store.close()
    return rows, seconds


def score_only(event_file: str, boards_root: str) -> None:
    """Child process: read the results, score every match, compute standings; print figures."""
    from dealer.files import load_event
    from dealer.scoring import ResultColumns, score_event
    from dealer.standings import standings
    from dealer.store.folder import EventFolder
    from dealer.store.schema import BOARDS

    event = load_event(event_file)
    start = time.perf_counter()
    from dealer.app import EventSession

    with EventSession.open(event, EventFolder(event.id, Path(boards_root))) as session:
        assert session.store is not None
        rows = session.store.scoring_rows(BOARDS)
    read = time.perf_counter()
    scored = score_event(event, ResultColumns.from_rows(rows))
    table = standings(scored)
    end = time.perf_counter()
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"{len(rows)} {read - start:.3f} {end - read:.3f} {peak_mb:.0f} {table[0].team} "
          f"{sum(s.played for s in scored.scores)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[1])
    parser.add_argument("--teams", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--keep", help="Folder to keep the generated files in (default: temporary).")
    parser.add_argument("--field-runs", type=int, default=2,
                        help="Reports timed without and with the field's figures, each (default: 2).")
    parser.add_argument("--field-only", metavar="KEPT",
                        help="Only time the field's overhead on the report (step 5) of a league kept by --keep.")
    parser.add_argument("--score-only", nargs=2, metavar=("EVENT", "BOARDS"), help=argparse.SUPPRESS)
    parser.add_argument("--report-only", nargs=4, metavar=("EVENT", "BOARDS", "OUT", "FIELD"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.score_only:
        score_only(*args.score_only)
        return
    if args.report_only:
        report_only(*args.report_only)
        return
    if args.field_only:
        kept = Path(args.field_only)
        with tempfile.TemporaryDirectory() as temporary:
            field_overhead(kept / "bench.toml", kept / "boards", Path(temporary), args.field_runs)
        return

    from dealer.app import EventSession
    from dealer.app.dealing import deal_event
    from dealer.app.result_files import import_file
    from dealer.files import load_event
    from dealer.store.folder import EventFolder

    with tempfile.TemporaryDirectory() as temporary:
        folder = Path(args.keep or temporary)
        folder.mkdir(parents=True, exist_ok=True)
        t0 = time.perf_counter()
        event_path = write_event(folder, args.teams, args.rounds)
        files = write_travellers(folder, args.teams, args.rounds)
        t1 = time.perf_counter()
        event = load_event(event_path)
        boards_root = folder / "boards"
        event_folder = EventFolder(event.id, boards_root)
        deal_event(event, event_folder)  # results are stored for a dealt event
        store_session = EventSession.open(event, event_folder, write=True)
        t2 = time.perf_counter()
        added = 0
        for path in files:
            added += import_file(store_session, path).added
        store_session.close()
        t3 = time.perf_counter()
        size_mb = event_folder.results_path.stat().st_size / 2**20
        plain_rows, plain_s = plain_executemany(files, folder / "plain.sqlite")
        print(f"league: {args.teams} teams × {args.rounds} rounds × {BOARDS} boards × 2 tables "
              f"= {added:,} traveller rows (files written in {t1 - t0:.1f} s, event loaded in {t2 - t1:.1f} s)")
        rate, plain_rate = added / (t3 - t2), plain_rows / plain_s
        print(f"import:  {added:,} rows in {t3 - t2:.2f} s = {rate:,.0f} rows/s "
              f"({len(files)} files, one transaction each; database {size_mb:.0f} MB)")
        print(f"baseline: csv + plain executemany, {plain_rows:,} rows in {plain_s:.2f} s = {plain_rate:,.0f} rows/s; "
              f"import / baseline = {rate / plain_rate:.3f} (target at least 0.5: "
              f"{'met' if rate / plain_rate >= 0.5 else 'NOT met'})")
        floor_rows, floor_s = storing_floor(event, files, folder / "floor-boards")
        floor_rate = floor_rows / floor_s
        print(f"storing floor: the same rows validated beforehand, only linked and inserted into the schema, "
              f"{floor_rows:,} rows in {floor_s:.2f} s = {floor_rate:,.0f} rows/s = {floor_rate / plain_rate:.3f} "
              f"of the baseline (the import's ceiling); import / storing floor = {rate / floor_rate:.3f}")
        child = subprocess.run(
            [sys.executable, __file__, "--score-only", str(event_path), str(boards_root)],
            capture_output=True, text=True, check=True,
        )
        rows, read_s, score_s, peak_mb, leader, played = child.stdout.split()
        total = float(read_s) + float(score_s)
        print(f"scoring: {int(rows):,} rows in {total:.2f} s = {int(rows) / total:,.0f} rows/s "
              f"(read from SQLite {float(read_s):.2f} s, score {played} matches + standings {float(score_s):.2f} s)")
        print(f"peak memory of the scoring process (max RSS): {peak_mb} MB; leader {leader}")
        parent_peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        print(f"peak memory of the generating/importing process (max RSS): {parent_peak:.0f} MB")
        report_s, report_cpu, report_mb, files, size_mb = run_report(event_path, boards_root, folder / "reports")
        verdict = "met" if report_s < 30 and report_mb < 1536 else "NOT met"
        print(f"report: dealer report --format html,pdf,csv,xlsx,json in {report_s:.1f} s wall "
              f"({report_cpu:.1f} CPU-s), peak memory (max RSS) {report_mb:.0f} MB; {files} files, "
              f"{size_mb:.0f} MB (target under 30 s and 1.5 GB: {verdict})")
        field_overhead(event_path, boards_root, folder / "field-reports", args.field_runs)


def field_overhead(event_path: Path, boards_root: Path, out: Path, runs: int) -> None:
    """The report (every format) without and with what the field says, in fresh processes,
    alternately; the best wall time of each and their ratio."""
    times: dict[str, list[float]] = {"0": [], "1": []}
    figures: dict[str, str] = {}
    for _run in range(runs):
        for field in ("0", "1"):
            target = out / field
            child = subprocess.run([sys.executable, __file__, "--report-only", str(event_path), str(boards_root),
                                    str(target), field], capture_output=True, text=True, check=True)
            seconds, field_s, boards, pairs, size_mb = child.stdout.split()
            times[field].append(float(seconds))
            if field == "1":
                figures = {"field_s": field_s, "boards": boards, "pairs": pairs, "mb": size_mb}
    without, with_field = min(times["0"]), min(times["1"])
    ratio = with_field / without
    print(f"field: the report (html, pdf, csv, xlsx, json; write_reports of the scored event) without the field's "
          f"figures {without:.1f} s, with them {with_field:.1f} s (best of {runs} each, alternately; the figures "
          f"themselves {float(figures['field_s']):.2f} s: {figures['boards']} boards' datums, {figures['pairs']} "
          f"pairs' butler; files {figures['mb']} MB): with / without = {ratio:.3f} "
          f"(target at most 1.20: {'met' if ratio <= 1.2 else 'NOT met'})")


def report_only(event_file: str, boards_root: str, out: str, field: str) -> None:
    """Child process: the report of every format from the stored results, timed from reading the
    results to the last file; ``field`` "0": without what the field says (no datum, no butler)."""
    from dealer.app import EventSession
    from dealer.files import load_event
    from dealer.report import REPORT_WRITERS, write_reports
    from dealer.store.folder import EventFolder

    event = load_event(event_file)
    target = Path(out)
    target.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    with EventSession.open(event, EventFolder(event.id, Path(boards_root))) as session:
        data = session.report()
    field_s = 0.0
    if field == "0":
        data.__dict__["field_figures"] = None  # the cached property answered: no field's figures
    else:
        begin = time.perf_counter()
        stats = data.field_figures
        _ = stats.pairs if stats is not None else None
        field_s = time.perf_counter() - begin
    write_reports(data, target, list(REPORT_WRITERS))
    seconds = time.perf_counter() - start
    stats = data.field_figures
    size = sum(f.stat().st_size for f in target.iterdir()) / 2**20
    print(f"{seconds:.3f} {field_s:.3f} {len(stats.boards) if stats else 0} {len(stats.pairs) if stats else 0} "
          f"{size:.0f}")


def run_report(event_path: Path, boards_root: Path, out: Path) -> tuple[float, float, float, int, float]:
    """``dealer report`` for every format in a child process: wall s, CPU s, peak RSS MB (that
    child's own, from wait4), files, MB."""
    start = time.perf_counter()
    child = subprocess.Popen([sys.executable, "-m", "dealer.cli", "report", str(event_path), "--boards-dir",
                              str(boards_root), "--format", "html,pdf,csv,xlsx,json", "--out", str(out)],
                             stdout=subprocess.DEVNULL)
    _pid, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - start
    child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode:
        raise SystemExit(f"dealer report failed (exit status {child.returncode})")
    cpu = usage.ru_utime + usage.ru_stime
    files = list(out.iterdir())
    return wall, cpu, usage.ru_maxrss / 1024, len(files), sum(f.stat().st_size for f in files) / 2**20


if __name__ == "__main__":
    main()
