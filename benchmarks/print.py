"""Print-pack rendering speed: pages per second, serial and with the parallel renderer, measured
in the same run on the same documents.

    .venv/bin/python benchmarks/print.py [--matches 40] [--boards 16] [--jobs N] [--lang zh]

The event is synthetic: one round of ``--matches`` matches all playing set 1, so one set of
``--boards`` boards is needed in ``--matches`` copies (40 copies by default). The full pack of
that set is rendered: hand records, wallet + pocket labels, curtain cards, dealing guide,
travellers and score sheets. Serial = each document rendered whole in this process (``jobs=1``);
parallel = chunks of pages in a pool of worker processes, merged with pypdf.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

from dealer.dealing import deal_event
from dealer.files import load_event_text
from dealer.folder import EventFolder
from dealer.render import PrintOptions, build_documents, default_jobs, render_documents


def event_text(matches: int, boards: int) -> str:
    lines = [
        "[event]", 'id = "bench"', 'name = "排版基准 Print benchmark"', 'profile = "official-2002"',
        "decks = 2", f"boards_per_set = {boards}", "sets = 1", "",
    ]
    for team in range(1, 2 * matches + 1):
        lines += ["[[teams]]", f'id = "T{team}"', f'name = "第{team}队"', ""]
    lines += ["[[rounds]]", "number = 1", "matches = ["]
    lines += [f'  {{ id = "{m}", home = "T{2 * m - 1}", away = "T{2 * m}", set = 1 }},'
              for m in range(1, matches + 1)]
    lines += ["]"]
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--matches", type=int, default=40, help="matches playing the set (= copies)")
    parser.add_argument("--boards", type=int, default=16)
    parser.add_argument("--jobs", type=int, default=default_jobs(), help="worker processes of the parallel run")
    parser.add_argument("--lang", default="zh", choices=["zh", "en"])
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="print-bench-") as folder:
        root = Path(folder)
        event = load_event_text(event_text(args.matches, args.boards), "benchmark event")
        deal_event(event, EventFolder(event.id, root / "boards"))
        print(f"set of {args.boards} boards in {event.copies_needed(1)} copies, {args.matches} matches; "
              f"{os.cpu_count()} CPUs, parallel jobs {args.jobs}")
        results = {}
        for name, jobs in (("serial", 1), ("parallel", args.jobs)):
            options = PrintOptions(lang=args.lang, out_dir=root / name, boards_root=root / "boards")
            start = time.perf_counter()
            documents = build_documents(event, "all", options)
            written = render_documents(documents, "pdf", jobs)
            seconds = time.perf_counter() - start
            pages = sum(item.pages for item in written)
            size = sum(item.size for item in written) / 1024 / 1024
            results[name] = pages / seconds
            print(f"{name:9} jobs={jobs}: {pages} pages in {seconds:6.1f} s = {pages / seconds:6.1f} pages/s "
                  f"({size:.1f} MiB)")
        print(f"parallel / serial: {results['parallel'] / results['serial']:.2f}x")


if __name__ == "__main__":
    main()
