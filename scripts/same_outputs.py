"""Same outputs: build the demo's outputs from BASE_REV and from this source tree, and compare them.

    python scripts/same_outputs.py BASE_REV [--keep DIR]
    python scripts/same_outputs.py --compare-kept DIR     # compare the two sides a --keep kept

The base is checked out with ``git worktree add --detach`` into a temporary folder and run with
``PYTHONPATH=<that worktree>``; the current tree is run with ``PYTHONPATH=<this tree>``; both with
this interpreter (``sys.executable``). Each side runs, in a fresh folder of its own:

* ``dealer demo`` with a fixed throw-away key written beforehand into ``boards/demo/deal.key`` and
  ``boards/demo-swiss/deal.key`` (the demo otherwise draws a fresh random key, and so a different
  deal, every run);
* ``dealer print`` of every kind the demo events support, in both languages, into
  ``output/print-<lang>/<event>/``: ``all`` and ``alignment`` for the dealt events, ``pairings``
  of every round, and the level race's ``pairings`` and ``score-sheets`` of every round.

Compared, file by file under ``output/``: CSV as text, JSON parsed (every report JSON and every
JSON twin of the site), XLSX cell values (every sheet, every cell), and the text of every PDF
(pypdf ``extract_text``, page by page: the print pack, the report PDF, the site's downloads).
A file on one side only is a difference too. Values that legitimately differ run to run are
rewritten first by :data:`NORMALISERS` (each with its reason).

Prints every difference (file, place, before, after); exit 0 when there is none, 1 when there
is any, 2 on a usage error (or when a side could not be built).
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

EXIT_SAME, EXIT_DIFFERENT, EXIT_USAGE = 0, 1, 2

HERE = Path(__file__).resolve().parent.parent  # the current source tree

#: The fixed throw-away key of both sides' demo deals (the demo's own key is random).
FIXED_KEY = "5a" * 32
DEALT_DEMOS = ("demo", "demo-swiss")
LANGS = ("zh", "en")
#: The demo events' rounds (dealer/data/demo-*.toml; checked against the folders the demo made).
ROUNDS = {"demo": 3, "demo-swiss": 4, "demo-levels": 3}

#: Values that differ run to run although nothing changed. Each is (name, pattern, replacement,
#: why); applied in order to every string compared (CSV text, JSON strings, XLSX cells, PDF text).
NORMALISERS: list[tuple[str, re.Pattern[str], str, str]] = [
    ("side-root", re.compile(r"(?:/private)?/tmp/[^\s\"'<>]*?/side-(?:base|head)"), "<ROOT>",
     "absolute paths name each side's temporary folder"),
    ("iso-timestamp", re.compile(r"\b\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?"),
     "<TIME>", "generation, release and entry times are the clock's"),
    ("build-seconds", re.compile(r"\bin \d+(?:\.\d+)? s\b"), "in <N> s", "how long a build took"),
]
#: The results' hash-chain heads: each stored row is chained with the time it was stored, so the
#: head differs every run. Read from each side's ``results_chain_head`` (report and site JSON),
#: then every occurrence of those exact values is replaced (in the PDFs too), nothing else: the
#: commitments and fingerprints, which the fixed key makes the same, are still compared.
CHAIN_HEAD_KEY = "results_chain_head"
#: Not compared: a path part starting with "." is the site build's own bookkeeping, not an
#: output: ``.site-previous/`` (the site before the last swap), ``.site-files.json`` (inodes and
#: mtimes of the files the build wrote) and ``.site-manifest.json`` (digests of pages that hold
#: the times above).
def skipped(rel: Path) -> bool:
    return any(part.startswith(".") for part in rel.parts)


#: JSON values replaced where an object matches: (name, the object's key and value that pick it,
#: the key whose value is replaced, why).
JSON_NORMALISERS: list[tuple[str, tuple[str, str], str, str]] = [
    ("report-pdf-size", ("kind", "report-pdf"), "size",
     "the site's downloads list the report PDF's size: it prints the chain head, whose glyphs and "
     "compression change the size by some bytes"),
]


def _chain_heads(value: Any) -> Iterator[str]:
    if isinstance(value, dict):
        for key, item in value.items():
            if key == CHAIN_HEAD_KEY and isinstance(item, str) and item:
                yield item
            else:
                yield from _chain_heads(item)
    elif isinstance(value, list):
        for item in value:
            yield from _chain_heads(item)


def add_chain_heads(root: Path) -> None:
    """Normalise the chain heads that ``root``'s JSON outputs name (see :data:`CHAIN_HEAD_KEY`)."""
    heads = {head for path in (root / "output").rglob("*.json") if not skipped(path.relative_to(root))
             for head in _chain_heads(json.loads(path.read_text(encoding="utf-8")))}
    for head in sorted(heads):
        NORMALISERS.append(("chain-head", re.compile(re.escape(head)), "<CHAIN-HEAD>",
                            "the results' hash chain holds the times its rows were stored"))


