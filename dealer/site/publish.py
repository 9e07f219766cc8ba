"""The site's folder and its two generations: the live folder and, hidden beside it, the one
before. A build (:func:`dealer.site.build_site`) takes its turn at the folder (:func:`turn`: one
at a time, they share the spare folder), brings the previous generation up to date (only the
files whose keys changed are written, :class:`Writer`; the manifest holds every file's key),
then swaps the two folders in one step (``renameat2(RENAME_EXCHANGE)`` on Linux): a host serving
the folder never shows half a site (docs/site.md, "Rebuilding"). Only a folder a build made (it
holds :data:`MARKER`, or a manifest) is ever replaced or removed.
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import hashlib
import os
import shutil
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import orjson

from dealer.app import EventFolder
from dealer.errors import Phrase, UserError
from dealer.files import OWNER_ONLY, check_writable_folder, os_problem, write_atomic

SITE_FOLDER = "site"
MANIFEST = ".site-manifest.json"  # the key of every file, for the next rebuild
#: Written first into every folder a build makes (the site, its previous generation, their
#: half-made copies): only a folder holding it (or a manifest) is ever replaced or removed.
MARKER = ".shengji-dealer-site"
MARKER_TEXT = b"a folder of the players' site made by shengji-dealer (dealer site)\n"
FOLDER_MODE, FILE_MODE = 0o755, 0o644  # whatever the umask: the site is public, and only its owner writes it


def default_site_folder(folder: EventFolder) -> Path:
    return folder.output_path / SITE_FOLDER


# --- one build's turn ----------------------------------------------------------------------------


@contextlib.contextmanager
def turn(out: Path) -> Iterator[Generation]:
    """One build's turn at the site folder ``out`` (checked by :func:`check_out`): one build at a
    time beside it (they share the spare folder); a folder there that is not a site this tool
    made is refused before anything is read."""
    with _locked(out.parent):
        yield Generation(out, _check_site_folders(out, spare_folder(out), _new_folder_name(out)))


class Generation:
    """The generation a build makes of the site at ``out``: :meth:`prepare` readies its folder
    (the previous generation, brought up to date; on a first build a new folder, its spare made
    beside it of hard links as the files are written), :meth:`writing` gives the :class:`Writer`
    and removes what a failed build made, :meth:`publish` swaps it in."""

    def __init__(self, out: Path, live: dict[str, Any] | None) -> None:
        self.out = out
        #: The live site's manifest (:func:`_read_manifest`; ``None``: a first build).
        self.live = live
        self.spare = spare_folder(out)
        self.target = self.spare
        self._before: dict[str, Any] | None = None
        self._mirror: Path | None = None
        self._identities: dict[str, dict[str, list[int]]] = {}
        self.writer: Writer | None = None

    def kept(self, name: str) -> Any:
        """What the live site's build kept in its manifest under ``name`` (``audited``, ``ranks``;
        ``None`` on a first build)."""
        return (self.live or {}).get(name)

    def prepare(self) -> None:
        """Ready the folder this build writes (:attr:`target`)."""
        out, spare, live = self.out, self.spare, self.live
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
            target = _new_folder_name(out)
            self._mirror = spare.with_name(spare.name + ".partial")
            for stale in (target, spare, self._mirror):
                _remove_owned(stale)
            _new_folder(target)
            _new_folder(self._mirror)
        os.chmod(target, FOLDER_MODE)
        self.target, self._before = target, before

    @contextlib.contextmanager
    def writing(self) -> Iterator[Writer]:
        """The :class:`Writer` of the prepared folder; a build that fails inside removes what it
        made (an error of the file system worded as one of writing the site)."""
        target, before = self.target, self._before
        try:
            self._identities = _read_identities(identities_file(self.out))
            self.writer = Writer(target, before["files"] if before else {}, self._mirror,
                                 before["sha256"] if before else None,
                                 self._identities.get(str(os.stat(target).st_ino)) if before else None)
            yield self.writer
        except OSError as error:
            _discard(target, self.spare)
            raise os_problem(error, self.out, Phrase("files.do_write_site"), field="out") from None
        except BaseException:
            _discard(target, self.spare)
            raise

    def publish(self, kept: Mapping[str, Any]) -> None:
        """Remove the files the site no longer has, write the manifest (every file's key and
        digest, and ``kept``: what the next build reads back with :meth:`kept`), and swap the
        folder in; the previous generation becomes the spare."""
        writer, target, out, spare = self.writer, self.target, self.out, self.spare
        assert writer is not None
        for name in writer.manifest.keys() - writer.keys.keys():  # files the site no longer has
            _unlink(target / name)
        manifest = orjson.dumps({**kept, "files": writer.keys, "sha256": writer.digests},
                                option=orjson.OPT_SORT_KEYS)
        _write_public(target / MANIFEST, manifest)
        if self.live is None and out.is_dir():
            out.rmdir()  # an empty folder named by --out (checked above): the site takes its place
        _swap(target, out, spare)
        if writer.mirror is not None:  # the next rebuild writes only what changed into it
            _link_or_copy(str(out / MANIFEST), str(writer.mirror / MANIFEST))
            os.rename(writer.mirror, spare)
        # The previous generation's files are as they were (a first build's: links to these).
        spare_inode = str(os.stat(spare).st_ino)
        _write_identities(identities_file(out), {
            str(os.stat(out).st_ino): writer.ids,
            spare_inode: writer.ids if writer.mirror is not None else self._identities.get(spare_inode, {})})


# --- the files ------------------------------------------------------------------------------------


class Writer:
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
        #: The folders made so far, relative to the target: each is made once, on its first file
        #: (a league's 67,000 files are in a handful of folders: no Path object for each file).
        self._folders = {""}

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

    def _folder_of(self, name: str) -> None:
        """The folder ``name`` goes in, made in the target (and the mirror) on its first file."""
        folder = name.rpartition("/")[0]
        if folder not in self._folders:
            _make_folders(self.target / folder, self._dirs)
            if self.mirror is not None:
                _make_folders(self.mirror / folder, self._dirs)
            self._folders.add(folder)

    def keep(self, name: str, key: str) -> None:
        self.keys[name] = key
        self.digests[name] = self.digests_before[name]
        self.kept += 1

    def write(self, name: str, key: str, data: bytes) -> None:
        self._folder_of(name)
        target = self._prefix + name
        if self.manifest:  # a folder of an earlier build: its file may be a link to the live one's
            _unlink(target)
        _write_public(target, data)
        if self.mirror is not None:  # a first build: the spare folder made as it goes, of links
            _link_or_copy(target, f"{self.mirror}{os.sep}{name}")
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


def _write_public(path: Path | str, data: bytes) -> None:
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


def _unlink(path: Path | str) -> None:
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

