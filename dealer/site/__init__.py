"""The players' results site: one static folder (``dealer site``), readable from ``file://`` or
any web host, Chinese at its root and English under ``en/``; every page ``X.html`` has its JSON
twin ``X.json`` beside it, holding the context the page was rendered from (docs/site.md).

Two generations are kept: the live folder and, hidden beside it, the one before. A rebuild brings
the previous generation up to date (only the files whose keys changed are rendered and written;
the manifest holds every file's key), then swaps the two folders in one step
(``renameat2(RENAME_EXCHANGE)`` on Linux): a host serving the folder never shows half a site, and
the work is proportional to what changed (docs/site.md, "Rebuilding"). Hands appear only for
the sets the director released (``dealer release``); a set that is not released is never read.
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import functools
import hashlib
import json
import os
import shlex
import shutil
import time
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson

from dealer.app import EventFolder
from dealer.errors import Phrase, UserError
from dealer.event import Event
from dealer.explain import supplement_text
from dealer.files import OWNER_ONLY, check_writable_folder, os_problem, write_atomic
from dealer.formats.dealfiles import set_file_name
from dealer.render.strings import LANGS, strings
from dealer.render.templates import environment
from dealer.resources import package_folder, templates_dir

if TYPE_CHECKING:
    from dealer.app.session import EventSession
    from dealer.app.standings import ReportData
    from dealer.formats.boardset import BoardSet
    from dealer.site.pages import SiteData

SITE_FOLDER = "site"
MANIFEST = ".site-manifest.json"  # the key of every file, for the next rebuild
#: Written first into every folder a build makes (the site, its previous generation, their
#: half-made copies): only a folder holding it (or a manifest) is ever replaced or removed.
MARKER = ".shengji-dealer-site"
MARKER_TEXT = b"a folder of the players' site made by shengji-dealer (dealer site)\n"
FOLDER_MODE, FILE_MODE = 0o755, 0o644  # whatever the umask: the site is public, and only its owner writes it

def lang_dirs(lang: str) -> dict[str, str]:
    """Where each language's pages go: ``lang`` at the root, every other in its own folder."""
    return {other: "" if other == lang else f"{other}/" for other in LANGS}

HTML_LANG = {"zh": "zh-Hans", "en": "en"}
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


# --- templates ---------------------------------------------------------------------------------


#: Where the site's templates are, in the templates folder (:func:`dealer.resources.templates_dir`).
SITE_TEMPLATES = "site/"


def site_templates() -> Path:
    return templates_dir() / SITE_TEMPLATES


@functools.cache
def _templates_digest() -> bytes:
    """Templates, assets, the tool's code and data (scoring and standings decide what pages
    show): a change renders every page again."""
    h = hashlib.sha256()
    for root in (site_templates(), package_folder()):
        for path in sorted(root.rglob("*")):
            if path.is_file() and path.suffix in (".html", ".css", ".js", ".py", ".svg", ".toml", ".json"):
                h.update(path.name.encode() + b"\x00" + path.read_bytes())
    h.update(json.dumps({lang: strings(lang) for lang in LANGS}, sort_keys=True, ensure_ascii=False).encode())
    return h.digest()


def _assets() -> dict[str, bytes]:
    folder = site_templates() / "assets"
    return {f"assets/{p.name}": p.read_bytes() for p in sorted(folder.iterdir()) if p.is_file()}


# --- gathering ---------------------------------------------------------------------------------


def _released(session: EventSession) -> tuple[dict[int, dict[str, Any]], dict[str, Any] | None, str | None,
                                              dict[int, dict[str, Any]]]:
    """Released sets (set → when, why), the key's release, the time of the last stored entry
    (result, action or release): the site's "last update", and the sets declared unused (set →
    when, why: never read, never shown as played)."""
    if session.store is None:
        return {}, None, None, {}
    releases = session.releases
    last = session.store.last_entry_at()
    sets, unused = ({r.set_number: {"at": r.at, "reason": r.reason} for r in releases
                     if r.kind == kind and r.set_number is not None} for kind in ("set", "unused"))
    key = next(({"at": r.at, "reason": r.reason} for r in releases if r.kind == "key"), None)
    return sets, key, last, unused


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


