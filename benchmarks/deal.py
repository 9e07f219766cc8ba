"""Dealing speed: boards per second of the single-board and batch paths, each as a ratio to a
`random.shuffle` baseline measured in the same run (machines here are noisy: compare ratios);
then `dealer deal` and `dealer verify` end to end on an event of 100 sets, as a ratio to the
batch path of the same run.

    .venv/bin/python benchmarks/deal.py [--boards N] [--repeats R] [--sets S] [--boards-per-set B]

The baseline shuffles a 108-card list with `random.shuffle` and cuts it into four 25-card hands
and the kitty: the cheapest fair-looking dealer, but neither keyed, reproducible per board nor
free of the Mersenne Twister. Our paths also compute a keyed SHAKE-256 stream per board and draw
with rejection sampling (docs/dealing.md).

End to end: the commands run in this process through the click command (``dealer.cli.main``), from
reading the event file to the last file written and on the disk: `dealer deal` into a fresh folder
(key, commitment, every set file, the manifest), then `dealer verify` of every set file with the
key and the published commitment. Interpreter and import start-up are left out (as for the paths
above) and measured apart: the same commands as whole processes, next to a whole process that
only imports the batch path and deals the same boards.

Two floors put the in-process figures in proportion, both measured in the same run: the batch path
on the event's own boards (all sets in one call, as `dealer deal` makes them), and the disk: the files
`dealer deal` wrote, written again with the same bytes as plain new files, then one `syncfs`
(what any durable writer of those files pays, whatever it computes). `dealer deal` is compared with
their sum: what is left above it is objects and formatting.

Everything is written under ``TMPDIR``. On the shared machine's disk, creating a file costs 0.1 to
0.8 ms from one minute to the next, and both `dealer deal` and the floor create a thousand: there,
the whole-process ratios follow the disk more than the code (the same code printed 0.25 and 0.88
in two runs of one session). ``TMPDIR=/dev/shm`` (a memory file system) measures the code alone:
there the floor process takes about 70 ms and `dealer deal` about 360 ms (0.19). The imports-only
process takes about 115 ms there (0.59 of the floor's speed) before any board is dealt: a ratio of
0.33 would leave `dealer deal` under 90 ms for reading the event, dealing, formatting and writing.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from dealer.batch import set_inputs, shuffle_inputs, shuffle_many
from dealer.deal import BoardSpec, Layout, deal_board

KEY = bytes(range(32))
LAYOUT = Layout(2, 25, 8)


def baseline(count: int) -> None:
    rng = random.Random(1)
    pack = list(range(108))
    for _ in range(count):
        rng.shuffle(pack)
        _hands = [pack[0:25], pack[25:50], pack[50:75], pack[75:100], pack[100:]]


def single(count: int) -> None:
    for board in range(1, count + 1):
        deal_board(KEY, BoardSpec("bench", 1, board, "N", "2"), LAYOUT)


def batch(count: int) -> None:
    chunk = 50_000
    for first in range(1, count + 1, chunk):
        boards = range(first, min(first + chunk, count + 1))
        orders = shuffle_many(KEY, "bench", 1, boards, 108)
        _hands = orders[:, :25], orders[:, 25:50], orders[:, 50:75], orders[:, 75:100]


def best_rate(function: Callable[[int], None], count: int, repeats: int) -> float:
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        function(count)
        best = min(best, time.perf_counter() - start)
    return count / best


def write_event(folder: Path, sets: int, boards_per_set: int) -> Path:
    path = folder / "bench.toml"
    path.write_text("\n".join([
        "[event]", 'id = "bench"', 'name = "Dealing benchmark"', 'profile = "official-2002"', "decks = 2",
        f"sets = {sets}", f"boards_per_set = {boards_per_set}", "",
    ]), encoding="utf-8")
    return path


def run_command(args: list[str]) -> None:
    """``dealer ARGS`` in this process; its output is dropped, a failure stops the benchmark."""
    from dealer.cli import main as dealer

    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()) as err:
        try:
            dealer.main(args, prog_name="dealer", standalone_mode=False)
        except SystemExit as status:
            if status.code:
                raise SystemExit(f"dealer {' '.join(args)}: exit {status.code}\n{err.getvalue()}") from None


def verify_commands(event_folder: Path) -> list[list[str]]:
    """`dealer verify` of every set file: one command (it takes many files)."""
    key = ["--key-file", str(event_folder / "deal.key"), "--commitment", str(event_folder / "commitment.json")]
    return [["verify", *(str(path) for path in sorted(event_folder.glob("set-*.json"))), *key]]


def batch_same_boards(sets: int, boards_per_set: int, repeats: int) -> float:
    """Best seconds of the batch path dealing the event's boards, every set in one call."""
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        shuffle_inputs(set_inputs(KEY, "bench", [(s, b) for s in range(1, sets + 1)
                                                 for b in range(1, boards_per_set + 1)]), 108)
        best = min(best, time.perf_counter() - start)
    return best