def normalise(text: str) -> str:
    for _name, pattern, replacement, _why in NORMALISERS:
        text = pattern.sub(replacement, text)
    return text


def deep_normalise(value: Any) -> Any:
    if isinstance(value, str):
        return normalise(value)
    if isinstance(value, list):
        return [deep_normalise(v) for v in value]
    if isinstance(value, dict):
        out = {normalise(k): deep_normalise(v) for k, v in value.items()}
        for name, (key, match), replaced, _why in JSON_NORMALISERS:
            if out.get(key) == match and replaced in out:
                out[replaced] = f"<{name}>"
        return out
    return value


# --- building one side ----------------------------------------------------------------------

class BuildFailed(Exception):
    pass


def _run(args: list[str], tree: Path, cwd: Path, log: io.StringIO) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PYTHONPATH=str(tree), PYTHONHASHSEED="0", TZ="UTC")
    done = subprocess.run([sys.executable, "-m", "dealer.cli", *args], cwd=cwd, env=env, text=True,
                          capture_output=True, check=False)
    log.write(f"$ dealer {' '.join(args)}  -> {done.returncode}\n{done.stdout}{done.stderr}")
    if done.returncode != 0:
        raise BuildFailed(f"{cwd}: `dealer {' '.join(args)}` exited {done.returncode}:\n{done.stderr[-2000:]}")
    return done


def build_side(tree: Path, root: Path) -> str:
    """Run the demo and every print into ``root`` with the code of ``tree``; return the log."""
    log = io.StringIO()
    root.mkdir(parents=True)
    for event in DEALT_DEMOS:
        folder = root / "boards" / event
        folder.mkdir(parents=True, mode=0o700)
        key = folder / "deal.key"
        key.write_text(FIXED_KEY + "\n", encoding="ascii")
        key.chmod(0o600)
    _run(["demo"], tree, root, log)
    for event in (*DEALT_DEMOS, "demo-levels"):
        if not (root / "boards" / event / "event.toml").exists():
            raise BuildFailed(f"{root}: the demo made no boards/{event}/event.toml")
    for lang in LANGS:
        for event in DEALT_DEMOS:
            event_file = f"boards/{event}/event.toml"
            out = f"output/print-{lang}/{event}"
            _run(["print", "all", event_file, "--lang", lang, "--out", out], tree, root, log)
            _run(["print", "alignment", event_file, "--lang", lang, "--out", out], tree, root, log)
            for number in range(1, ROUNDS[event] + 1):
                _run(["print", "pairings", event_file, "--round", str(number), "--lang", lang, "--out", out],
                     tree, root, log)
        for number in range(1, ROUNDS["demo-levels"] + 1):
            for kind in ("pairings", "score-sheets"):
                _run(["print", kind, "boards/demo-levels/event.toml", "--round", str(number), "--lang", lang,
                      "--out", f"output/print-{lang}/demo-levels"], tree, root, log)
    return log.getvalue()


# --- reading outputs ------------------------------------------------------------------------

Difference = tuple[str, str, object, object]  # file, place, before, after


def _csv_rows(path: Path) -> list[list[str]]:
    text = path.read_bytes().decode("utf-8-sig")
    return [[normalise(cell) for cell in row] for row in csv.reader(io.StringIO(text))]


