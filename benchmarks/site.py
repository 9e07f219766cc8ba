"""Site benchmark: the players' site of the synthetic league of benchmarks/score.py (2,000 teams ×
20 rounds × 16 boards at two tables), every set released.

    .venv/bin/python benchmarks/site.py [--teams 2000] [--rounds 20] [--league DIR] [--jobs N]

1. makes the league with benchmarks/score.py's generator (event file, travellers, deal, import;
   about two minutes at full size), or reuses one kept with `--league DIR` (made by
   `benchmarks/score.py --keep DIR` or by an earlier run of this script), withdraws one result
   (so one is still to come) and releases every set;
2. full build: `build_site` into an empty folder (an earlier run's site moved aside, deleted at
   the end), without the PDF downloads (a hand-record PDF is rendered once per released set and
   language and kept across rebuilds: it is no part of a rebuild); prints pages, files, seconds
   and pages per second;
3. baseline in the same run: the same templates rendered by a bare Jinja2 environment from the
   same contexts (read back from the JSON twins, not timed), nothing written; prints pages per
   second and the ratio site / bare Jinja;
4. one new result (the withdrawn one entered again, as a correction), then a rebuild: prints its
   seconds and how many files it wrote and kept;
5. another result corrected, then a rebuild as the director runs it, a whole `dealer site --no-pdf`
   process (start, imports and all, bytecode cached as an installed tool has it): prints its
   seconds.
Targets: full build under 60 s, rebuild under 5 s on a 2-core machine.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))

import score

SLOT = {"round": "20", "match": "1", "table": "A", "board": "1"}
OTHER = {"round": "20", "match": "2", "table": "B", "board": "2"}  # corrected for the process rebuild


def make_league(folder: Path, teams: int, rounds: int) -> Path:
    from dealer.app import EventSession
    from dealer.app.dealing import deal_event
    from dealer.app.result_files import import_file
    from dealer.files import load_event
    from dealer.store.folder import EventFolder

    event_path = score.write_event(folder, teams, rounds)
    files = score.write_travellers(folder, teams, rounds)
    event = load_event(event_path)
    event_folder = EventFolder(event.id, folder / "boards")
    deal_event(event, event_folder)
    with EventSession.open(event, event_folder, write=True) as store_session:
        for path in files:
            import_file(store_session, path)
    return event_path


def prepare(event: Any, folder: Any) -> int:
    """One result withdrawn (to be entered again), every set released; the withdrawn slot's points."""
    from dealer.app import EventSession
    from dealer.app.results import correct_result
    from dealer.store.schema import BOARDS

    with EventSession.open(event, folder, write=True) as store_session:
        store = store_session.writable_store()
        row = store.current_row(BOARDS, (int(SLOT["round"]), SLOT["match"], SLOT["table"], int(SLOT["board"])))
        assert row is not None
        history = [r for r in store.history(BOARDS, int(SLOT["round"]), SLOT["match"], SLOT["table"],
                                            int(SLOT["board"])) if not r.withdrawn]
        points = int(history[-1]["defenders_points"] if history[-1]["defenders_points"] is not None else 0)
        if not row["withdrawn"]:
            correct_result(store_session, SLOT, "benchmark: one result still to come", withdraw=True)
        released = {r.set_number for r in store.releases() if r.kind == "set"}
        with store.transaction():
            for number in range(1, event.sets + 1):
                if number not in released:
                    store.insert_release("set", number, "benchmark")
    return points


def bare_jinja(site: Path) -> tuple[int, float, float]:
    """Render every page of ``site`` again with a bare Jinja2 environment (same templates, same
    contexts, read from the JSON twins beforehand); nothing is written."""
    import jinja2

    from dealer.render.rows import FILTERS
    from dealer.render.strings import strings
    from dealer.resources import templates_dir
    from dealer.site import HTML_LANG, SITE_TEMPLATES

    env = jinja2.Environment(loader=jinja2.FileSystemLoader(str(templates_dir())), autoescape=True,
                             trim_blocks=True, lstrip_blocks=True)
    env.filters.update(FILTERS)  # the templates' own filters (num, signed, the big tables' rows)
    jobs = []
    for lang, prefix in (("zh", ""), ("en", "en/")):
        for html in sorted((site / prefix).glob("*.html")):
            twin = html.with_suffix(".json")
            if not twin.exists():
                twin = site / html.with_suffix(".json").name
            jobs.append((lang, prefix, json.loads(twin.read_text(encoding="utf-8"))))
    words = {lang: strings(lang) for lang in ("zh", "en")}
    head = jobs[0][2]["event"]
    nav = {"bracket": False, "boards": True, "levels": False, "rounds": list(range(1, 21))}
    start, cpu = time.perf_counter(), time.process_time()
    for lang, prefix, context in jobs:
        env.get_template(SITE_TEMPLATES + context["kind"] + ".html").render(
            c={**context, "event": head}, t=words[lang]["site"], words=words[lang], lang=lang,
            html_lang=HTML_LANG[lang], root="../" if prefix else "", twin="x.json", other_href="x.html", nav=nav,
            tb={k: k for k in ("net_level_points", "opponents_match_points", "level_points_for", "head_to_head",
                               "mixed_club", "game_ratio", "lots")})
    return len(jobs), time.perf_counter() - start, time.process_time() - cpu


