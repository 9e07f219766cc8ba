"""Serve benchmark: phones entering boards against a real `dealer serve` (uvicorn in its own process
on 127.0.0.1), issue 23.

    .venv/bin/python benchmarks/serve.py [--phones 200] [--boards 16] [--think 0] [--keep DIR]

1. writes an event of 2 × phones / 2 teams and a fixed round 1 (phones / 2 matches × 2 tables: one
   table score sheet per phone, each of `--boards` boards) and deals it (tests/live_server.py);
2. starts `dealer serve EVENT --port P --rate 100000` and opens every phone's table page (its
   forms' nonces), each phone its own HTTP client and device cookie;
3. timed: every phone at once posts its boards one after another, each as soon as the last one
   is answered (or `--think` ms later): prints the p50/p95/max latency of an entry POST (request
   sent to answer read, on the client) and the server's entry throughput (entries stored / wall
   seconds from the first post to the last answer), and the server process's CPU seconds;
   Before that, how long `dealer serve` took from its start to its first answer (and `dealer --help`
   in the same run, the start-up floor);
4. baseline in the same run: the rows the server stored in live_entries, read back (not timed),
   inserted by a bare loop into a fresh SQLite database in the same folder with the store's
   settings (WAL, synchronous=FULL), one transaction per row as the server commits each entry;
   prints its rows/s and the ratio server / bare loop (the server's ceiling with `--think 0`, the
   default: every phone sends again as soon as it is answered).
The client runs on the same machine and takes its share of the CPU: the figures are a floor.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

import httpx
from live_server import EVENT_ID, LiveServer, dealt_event, enter_nonces, http_client, points
from serve_support import JSON

from dealer.formats.entry import SheetId, entry_url
from dealer.store.folder import EventFolder

LIVE_ENTRY = ("round", "match", "tbl", "slot", "generation", "fields", "device", "at", "state")


def cpu_seconds(pid: int) -> float | None:
    """A live process's user + system CPU seconds (Linux /proc), or ``None``."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def phones_enter(base: str, urls: list[tuple[str, str, str]], boards: int, think_s: float
                       ) -> tuple[list[float], float]:
    """Every phone's page opened, then every board posted: (each entry's latency, wall seconds)."""
    clients = [http_client(base, timeout=120, limits=httpx.Limits(max_connections=2)) for _ in urls]
    try:
        async def page(client: httpx.AsyncClient, url: str) -> dict[str, str]:
            answer = await client.get(url)
            answer.raise_for_status()
            return enter_nonces(answer.text, boards)

        pages = await asyncio.gather(*(page(c, url) for c, (_, _, url) in zip(clients, urls, strict=True)))
        latencies: list[float] = []

        async def phone(client: httpx.AsyncClient, match: str, table: str, url: str, nonces: dict[str, str]) -> None:
            for slot, nonce in nonces.items():
                form = {"slot": slot, "nonce": nonce, "defenders_points": points(match, table, int(slot))}
                sent = time.perf_counter()
                answer = await client.post(url + "/enter", data=form, headers=JSON)
                latencies.append(time.perf_counter() - sent)
                if answer.status_code != 200 or answer.json()["repeated"]:
                    raise SystemExit(f"entry refused: {answer.status_code} {answer.text[:200]}")
                if think_s:
                    await asyncio.sleep(think_s)

        start = time.perf_counter()
        await asyncio.gather(*(phone(c, m, t, url, nonces)
                               for c, (m, t, url), nonces in zip(clients, urls, pages, strict=True)))
        return latencies, time.perf_counter() - start
    finally:
        for client in clients:
            await client.aclose()