def compare_csv(name: str, a: Path, b: Path) -> Iterator[Difference]:
    before, after = _csv_rows(a), _csv_rows(b)
    for number in range(max(len(before), len(after))):
        x = before[number] if number < len(before) else None
        y = after[number] if number < len(after) else None
        if x != y:
            yield name, f"line {number + 1}", x, y


def _json_diff(name: str, place: str, x: Any, y: Any) -> Iterator[Difference]:
    if isinstance(x, dict) and isinstance(y, dict):
        for key in sorted(set(x) | set(y), key=str):
            if key not in x or key not in y:
                yield name, f"{place}.{key}", x.get(key, "<absent>"), y.get(key, "<absent>")
            else:
                yield from _json_diff(name, f"{place}.{key}", x[key], y[key])
    elif isinstance(x, list) and isinstance(y, list):
        if len(x) != len(y):
            yield name, f"{place} (length)", len(x), len(y)
        for index, (u, v) in enumerate(zip(x, y, strict=False)):
            yield from _json_diff(name, f"{place}[{index}]", u, v)
    elif x != y or type(x) is not type(y):
        yield name, place or "$", x, y


def compare_json(name: str, a: Path, b: Path) -> Iterator[Difference]:
    x = deep_normalise(json.loads(a.read_text(encoding="utf-8")))
    y = deep_normalise(json.loads(b.read_text(encoding="utf-8")))
    yield from _json_diff(name, "$", x, y)


def _xlsx_cells(path: Path) -> dict[tuple[str, str], object]:
    import openpyxl

    book = openpyxl.load_workbook(path, read_only=True, data_only=True)
    cells: dict[tuple[str, str], object] = {}
    try:
        for sheet in book.worksheets:
            for row in sheet.iter_rows():
                for cell in row:
                    if cell.value is not None and hasattr(cell, "coordinate"):
                        value = normalise(cell.value) if isinstance(cell.value, str) else cell.value
                        cells[(sheet.title, cell.coordinate)] = value
            cells[(sheet.title, "<sheet>")] = "present"
    finally:
        book.close()
    return cells


def compare_xlsx(name: str, a: Path, b: Path) -> Iterator[Difference]:
    x, y = _xlsx_cells(a), _xlsx_cells(b)
    for key in sorted(set(x) | set(y)):
        if x.get(key) != y.get(key):
            yield name, f"sheet {key[0]!r} cell {key[1]}", x.get(key, "<empty>"), y.get(key, "<empty>")


def _pdf_pages(path: Path) -> list[str]:
    from pypdf import PdfReader

    return [normalise(page.extract_text() or "") for page in PdfReader(path).pages]


def compare_pdf(name: str, a: Path, b: Path) -> Iterator[Difference]:
    x, y = _pdf_pages(a), _pdf_pages(b)
    if len(x) != len(y):
        yield name, "pages", len(x), len(y)
    for number, (u, v) in enumerate(zip(x, y, strict=False), start=1):
        if u != v:
            ulines, vlines = u.splitlines(), v.splitlines()
            for line in range(max(len(ulines), len(vlines))):
                p = ulines[line] if line < len(ulines) else "<absent>"
                q = vlines[line] if line < len(vlines) else "<absent>"
                if p != q:
                    yield name, f"page {number} line {line + 1}", p, q
                    break  # the first differing line of a page is enough to show it


COMPARERS: dict[str, Callable[[str, Path, Path], Iterator[Difference]]] = {
    ".csv": compare_csv, ".json": compare_json, ".xlsx": compare_xlsx, ".pdf": compare_pdf,
}
def outputs(root: Path) -> dict[str, Path]:
    found = {}
    for path in sorted((root / "output").rglob("*")):
        rel = path.relative_to(root / "output")
        if path.is_file() and path.suffix in COMPARERS and not skipped(rel):
            found[rel.as_posix()] = path
    return found


def compare(base: Path, head: Path) -> tuple[list[Difference], int]:
    add_chain_heads(base)
    add_chain_heads(head)
    before, after = outputs(base), outputs(head)
    differences: list[Difference] = []
    for name in sorted(set(before) | set(after)):
        if name not in after:
            differences.append((name, "file", "present", "<absent>"))
        elif name not in before:
            differences.append((name, "file", "<absent>", "present"))
        elif before[name].read_bytes() != after[name].read_bytes():  # the same bytes need no parsing
            differences.extend(COMPARERS[before[name].suffix](name, before[name], after[name]))
    return differences, len(set(before) | set(after))


