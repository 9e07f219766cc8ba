"""Reading and writing the project's files, safely: event files, key files, JSON, any output.

* Reads check what they read: a regular file (not a FIFO, a device or a folder), at most a given
  size, in the expected encoding. Every failure is a :class:`~dealer.errors.UserError` naming the
  file.
* Writes are atomic (a unique temporary file, fsynced, renamed into place) and never replace an
  existing file unless asked; an operating-system refusal (disk full, read-only, a file where a
  folder should be) becomes an error naming the path, and nothing half-written is left.
* Secret files (the key, board sets, card-bearing pages, the results database) are written
  owner-only (0600) whatever the umask; public ones follow the umask.
"""

from __future__ import annotations

import errno
import hashlib
import json
import os
import stat
import tomllib
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any, BinaryIO

from dealer.commitment import KeyFormatError, parse_key
from dealer.errors import EnvironmentProblem, FileProblem, Phrase, UserError
from dealer.event import Event, EventError, parse_event
from dealer.profiles import TIE_BREAK_KEYS, Profile, ProfileError, profile_from_mapping, with_rules
from dealer.resources import load_profile, profile_ids

#: Largest event file read (an event of 2,000 teams and 30 rounds is about 3 MB).
EVENT_FILE_LIMIT = 16 * 1024 * 1024
#: Largest JSON file read (a set of 64 boards of 4 decks is about 100 KB).
JSON_FILE_LIMIT = 16 * 1024 * 1024
KEY_FILE_LIMIT = 1024

OWNER_ONLY = 0o600
OWNER_ONLY_FOLDER = 0o700

_ENVIRONMENT_ERRNOS = {errno.ENOSPC, errno.EDQUOT, errno.EROFS, errno.EACCES, errno.EPERM, errno.EFBIG,
                       errno.EIO, errno.EMFILE, errno.ENFILE}


def os_problem(error: OSError, path: str | Path, action: object, field: str | None = None) -> UserError:
    """An operating-system refusal as a user error naming ``path``: the machine's (disk full,
    read-only, permission) or the path's (a file where a folder is expected, and the like)."""
    reason = error.strerror or str(error)
    if error.errno in (errno.ENOSPC, errno.EDQUOT):
        reason = "no space left on the disk"
    if error.errno in _ENVIRONMENT_ERRNOS:
        return EnvironmentProblem("files.cannot", field=field, path=path, action=action, reason=reason)
    return FileProblem("files.cannot", field=field, path=path, action=action, reason=reason)


def read_bytes(path: str | Path, what: object, limit: int) -> bytes:
    """The bytes of a regular file of at most ``limit`` bytes (checked before reading).

    Opened without blocking, so a FIFO (a named pipe nobody writes to) is refused at once
    instead of waiting for a writer; a device (``/dev/zero``) is refused unread.
    """
    try:
        handle = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0))
        with open(handle, "rb") as stream:
            info = os.fstat(stream.fileno())
            if stat.S_ISDIR(info.st_mode):
                raise IsADirectoryError
            if not stat.S_ISREG(info.st_mode):
                raise FileProblem("files.not_a_regular_file", path=path, what=what)
            if info.st_size > limit:
                raise FileProblem("files.over_limit", path=path, what=what, size=info.st_size, limit=limit)
            data = stream.read(limit + 1)
    except FileNotFoundError:
        raise FileProblem("files.missing", path=path, what=what) from None
    except IsADirectoryError:
        raise FileProblem("files.is_a_folder", path=path, what=what) from None
    except OSError as error:
        raise os_problem(error, path, Phrase.of("files.do_read", what=what)) from None
    if len(data) > limit:  # grew while being read
        raise FileProblem("files.too_big", path=path, what=what, limit=limit)
    return data


def decode_text(data: bytes, path: str | Path, what: object, encoding: str = "utf-8") -> str:
    """Text of a file in ``encoding``; a UTF-8 byte-order mark (as Notepad writes) is dropped."""
    if encoding == "utf-8" and data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    try:
        return data.decode(encoding)
    except UnicodeDecodeError as error:
        raise FileProblem("files.bad_encoding", path=path, what=what, encoding=encoding.upper(),
                          byte=error.start) from None


