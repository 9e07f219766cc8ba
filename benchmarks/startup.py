"""Start-up of the commands a scorer runs in a loop, as whole processes: `dealer results add`
(one new result each time), `dealer results missing` and `dealer round show`, each as a ratio to
`dealer --help` measured in the same run (the machine is shared: compare ratios, not seconds).

    .venv/bin/python benchmarks/startup.py [--repeats 15]

The event is the built-in demo (4 teams, 3 rounds of 2 matches, 3 sets of 16 boards), dealt into
a temporary folder with a results database already holding one result. The commands run in turn,
interleaved, so that a burst of load on the machine weighs on all of them alike; the median and
the minimum of wall and CPU time (the child's user + system) are printed. Bytecode caches are
written (an installed tool has them: pip compiles on install): PYTHONDONTWRITEBYTECODE is left out
of the children's environment and a first untimed round writes them.

Last, the word catalog's cache (``dealer/words.py``): parsing ``strings.toml`` against reading its
marshal cache, in this process, best of the repeats: what every command saves by the cache.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeats", type=int, default=15)
    args = parser.parse_args()
    environment = {name: value for name, value in os.environ.items() if name != "PYTHONDONTWRITEBYTECODE"}
    environment["DEALER_LANG"] = "en"
    from dealer.resources import demo_event_text

    with tempfile.TemporaryDirectory(prefix="startup-bench-") as temporary:
        folder = Path(temporary)
        event = folder / "demo.toml"
        event.write_text(demo_event_text(), encoding="utf-8")
        boards = ["--boards-dir", str(folder / "boards")]
        dealer = [sys.executable, "-m", "dealer.cli"]
        subprocess.run([*dealer, "deal", str(event), *boards], check=True, capture_output=True, env=environment)
        entries = iter((match, table, board) for match in ("1", "2") for table in ("A", "B")
                       for board in range(1, 17))

        def add() -> list[str]:
            match, table, board = next(entries)
            return ["results", "add", str(event), "--round", "1", "--match", match, "--table", table,
                    "--board", str(board), "--points", "60", *boards]

        commands = {
            "dealer --help": lambda: ["--help"],
            "results add": add,
            "results missing": lambda: ["results", "missing", str(event), *boards],
            "round show": lambda: ["round", "show", str(event), "--round", "1", *boards],
        }
        walls: dict[str, list[float]] = {name: [] for name in commands}
        cpus: dict[str, list[float]] = {name: [] for name in commands}
        for repeat in range(args.repeats + 1):
            for name, command in commands.items():
                before = resource.getrusage(resource.RUSAGE_CHILDREN)
                start = time.perf_counter()
                subprocess.run([*dealer, *command()], check=True, capture_output=True, env=environment)
                wall = time.perf_counter() - start
                after = resource.getrusage(resource.RUSAGE_CHILDREN)
                if repeat:  # the first round writes the bytecode caches
                    walls[name].append(wall)
                    cpus[name].append(after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime)
    base_wall, base_cpu = statistics.median(walls["dealer --help"]), statistics.median(cpus["dealer --help"])
    print(f"{args.repeats} runs each, interleaved; load average {os.getloadavg()[0]:.1f} at end")
    for name in commands:
        wall, cpu = statistics.median(walls[name]), statistics.median(cpus[name])
        print(f"  {name:<16} wall median {wall * 1000:5.0f} ms (min {min(walls[name]) * 1000:4.0f}), "
              f"CPU median {cpu * 1000:5.0f} ms (min {min(cpus[name]) * 1000:4.0f}); "
              f"/ dealer --help: wall {wall / base_wall:.2f}x, CPU {cpu / base_cpu:.2f}x")
    catalog_cache(args.repeats)


def catalog_cache(repeats: int) -> None:
    """Best-of time of parsing the catalog against loading its cache (made here if missing)."""
    import hashlib
    import marshal
    import tomllib
    from importlib import resources

    source = Path(str(resources.files("dealer") / "data" / "strings.toml"))
    data = source.read_bytes()
    cached = marshal.dumps((hashlib.sha256(data).digest(), tomllib.loads(data.decode("utf-8"))))
    parse, load = [], []
    for _ in range(repeats):
        start = time.process_time()
        tomllib.loads(data.decode("utf-8"))
        parse.append(time.process_time() - start)
        start = time.process_time()
        hashlib.sha256(data).digest()
        marshal.loads(cached)
        load.append(time.process_time() - start)
    print(f"  word catalog     parsed {min(parse) * 1000:5.1f} ms, from its cache {min(load) * 1000:5.1f} ms "
          f"(CPU, best of {repeats}): the cache saves {(min(parse) - min(load)) * 1000:.1f} ms a command")


if __name__ == "__main__":
    main()
