"""Site benchmark: the players' site of the synthetic league of benchmarks/score.py (2,000 teams ×
20 rounds × 16 boards at two tables), every set released.

    .venv/bin/python benchmarks/site.py [--teams 2000] [--rounds 20] [--league DIR] [--jobs N]
        [--trees DIR [DIR ...]] [--passes 2]

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

With `--trees A B …`, the source trees are compared in the same run: the league is made (or
reused, `--league DIR`) once, by the first tree, and copied for each tree (`DIR/trees/N`); then
`--passes` times, each tree in turn (A, B, A, B …) runs steps 1, 2, 4 and 5 above as its own
process (`PYTHONPATH=TREE`, bytecode under `DIR/trees/pycache-N`, never in the tree), without the
bare-Jinja baseline; the earlier sites moved aside are deleted only once every run is done (a
deletion slows the creation of files for a while after it: see below). Prints every run's
figures, then each step's times by tree and the ratio of the last tree's median to the first's.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
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
    from dealer.site.render import HTML_LANG, SITE_TEMPLATES, FileUrls, lang_dirs

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
    urls = {lang: FileUrls(lang, lang_dirs("zh")) for lang in ("zh", "en")}
    head = jobs[0][2]["event"]
    nav = {"bracket": False, "boards": True, "levels": False, "rounds": list(range(1, 21))}
    start, cpu = time.perf_counter(), time.process_time()
    for lang, _prefix, context in jobs:
        env.get_template(SITE_TEMPLATES + context["kind"] + ".html").render(
            c={**context, "event": head}, t=words[lang]["site"], words=words[lang], lang=lang,
            html_lang=HTML_LANG[lang], urls=urls[lang], twin="x.json", other_href="x.html", nav=nav,
            tb={k: k for k in ("net_level_points", "opponents_match_points", "level_points_for", "head_to_head",
                               "mixed_club", "game_ratio", "lots")})
    return len(jobs), time.perf_counter() - start, time.process_time() - cpu


def _cpu_seconds(summary: Any) -> float:
    return float(sum(cpu for _wall, cpu in summary.steps.values()))


def _cpu(summary: Any) -> str:
    return f"{_cpu_seconds(summary):.1f} CPU s in all processes"


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
    parser.add_argument("--trees", nargs="+", type=Path, default=None,
                        help="Source trees to compare in the same run (PYTHONPATH=DIR), each on its own copy of the "
                             "league; the last is the one compared to the first.")
    parser.add_argument("--passes", type=int, default=2, help="With --trees: runs of each tree, interleaved.")
    # A run of one tree for --trees (its own process): no baseline, the earlier site left for the caller.
    parser.add_argument("--run", choices=("make", "measure"), default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.trees:
        compare_trees(args)
    elif args.run == "make":
        make_league(args.league, args.teams, args.rounds)
    else:
        measure(args, baseline=args.run is None)


def measure(args: argparse.Namespace, baseline: bool) -> dict[str, Any]:
    """Steps 1 to 5 (4 and 5 without the baseline) in this process, with this process's tree."""
    from dealer.app import EventSession
    from dealer.app.results import correct_result
    from dealer.files import load_event
    from dealer.site import build_site
    from dealer.store.folder import EventFolder
    from dealer.store.schema import BOARDS

    try:
        from dealer.site.publish import spare_folder
    except ImportError:  # a tree before dealer.site.publish (--trees)
        from dealer.site import spare_folder  # type: ignore[attr-defined,no-redef]

    figures: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as temporary:
        folder = (args.league or Path(temporary)).absolute()
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
        figures["full build"] = full.seconds
        figures["full build: CPU s"] = _cpu_seconds(full)
        figures["full build: scoring"] = full.steps["scoring"][0]
        if baseline:
            pages, bare_s, bare_cpu = bare_jinja(out)
            bare_rate = pages / bare_s
            print(f"baseline: bare Jinja2, the same templates and contexts, {pages:,} pages in {bare_s:.1f} s "
                  f"({bare_cpu:.1f} CPU s, one process, nothing written; load average {_load()}) = {bare_rate:,.0f} "
                  f"pages/s; site / bare Jinja = {rate / bare_rate:.2f}")
        with EventSession.open(event, event_folder, write=True) as store_session:
            correct_result(store_session, {**SLOT, "defenders_points": str(points)}, "benchmark: the result came in")
        with EventSession.open(event, event_folder) as session:
            again = build_site(session, out, pdf=False, jobs=args.jobs)
        print(f"rebuild after one new result: {again.seconds:.2f} s ({again.written:,} files written, "
              f"{again.kept:,} kept as they were; {_cpu(again)}; load average {_load()})")
        print(_steps(again))
        figures["rebuild"] = again.seconds
        figures["rebuild: CPU s"] = _cpu_seconds(again)
        figures["rebuild: scoring"] = again.steps["scoring"][0]
        with EventSession.open(event, event_folder, write=True) as store_session:
            store = store_session.writable_store()
            before = store.current_row(BOARDS, (int(OTHER["round"]), OTHER["match"], OTHER["table"],
                                                int(OTHER["board"])))
            assert before is not None and not before["withdrawn"]
            original = str(before["defenders_points"])
            changed = "5" if original != "5" else "10"
            correct_result(store_session, {**OTHER, "defenders_points": changed}, "benchmark: slip misread")
        # PYTHONDONTWRITEBYTECODE would make the process compile the tool's sources first. Run
        # from the league's folder: `-m` and `-c` put the working directory first on the path (a
        # source tree there would be the one imported, not this process's).
        environment = {name: value for name, value in os.environ.items() if name != "PYTHONDONTWRITEBYTECODE"}
        command = [sys.executable, "-m", "dealer.cli", "site", str(event_path), "--boards-dir", str(folder / "boards"),
                   "--out", str(out), "--no-pdf"]
        subprocess.run([sys.executable, "-c", "import dealer.cli, dealer.site, dealer.report"], check=True,
                       env=environment, cwd=folder)  # bytecode written once, as an installed tool has it
        start = time.perf_counter()
        said = subprocess.run(command, check=True, capture_output=True, text=True, env=environment,
                              cwd=folder).stdout
        process = time.perf_counter() - start
        files = said.split("files: ", 1)[1].split(")", 1)[0] if "files: " in said else "?"
        print(f"rebuild after another result, as a whole `dealer site --no-pdf` process: {process:.2f} s "
              f"({files}; load average {_load()})")
        figures["rebuild as a process"] = process
        if baseline:
            shutil.rmtree(old)
        # Leave the league ready for the next run: the result withdrawn again, the other restored.
        with EventSession.open(event, event_folder, write=True) as store_session:
            correct_result(store_session, SLOT, "benchmark: reset", withdraw=True)
            correct_result(store_session, {**OTHER, "defenders_points": original}, "benchmark: reset")
    if not baseline:
        print("figures: " + json.dumps(figures))
    return figures


