"""Serve benchmark: phones entering boards against a real `dealer serve` (uvicorn in its own process
on 127.0.0.1), and against the floor, a minimal Starlette + uvicorn app doing the same insert with
the same durability and group commit, in the same run (issues 23 and 36).

    .venv/bin/python benchmarks/serve.py [--phones 200] [--boards 16] [--pace 1000] [--clients 2]
        [--trees DIR [DIR ...]] [--passes 1] [--keep DIR]

1. writes an event of 2 × phones / 2 teams and a fixed round 1 (phones / 2 matches × 2 tables: one
   table score sheet per phone, each of `--boards` boards) and deals it once (tests/live_server.py);
   each run below gets a fresh copy of it, in the same folder (the same disk);
2. a run: starts the server as its own process (`dealer serve EVENT --port P --rate 100000` with
   `PYTHONPATH=TREE` for each tree of `--trees`, by default this one; or the floor,
   benchmarks/serve_floor.py, speaking the same HTTP protocol on the same event loop as the last
   tree's server, which it finds in that process's mapped libraries, or as `--floor-http`
   and `--floor-loop` say); then the phones (benchmarks/serve_phones.py: raw sockets, one kept-alive
   connection a phone, spread over `--clients` processes) each open their table page, keep its
   cookie and read its forms' nonces, and build every request they will send (not timed; printed:
   how long the server took from its start to its first answer);
3. timed, from the first post to the last answer: every phone posts its boards, each as a browser's
   script posts it (Origin, Referer, device cookie, Accept: application/json), in two modes, each
   a run of its own on a fresh server and event:
   - no think time: every phone posts again as soon as it is answered (the server's ceiling; by
     Little's law p50 ≈ phones / throughput);
   - a hall's pace: every phone posts once every `--pace` ms (1,000: a board a second for each of
     200 phones), its first post at a random moment of the first period; a phone answered late
     posts its next at once;
   each run prints the p50/p95/max latency of an entry POST (on the client, from the moment the
   phone sends it to its answer's last byte read; a new connection, where the server closed the
   idle one, counted in), the entries a second (entries / timed wall seconds), the
   server process's CPU (/proc/PID/stat, user + system, over the timed part) per entry, the client
   processes' CPU per entry, and the requests sent again after meeting a connection the server
   closed while idle. Every answer must be 200, `ok` and not `repeated`; after each run the rows
   stored (the event database's live_entries, the floor's table) are counted: one for every entry
   sent, no slot twice, each with the points sent;
4. the runs are interleaved: for each pass and mode, each tree in order, then the floor. Per tree:
   its entries a second over the floor's (no think time), its p95 over the floor's (a hall's pace)
   and its CPU per entry over the floor's, the median of the passes. Last, the last tree's p95
   ratio at a hall's pace and the line `ratio to floor: R` (its entries a second over the floor's,
   no think time);
5. to show the disk only (its fsync's cost moves a lot on a shared machine), before and after each
   pass: a bare SQLite loop inserting `--bare-rows` rows of live_entries' shape one transaction
   each into a fresh database in the same folder (WAL, synchronous=FULL), rows/s.
The clients run on the same machine and take their share of the CPU (printed): the figures are a
floor for the server and the floor app alike. The page a phone's browser loads again after each
entry (the script shows the server's answer on the page) is not loaded: only the entries are timed.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

import serve_floor
from live_server import EVENT_ID, REPO, LiveServer, dealt_event, points
from serve_phones import Measured, Sheet, run_phones

from dealer.formats.entry import SheetId, entry_path, sheet_tag
from dealer.store.folder import EventFolder

FLOOR = "floor"
TABLES = ("A", "B")


def cpu_seconds(pid: int) -> float:
    """A live process's user + system CPU seconds (Linux /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def served_with(pid: int) -> tuple[str, str]:
    """The HTTP protocol and event loop a uvicorn process runs, as its mapped libraries show them
    (httptools and uvloop are compiled modules; without them uvicorn speaks h11 on asyncio)."""
    maps = Path(f"/proc/{pid}/maps").read_text()
    return ("httptools" if "/httptools/" in maps else "h11"), ("uvloop" if "/uvloop/" in maps else "asyncio")


class FloorServer(LiveServer):  # type: ignore[misc, unused-ignore]  # Any without tests/ on the path
    """benchmarks/serve_floor.py as its own process on a free port, started and stopped as the
    dealer server is (its log beside its database in ``folder``)."""

    def __init__(self, folder: Path, boards: int, http: str, loop: str) -> None:
        super().__init__(folder / "no-event", folder / "no-boards")
        self.folder, self.boards, self.http, self.loop = folder, boards, http, loop

    def command(self) -> list[str]:
        return [sys.executable, str(Path(serve_floor.__file__)), str(self.folder), "--port", str(self.port),
                "--boards", str(self.boards), "--http", self.http, "--loop", self.loop]