def read_text(path: str | Path, what: object, encoding: str = "utf-8", limit: int = JSON_FILE_LIMIT) -> str:
    """A user file's text; a missing, oversized or undecodable file is an error naming it."""
    return decode_text(read_bytes(path, what, limit), path, what, encoding)


def parse_toml(text: str, source: str) -> dict[str, Any]:
    """A TOML file's text parsed; any problem is an error naming ``source``."""
    text = text.removeprefix("\ufeff")
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise FileProblem("files.not_toml", source=source, error=error) from None
    except ValueError as error:  # e.g. an integer of thousands of digits
        reason: object = Phrase("files.huge_number") if "digits" in str(error) else str(error)
        raise FileProblem("files.bad_toml_value", source=source, reason=reason) from None
    except RecursionError:
        raise FileProblem("files.nested_too_deeply", source=source) \
            from None


#: Largest profile file of an event's own read.
PROFILE_FILE_LIMIT = 1024 * 1024


def _profile_finder(folder: Path) -> Callable[[str], Profile]:
    """An event file's ``profile``: a built-in profile's id, or (ending in ``.toml``) a profile
    file of the event's own, its path relative to the event file's folder, checked as the
    built-in ones are (and with an id of its own, so a report never shows a built-in's name
    and version over other rules)."""
    def find(value: str) -> Profile:
        if not value.endswith(".toml"):
            return load_profile(value)
        path = folder / value
        try:
            data = parse_toml(read_text(path, Phrase("files.what_profile_file"), limit=PROFILE_FILE_LIMIT), str(path))
            profile = profile_from_mapping(data)
        except ProfileError as error:
            raise ProfileError("files.at_path", path=path, error=error) from None
        except FileProblem as error:  # it names the file (a machine's refusal passes as it is)
            raise ProfileError("profiles.file_problem", error=error) from None
        if profile.id in profile_ids():
            raise ProfileError("profiles.own_file_reuses_id", path=path, profile_id=profile.id)
        return profile
    return find


def _checked_chain(event: Event) -> Event:
    """The event, its tie-break chain every key the standings know (checked here, with the
    names of :data:`dealer.profiles.TIE_BREAK_KEYS`, the standings' functions)."""
    profile = event.profile
    for key in profile.tie_breaks:
        if key not in TIE_BREAK_KEYS:
            where = "rules.tie_breaks" if "tie_breaks" in profile.supplement else \
                f"event.profile: profile {profile.id}, tie_breaks"
            raise EventError("event.unknown_tie_break", where=where, name=key, known=", ".join(TIE_BREAK_KEYS))
    return event


def teams_file_path(data: dict[str, Any], event_path: str | Path) -> Path | None:
    """The registration file an event file's ``teams_file`` names (beside the event file), or ``None``."""
    head = data.get("event")
    name = head.get("teams_file") if isinstance(head, dict) else None
    return Path(event_path).parent / name if isinstance(name, str) and name.strip() else None


def read_teams_file(path: Path) -> list[Any]:
    """The ``[[teams]]`` of a registration file (``teams_file``); ``[]`` when it is not there yet."""
    if not path.exists():
        return []
    data = parse_toml(read_text(path, Phrase("files.what_teams_file"), limit=EVENT_FILE_LIMIT), str(path))
    if set(data) - {"teams"} or not isinstance(data.get("teams", []), list):
        raise FileProblem("files.teams_file_not_teams", source=str(path))
    teams: list[Any] = data.get("teams", [])
    return teams


def with_registered_teams(data: dict[str, Any], event_path: str | Path) -> tuple[dict[str, Any], str]:
    """The event file's data with the teams of its ``teams_file`` (read beside ``event_path``),
    and the source errors about teams name."""
    path = teams_file_path(data, event_path)
    if path is None:
        return data, ""
    if "teams" in data:
        raise FileProblem("files.teams_twice", source=str(event_path), teams_file=str(path))
    return {**data, "teams": read_teams_file(path)}, str(path)


def load_event_text(text: str, source: str) -> Event:
    """The event of an event file's text; any problem is an error naming ``source`` (a profile
    file or a ``teams_file`` it names is read relative to ``source``'s folder)."""
    data, teams_source = with_registered_teams(parse_toml(text, source), source)
    return event_from_data(data, source, teams_source)


