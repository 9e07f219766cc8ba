"""The floor of benchmarks/serve.py: the least a Starlette + uvicorn server can do for a phone's
entry with the same durability as ``dealer serve``, run as its own process.

    .venv/bin/python benchmarks/serve_floor.py FOLDER --port P [--boards 16] [--http h11] [--loop auto]

A table's page (``GET /t/SJE1/…``, the path of a sheet's QR code) is a few bytes of HTML with one
enter form a board, each with a random nonce, marked up as the real page marks them (the phones
read them as they read the real page); it sets the device cookie as the real server does. An
entry (``POST …/enter``, a form of ``slot``, ``nonce``, ``defenders_points``, ``trump``) stores
one row of the columns of ``live_entries`` (round, match, table, slot and generation from the
path, the typed fields as sorted JSON, the device cookie, the time, ``entered``) in
``FOLDER/floor.sqlite``: WAL, ``synchronous=FULL`` as the event's store, on one writer thread,
with group commit: the entries that arrive while a COMMIT runs are written next in one
``BEGIN IMMEDIATE … COMMIT``, each in its own SAVEPOINT, and each phone is answered (JSON, as the
real server answers an entry) only after the COMMIT that holds its row. Nothing else: no nonce
kept, no guard, no validation beyond the number, no log.

It imports nothing of the project, so the same floor serves every source tree measured.
"""

from __future__ import annotations

import argparse
import asyncio
import concurrent.futures
import datetime as dt
import json
import secrets
import sqlite3
import urllib.parse
from pathlib import Path

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, PlainTextResponse, Response
from starlette.routing import Route

DATABASE = "floor.sqlite"
TABLE = "live_entries"
DEVICE_COOKIE = "sjd_device"
#: The columns of the event store's live_entries (dealer/store/migrations.py), and its index.
SCHEMA = (
    f"CREATE TABLE IF NOT EXISTS {TABLE} (id INTEGER PRIMARY KEY, round INTEGER NOT NULL, match TEXT NOT NULL,"
    " tbl TEXT NOT NULL, slot TEXT NOT NULL, generation INTEGER NOT NULL, fields TEXT NOT NULL,"
    " device TEXT NOT NULL, at TEXT NOT NULL, state TEXT NOT NULL"
    " CHECK (state IN ('entered', 'confirmed', 'conflict', 'replaced')), confirmed_by TEXT, confirmed_at TEXT,"
    " result_import INTEGER)",
    f"CREATE INDEX IF NOT EXISTS {TABLE}_sheet ON {TABLE} (round, match, tbl, slot)",
)
INSERT = (f"INSERT INTO {TABLE} (round, match, tbl, slot, generation, fields, device, at, state)"
          " VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'entered')")
Row = tuple[int, str, str, str, int, str, str, str]


class GroupCommit:
    """One connection on one writer thread; :meth:`insert` returns once a COMMIT holds the row."""

    def __init__(self, path: Path) -> None:
        self.executor = concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="floor-db")
        self.conn = self.executor.submit(self._open, path).result()
        self.queued: list[tuple[Row, asyncio.Future[int]]] = []
        self.writing = False

    @staticmethod
    def _open(path: Path) -> sqlite3.Connection:
        conn = sqlite3.connect(path, isolation_level=None)
        conn.execute("PRAGMA journal_mode = WAL")
        conn.execute("PRAGMA synchronous = FULL")
        for statement in SCHEMA:
            conn.execute(statement)
        return conn

    async def insert(self, row: Row) -> int:
        answered: asyncio.Future[int] = asyncio.get_running_loop().create_future()
        self.queued.append((row, answered))
        if not self.writing:
            self._write_queued()
        return await answered

    def _write_queued(self) -> None:
        batch, self.queued = self.queued, []
        self.writing = True
        written = asyncio.get_running_loop().run_in_executor(self.executor, self._commit, [row for row, _ in batch])
        written.add_done_callback(lambda done: self._answer(batch, done))

    def _commit(self, rows: list[Row]) -> list[int | Exception]:
        """Every row in its own SAVEPOINT (a refused row rolls back alone), one COMMIT for all."""
        conn = self.conn
        ids: list[int | Exception] = []
        conn.execute("BEGIN IMMEDIATE")
        try:
            for row in rows:
                conn.execute("SAVEPOINT entry")
                try:
                    ids.append(int(conn.execute(INSERT, row).lastrowid or 0))
                except sqlite3.Error as error:
                    conn.execute("ROLLBACK TO entry")
                    ids.append(error)
                conn.execute("RELEASE entry")
            conn.execute("COMMIT")
        except BaseException:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise
        return ids

    def _answer(self, batch: list[tuple[Row, asyncio.Future[int]]], done: asyncio.Future[list[int | Exception]]
                ) -> None:
        self.writing = False
        failed = done.exception()
        for index, (_, answered) in enumerate(batch):
            if failed is not None:  # the COMMIT failed: every phone of the batch is told (and resends)
                answered.set_exception(failed)
                continue
            outcome = done.result()[index]
            if isinstance(outcome, Exception):
                answered.set_exception(outcome)
            else:
                answered.set_result(outcome)
        if self.queued:
            self._write_queued()

    def close(self) -> None:
        self.executor.submit(self.conn.close).result()
        self.executor.shutdown()


