"""Whole numbers as a person types them, or as a spreadsheet writes a numeric cell.

Pure. ASCII digits only (no "٥٠", no "²"), an optional sign, an optional ".0" (a spreadsheet's
integral float "50.0"); no exponent ("5e1"), no underscores, no "inf"/"nan"; at most
:data:`DIGITS_LIMIT` digits, far beyond any real value (a longer one is a typing error, said as
such, and never reaches Python's int conversion limit).
"""

from __future__ import annotations

import re

DIGITS_LIMIT = 9

_WHOLE = re.compile(r"[+-]?([0-9]+)(?:\.0+)?")


def whole_number(text: str) -> int | None:
    """The whole number ``text`` says, or ``None``; :class:`OverflowError` (its argument the
    number of digits) beyond :data:`DIGITS_LIMIT` digits."""
    text = text.strip().replace("−", "-").replace("＋", "+").replace("－", "-")
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