def disk_floor(written: Path, folder: Path, repeats: int) -> tuple[float, int, int]:
    """Best seconds of writing the files of ``written`` again, same bytes, as plain new files in a
    fresh folder, then one ``syncfs``; and how many files and bytes."""
    from dealer.files import flush_to_disk

    contents = [(path.name, path.read_bytes()) for path in sorted(written.iterdir()) if path.is_file()]
    best = float("inf")
    for repeat in range(repeats):
        target = folder / f"floor-{repeat}"
        start = time.perf_counter()
        target.mkdir()
        paths = []
        for name, data in contents:
            path = target / name
            with path.open("xb") as stream:
                stream.write(data)
            paths.append(path)
        flush_to_disk(target, paths)
        best = min(best, time.perf_counter() - start)
    return best, len(contents), sum(len(data) for _, data in contents)


def end_to_end(sets: int, boards_per_set: int, repeats: int) -> tuple[float, float, float, int, int]:
    """Best seconds of `dealer deal` into a fresh folder and of verifying every set file; the
    disk floor of the files it wrote (seconds, files, bytes)."""
    best_deal = best_verify = float("inf")
    with tempfile.TemporaryDirectory() as temporary:
        folder = Path(temporary)
        event_file = write_event(folder, sets, boards_per_set)
        for repeat in range(repeats):
            boards_dir = folder / f"boards-{repeat}"
            start = time.perf_counter()
            run_command(["deal", str(event_file), "--boards-dir", str(boards_dir)])
            best_deal = min(best_deal, time.perf_counter() - start)
            commands = verify_commands(boards_dir / "bench")
            start = time.perf_counter()
            for command in commands:
                run_command(command)
            best_verify = min(best_verify, time.perf_counter() - start)
        floor = disk_floor(folder / "boards-0" / "bench", folder, repeats)
    return best_deal, best_verify, *floor


#: The floor process: one SHAKE-256 stream per board (as long as a board's draws need), then the
#: files `dealer deal` wrote, same names and bytes (read from one blob), as plain new files in a
#: fresh folder and one ``syncfs``. Only the standard library: what any keyed dealer that writes
#: those files durably pays, whatever else it computes.
FLOOR_PROCESS = """
import ctypes, hashlib, marshal, os, sys
boards, length, blob, target = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4]
shake = hashlib.shake_256
key = bytes(32)
streams = [shake(key + board.to_bytes(4, "big")).digest(length) for board in range(boards)]
with open(blob, "rb") as stream:
    contents = marshal.load(stream)
os.mkdir(target)
for name, data in contents:
    with open(os.path.join(target, name), "xb") as stream:
        stream.write(data)
handle = os.open(target, os.O_RDONLY)
ctypes.CDLL(None, use_errno=True).syncfs(handle)
os.close(handle)
"""


#: A process that imports the modules `dealer deal` runs (its command line, the dealing library and
#: the batch path with NumPy), then stops: what the interpreter and the imports take of a
#: whole-process ratio before anything is read or dealt.
IMPORTS_ONLY = "import dealer.cli, dealer.app.dealing, dealer.batch"