def event_from_data(data: dict[str, Any], source: str, teams_source: str = "") -> Event:
    """The event of an event file's parsed ``data`` (its teams in it), as :func:`load_event_text`
    checks it; an error about the teams names ``teams_source`` when given (where they came from)."""
    try:
        return _checked_chain(parse_event(data, _profile_finder(Path(source).parent)))
    except EventError as error:
        if teams_source and str(error.params.get("where", "")).startswith("teams"):
            source = teams_source
        raise FileProblem("files.at_source", source=source, error=error) from None


def event_profile(data: dict[str, Any], source: str) -> Profile | None:
    """The rule profile an event file's parsed ``data`` plays under (its ``[rules]`` merged in),
    or ``None`` when it names none that can be used (loading the event then says why)."""
    head = data.get("event")
    name = head.get("profile") if isinstance(head, dict) else None
    try:
        profile = _profile_finder(Path(source).parent)(str(name))
        return with_rules(profile, data["rules"]) if "rules" in data else profile
    except (KeyError, UserError):
        return None


def load_event(path: str | Path) -> Event:
    return load_event_text(read_text(path, Phrase("files.what_event_file"), limit=EVENT_FILE_LIMIT), str(path))


def make_folder(path: Path, mode: int | None = None, field: str | None = None) -> None:
    """Create ``path`` and its parents (``mode``, e.g. owner-only, for the last one when new)."""
    try:
        if mode is not None and not path.exists():
            path.parent.mkdir(parents=True, exist_ok=True)
            path.mkdir(mode=mode, exist_ok=True)
            os.chmod(path, mode)  # whatever the umask
        else:
            path.mkdir(parents=True, exist_ok=True)
    except FileExistsError:
        raise FileProblem("files.file_in_the_way", field=field, path=path) from None
    except OSError as error:
        raise os_problem(error, path, Phrase("files.do_create_folder"), field) from None


def check_writable_folder(path: Path, field: str | None = None) -> None:
    """Create ``path`` and prove a file can be written in it (before any long work)."""
    make_folder(path, field=field)
    try:
        import tempfile

        handle, probe = tempfile.mkstemp(dir=path, prefix=".probe-")
        os.close(handle)
        os.unlink(probe)
    except OSError as error:
        raise os_problem(error, path, Phrase("files.do_write_in_folder"), field) from None


def write_atomic(path: Path, data: bytes, mode: int | None = None, replace: bool = False,
                 field: str | None = None, durable: bool = True) -> None:
    """Write ``data`` to ``path`` in one step; refuse to replace an existing file unless
    ``replace``. ``mode`` (e.g. :data:`OWNER_ONLY`) is set whatever the umask; by default the
    umask decides, as for any new file. ``durable=False`` leaves flushing to the disk to the
    caller (:func:`flush_to_disk` of many files at once); the file still appears whole or not at
    all to every other process."""
    make_folder(path.parent, field=field)
    if not replace and _write_unnamed(path, data, mode, field, durable):
        return
    try:
        import tempfile  # the named way only (most writes are unnamed, O_TMPFILE)

        handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    except OSError as error:
        raise os_problem(error, path.parent, Phrase("files.do_write_in_folder"), field) from None
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(data)
            stream.flush()
            if durable:
                os.fsync(stream.fileno())
        os.chmod(temporary, mode if mode is not None else 0o666 & ~_umask())
        if replace:
            os.replace(temporary, path)
        else:
            _place_new(temporary, path)
    except BaseException as error:
        if os.path.exists(temporary):
            os.unlink(temporary)
        if isinstance(error, FileExistsError) and not replace:
            raise FileExistsError(errno.EEXIST, "the file is already there", str(path)) from None
        if isinstance(error, IsADirectoryError):
            raise FileProblem("files.folder_in_the_way", field=field, path=path) \
                from None
        if isinstance(error, OSError):
            raise os_problem(error, path, Phrase("files.do_write_file"), field) from None
        raise