# --- main -----------------------------------------------------------------------------------

def _short(value: object, limit: int = 160) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def report(differences: list[Difference], files: int, note: str) -> int:
    for name, place, before, after in differences:
        print(f"{name}: {place}: before {_short(before)}, after {_short(after)}")
    print(f"{len(differences)} difference(s) in {files} files compared ({note})", file=sys.stderr)
    return EXIT_DIFFERENT if differences else EXIT_SAME


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("base_rev", metavar="BASE_REV", nargs="?",
                        help="The git revision to compare against (e.g. main).")
    parser.add_argument("--keep", metavar="DIR", help="Keep both sides' outputs in DIR (new or empty).")
    parser.add_argument("--compare-kept", metavar="DIR",
                        help="Build nothing: compare DIR/side-base with DIR/side-head, as --keep left them.")
    try:
        args = parser.parse_args(argv)
    except SystemExit as stop:
        return EXIT_USAGE if stop.code else EXIT_SAME
    if (args.base_rev is None) == (args.compare_kept is None) or (args.compare_kept and args.keep):
        print("error: give BASE_REV [--keep DIR], or --compare-kept DIR", file=sys.stderr)
        return EXIT_USAGE
    if args.compare_kept:
        kept = Path(args.compare_kept)
        if not all((kept / side / "output").is_dir() for side in ("side-base", "side-head")):
            print(f"error: {kept} holds no side-base/output and side-head/output", file=sys.stderr)
            return EXIT_USAGE
        return report(*compare(kept / "side-base", kept / "side-head"), f"kept in {kept}")
    check = subprocess.run(["git", "-C", str(HERE), "rev-parse", "--verify", "--quiet", f"{args.base_rev}^{{commit}}"],
                           capture_output=True, text=True, check=False)
    if check.returncode != 0:
        print(f"error: {args.base_rev!r} is not a revision of {HERE}", file=sys.stderr)
        return EXIT_USAGE
    keep = Path(args.keep).resolve() if args.keep else None
    if keep is not None and keep.exists() and (not keep.is_dir() or any(keep.iterdir())):
        print(f"error: --keep {keep}: not a new or empty folder", file=sys.stderr)
        return EXIT_USAGE
    started = time.monotonic()
    work = Path(tempfile.mkdtemp(prefix="same-outputs-"))
    base_tree = work / "base-tree"
    for tree in (base_tree, HERE):  # the source trees' own paths (package data named in a message)
        NORMALISERS.append(("source-tree", re.compile(re.escape(str(tree))), "<TREE>",
                            "each side runs from its own source tree"))
    try:
        subprocess.run(["git", "-C", str(HERE), "worktree", "add", "--detach", "--quiet", str(base_tree),
                        args.base_rev], check=True)
        try:
            with ThreadPoolExecutor(max_workers=2) as pool:
                sides = {name: pool.submit(build_side, tree, work / f"side-{name}")
                         for name, tree in (("base", base_tree), ("head", HERE))}
                logs = {name: future.result() for name, future in sides.items()}
        except BuildFailed as failure:
            print(f"error: a side could not be built: {failure}", file=sys.stderr)
            return EXIT_USAGE
        finally:
            subprocess.run(["git", "-C", str(HERE), "worktree", "remove", "--force", str(base_tree)], check=False)
        built = time.monotonic() - started
        differences, files = compare(work / "side-base", work / "side-head")
        if keep is not None:
            keep.mkdir(parents=True, exist_ok=True)
            for name in ("side-base", "side-head"):
                shutil.move(str(work / name), str(keep / name))
                (keep / f"{name}.log").write_text(logs[name.removeprefix("side-")], encoding="utf-8")
        return report(differences, files, f"built in {built:.0f} s, {time.monotonic() - started:.0f} s in all; "
                      f"base {args.base_rev}, head {HERE}")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