def _cpu(summary: Any) -> str:
    return f"{sum(cpu for _wall, cpu in summary.steps.values()):.1f} CPU s in all processes"


def _steps(summary: Any) -> str:
    return "  steps: " + ", ".join(f"{name} {wall:.1f} s ({cpu:.1f} CPU s)"
                                   for name, (wall, cpu) in summary.steps.items())


def _load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[1])
    parser.add_argument("--teams", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--league", type=Path, help="Folder of a kept league (made here when empty).")
    parser.add_argument("--jobs", type=int, default=None, help="Worker processes (default: the cores).")
    args = parser.parse_args()

    from dealer.app import EventSession
    from dealer.app.results import correct_result
    from dealer.files import load_event
    from dealer.site import build_site, spare_folder
    from dealer.store.folder import EventFolder
    from dealer.store.schema import BOARDS

    with tempfile.TemporaryDirectory() as temporary:
        folder = args.league or Path(temporary)
        folder.mkdir(parents=True, exist_ok=True)
        event_path = folder / "bench.toml"
        t0 = time.perf_counter()
        if not (folder / "boards" / "bench" / "results.sqlite").exists():
            event_path = make_league(folder, args.teams, args.rounds)
        event = load_event(event_path)
        event_folder = EventFolder(event.id, folder / "boards", folder / "output")
        points = prepare(event, event_folder)
        print(f"league: {len(event.teams)} teams, {len(event.rounds)} rounds, {len(event.matches())} matches, "
              f"{event.sets} sets released (ready in {time.perf_counter() - t0:.1f} s)")
        out = folder / "output" / "site"
        # An earlier run's site is moved aside now and deleted after the measurements: on this
        # machine's disk (mounted with discard) deleting its 1.2 GB slows the creation of files for
        # a minute after (a full build then took up to twice as long, in kernel time).
        old = folder / f".old-site-{os.getpid()}"
        old.mkdir()
        for earlier in (out, spare_folder(out)):
            if earlier.exists():
                earlier.rename(old / earlier.name)
        with EventSession.open(event, event_folder) as session:
            full = build_site(session, out, pdf=False, jobs=args.jobs)
        rate = full.pages / full.seconds
        print(f"full build: {full.pages:,} pages ({full.files:,} files) in {full.seconds:.1f} s = {rate:,.0f} pages/s"
              f" ({_cpu(full)}; load average {_load()})")
        print(_steps(full))
        pages, bare_s, bare_cpu = bare_jinja(out)
        bare_rate = pages / bare_s
        print(f"baseline: bare Jinja2, the same templates and contexts, {pages:,} pages in {bare_s:.1f} s "
              f"({bare_cpu:.1f} CPU s, one process, nothing written; load average {_load()}) = {bare_rate:,.0f} "
              f"pages/s; site / bare Jinja = {rate / bare_rate:.2f}")
        with EventSession.open(event, event_folder, write=True) as store_session:
            store = store_session.writable_store()
            correct_result(store_session, {**SLOT, "defenders_points": str(points)}, "benchmark: the result came in")
        with EventSession.open(event, event_folder) as session:
            again = build_site(session, out, pdf=False, jobs=args.jobs)
        print(f"rebuild after one new result: {again.seconds:.2f} s ({again.written:,} files written, "
              f"{again.kept:,} kept as they were; {_cpu(again)}; load average {_load()})")
        print(_steps(again))
        with EventSession.open(event, event_folder, write=True) as store_session:
            store = store_session.writable_store()
            before = store.current_row(BOARDS, (int(OTHER["round"]), OTHER["match"], OTHER["table"],
                                                int(OTHER["board"])))
            assert before is not None and not before["withdrawn"]
            original = str(before["defenders_points"])
            changed = "5" if original != "5" else "10"
            correct_result(store_session, {**OTHER, "defenders_points": changed}, "benchmark: slip misread")
        # PYTHONDONTWRITEBYTECODE would make the process compile the tool's sources first.
        environment = {name: value for name, value in os.environ.items() if name != "PYTHONDONTWRITEBYTECODE"}
        command = [sys.executable, "-m", "dealer.cli", "site", str(event_path), "--boards-dir", str(folder / "boards"),
                   "--out", str(out), "--no-pdf"]
        subprocess.run([sys.executable, "-c", "import dealer.cli, dealer.site, dealer.report"], check=True,
                       env=environment)  # bytecode written once, as an installed tool has it
        start = time.perf_counter()
        said = subprocess.run(command, check=True, capture_output=True, text=True, env=environment).stdout
        process = time.perf_counter() - start
        files = said.split("files: ", 1)[1].split(")", 1)[0] if "files: " in said else "?"
        print(f"rebuild after another result, as a whole `dealer site --no-pdf` process: {process:.2f} s "
              f"({files}; load average {_load()})")
        shutil.rmtree(old)
        # Leave the league ready for the next run: the result withdrawn again, the other restored.
        with EventSession.open(event, event_folder, write=True) as store_session:
            correct_result(store_session, SLOT, "benchmark: reset", withdraw=True)
            correct_result(store_session, {**OTHER, "defenders_points": original}, "benchmark: reset")


if __name__ == "__main__":
    main()
