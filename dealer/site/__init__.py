"""The players' results site: one static folder (``dealer site``), readable from ``file://`` or
any web host, Chinese at its root and English under ``en/``; every page ``X.html`` has its JSON
twin ``X.json`` beside it, holding the context the page was rendered from (docs/site.md).

A build reads what players may see (:func:`dealer.app.public.published`: hands only of the sets
the director released, ``dealer release``; a set that is not released is never read), plans the
pages (:mod:`dealer.site.pages`), renders those whose keys changed (:mod:`dealer.site.render`)
into the site's previous generation and swaps it in (:mod:`dealer.site.publish`): the work is
proportional to what changed (docs/site.md, "Rebuilding").
"""

from __future__ import annotations

import functools
import json
import shlex
import shutil
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from dealer.app import EventFolder
from dealer.errors import Phrase
from dealer.event import Event
from dealer.formats.dealfiles import set_file_name
from dealer.render.strings import LANGS
from dealer.site.publish import Writer, check_out, turn
from dealer.site.render import PageRender, file_key, page_render, site_templates

if TYPE_CHECKING:
    from dealer.app.session import EventSession

__all__ = ["SiteSummary", "build_site", "check_out"]

#: Above this many matches the site offers no report files (a whole league's XLSX, PDF or
#: board-by-board CSV is too big to be useful and far too slow to remake at every rebuild): its
#: JSON twins hold the same data, and `dealer report` writes the files when the director wants them.
FULL_DOWNLOADS_MATCHES = 400
#: Below this many pages the site is rendered in this process (a pool costs more than it saves).
PARALLEL_PAGES = 2000


@dataclass
class SiteSummary:
    folder: Path
    pages: int = 0
    files: int = 0
    written: int = 0
    kept: int = 0
    released_sets: list[int] = field(default_factory=list)
    provisional: bool = False
    seconds: float = 0.0
    #: Where the time went: step → (seconds, CPU seconds of this process and its workers).
    steps: dict[str, tuple[float, float]] = field(default_factory=dict)

    def phrase(self) -> Phrase:
        sets = ", ".join(map(str, self.released_sets)) or Phrase("said_site.no_sets")
        state = Phrase("said_site.provisional" if self.provisional else "said_site.final")
        return Phrase.of("said_site.summary", pages=self.pages, files=self.files, written=self.written,
                         kept=self.kept, folder=self.folder, seconds=self.seconds, state=state, sets=sets,
                         index=self.folder / "index.html")

    def text(self) -> str:
        """In English (the demo's log)."""
        return str(self.phrase())


class _Clock:
    """Times the steps of a build: wall seconds and CPU seconds (this process and its workers)."""

    def __init__(self) -> None:
        self.steps: dict[str, tuple[float, float]] = {}
        self._last = self._now()

    @staticmethod
    def _now() -> tuple[float, float]:
        import resource

        own, workers = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = own.ru_utime + own.ru_stime + workers.ru_utime + workers.ru_stime
        return time.perf_counter(), cpu

    def step(self, name: str) -> None:
        now = self._now()
        self.steps[name] = (now[0] - self._last[0], now[1] - self._last[1])
        self._last = now


# --- gathering ---------------------------------------------------------------------------------


def _assets() -> dict[str, bytes]:
    folder = site_templates() / "assets"
    return {f"assets/{p.name}": p.read_bytes() for p in sorted(folder.iterdir()) if p.is_file()}


def _verify(event: Event, folder: EventFolder, released: Mapping[int, dict[str, Any]],
            boardsets: Mapping[int, Any], key: bytes | None, key_release: dict[str, Any] | None,
            unused: Mapping[int, dict[str, Any]] | None = None) -> dict[str, Any]:
    from dealer.commitment import ALGORITHM

    committed = folder.read_committed() if not event.levels else None
    public_value = next((b.public_value for b in boardsets.values() if b.public_value is not None), None)
    sets = []
    for n in range(1, event.sets + 1) if committed is not None else ():
        entry: dict[str, Any] = {"set": n, "released": n in released}
        if n in released:
            boardset = boardsets[n]
            entry.update({"released_at": released[n]["at"], "reason": released[n]["reason"],
                          "fingerprint": boardset.fingerprint, "file": f"downloads/boards/{set_file_name(n)}",
                          "boards": [{"board": b.number, "declarer": b.declarer, "level": b.level,
                                      "deal_code": b.deal.code, "page": f"board-{n}-{b.number}"}
                                     for b in boardset.boards]})
        elif unused and n in unused:
            entry["unused"] = dict(unused[n])  # declared not played: shown only as such
        sets.append(entry)
    files = " ".join(f"downloads/boards/{set_file_name(n)}" for n in sorted(released))
    command = None
    if key is not None and committed is not None:
        # Quoted for the shell: a player pastes it, and the value is the director's text.
        public = f" --public-value {shlex.quote(public_value)}" if public_value is not None else ""
        command = (f"dealer verify {files} --key-file downloads/boards/deal.key "
                   f"--commitment downloads/boards/commitment.json{public}")
    return {
        "dealt": committed is not None,
        "algorithm": ALGORITHM, "commitment": committed.commitment if committed else None,
        "plan_sha256": committed.plan_sha256 if committed else None,
        "commitment_file": "downloads/boards/commitment.json" if committed else None,
        "public_value_source": event.public_value_source, "public_value": public_value,
        "key": key.hex() if key is not None else None,
        "key_released_at": key_release["at"] if key_release else None,
        "verify_command": command, "sets": sets,
    }