# --- writing -----------------------------------------------------------------------------------


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


class _Writer:
    """Brings a folder that holds an earlier build (or nothing) up to date: a file whose key is
    the one that folder's manifest gives is left as it is; any other is written (world-readable:
    the site is public) as a new file, never in place (the folder's files may be hard links to
    the live site's)."""

    def __init__(self, target: Path, manifest: Mapping[str, str], mirror: Path | None = None,
                 digests: Mapping[str, str] | None = None,
                 identities: Mapping[str, Sequence[int]] | None = None) -> None:
        self.target, self.manifest, self.mirror = target, manifest, mirror
        #: name → the digest of the file's bytes as the build that made the manifest wrote them:
        #: a file kept by its key must still hold them (not replaced or edited since).
        self.digests_before = digests or {}
        #: name → the file's identity (:func:`_identity`) when a build last wrote or checked it:
        #: a file whose identity is unchanged is not read again to check its digest.
        self.identities = identities or {}
        self.keys: dict[str, str] = {}
        self.digests: dict[str, str] = {}
        self.ids: dict[str, list[int]] = {}
        self._prefix = f"{target}{os.sep}"
        self.written = self.kept = 0
        self._dirs: set[Path] = {target}
        if mirror is not None:
            self._dirs.add(mirror)

    def reusable(self, name: str, key: str) -> bool:
        if self.manifest.get(name) != key or name not in self.digests_before:
            return False
        path = self._prefix + name  # a league keeps 67,000 files: no Path object for each
        try:
            identity = _identity(os.stat(path))
            if identity != self.identities.get(name):
                with open(path, "rb") as file:
                    if _digest_file(file) != self.digests_before[name]:
                        return False
        except OSError:
            return False
        self.ids[name] = identity
        return True

    def _parent(self, path: Path) -> None:
        if path.parent not in self._dirs:
            _make_folders(path.parent, self._dirs)

    def keep(self, name: str, key: str) -> None:
        self.keys[name] = key
        self.digests[name] = self.digests_before[name]
        self.kept += 1

    def write(self, name: str, key: str, data: bytes) -> None:
        target = self.target / name
        self._parent(target)
        if self.manifest:  # a folder of an earlier build: its file may be a link to the live one's
            _unlink(target)
        _write_public(target, data)
        if self.mirror is not None:  # a first build: the spare folder made as it goes, of links
            link = self.mirror / name
            self._parent(link)
            _link_or_copy(str(target), str(link))
        self.keys[name] = key
        self.digests[name] = _digest_bytes(data)
        self.ids[name] = _identity(os.stat(target))  # after the link, which changes its ctime
        self.written += 1

    def put(self, name: str, key: str, make: Any) -> None:
        """``make()`` gives the bytes, called only when the file changed."""
        if self.reusable(name, key):
            self.keep(name, key)
        else:
            self.write(name, key, make())


def _identity(found: os.stat_result) -> list[int]:
    """What tells a file apart from another put in its place or from itself edited: inode, size,
    modification and change times (the change time cannot be set back)."""
    return [found.st_ino, found.st_size, found.st_mtime_ns, found.st_ctime_ns]


def identities_file(out: Path) -> Path:
    """The identity of every file of the site's two generations when the last build wrote or
    checked it, by generation (the inode of its folder, which a swap keeps): owner-only, beside
    the site, never in it. Only a speed-up: a file whose identity is not the one kept there is
    read and checked against its manifest's digest; a missing or damaged file costs a rebuild
    the reading of every kept file."""
    return out.with_name(f".{out.name}-files.json")


def _read_identities(path: Path) -> dict[str, dict[str, list[int]]]:
    try:
        data = orjson.loads(path.read_bytes())
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict) or data.get("version") != 1 or not isinstance(data.get("folders"), dict):
        return {}
    return {str(k): v for k, v in data["folders"].items() if isinstance(v, dict)}


