"""Reading and writing the project's files: event files, key files, board sets, manifests.

All writes are atomic (a temporary file renamed into place) and never replace an existing
board set or key.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from dealer.deal import KeyFormatError, parse_key
from dealer.errors import FileProblem as FileProblem  # re-exported: callers import it from here
from dealer.event import Event, EventError, parse_event
from dealer.resources import load_profile

BOARDSET_SCHEMA = "shengji-dealer/boardset/1"
MANIFEST_SCHEMA = "shengji-dealer/manifest/1"


def load_event_text(text: str, source: str) -> Event:
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise FileProblem(f"{source}: not valid TOML: {error}") from None
    try:
        return parse_event(data, load_profile)
    except EventError as error:
        raise FileProblem(f"{source}: {error}") from None


def read_text(path: str | Path, what: str, encoding: str = "utf-8") -> str:
    """A user file's text; a missing or undecodable file is a :class:`FileProblem` naming it."""
    try:
        return Path(path).read_text(encoding=encoding)
    except OSError as error:
        raise FileProblem(f"{path}: cannot read the {what}: {error.strerror}") from None
    except UnicodeDecodeError:
        raise FileProblem(f"{path}: the {what} must be {encoding.upper()} text") from None


def load_event(path: str | Path) -> Event:
    return load_event_text(read_text(path, "event file"), str(path))


def boards_dir(event: Event, root: str | Path = "boards") -> Path:
    return Path(root) / event.slug


def boardset_path(event: Event, set_number: int, root: str | Path = "boards") -> Path:
    return boards_dir(event, root) / f"set-{set_number:02d}.json"


def write_atomic(path: Path, data: bytes, mode: int = 0o644, replace: bool = False) -> None:
    """Write ``data`` to ``path`` in one step; refuse to replace unless ``replace``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(data)
            stream.flush()
            os.fsync(stream.fileno())
        os.chmod(temporary, mode)
        if replace:
            os.replace(temporary, path)
        else:
            os.link(temporary, path)  # fails with FileExistsError if the file appeared
            os.unlink(temporary)
    except BaseException:
        if os.path.exists(temporary):
            os.unlink(temporary)
        raise


def json_bytes(value: Any) -> bytes:
    return (json.dumps(value, ensure_ascii=False, indent=1) + "\n").encode("utf-8")


def sha256_file(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def read_key(path: str | Path) -> bytes:
    text = read_text(path, "key file", "ascii")
    try:
        return parse_key(text)
    except KeyFormatError as error:
        raise FileProblem(f"{path}: {error}") from None


def write_key(path: str | Path, key: bytes) -> None:
    """Create a key file readable by its owner only; never replaces one."""
    path = Path(path)
    try:
        write_atomic(path, (key.hex() + "\n").encode("ascii"), mode=0o600)
    except FileExistsError:
        raise FileProblem(f"{path}: a key file is already there; not replacing it") from None


def read_json(path: str | Path, what: str) -> Any:
    text = read_text(path, what)
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        raise FileProblem(f"{path}: the {what} is not valid JSON: {error}") from None


def read_boardset(path: str | Path) -> dict[str, Any]:
    data = read_json(path, "board set")
    if not isinstance(data, Mapping) or data.get("schema") != BOARDSET_SCHEMA:
        raise FileProblem(f"{path}: not a board set file (schema {BOARDSET_SCHEMA} expected)")
    return dict(data)