def bare_insert_loop(rows: list[tuple[object, ...]], database: Path) -> float:
    """Seconds to insert ``rows`` one transaction each into a fresh WAL, synchronous=FULL database."""
    conn = sqlite3.connect(database, isolation_level=None)
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("PRAGMA synchronous = FULL")
    conn.execute("CREATE TABLE live_entries (id INTEGER PRIMARY KEY, round INTEGER NOT NULL, match TEXT NOT NULL,"
                 " tbl TEXT NOT NULL, slot TEXT NOT NULL, generation INTEGER NOT NULL, fields TEXT NOT NULL,"
                 " device TEXT NOT NULL, at TEXT NOT NULL, state TEXT NOT NULL)")
    insert = f"INSERT INTO live_entries ({', '.join(LIVE_ENTRY)}) VALUES ({', '.join('?' * len(LIVE_ENTRY))})"
    start = time.perf_counter()
    for row in rows:
        conn.execute("BEGIN IMMEDIATE")
        conn.execute(insert, row)
        conn.execute("COMMIT")
    seconds = time.perf_counter() - start
    conn.close()
    return seconds


def help_seconds(repeats: int = 3) -> float:
    """The best of ``dealer --help`` as a whole process: the start-up floor of any command."""
    import subprocess

    best = float("inf")
    for _ in range(repeats):
        began = time.perf_counter()
        subprocess.run([sys.executable, "-m", "dealer.cli", "--help"], check=True, capture_output=True)
        best = min(best, time.perf_counter() - began)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--phones", type=int, default=200, help="phones, one table score sheet each (even)")
    parser.add_argument("--boards", type=int, default=16)
    parser.add_argument("--think", type=float, default=0.0, help="ms a phone waits after each answer")
    parser.add_argument("--keep", help="Folder to keep the event, its database and the server's log in.")
    args = parser.parse_args()
    phones = args.phones + args.phones % 2

    with tempfile.TemporaryDirectory() as temporary:
        folder = Path(args.keep or temporary)
        folder.mkdir(parents=True, exist_ok=True)
        event_file, root = dealt_event(folder, phones, args.boards)
        help_s = help_seconds()
        server = LiveServer(event_file, root).start()
        try:
            key = EventFolder(EVENT_ID, root).entry_key()
            assert key is not None
            urls = [(str(m), t, entry_url("", key, SheetId(EVENT_ID, 1, str(m), t, 1)))
                    for m in range(1, phones // 2 + 1) for t in ("A", "B")]
            cpu_before = cpu_seconds(server.pid)
            latencies, wall = asyncio.run(phones_enter(server.base, urls, args.boards, args.think / 1000))
            cpu_after = cpu_seconds(server.pid)
        finally:
            server.stop()
        database = EventFolder(EVENT_ID, root).results_path
        with sqlite3.connect(database) as conn:
            rows = conn.execute(f"SELECT {', '.join(LIVE_ENTRY)} FROM live_entries ORDER BY id").fetchall()
        assert len(rows) == len(latencies) == phones * args.boards, (len(rows), len(latencies))
        bare_s = bare_insert_loop(rows, folder / "bare.sqlite")

    rate, bare_rate = len(rows) / wall, len(rows) / bare_s
    p50 = statistics.median(latencies)
    p95 = statistics.quantiles(latencies, n=20)[-1]
    cpu = f"; server CPU {cpu_after - cpu_before:.1f} s" if cpu_before is not None and cpu_after is not None else ""
    print(f"event: {phones} table sheets ({phones // 2} matches × 2 tables) × {args.boards} boards = {len(rows):,} "
          f"entries; {phones} phones at once, think time {args.think:g} ms")
    print(f"start: dealer serve answered its first request {server.started_s:.2f} s after it was started "
          f"(dealer --help, same run: {help_s:.2f} s)")
    print(f"entry POST latency: p50 {p50 * 1000:.0f} ms, p95 {p95 * 1000:.0f} ms, max {max(latencies) * 1000:.0f} ms")
    print(f"server: {len(rows):,} entries in {wall:.2f} s = {rate:,.0f} entries/s{cpu}")
    print(f"baseline: bare SQLite insert loop of the same rows (WAL, synchronous=FULL, one transaction a row) "
          f"{bare_s:.2f} s = {bare_rate:,.0f} rows/s; server / baseline = {rate / bare_rate:.3f}"
          + (" (with a think time the phones, not the server, set the rate)" if args.think else ""))


if __name__ == "__main__":
    main()