# --- the pages ---------------------------------------------------------------------------------


def _render_pages(writer: Writer, render: PageRender, jobs: int) -> int:
    """Every page whose files' keys are not the target's is rendered (in ``jobs`` processes
    when many are), the others kept; gives the number of pages."""
    from dealer.site.forks import can_fork, fork_map

    pages, dirs = render.pages, render.dirs
    todo: list[tuple[int, tuple[str, ...]]] = []
    for index, page in enumerate(pages):
        langs = []
        page_key = render.page_key(page)
        for lang in LANGS:
            name = dirs[lang] + page.name
            key = f"{page_key}-{lang}"
            with_json = page.per_lang or not dirs[lang]
            if writer.reusable(name + ".html", key) and (not with_json or writer.reusable(name + ".json", key)):
                writer.keep(name + ".html", key)
                if with_json:
                    writer.keep(name + ".json", key)
            else:
                langs.append(lang)
        if langs:
            todo.append((index, tuple(langs)))
    if jobs <= 1 or len(todo) < PARALLEL_PAGES or not can_fork():
        for name, key, data in render.render_files(todo):
            writer.write(name, key, data)
        return len(pages)
    # The heavy pages (a board's: its whole field) first and a few at a time, so that the
    # processes finish together.
    heavy = [item for item in todo if pages[item[0]].per_lang]
    light = [item for item in todo if not pages[item[0]].per_lang]
    chunks = [heavy[i:i + 4] for i in range(0, len(heavy), 4)]
    size = max(50, -(-len(light) // (jobs * 12)))
    chunks += [light[i:i + size] for i in range(0, len(light), size)]
    for files in fork_map(render.render_files, chunks, jobs):
        for name, key, data in files:
            writer.write(name, key, data)
    return len(pages)


# --- downloads ---------------------------------------------------------------------------------


def _downloads(writer: Writer, session: EventSession, data: Any, released: Iterable[int],
               boardsets: Mapping[int, Any], key: bytes | None, work: Path, pdf: bool) -> list[dict[str, Any]]:
    """Reports (CSV, XLSX and PDF, up to :data:`FULL_DOWNLOADS_MATCHES` matches), the hand-record
    PDFs and the files of the released sets (with the commitment, and the key once revealed)."""
    from dealer.report import report_json, write_reports

    event, folder = data.event, session.folder
    listed: list[dict[str, Any]] = []

    def add(name: str, kind: str, lang: str | None, key_: str, make: Any) -> None:
        writer.put(name, key_, make)
        listed.append({"file": name, "kind": kind, "lang": lang,
                       "size": (writer.target / name).stat().st_size})

    matches = len(data.scored.scores)
    formats = ["csv", "xlsx", *(["pdf"] if pdf else [])] if matches <= FULL_DOWNLOADS_MATCHES else []
    report_key = file_key("reports", json.dumps(report_json(data), sort_keys=True, default=str)) if formats else ""
    for lang in LANGS:
        names = None
        target = work / f"reports-{lang}"
        for fmt in formats:
            base = f"downloads/{lang}/"
            pending = [f for f in _report_names(event, data, fmt)
                       if not writer.reusable(base + f, file_key(report_key, lang, f))]
            if pending and names is None:
                target.mkdir(parents=True, exist_ok=True)
                names = {p.name for p in write_reports(data, target, formats, lang)}
            for file_name in _report_names(event, data, fmt):
                add(base + file_name, "report-" + fmt, lang, file_key(report_key, lang, file_name),
                    functools.partial(Path.read_bytes, target / file_name))
    if not event.levels and folder.read_committed() is not None:
        add("downloads/boards/commitment.json", "commitment", None,
            file_key("commitment", folder.commitment_path.read_bytes()), folder.commitment_path.read_bytes)
    to_render = [(n, lang) for n in sorted(released) for lang in LANGS
               if pdf and not writer.reusable(_hand_records_name(n, lang), file_key("hand-records", n, lang,
                                                                                   boardsets[n].fingerprint))]
    rendered = _hand_records_pdfs(session, to_render, work)
    for n in sorted(released):
        name = set_file_name(n)
        digest = boardsets[n].fingerprint
        add(f"downloads/boards/{name}", "board-set", None, file_key("set", n, digest),
            lambda n=n: session.public_set_file(n))
        for lang in LANGS if pdf else ():
            add(_hand_records_name(n, lang), "hand-records", lang, file_key("hand-records", n, lang, digest),
                lambda n=n, lang=lang: rendered[(n, lang)].read_bytes())
    if key is not None:
        add("downloads/boards/deal.key", "key", None, file_key("key", key.hex()), lambda: key.hex().encode() + b"\n")
    return listed


def _report_names(event: Event, data: Any, fmt: str) -> list[str]:
    """The files ``write_reports`` makes in format ``fmt`` (the CSV files: one per table,
    :func:`dealer.report.table_names`, named without building the tables)."""
    from dealer.report import table_names

    if fmt != "csv":
        return [f"{event.id}-results.{fmt}"]
    return [f"{name}.csv" for name in table_names(data)]


def _hand_records_name(set_number: int, lang: str) -> str:
    return f"downloads/hand-records-set-{set_number:02d}-{lang}.pdf"


def _hand_records_pdfs(session: EventSession, wanted: Sequence[tuple[int, str]],
                       work: Path) -> dict[tuple[int, str], Path]:
    """The print pack's hand records (2 boards a page) of released sets, rendered together (in
    parallel, as ``dealer print`` does) into ``work``."""
    from dealer.render import PrintOptions, build_documents, render_documents

    documents = []
    for lang in LANGS:
        sets = tuple(n for n, lang_ in wanted if lang_ == lang)
        if sets:
            documents += build_documents(session, "hand-records", PrintOptions(
                lang=lang, out_dir=work / lang, boards_root=session.folder.boards_root, sets=sets, public=True))
    written = render_documents(documents) if documents else []
    found = {}
    for item in written:
        set_number = int(item.path.name.split("-set-")[1][:2])
        found[(set_number, item.path.parent.name)] = item.path
    return found


# --- the build ---------------------------------------------------------------------------------


def build_site(session: EventSession, out: Path | None = None, *, key_file: str | Path | None = None,
               jobs: int | None = None, pdf: bool = True, lang: str = "zh") -> SiteSummary:
    """Build (or rebuild) the event's site into ``out`` (default ``output/<event>/site``)."""
    from dealer.app import AuditMark
    from dealer.app.public import published
    from dealer.render.engine import default_jobs
    from dealer.site.pages import SCHEMA, plan_pages, site_data

    folder = session.folder
    started = time.perf_counter()
    clock = _Clock()
    out = check_out(out, folder)
    jobs = jobs if jobs is not None else default_jobs()
    with turn(out) as generation:
        # Audited first: what becomes public (hands, the key, results) rests on the chain's rows;
        # on a rebuild, the rows after the chain's link the live site's build audited.
        shown = published(session, AuditMark.from_json(generation.kept("audited")))
        clock.step("scoring")
        key = folder.read_key(shown.data.event, key_file) if shown.key_release is not None else None
        verify = _verify(shown.data.event, folder, shown.released, shown.boardsets, key, shown.key_release,
                         shown.unused)
        clock.step("boards")
        generation.prepare()
        clock.step("folder")
        with generation.writing() as writer:
            for name, content in _assets().items():
                writer.put(name, file_key("asset", content), lambda content=content: content)
            work = generation.target / ".work"
            listed = _downloads(writer, session, shown.data, shown.released, shown.boardsets, key, work, pdf)
            shutil.rmtree(work, ignore_errors=True)
            site = site_data(shown, verify, listed)
            site.rank_cache = generation.kept("ranks") or {}
            clock.step("downloads")
            pages = plan_pages(site, jobs)
            clock.step("plan")
            _render_pages(writer, page_render(site, pages, lang), jobs)
            clock.step("pages")
            audited = shown.scores.audited
            generation.publish({"schema": SCHEMA, "ranks": site.rank_cache,
                                "audited": audited.as_json() if audited else None})
            clock.step("swap")
    return SiteSummary(out, len(pages) * len(LANGS), len(writer.keys), writer.written, writer.kept,
                       sorted(shown.released), site.provisional, time.perf_counter() - started, clock.steps)
