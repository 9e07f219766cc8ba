"""The files of a deal folder besides what the sets hold (``docs/dealing.md``): the set files'
names and the schemas of the commitment and the manifest. Apart from
:mod:`dealer.formats.boardset` (a set file read and checked) so that a command that only checks
the folder against its manifest does not load the set reader.
"""

from __future__ import annotations

import re

MANIFEST_SCHEMA = "shengji-dealer/manifest/1"
COMMITMENT_SCHEMA = "shengji-dealer/commitment/1"
#: A SHA-256 as the files write it: 64 lower-case hex digits.
HEX64 = re.compile(r"[0-9a-f]{64}")


def set_file_name(set_number: int) -> str:
    """The name of set ``set_number``'s file in the event's folder (and the site's downloads)."""
    return f"set-{set_number:02d}.json"
