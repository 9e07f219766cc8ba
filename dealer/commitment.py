"""The dealing key and what is published of it (``docs/dealing.md``): the key's text form, the
canonical plan and its digest, the commitment that binds key and plan before any board is seen,
and the key's public identifier. Pure domain code; apart from :mod:`dealer.deal` (the shuffle)
so that a command that only checks a deal folder does not load the dealing.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import Any

from dealer.errors import UserError

#: The dealing algorithm's name, part of every plan the commitment binds.
ALGORITHM = "shengji-deal-v1"
KEY_BYTES = 32
COMMIT_TAG = b"shengji-dealer/commitment/v1\x00"
KEY_ID_TAG = b"shengji-dealer/key-id/v1\x00"


class KeyFormatError(UserError, ValueError):
    """A key is malformed."""


def new_key() -> bytes:
    """A fresh 256-bit key from the operating system's CSPRNG."""
    import secrets  # only a new key needs it (and it loads random, hmac, base64)

    return secrets.token_bytes(KEY_BYTES)


def parse_key(text: str) -> bytes:
    """A key from its 64-hex-digit text form; raises :class:`KeyFormatError`."""
    cleaned = "".join(text.split())
    try:
        key = bytes.fromhex(cleaned)
    except ValueError:
        raise KeyFormatError("deal.key_not_hex") from None
    if len(key) != KEY_BYTES:
        raise KeyFormatError("deal.key_length", digits=len(cleaned))
    return key


def canonical_json(value: Any) -> bytes:
    """Canonical JSON bytes: sorted keys, no spaces, UTF-8."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def plan_digest(plan: Mapping[str, Any]) -> str:
    return hashlib.sha256(canonical_json(plan)).hexdigest()


def commitment(key: bytes, plan: Mapping[str, Any]) -> str:
    """SHA-256 commitment to the key together with the canonical event plan."""
    return commitment_of_digest(key, plan_digest(plan))


def commitment_of_digest(key: bytes, plan_sha256: str) -> str:
    """:func:`commitment` from the plan's hash (64 hex digits), when it is already known."""
    return hashlib.sha256(COMMIT_TAG + key + bytes.fromhex(plan_sha256)).hexdigest()


def key_id(key: bytes) -> str:
    """A short public identifier of a key, to warn on reuse; it reveals nothing of the key."""
    return hashlib.sha256(KEY_ID_TAG + key).hexdigest()[:16]