def _write_identities(path: Path, folders: Mapping[str, Mapping[str, list[int]]]) -> None:
    """Written whole or not at all, owner-only; one that cannot be written fails nothing (the
    next build checks the digests instead)."""
    with contextlib.suppress(UserError):
        write_atomic(path, orjson.dumps({"version": 1, "folders": folders}), mode=OWNER_ONLY, replace=True,
                     durable=False)


def _digest_bytes(data: bytes) -> str:
    """A file's digest in the manifest (SHA-256, 128 bits: the manifest is deterministic)."""
    return hashlib.sha256(data).hexdigest()[:32]


def _digest_file(file: Any) -> str:
    return hashlib.file_digest(file, "sha256").hexdigest()[:32]


def _make_folders(path: Path, made: set[Path]) -> None:
    """``path`` and its missing parents, each 0755 whatever the umask (``made``: known to exist)."""
    if path in made:
        return
    if path.parent not in made and not path.parent.is_dir():
        _make_folders(path.parent, made)
    try:
        os.mkdir(path, FOLDER_MODE)
    except FileExistsError:  # an earlier build's (made at another umask by an older version?)
        if os.path.islink(path) or not os.path.isdir(path):
            raise UserError("site.foreign_entry", field="out", path=path) from None
    os.chmod(path, FOLDER_MODE)
    made.add(path)


def _new_folder(path: Path) -> None:
    """A folder the build owns: made 0755 and marked as the tool's before anything goes in."""
    os.mkdir(path, FOLDER_MODE)
    os.chmod(path, FOLDER_MODE)
    _write_public(path / MARKER, MARKER_TEXT)