class AtomicFile:
    """A file too large to hold in memory, written into a temporary file in the same folder that
    replaces ``path`` in one step when :meth:`commit` is called (a report: always replaced);
    :meth:`abort` (or an exception inside ``with``) leaves nothing behind."""

    def __init__(self, path: Path, field: str | None = None) -> None:
        self.path, self.field = path, field
        make_folder(path.parent, field=field)
        try:
            import tempfile

            handle, self.temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
        except OSError as error:
            raise os_problem(error, path.parent, Phrase("files.do_write_in_folder"), field) from None
        self.stream: BinaryIO = os.fdopen(handle, "wb")

    def commit(self) -> Path:
        try:
            self.stream.flush()
            os.fsync(self.stream.fileno())
            self.stream.close()
            os.chmod(self.temporary, 0o666 & ~_umask())
            os.replace(self.temporary, self.path)
        except BaseException as error:
            self.abort()
            if isinstance(error, IsADirectoryError):
                raise FileProblem("files.folder_in_the_way",
                                  field=self.field, path=self.path) from None
            if isinstance(error, OSError):
                raise os_problem(error, self.path, Phrase("files.do_write_file"), self.field) from None
            raise
        return self.path

    def abort(self) -> None:
        self.stream.close()
        if os.path.exists(self.temporary):
            os.unlink(self.temporary)

    def __enter__(self) -> AtomicFile:
        return self

    def __exit__(self, kind: object, *rest: object) -> None:
        if kind is not None:
            self.abort()


def write_atomic_stream(path: Path, write: Callable[[BinaryIO], None], field: str | None = None) -> None:
    """Write a file too large to hold in memory: ``write`` fills an :class:`AtomicFile`."""
    with AtomicFile(path, field) as target:
        try:
            write(target.stream)
        except OSError as error:
            raise os_problem(error, path, Phrase("files.do_write_file"), field) from None
        target.commit()


#: Errors of ``open(O_TMPFILE)`` and of linking it that say "not here": the named temporary is used.
_NO_UNNAMED = {errno.EOPNOTSUPP, errno.ENOTSUP, errno.EISDIR, errno.EINVAL, errno.ENOENT, errno.EPERM,
               errno.EMLINK, errno.ENOSYS, errno.EXDEV}


def _write_unnamed(path: Path, data: bytes, mode: int | None, field: str | None, durable: bool,
                   folder: int | None = None) -> bool:
    """Write a new file through an unnamed temporary (Linux ``O_TMPFILE``), linked into place
    once whole: a process killed meanwhile leaves nothing behind (a named temporary would stay,
    holding, for a set file, secret hands). ``False`` where that is not available; then
    nothing was written. ``FileExistsError`` when the file is already there. ``folder``: a
    descriptor of ``path``'s folder, kept open by a caller writing many files there."""
    flag = getattr(os, "O_TMPFILE", None)
    if flag is None:
        return False
    try:
        handle = os.open(path.parent if folder is None else ".", flag | os.O_WRONLY, 0o600, dir_fd=folder)
    except OSError as error:
        if error.errno in _NO_UNNAMED:
            return False
        raise os_problem(error, path.parent, Phrase("files.do_write_in_folder"), field) from None
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(handle, view):]
        if durable:
            os.fsync(handle)
        os.fchmod(handle, mode if mode is not None else 0o666 & ~_umask())
        directory = os.open(path.parent, os.O_RDONLY) if folder is None else folder
        try:  # linkat(…, AT_SYMLINK_FOLLOW), which a directory descriptor makes os.link call
            os.link(f"/proc/self/fd/{handle}", path.name, dst_dir_fd=directory, follow_symlinks=True)
        except FileExistsError:
            raise FileExistsError(errno.EEXIST, "the file is already there", str(path)) from None
        except OSError as error:
            if error.errno in _NO_UNNAMED:
                return False  # no /proc, or no hard links (FAT, exFAT): the named way
            raise
        finally:
            if folder is None:
                os.close(directory)
    except IsADirectoryError:
        raise FileProblem("files.folder_in_the_way", field=field, path=path) from None
    except FileExistsError:
        raise
    except OSError as error:
        raise os_problem(error, path, Phrase("files.do_write_file"), field) from None
    finally:
        os.close(handle)
    return True