def whole_processes(sets: int, boards_per_set: int, repeats: int) -> dict[str, float]:
    """Best wall and CPU seconds (children's user + system) of `dealer deal`, of `dealer verify`
    (all sets), of a process that only deals the same boards with the batch path, of one that only
    imports (:data:`IMPORTS_ONLY`), and of the floor process (:data:`FLOOR_PROCESS`), each a fresh
    interpreter, interleaved in every repeat. Each writes into a new folder, nothing is removed
    until the end and the disk is synced before each process: none pays for the writeback or the
    removals of another. Creating a file costs 0.2 to 1 ms here, varying from minute to minute, and
    both `dealer deal` and the floor create a thousand: compare ratios of the same run, and look at
    several runs."""
    import marshal

    from dealer.deal import draw_bounds

    python = sys.executable
    boards = sets * boards_per_set
    batch_only = ("from dealer.batch import set_inputs, shuffle_inputs\n"
                  f"shuffle_inputs(set_inputs(bytes(32), 'bench', [(s, b) for s in range(1, {sets} + 1) "
                  f"for b in range(1, {boards_per_set} + 1)]), 108)")
    # As an installed tool runs: with its modules' bytecode cached (pip compiles it on install). A
    # PYTHONDONTWRITEBYTECODE in the environment would make every run compile the sources again,
    # which weighs on the command (many modules) more than on the baseline (a few); the first of
    # the repeats writes the caches and the best of them is taken.
    environment = {name: value for name, value in os.environ.items() if name != "PYTHONDONTWRITEBYTECODE"}
    best: dict[str, float] = {}

    def run(name: str, command: list[str]) -> None:
        os.sync()  # each process starts on a quiet disk: no writeback left by the one before
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        subprocess.run(command, check=True, capture_output=True, env=environment)
        wall = time.perf_counter() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
        best[name] = min(best.get(name, float("inf")), wall)
        best[name + " cpu"] = min(best.get(name + " cpu", float("inf")), cpu)

    with tempfile.TemporaryDirectory() as temporary:
        folder = Path(temporary)
        event_file = write_event(folder, sets, boards_per_set)
        blob = folder / "written.marshal"
        for repeat in range(repeats):
            boards_dir = folder / f"boards-{repeat}"
            run("deal", [python, "-m", "dealer.cli", "deal", str(event_file), "--boards-dir", str(boards_dir)])
            if repeat == 0:
                written = boards_dir / "bench"
                blob.write_bytes(marshal.dumps([(path.name, path.read_bytes()) for path in sorted(written.iterdir())
                                                if path.is_file()]))
            for command in verify_commands(boards_dir / "bench"):
                run("verify", [python, "-m", "dealer.cli", *command])
            run("batch", [python, "-c", batch_only])
            run("imports", [python, "-c", IMPORTS_ONLY])
            run("floor", [python, "-c", FLOOR_PROCESS, str(boards), str(4 * len(draw_bounds(108))), str(blob),
                          str(folder / f"floor-{repeat}")])
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--boards", type=int, default=100_000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--sets", type=int, default=100, help="Sets of the end-to-end event.")
    parser.add_argument("--boards-per-set", type=int, default=16)
    parser.add_argument("--process-sets", type=int, default=999, help="Sets of the whole-process event.")
    parser.add_argument("--no-processes", action="store_true", help="Skip the whole-process timings.")
    args = parser.parse_args()
    base = best_rate(baseline, args.boards, args.repeats)
    one = best_rate(single, max(1, args.boards // 10), args.repeats)
    many = best_rate(batch, args.boards, args.repeats)
    print(f"random.shuffle baseline: {base:12,.0f} boards/s")
    print(f"single-board path:       {one:12,.0f} boards/s  ({one / base:.2f}x baseline, full Deal objects)")
    print(f"batch path:              {many:12,.0f} boards/s  ({many / base:.2f}x baseline)")
    boards = args.sets * args.boards_per_set
    deal_s, verify_s, disk_s, files, size = end_to_end(args.sets, args.boards_per_set, args.repeats)
    same_s = batch_same_boards(args.sets, args.boards_per_set, args.repeats)
    print(f"end to end, {args.sets} sets of {args.boards_per_set} boards ({boards:,} boards), in-process:")
    for name, seconds in (("dealer deal", deal_s), ("dealer verify, every set", verify_s)):
        rate = boards / seconds
        print(f"  {name:<24} {rate:12,.0f} boards/s  ({rate / many:.3f}x batch path; {seconds * 1000:.0f} ms)")
    print(f"  floors: the batch path on these boards, in one call, {same_s * 1000:.0f} ms; the disk: "
          f"{files} files ({size / 1024:.0f} KiB) written as plain new files + one syncfs, {disk_s * 1000:.0f} ms")
    print(f"  dealer deal / (batch on these boards + disk) = {(same_s + disk_s) / deal_s:.2f}x the speed of the "
          f"floors' sum; verify / batch on these boards = {same_s / verify_s:.2f}x")
    if not args.no_processes:
        sets = args.process_sets
        boards = sets * args.boards_per_set
        best = whole_processes(sets, args.boards_per_set, args.repeats)
        print(f"whole processes on {sets} sets of {args.boards_per_set} boards ({boards:,} boards; interpreter "
              f"and imports included), best of {args.repeats}:")
        for name, label in (("deal", "dealer deal"), ("verify", "dealer verify, every set"),
                            ("batch", "batch path only"), ("imports", "imports only"),
                            ("floor", "floor process")):
            wall, cpu = best[name], best[name + " cpu"]
            print(f"  {label:<24} {boards / wall:10,.0f} boards/s, wall {wall * 1000:6.0f} ms, CPU {cpu * 1000:6.0f} ms"
                  f"  (floor / this: wall {best['floor'] / wall:.2f}, CPU {best['floor cpu'] / cpu:.2f})")

if __name__ == "__main__":
    main()