def _write_public(path: Path, data: bytes) -> None:
    """A new world-readable file (0644 whatever the umask), replacing none."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, FILE_MODE)
    try:
        os.fchmod(fd, FILE_MODE)  # whatever the umask (a cached look at it would miss a change)
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
    finally:
        os.close(fd)


def _owned(folder: Path) -> bool:
    """Whether ``folder`` (not a link) is one a build made: it holds the marker, or a manifest
    (a site of a version before the marker)."""
    return not folder.is_symlink() and folder.is_dir() and \
        ((folder / MARKER).is_file() or (folder / MANIFEST).is_file())


def _remove_owned(folder: Path) -> None:
    """Remove a folder a build made (an older build's leftover); refuse any other."""
    if not os.path.lexists(folder):
        return
    if not _owned(folder):
        raise _not_ours(folder)
    shutil.rmtree(folder)


def _not_ours(folder: Path) -> UserError:
    what = Phrase("site.a_link") if folder.is_symlink() else Phrase("site.a_folder") if folder.is_dir() \
        else Phrase("site.a_file")
    return UserError("site.not_ours", field="out", folder=folder, what=what, marker=MARKER, manifest=MANIFEST)


def _unlink(path: Path) -> None:
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass


_RENAME_EXCHANGE = 2


def _exchange(a: Path, b: Path) -> bool:
    """Swap two folders in one step (Linux ``renameat2``); False where the system cannot."""
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        renameat2 = libc.renameat2
    except (OSError, AttributeError):
        return False
    at_fdcwd = -100
    result = renameat2(at_fdcwd, os.fsencode(a), at_fdcwd, os.fsencode(b), _RENAME_EXCHANGE)
    return bool(result == 0)


def _swap(target: Path, out: Path, spare: Path) -> None:
    """Put ``target`` in the place of ``out`` at once; the site it replaces becomes ``spare``."""
    if not out.exists():
        os.rename(target, out)
        return
    if _exchange(target, out):
        if target != spare:
            os.rename(target, spare)
        return
    old = out.with_name(f".{out.name}.old-{os.getpid()}")
    os.rename(out, old)  # elsewhere: a moment without the folder, never half of one
    os.rename(target, out)
    os.rename(old, spare)


def _clone(source: Path, target: Path, names: Iterable[str] | None = None) -> None:
    """``target``: a copy of the folder ``source`` made of hard links (a file system without
    them: copies), its manifest last, so that a clone cut short has none. ``names``: the files
    (relative to the folder, the manifest aside), when known; else the folder is walked."""
    partial = target.with_name(target.name + ".partial")
    for folder in (target, partial):
        _remove_owned(folder)
    try:
        if names is None:
            names = [str(p.relative_to(source)) for p in source.rglob("*")
                     if p.is_file() and p.name not in (MANIFEST, MARKER)]
        _new_folder(partial)
        made = {partial}
        for name in names:
            _make_folders((partial / name).parent, made)
            _link_or_copy(str(source / name), str(partial / name))
        _link_or_copy(str(source / MANIFEST), str(partial / MANIFEST))
        os.rename(partial, target)
    except BaseException:
        shutil.rmtree(partial, ignore_errors=True)
        raise


def _link_or_copy(src: str, dst: str) -> None:
    try:
        os.link(src, dst)
    except OSError:
        shutil.copy2(src, dst)


def _read_manifest(folder: Path) -> dict[str, Any] | None:
    """A folder's manifest: ``files`` (name → key), ``sha256`` (name → the digest of the bytes
    written, :func:`_digest_bytes`), ``ranks`` (the rank after each round, by its key) and
    ``audited`` (where the build's audit left the results chain, as
    :meth:`~dealer.store.chain.AuditMark.as_json` wrote it, or ``None``); ``None`` when it has
    none (or one this version cannot read)."""
    try:
        data = orjson.loads((folder / MANIFEST).read_bytes())
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or not isinstance(data.get("files"), dict):
        return None
    digests = data["sha256"] if isinstance(data.get("sha256"), dict) else {}
    return {"files": {str(k): str(v) for k, v in data["files"].items()},
            "sha256": {str(k): v for k, v in digests.items() if isinstance(v, str)},
            "ranks": data.get("ranks") if isinstance(data.get("ranks"), dict) else {},
            "audited": data.get("audited")}


def _key(*parts: object) -> str:
    h = hashlib.sha256(_templates_digest())
    for part in parts:
        h.update(part if isinstance(part, bytes) else repr(part).encode("utf-8"))
        h.update(b"\x00")
    return h.hexdigest()[:32]


# --- the pages, rendered -----------------------------------------------------------------------

@dataclass
class _PageRender:
    """One build's pages and how to render them: made by :func:`build_site`, read by it and by
    the worker processes it forks (which inherit it), gone with the build."""

    pages: Sequence[Any]
    site: Any  # the SiteData
    dirs: dict[str, str]
    schema: int
    key_base: Any  # a hashlib object: the digest of what every page shows around its own data
    strings: dict[str, Any]
    event_head: dict[str, Any]
    nav: dict[str, Any]
    tie_break_names: dict[str, dict[str, str]]
    #: The rules in force, per language: the profile's id, version and name, and the event's own
    #: rules (补充规定) when it has any (every page's footer).
    rules_line: dict[str, str] = field(default_factory=dict)
    #: Table cells the same on many rows (:mod:`dealer.render.rows`), made once per process.
    cells: dict[tuple[Any, ...], Any] = field(default_factory=dict)

    def page_files(self, index: int, lang: str, built: dict[str, Any]) -> tuple[str, bytes, bytes]:
        """One page in one language: (name, HTML, JSON). ``built``: the page's own context."""
        page = self.pages[index]
        context = self.page_context(index, lang, built)
        prefix = self.dirs[lang]
        root = "../" if prefix else ""
        other = next(lang_ for lang_ in LANGS if lang_ != lang)
        # A page whose data holds no words has one JSON twin, at the root (both languages link it).
        twin = f"{page.name}.json" if page.per_lang or not prefix else f"{root}{page.name}.json"
        html = self.page_html(index, lang, context, root=root, twin=twin,
                              other_href=f"{root}{self.dirs[other]}{page.name}.html")
        data = self.site.twin_json(context)
        return prefix + page.name, html.encode("utf-8"), data

    def page_context(self, index: int, lang: str, built: dict[str, Any]) -> dict[str, Any]:
        """The context of a page (its JSON twin): the page's own (``built``) in the site's frame."""
        page = self.pages[index]
        return {"schema": self.schema, "kind": page.template.removesuffix(".html"), "name": page.name,
                **({"lang": lang} if page.per_lang else {}), "event": self.event_head, **built}

    def page_html(self, index: int, lang: str, context: dict[str, Any], *, root: str, twin: str,
                  other_href: str, live: dict[str, Any] | None = None) -> str:
        """A page's HTML from its context: ``root`` (the site's root from the page, for its assets),
        ``twin`` (its JSON), ``other_href`` (the page in the other language); ``live``: served by
        ``dealer serve`` (:mod:`dealer.serve.livepages`), ``None`` in the static site."""
        t = self.strings[lang]
        return environment().get_template(SITE_TEMPLATES + self.pages[index].template).render(
            c=context, t=t["site"], words=t, lang=lang, html_lang=HTML_LANG[lang], root=root, twin=twin,
            other_href=other_href, nav=self.nav, tb=self.tie_break_names[lang],
            cells=self.cells, rules_line=self.rules_line.get(lang, ""), live=live)

    def render_files(self, items: Sequence[tuple[int, tuple[str, ...]]]) -> list[tuple[str, str, bytes]]:
        """Render each (page, languages) of ``items`` (in a worker process, or here): its files
        as (name, key, bytes). One process writes them all: on the 2-core machine two processes
        creating files at once took 5 to 30 times as long per file as one."""
        files = []
        for index, langs in items:
            page = self.pages[index]
            page_key = self.page_key(page)
            shared: dict[str, Any] | None = None
            for lang in langs:
                if page.per_lang:
                    built = page.build(self.strings[lang])
                else:
                    if shared is None:
                        shared = page.build(self.strings[lang])
                    built = shared
                name, html, data = self.page_files(index, lang, built)
                key = f"{page_key}-{lang}"
                files.append((name + ".html", key, html))
                if page.per_lang or not self.dirs[lang]:
                    files.append((name + ".json", key, data))
        return files

    def page_key(self, page: Any) -> str:
        """A digest of what a page's files are made from: the templates and code, the header and
        links every page shows, its template and its own key (its files' keys add their language)."""
        h = self.key_base.copy()
        h.update(page.template.encode("utf-8") + b"\x00" + page.key)
        return str(h.hexdigest()[:32])


def _render_pages(writer: _Writer, render: _PageRender, jobs: int) -> int:
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


def _downloads(writer: _Writer, session: EventSession, data: Any, released: Iterable[int],
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
    report_key = _key("reports", json.dumps(report_json(data), sort_keys=True, default=str)) if formats else ""
    for lang in LANGS:
        names = None
        target = work / f"reports-{lang}"
        for fmt in formats:
            base = f"downloads/{lang}/"
            pending = [f for f in _report_names(event, data, fmt)
                       if not writer.reusable(base + f, _key(report_key, lang, f))]
            if pending and names is None:
                target.mkdir(parents=True, exist_ok=True)
                names = {p.name for p in write_reports(data, target, formats, lang)}
            for file_name in _report_names(event, data, fmt):
                add(base + file_name, "report-" + fmt, lang, _key(report_key, lang, file_name),
                    functools.partial(Path.read_bytes, target / file_name))
    if not event.levels and folder.read_committed() is not None:
        add("downloads/boards/commitment.json", "commitment", None,
            _key("commitment", folder.commitment_path.read_bytes()), folder.commitment_path.read_bytes)
    to_render = [(n, lang) for n in sorted(released) for lang in LANGS
               if pdf and not writer.reusable(_hand_records_name(n, lang), _key("hand-records", n, lang,
                                                                                   boardsets[n].fingerprint))]
    rendered = _hand_records_pdfs(session, to_render, work)
    for n in sorted(released):
        name = set_file_name(n)
        digest = boardsets[n].fingerprint
        add(f"downloads/boards/{name}", "board-set", None, _key("set", n, digest),
            lambda n=n: session.public_set_file(n))
        for lang in LANGS if pdf else ():
            add(_hand_records_name(n, lang), "hand-records", lang, _key("hand-records", n, lang, digest),
                lambda n=n, lang=lang: rendered[(n, lang)].read_bytes())
    if key is not None:
        add("downloads/boards/deal.key", "key", None, _key("key", key.hex()), lambda: key.hex().encode() + b"\n")
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


def default_site_folder(folder: EventFolder) -> Path:
    return folder.output_path / SITE_FOLDER


def build_site(session: EventSession, out: Path | None = None, *, key_file: str | Path | None = None,
               jobs: int | None = None, pdf: bool = True, lang: str = "zh") -> SiteSummary:
    """Build (or rebuild) the event's site into ``out`` (default ``output/<event>/site``)."""
    from dealer.app import AuditMark
    from dealer.app.played import folder_seed
    from dealer.render.engine import default_jobs
    from dealer.site.pages import SCHEMA, plan_pages

    folder = session.folder
    started = time.perf_counter()
    clock = _Clock()
    out = check_out(out, folder)
    jobs = jobs if jobs is not None else default_jobs()
    spare = spare_folder(out)
    new_folder = _new_folder_name(out)
    with _locked(out.parent):  # one build at a time: they share the spare folder
        live = _check_site_folders(out, spare, new_folder)
        # Audited first: what becomes public (hands, the key, results) rests on the chain's rows;
        # on a rebuild, the rows after the chain's link the live site's build audited.
        shown = published(session, AuditMark.from_json((live or {}).get("audited")))
        scores, data, released = shown.scores, shown.data, shown.released
        clock.step("scoring")
        scheduled = data.event
        boardsets = shown.boardsets
        key = folder.read_key(scheduled, key_file) if shown.key_release is not None else None
        verify = _verify(scheduled, folder, released, boardsets, key, shown.key_release, shown.unused)
        clock.step("boards")

        before = _read_manifest(spare) if live is not None else None
        if live is not None and before is None:
            _clone(out, spare)  # the first rebuild after an older version's build, or an interrupted one
            before = live
        if before is not None:
            target = spare  # the generation before the live one: brought up to date
            if not (target / MARKER).is_file():  # a spare of a version before the marker
                _write_public(target / MARKER, MARKER_TEXT)
            (target / MANIFEST).unlink()  # until the new one is written, it holds no trusted keys
        else:  # a first build: a new folder, and the spare made beside it as the files are written
            target = new_folder
            mirror = spare.with_name(spare.name + ".partial")
            for stale in (target, spare, mirror):
                _remove_owned(stale)
            _new_folder(target)
            _new_folder(mirror)
        os.chmod(target, FOLDER_MODE)
        clock.step("folder")
        try:
            identities = _read_identities(identities_file(out))
            writer = _Writer(target, before["files"] if before else {}, None if before else mirror,
                             before["sha256"] if before else None,
                             identities.get(str(os.stat(target).st_ino)) if before else None)
            for name, content in _assets().items():
                writer.put(name, _key("asset", content), lambda content=content: content)
            listed = _downloads(writer, session, data, released, boardsets, key, target / ".work", pdf)
            shutil.rmtree(target / ".work", ignore_errors=True)
            site = shown.site(verify, listed, folder_seed(folder))
            site.rank_cache = (live or {}).get("ranks", {})
            clock.step("downloads")
            pages = plan_pages(site, jobs)
            clock.step("plan")
            render = page_render(site, pages, lang)
            _render_pages(writer, render, jobs)
            clock.step("pages")
            for name in writer.manifest.keys() - writer.keys.keys():  # files the site no longer has
                _unlink(target / name)
            manifest = orjson.dumps({"schema": SCHEMA, "files": writer.keys, "sha256": writer.digests,
                                     "ranks": site.rank_cache,
                                     "audited": scores.audited.as_json() if scores.audited else None},
                                    option=orjson.OPT_SORT_KEYS)
            _write_public(target / MANIFEST, manifest)
            if live is None and out.is_dir():
                out.rmdir()  # an empty folder named by --out (checked above): the site takes its place
            _swap(target, out, spare)
            if writer.mirror is not None:  # the next rebuild writes only what changed into it
                _link_or_copy(str(out / MANIFEST), str(writer.mirror / MANIFEST))
                os.rename(writer.mirror, spare)
            # The previous generation's files are as they were (a first build's: links to these).
            spare_inode = str(os.stat(spare).st_ino)
            _write_identities(identities_file(out), {
                str(os.stat(out).st_ino): writer.ids,
                spare_inode: writer.ids if writer.mirror is not None else identities.get(spare_inode, {})})
            clock.step("swap")
        except OSError as error:
            _discard(target, spare)
            raise os_problem(error, out, Phrase("files.do_write_site"), field="out") from None
        except BaseException:
            _discard(target, spare)
            raise
    return SiteSummary(out, len(pages) * len(LANGS), len(writer.keys), writer.written, writer.kept,
                       sorted(released), site.provisional, time.perf_counter() - started, clock.steps)


@dataclass
class Published:
    """What the site may show, read from a session (:func:`published`): the director's report
    (``scores``, audited), the public one (``data``: no board still in play, ``withheld``), the
    released sets and their boards (no other set is read), the key's release, the time of the
    last stored entry and the sets declared unused. The static build and the live pages of
    ``dealer serve`` read it the same way."""

    scores: ReportData  # as the director sees it
    data: ReportData  # as players see it
    withheld: dict[int, list[int]]
    released: dict[int, dict[str, Any]]
    key_release: dict[str, Any] | None
    last_update: str | None
    unused: dict[int, dict[str, Any]]
    boardsets: dict[int, BoardSet]

    def site(self, verify: dict[str, Any], downloads: list[dict[str, Any]], lots_seed: bytes) -> SiteData:
        """The pages' :class:`~dealer.site.pages.SiteData`: the public report, and from the
        director's only counts, board numbers and table names (each round in play's progress,
        the matches still missing a result), never a value."""
        from dealer.app.standings import rounds_in_play
        from dealer.site.pages import SiteData

        boards = {n: list(b.boards) for n, b in self.boardsets.items()}
        progress = {n: p.as_dict() for n, p in rounds_in_play(self.data, self.scores).items()}
        return SiteData(self.data, self.released, boards, verify, self.last_update, downloads, lots_seed,
                        self.withheld, progress=progress,
                        missing_matches=sum(1 for s in self.scores.scored.scores if not s.complete))


def published(session: EventSession, audited: Any = None) -> Published:
    """The public report and the released boards (``audited``: the mark of the last audit of the
    results chain, :class:`~dealer.store.chain.AuditMark`: only the rows after it are audited)."""
    from dealer.app.standings import public_report

    scores = session.report(publishing=True, audited=audited)
    released, key_release, last_update, unused = _released(session)
    data, withheld = public_report(scores, released)  # what the site shows: no board still in play
    boardsets = {n: session.public_board_set(n) for n in sorted(released)}
    return Published(scores, data, withheld, released, key_release, last_update, unused, boardsets)


def page_render(site: SiteData, pages: Sequence[Any], lang: str = "zh") -> _PageRender:
    """How the pages of ``site`` are rendered (``lang``: the language at the root)."""
    from dealer.site.pages import SCHEMA

    scheduled = site.event
    return _PageRender(
        pages=pages, site=site, dirs=lang_dirs(lang), schema=SCHEMA,
        key_base=hashlib.sha256(bytes.fromhex(_key(site.global_key()))),
        strings={code: strings(code) for code in LANGS},
        event_head={"id": scheduled.id, "name": scheduled.name, "date": scheduled.date,
                    "profile": scheduled.profile.id, "profile_version": scheduled.profile.version,
                    "supplement": {k: scheduled.profile.data.get(k) for k in scheduled.profile.supplement},
                    "format": scheduled.format.kind,
                    "result": scheduled.result, "teams": len(scheduled.teams),
                    "timezone": scheduled.timezone},
        nav={"bracket": site.knockout, "boards": bool(site.released), "levels": scheduled.levels,
             "rounds": [r.number for r in scheduled.rounds]},
        tie_break_names={code: _tie_break_names(scheduled, code) for code in LANGS},
        rules_line={code: _rules_line(scheduled, code) for code in LANGS})


def _discard(target: Path, spare: Path) -> None:
    """After a failed build: its new folder and half-made spare removed (a spare being brought
    up to date stays: without its manifest, the next build makes it again)."""
    if target != spare:
        for folder in (target, spare.with_name(spare.name + ".partial")):
            shutil.rmtree(folder, ignore_errors=True)


def site_folder(out: Path) -> Path:
    """The folder ``--out`` names, as the build will swap it: absolute, and a link to a folder
    (say into a web root) followed, so that the folder it points to is the one swapped in one
    step and the link goes on pointing at the live site."""
    named = Path(os.path.abspath(out))
    if named == named.parent or not named.name:
        raise UserError("site.out_is_root", field="out", out=out)
    if named.is_symlink():
        resolved = Path(os.path.realpath(named))
        if not resolved.is_dir():
            raise UserError("site.out_links_elsewhere", field="out", out=out, resolved=resolved)
        named = resolved
    elif named.exists() and not named.is_dir():
        raise UserError("site.out_not_a_folder", field="out", out=out)
    return named


def check_out(out: Path | None, folder: EventFolder) -> Path:
    """The site's folder (``out``, or the event's default), refused before anything is read when a
    build could not write it: not a folder, its parent not writable, or a folder that is not a
    site this tool made (:func:`_check_site_folders`). The build checks it again, under its lock."""
    site = site_folder(Path(out) if out is not None else default_site_folder(folder))
    check_writable_folder(site.parent, field="out")
    _check_site_folders(site, spare_folder(site), _new_folder_name(site))
    return site


def _new_folder_name(out: Path) -> Path:
    return out.with_name(f".{out.name}.new")  # one name: builds take turns (the lock)


def _check_site_folders(out: Path, spare: Path, new: Path) -> dict[str, Any] | None:
    """Refuse (before any work, nothing changed) a site folder that is not one a build made:
    ``out`` must be missing, empty, or a site; the hidden folders beside it missing or the
    tool's. Gives the live site's manifest (``None``: a first build)."""
    live = None
    if out.is_dir():
        live = _read_manifest(out)
        if live is None:
            try:
                with os.scandir(out) as entries:
                    holds = next(entries, None) is not None
            except OSError as error:
                raise os_problem(error, out, Phrase("files.do_read_folder"), field="out") from None
            if holds:
                raise UserError("site.out_not_a_site", field="out", out=out, manifest=MANIFEST)
    for hidden in (spare, spare.with_name(spare.name + ".partial"), new):
        if os.path.lexists(hidden) and not _owned(hidden):
            raise _not_ours(hidden)
    return live


def spare_folder(out: Path) -> Path:
    """The site's previous generation, kept beside it (hidden): the next build brings it up to
    date and swaps it in."""
    return out.with_name(f".{out.name}-previous")


@contextlib.contextmanager
def _locked(parent: Path) -> Iterator[None]:
    """One build at a time beside the site (they share the spare folder): a lock on the parent
    folder itself (no lock file left behind)."""
    fd = os.open(parent, os.O_RDONLY)
    try:
        try:
            import fcntl
        except ImportError:  # not a POSIX system: no lock
            yield
            return
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


def _rules_line(event: Event, lang: str) -> str:
    """The rules in force, as every page's footer says them (:attr:`_PageRender.rules_line`)."""
    profile = event.profile
    line = f"{profile.id} v{profile.version} ({profile.name_zh if lang == 'zh' else profile.name_en})"
    if profile.supplement:
        line += f" · {strings(lang)['site']['supplement']}: {supplement_text(profile, lang)}"
    return line


def _tie_break_names(event: Event, lang: str) -> dict[str, str]:
    from dealer.explain import tie_break_name

    return {k: tie_break_name(k, lang) for k in event.profile.tie_breaks}
