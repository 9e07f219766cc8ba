"""Whole numbers and text as a person types them, or as a spreadsheet writes a numeric cell.

Pure. :func:`fold_typed` is the one folding of typed and file values: a Chinese IME's full-width
"５０", "Ａ", "过Ａ" read as 50, A, 过A, but no superscript, subscript, circled or other
compatibility digit made a digit (security review, finding 8). A whole number is ASCII digits, or
full-width ones ("５０", "－４０": folded), and no other digits ("٥٠", "²", "①", "𝟓"); an optional
sign, an optional ".0" (a spreadsheet's integral float "50.0"); no exponent ("5e1"), no
underscores, no "inf"/"nan"; at most :data:`DIGITS_LIMIT` digits, far beyond any real value (a
longer one is a typing error, said as such, and never reaches Python's int conversion limit).
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

#: Decomposition tags of the full-width and half-width forms (Unicode's ``<wide>`` and
#: ``<narrow>``): always folded, digits included ("８" is 8, "Ａ" is A, U+3000 is a space).
WIDTH_TAGS = ("<wide>", "<narrow>")


@lru_cache(maxsize=4096)
def _fold_char(char: str) -> str:
    compat = unicodedata.normalize("NFKC", char)
    if unicodedata.decomposition(char).startswith(WIDTH_TAGS):
        return compat
    if compat != unicodedata.normalize("NFC", char) and any(c.isdigit() for c in compat):
        return char  # a digit from another compatibility form: left to be refused
    return compat


def fold_typed(text: str) -> str:
    """``text`` as the validators read it (NFKC, but for digits): each character decided by its
    :func:`unicodedata.decomposition`, then the whole in NFC.

    - A full-width or half-width form (tag ``<wide>`` or ``<narrow>``) is folded as NFKC folds
      it: "５０" → "50", "－４０" → "-40", "过Ａ" → "过A", "ＨＯＭＥ" → "HOME", U+3000 → " ".
    - Any other character NFKC would change into something holding a digit is **left as it is**:
      superscripts and subscripts (``<super>``, ``<sub>``: "²", "₂"), circled (``<circle>``:
      "①", "㉑"), parenthesised and full-stop digits (``<compat>``: "⑴", "⒈"), fractions
      (``<fraction>``: "½"), mathematical digits (``<font>``: "𝟖"), squared units (``<square>``:
      "㎡"). A validator then refuses it as not a number (or not a code, a table, a level).
    - Every other NFKC folding is kept: ligatures ("ﬁ" → "fi"), no-break spaces, circled or
      mathematical *letters* ("Ⓐ", "𝐀" → "A"), and the like; canonical equivalents are composed.

    Digits of other scripts ("٨٥", "८५") and format characters (a zero-width space) are not
    compatibility forms: they stay as written, and are refused where a number is expected.
    Idempotent; ASCII text is returned as it is.
    """
    if text.isascii():
        return text
    return unicodedata.normalize("NFC", "".join(_fold_char(char) for char in text))


DIGITS_LIMIT = 9

_WHOLE = re.compile(r"[+-]?([0-9]+)(?:\.0+)?")


def whole_number(text: str) -> int | None:
    """The whole number ``text`` says, or ``None``; :class:`OverflowError` (its argument the
    number of digits) beyond :data:`DIGITS_LIMIT` digits."""
    text = fold_typed(text).strip().replace("−", "-")
    found = _WHOLE.fullmatch(text)
    if found is None:
        return None
    digits = found.group(1).lstrip("0")
    if len(digits) > DIGITS_LIMIT:
        raise OverflowError(len(digits))
    return int(text.split(".", 1)[0])


class NotAWholeNumber(ValueError):
    """What :func:`read_whole_number` says about a value it refuses: a message key of the word
    catalog and its parameters (as :class:`dealer.errors.UserError` has them)."""

    def __init__(self, key: str, **params: object) -> None:
        super().__init__(key)
        self.key = key
        self.params = params


def read_whole_number(text: str | None, what: object, low: int | None = None) -> int:
    """The whole number ``text`` says (a file's cell, a typed value), or
    :class:`NotAWholeNumber` with the message every entry path gives (``what``: the value's
    name, ``Phrase("terms.round_number")``): missing, too many digits, not a whole number,
    below ``low``."""
    text = (text or "").strip()
    if not text:
        raise NotAWholeNumber("number.missing", what=what)
    try:
        value = whole_number(text)
    except OverflowError as digits:
        raise NotAWholeNumber("number.too_many_digits", what=what, digits=digits.args[0],
                              limit=DIGITS_LIMIT) from None
    if value is None:
        raise NotAWholeNumber("number.not_whole", what=what)
    if low is not None and value < low:
        raise NotAWholeNumber("number.too_low", what=what, low=low)
    return value


def whole_number_or_none(text: str | None) -> int | None:
    """:func:`whole_number`, with ``None`` also for no text and for too many digits (where the
    caller has nothing more to say about them)."""
    try:
        return whole_number(text) if text else None
    except OverflowError:
        return None
