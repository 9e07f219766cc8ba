"""The print pack's QR codes (dealer/render/qrcodes.py) choose their mask on arrays: the same
penalties as qrcode's own ``util.lost_point``, so the same mask and the same modules as the library
makes by itself, for every size of code the pack prints and larger."""

from __future__ import annotations

import numpy as np
import pytest
import qrcode
import qrcode.constants
import qrcode.util

from dealer.render.qrcodes import _code_class, mask_penalties, qr_matrix

ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ234567"


def library_code(payload: str) -> qrcode.QRCode:
    code = qrcode.QRCode(error_correction=qrcode.constants.ERROR_CORRECT_M, border=4)
    code.add_data(payload)
    code.make(fit=True)
    return code


@pytest.mark.parametrize("length", [8, 20, 40, 80, 140, 220])
def test_the_mask_and_the_modules_are_the_librarys_own(length: int) -> None:
    rng = np.random.default_rng(length)
    versions, masks = set(), set()
    for number in range(40):
        payload = f"SJD1:L:event-{number}:1:{number}:1:" + "".join(rng.choice(list(ALPHABET), length))
        library = library_code(payload)
        ours = _code_class()(error_correction=qrcode.constants.ERROR_CORRECT_M, border=4)
        ours.add_data(payload)
        ours.make(fit=True)
        assert ours.version == library.version
        assert ours.get_matrix() == library.get_matrix(), payload
        assert qr_matrix(payload) == tuple(tuple(row) for row in library.get_matrix())
        mask = library.best_mask_pattern()  # (lays the code out again, in the test layouts)
        assert ours.best_mask_pattern() == mask, payload
        versions.add(library.version)
        masks.add(mask)
    assert len(masks) > 1  # the choice is made, not the same mask every time
    if length == 220:
        assert max(versions) >= 7  # codes with version areas too


@pytest.mark.parametrize("size", [21, 25, 29, 45, 57])
def test_the_penalties_are_the_librarys_lost_points(size: int) -> None:
    rng = np.random.default_rng(size)
    # Random layouts, and layouts with long runs, blocks and finder-like runs (every rule scores).
    layouts = [rng.random((size, size)) < share for share in (0.5, 0.2, 0.8)]
    striped = np.zeros((size, size), dtype=bool)
    striped[::3] = True
    striped[:, :11] = np.array([1, 0, 1, 1, 1, 0, 1, 0, 0, 0, 0], dtype=bool)
    layouts += [striped, ~striped, np.zeros((size, size), dtype=bool)]
    stack = np.array(layouts)
    expected = [qrcode.util.lost_point([[bool(v) for v in row] for row in layout]) for layout in stack]
    assert mask_penalties(stack) == expected