@dataclass
class Run:
    target: str  #: a tree's folder, or FLOOR
    mode: str
    measured: Measured
    server_cpu_s: float
    started_s: float

    @property
    def entries(self) -> int:
        return len(self.measured.latencies)

    @property
    def rate(self) -> float:
        return self.entries / self.measured.wall_s

    @property
    def p95(self) -> float:
        return statistics.quantiles(self.measured.latencies, n=20)[-1]

    @property
    def cpu_per_entry(self) -> float:
        return self.server_cpu_s / self.entries

    def line(self) -> str:
        m = self.measured
        return (f"  {self.target:<24} {self.entries:,} entries in {m.wall_s:5.2f} s = {self.rate:6,.0f} entries/s; "
                f"p50 {statistics.median(m.latencies) * 1000:4.0f} ms, p95 {self.p95 * 1000:4.0f} ms, "
                f"max {max(m.latencies) * 1000:4.0f} ms; server CPU {self.cpu_per_entry * 1000:.2f} ms/entry "
                f"({self.server_cpu_s:.1f} s), clients {m.client_cpu_s / self.entries * 1000:.2f} ms/entry; "
                f"resent {m.resent}; started in {self.started_s:.2f} s")


def check_rows(database: Path, table: str, sheets: int, boards: int) -> None:
    """The run's stored rows: one for every entry sent, no slot twice, each with the points sent."""
    with sqlite3.connect(database) as conn:
        rows = conn.execute(f"SELECT round, match, tbl, slot, generation, fields, device, at, state FROM {table}"
                            " ORDER BY id").fetchall()
    slots = {(r[1], r[2], r[3]) for r in rows}
    wrong = [r for r in rows if str(json.loads(r[5])["defenders_points"]) != points(r[1], r[2], int(r[3]))]
    assert len(rows) == len(slots) == sheets * boards and not wrong, (database, len(rows), len(slots), wrong[:3])