def write_new_files(folder: Path, files: Iterable[tuple[str, bytes]], mode: int | None = None,
                    field: str | None = None) -> list[str]:
    """Write many new files into ``folder``, each as ``write_atomic(…, durable=False)`` writes one
    (whole or not at all, never replacing a file; :func:`flush_to_disk` makes them durable), the
    folder made and opened once for all of them. The names of those already there, not written."""
    make_folder(folder, field=field)
    existing: list[str] = []
    try:
        handle: int | None = os.open(folder, os.O_RDONLY) if getattr(os, "O_TMPFILE", None) is not None else None
    except OSError as error:
        raise os_problem(error, folder, Phrase("files.do_write_in_folder"), field) from None
    try:
        for name, data in files:
            path = folder / name
            try:
                if handle is not None and _write_unnamed(path, data, mode, field, False, handle):
                    continue
                if handle is not None:  # no unnamed files in this folder: the named way for the rest
                    os.close(handle)
                    handle = None
                write_atomic(path, data, mode=mode, field=field, durable=False)
            except FileExistsError:
                existing.append(name)
    finally:
        if handle is not None:
            os.close(handle)
    return existing


def flush_to_disk(folder: Path, paths: Sequence[Path]) -> None:
    """Make files written with ``write_atomic(durable=False)`` durable: one ``syncfs(2)`` of the
    folder's file system where Linux has it (one journal commit for all of them), else an
    ``fsync`` of each file and of the folder."""
    try:
        import ctypes

        syncfs = ctypes.CDLL(None, use_errno=True).syncfs
    except (AttributeError, OSError):
        syncfs = None
    try:
        handle = os.open(folder, os.O_RDONLY)
        try:
            if syncfs is not None and syncfs(handle) == 0:
                return
            for path in paths:
                file_handle = os.open(path, os.O_RDONLY)
                try:
                    os.fsync(file_handle)
                finally:
                    os.close(file_handle)
            os.fsync(handle)
        finally:
            os.close(handle)
    except OSError as error:
        raise os_problem(error, folder, Phrase("files.do_flush")) from None


def _place_new(temporary: str, path: Path) -> None:
    """Move a written temporary file to ``path``, which must not exist (``FileExistsError``)."""
    try:
        os.link(temporary, path)  # atomic, and fails if the file appeared meanwhile
    except FileExistsError:
        raise
    except OSError as error:
        if error.errno not in (errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP, errno.EMLINK, errno.ENOSYS):
            raise
        # No hard links (FAT and exFAT USB sticks, some network shares): claim the name first,
        # then rename over the claim; never replaces a file that was already there.
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
        os.replace(temporary, path)
        return
    os.unlink(temporary)


def _umask() -> int:
    """The process umask, read without changing it where the system tells it (Linux)."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    current = os.umask(0o022)  # elsewhere: set and restore at once
    os.umask(current)
    return current


def json_bytes(value: Any) -> bytes:
    return (json.dumps(value, ensure_ascii=False, indent=1) + "\n").encode("utf-8")


def sha256_hex(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def read_key(path: str | Path) -> bytes:
    text = read_text(path, Phrase("files.what_key_file"), "ascii", limit=KEY_FILE_LIMIT)
    try:
        return parse_key(text)
    except KeyFormatError as error:
        raise FileProblem("files.at_path", path=path, error=error) from None


def write_key(path: str | Path, key: bytes) -> None:
    """Create a key file readable by its owner only; never replaces one."""
    path = Path(path)
    try:
        write_atomic(path, (key.hex() + "\n").encode("ascii"), mode=OWNER_ONLY)
    except FileExistsError:
        raise FileProblem("files.key_file_exists", path=path) from None


def read_json(path: str | Path, what: object, limit: int = JSON_FILE_LIMIT) -> Any:
    return parse_json(read_bytes(path, what, limit), path, what)


def parse_json(data: bytes, path: str | Path, what: object) -> Any:
    text = decode_text(data, path, what)
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        raise FileProblem("files.not_json", path=path, what=what, error=error) from None
    except (ValueError, RecursionError) as error:  # huge integers, deep nesting
        raise FileProblem("files.bad_json", path=path, what=what, name=type(error).__name__) from None