def page(boards: int) -> str:
    """The table's page: each board's enter form with its nonce, as the real page marks it up."""
    forms = "".join(f'<form method="post" class="enter" data-slot="{b}">\n'
                    f'<input type="hidden" name="slot" value="{b}">\n'
                    f'<input type="hidden" name="nonce" value="{secrets.token_urlsafe(24)}">\n'
                    f'<input name="defenders_points"><select name="trump"></select></form>\n'
                    for b in range(1, boards + 1))
    return f"<!doctype html><title>floor</title>\n{forms}"


def now() -> str:
    return dt.datetime.now(dt.UTC).isoformat(timespec="milliseconds")


def create_app(writer: GroupCommit, boards: int) -> Starlette:
    sheet = "/t/SJE1/{event}/{round:int}/{match}/{table}/{generation:int}/{tag}"

    def device_of(request: Request) -> tuple[str, bool]:
        cookie = request.cookies.get(DEVICE_COOKIE, "")
        return (cookie, False) if cookie else (secrets.token_urlsafe(12), True)

    def with_device(response: Response, device: str, new: bool) -> Response:
        if new:
            response.set_cookie(DEVICE_COOKIE, device, max_age=86400 * 3, httponly=True, samesite="lax", path="/")
        return response

    async def table(request: Request) -> Response:
        device, new = device_of(request)
        return with_device(HTMLResponse(page(boards)), device, new)

    async def enter(request: Request) -> Response:
        device, new = device_of(request)
        form = dict(urllib.parse.parse_qsl((await request.body()).decode("utf-8", "replace"),
                                           keep_blank_values=True, max_num_fields=200))
        slot, points, trump = form.get("slot", ""), form.get("defenders_points", ""), form.get("trump") or None
        if not points.isdigit() or not slot.isdigit() or not 1 <= int(slot) <= boards:
            return JSONResponse({"ok": False, "status": 400, "message": "not a result"}, status_code=400)
        fields = {"defenders_points": int(points), **({"trump": trump} if trump else {})}
        p = request.path_params
        row: Row = (p["round"], p["match"], p["table"], slot, p["generation"], json.dumps(fields, sort_keys=True),
                    device, now())
        try:
            await writer.insert(row)
        except sqlite3.Error:
            return JSONResponse({"ok": False, "status": 503, "message": "not stored"}, status_code=503)
        return with_device(JSONResponse({"ok": True, "action": "enter", "message": f"board {slot}: {points} entered",
                                         "repeated": False}), device, new)

    async def health(request: Request) -> Response:
        return PlainTextResponse("ok")

    return Starlette(routes=[Route(sheet, table), Route(sheet + "/enter", enter, methods=["POST"]),
                             Route("/-/health", health)])


def main() -> None:
    import uvicorn

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("folder", type=Path, help="Where floor.sqlite is made (the events' folder: the same disk).")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--boards", type=int, default=16)
    parser.add_argument("--http", default="h11", help="uvicorn's HTTP protocol (as dealer serve's)")
    parser.add_argument("--loop", default="auto", help="uvicorn's event loop (as dealer serve's)")
    args = parser.parse_args()
    writer = GroupCommit(args.folder / DATABASE)
    try:
        # dealer serve's uvicorn options where they touch an entry (dealer/serve/run.py)
        config = uvicorn.Config(create_app(writer, args.boards), host="127.0.0.1", port=args.port,
                                log_level="warning", http=args.http, loop=args.loop, ws="none", lifespan="off",
                                limit_concurrency=None, timeout_graceful_shutdown=2, server_header=False,
                                proxy_headers=False)
        uvicorn.Server(config).run()
    finally:
        writer.close()


if __name__ == "__main__":
    main()