def compare_trees(args: argparse.Namespace) -> None:
    """The trees of ``--trees`` measured in turn, each on its own copy of one league (see the
    module's docstring)."""
    trees = [tree.resolve() for tree in args.trees]
    with tempfile.TemporaryDirectory() as temporary:
        league = args.league.resolve() if args.league else Path(temporary)
        league.mkdir(parents=True, exist_ok=True)

        def run(tree: Path, cache: Path, *options: str) -> subprocess.Popen[str]:
            environment = {**os.environ, "PYTHONPATH": str(tree), "PYTHONPYCACHEPREFIX": str(cache)}
            return subprocess.Popen([sys.executable, __file__, *options], env=environment, text=True,
                                    stdout=subprocess.PIPE, stderr=subprocess.STDOUT)

        def finish(child: subprocess.Popen[str], label: str) -> dict[str, Any]:
            assert child.stdout is not None
            found: dict[str, Any] = {}
            for line in child.stdout:
                if line.startswith("figures: "):
                    found = json.loads(line.removeprefix("figures: "))
                else:
                    print(f"  [{label}] {line}", end="", flush=True)
            if child.wait() != 0:
                raise SystemExit(f"{label}: the run failed (exit status {child.returncode})")
            return found

        copies = league / "trees"
        if not (league / "boards" / "bench" / "results.sqlite").exists():
            print(f"making the league with {trees[0]} …", flush=True)
            finish(run(trees[0], copies / "pycache-0", "--run", "make", "--league", str(league), "--teams",
                       str(args.teams), "--rounds", str(args.rounds)), "league")
        for number in range(len(trees)):
            copy = copies / str(number)
            if not (copy / "boards").exists():
                copy.mkdir(parents=True, exist_ok=True)
                shutil.copy2(league / "bench.toml", copy / "bench.toml")
                shutil.copytree(league / "boards", copy / "boards")
        found: dict[int, list[dict[str, Any]]] = {number: [] for number in range(len(trees))}
        try:
            for run_pass in range(1, args.passes + 1):
                for number, tree in enumerate(trees):
                    label = f"pass {run_pass}, tree {number}: {tree}"
                    print(f"{label}", flush=True)
                    options = ["--run", "measure", "--league", str(copies / str(number))]
                    if args.jobs is not None:
                        options += ["--jobs", str(args.jobs)]
                    found[number].append(finish(run(tree, copies / f"pycache-{number}", *options), label))
        finally:
            for number in range(len(trees)):  # the earlier sites moved aside, now that every run is done
                for old in (copies / str(number)).glob(".old-site-*"):
                    shutil.rmtree(old)
        print("\nseconds (wall, unless CPU: of the build's process and its workers), each run in order (the same "
              "league, this machine, the same run of this script):")
        for number, tree in enumerate(trees):
            print(f"  tree {number}: {tree}")
        names = list(found[0][0])
        for name in names:
            cells = "; ".join(f"tree {number}: " + ", ".join(f"{run[name]:.2f}" for run in runs)
                              for number, runs in found.items())
            first = statistics.median(run[name] for run in found[0])
            last = statistics.median(run[name] for run in found[len(trees) - 1])
            print(f"  {name}: {cells}; median tree {len(trees) - 1} / tree 0 = {last / first:.2f}")

if __name__ == "__main__":
    main()