def sheets_of(key: bytes, phones: int) -> list[Sheet]:
    return [Sheet(entry_path(sheet, sheet_tag(key, sheet)), str(m), t)
            for m in range(1, phones // 2 + 1) for t in TABLES
            for sheet in [SheetId(EVENT_ID, 1, str(m), t, 1)]]


class Bench:
    def __init__(self, args: argparse.Namespace, folder: Path) -> None:
        self.args, self.folder = args, folder
        self.phones = args.phones + args.phones % 2
        self.template = folder / "template"
        self.template.mkdir()
        self.event_file, _ = dealt_event(self.template, self.phones, args.boards)
        self.runs = 0
        self.floor_with: tuple[str, str] | None = None
        self.floor_protocol = ""

    def _fresh(self, name: str) -> Path:
        self.runs += 1
        place = self.folder / f"run{self.runs}-{name}"
        shutil.copytree(self.template, place)
        return place

    def _done(self, place: Path) -> None:
        if not self.args.keep:
            shutil.rmtree(place)

    def server(self, tree: Path, mode: str, pace_s: float) -> Run:
        place = self._fresh("server")
        event_file, root = place / self.event_file.name, place / "boards"
        # the tree's own code: `python -m` puts the working directory first on sys.path
        loaded = subprocess.run([sys.executable, "-c", "import dealer; print(dealer.__file__)"], cwd=tree,
                                env={**os.environ, "PYTHONPATH": str(tree)}, capture_output=True, text=True, check=True)
        assert Path(loaded.stdout.strip()).resolve().is_relative_to(tree.resolve()), (tree, loaded.stdout)
        server = LiveServer(event_file, root, env={"PYTHONPATH": str(tree)}, cwd=tree).start()
        try:
            if tree == self.args.trees[-1] and self.floor_with is None:
                self.floor_with = served_with(server.pid)
            key = EventFolder(EVENT_ID, root).entry_key()
            assert key is not None
            measured, cpu = run_phones(server.port, sheets_of(key, self.phones), self.args.boards, pace_s,
                                       self.args.clients, lambda: cpu_seconds(server.pid))
        except BaseException:
            print(server.output()[-3000:], file=sys.stderr)
            raise
        finally:
            server.stop()
        check_rows(EventFolder(EVENT_ID, root).results_path, "live_entries", self.phones, self.args.boards)
        self._done(place)
        return Run(str(tree), mode, measured, cpu, server.started_s)

    def floor(self, mode: str, pace_s: float) -> Run:
        place = self._fresh("floor")
        http = self.args.floor_http if self.args.floor_http != "auto" else (self.floor_with or ("h11", ""))[0]
        loop = self.args.floor_loop if self.args.floor_loop != "auto" else (self.floor_with or ("", "asyncio"))[1]
        self.floor_protocol = f"{http}, {loop}"
        server = FloorServer(place, self.args.boards, http, loop).start()
        try:
            measured, cpu = run_phones(server.port, sheets_of(bytes(32), self.phones), self.args.boards, pace_s,
                                       self.args.clients, lambda: cpu_seconds(server.pid))
        finally:
            server.stop()
        check_rows(place / serve_floor.DATABASE, serve_floor.TABLE, self.phones, self.args.boards)
        self._done(place)
        return Run(FLOOR, mode, measured, cpu, server.started_s)


def bare_insert_loop(count: int, database: Path) -> float:
    """Rows a second: ``count`` rows of live_entries' shape inserted one transaction each into a
    fresh WAL, synchronous=FULL database."""
    at = serve_floor.now()
    rows = [(1, str(1 + n // 32), "AB"[n // 16 % 2], str(1 + n % 16), 1, json.dumps({"defenders_points": 85}),
             "device-of-a-phone", at, "entered") for n in range(count)]
    conn = sqlite3.connect(database, isolation_level=None)
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("PRAGMA synchronous = FULL")
    for statement in serve_floor.SCHEMA:
        conn.execute(statement)
    insert = ("INSERT INTO live_entries (round, match, tbl, slot, generation, fields, device, at, state)"
              " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)")
    start = time.perf_counter()
    for row in rows:
        conn.execute("BEGIN IMMEDIATE")
        conn.execute(insert, row)
        conn.execute("COMMIT")
    seconds = time.perf_counter() - start
    conn.close()
    database.unlink()
    return len(rows) / seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--phones", type=int, default=200, help="phones, one table score sheet each (even)")
    parser.add_argument("--boards", type=int, default=16)
    parser.add_argument("--pace", type=float, default=1000.0,
                        help="a hall's pace: ms between two posts of a phone (the second mode)")
    parser.add_argument("--clients", type=int, default=2, help="client processes the phones are spread over")
    parser.add_argument("--trees", "--tree", nargs="+", type=Path, default=[REPO],
                        help="source trees whose `dealer serve` is measured (PYTHONPATH=DIR), each against the"
                             " floor of the same pass; the last one's ratio ends the output (default: this tree)")
    parser.add_argument("--passes", type=int, default=1, help="times the whole interleaved series is run")
    parser.add_argument("--floor-http", default="auto", help="the floor's uvicorn HTTP protocol (auto: the last"
                                                             " tree's server's)")
    parser.add_argument("--floor-loop", default="auto", help="the floor's event loop (auto: the last tree's server's)")
    parser.add_argument("--bare-rows", type=int, default=500, help="rows of the bare SQLite loop (0: none)")
    parser.add_argument("--keep", help="Folder to keep every run's event, database and server log in.")
    args = parser.parse_args()
    args.trees = [tree.resolve() for tree in args.trees]
    modes = [("no think time", 0.0), (f"a hall's pace (each phone posts once every {args.pace:g} ms)",
                                      args.pace / 1000)]

    with tempfile.TemporaryDirectory() as temporary:
        folder = Path(args.keep or temporary)
        folder.mkdir(parents=True, exist_ok=True)
        bench = Bench(args, folder)
        entries = bench.phones * args.boards
        print(f"event: {bench.phones} table sheets ({bench.phones // 2} matches × 2 tables) × {args.boards} boards "
              f"= {entries:,} entries a run; {bench.phones} phones on kept-alive raw sockets from {args.clients} "
              f"client processes; folder {folder}")
        runs: list[tuple[int, Run]] = []
        for number in range(1, args.passes + 1):
            before = bare_insert_loop(args.bare_rows, folder / "bare.sqlite") if args.bare_rows else 0.0
            for mode, pace_s in modes:
                print(f"pass {number}, {mode}:", flush=True)
                for tree in args.trees:
                    run = bench.server(tree, mode, pace_s)
                    runs.append((number, run))
                    print(run.line(), flush=True)
                run = bench.floor(mode, pace_s)
                runs.append((number, run))
                print(run.line() + f" [{bench.floor_protocol}]", flush=True)
            if args.bare_rows:
                rate = bare_insert_loop(args.bare_rows, folder / "bare.sqlite")
                print(f"disk: bare SQLite loop, {args.bare_rows:,} rows one transaction each (WAL, synchronous=FULL)"
                      f" = {before:,.0f} rows/s before the pass, {rate:,.0f} rows/s after", flush=True)

    def of(number: int, target: str, mode: str) -> Run:
        return next(r for n, r in runs if n == number and r.target == target and r.mode == mode)

    (flat, _), (hall, _) = modes
    print(f"against the floor (Starlette + uvicorn, {bench.floor_protocol}, same insert, WAL + synchronous=FULL, "
          f"group commit), median of {args.passes} pass(es):")
    ratios: dict[str, tuple[float, float]] = {}
    for tree in map(str, args.trees):
        passes = range(1, args.passes + 1)
        rate = statistics.median(of(n, tree, flat).rate / of(n, FLOOR, flat).rate for n in passes)
        p95 = statistics.median(of(n, tree, hall).p95 / of(n, FLOOR, hall).p95 for n in passes)
        cpu = statistics.median(of(n, tree, flat).cpu_per_entry / of(n, FLOOR, flat).cpu_per_entry for n in passes)
        ratios[tree] = rate, p95
        print(f"  {tree}: entries/s {rate:.3f} of the floor's (no think time); p95 {p95:.2f}× the floor's "
              f"(a hall's pace); CPU per entry {cpu:.2f}× the floor's (no think time)")
    rate, p95 = ratios[str(args.trees[-1])]
    print(f"hall's pace p95 ratio: {p95:.2f}")
    print(f"ratio to floor: {rate:.3f}")


if __name__ == "__main__":
    main()
