"""QR codes as inline images: one pixel per module, drawn without smoothing.

A 1-bit PNG of the code (quiet zone included) scaled to ``module_mm`` per module with
``image-rendering: pixelated`` (no interpolation in the PDF): every module is a sharp square at
any print or scan resolution, as with vector drawing, and WeasyPrint places an image far faster
than it parses an SVG path of hundreds of runs (the print pack has one code per label and slip).
"""

from __future__ import annotations

import base64
import functools
import io
from typing import Any

QUIET_ZONE = 4  # modules of white border, as the QR standard asks


@functools.lru_cache(maxsize=4096)
def qr_matrix(payload: str) -> tuple[tuple[bool, ...], ...]:
    """The modules of ``payload`` as a QR code (error correction M) with its quiet zone."""
    import qrcode.constants

    code = _code_class()(error_correction=qrcode.constants.ERROR_CORRECT_M, border=QUIET_ZONE)
    code.add_data(payload)
    code.make(fit=True)
    return tuple(tuple(bool(v) for v in row) for row in code.get_matrix())


@functools.cache
def _code_class() -> Any:
    """``qrcode.QRCode`` choosing its mask on arrays: the same eight test layouts and penalty
    rules as ``QRCode.best_mask_pattern`` (qrcode's ``util.lost_point``, ISO/IEC 18004 §7.8.3),
    so the same mask and the same code (tests/test_qr_codes.py), with the data placed twice
    instead of nine times and no per-module Python loops: about 1.1 ms a label's code instead of
    2.6 (benchmarks/print.py; a round of 8 matches prints 272 codes)."""
    import numpy as np
    import qrcode

    class MaskChosenOnArrays(qrcode.QRCode):  # type: ignore[misc]
        _placing_data = True

        def map_data(self, data: Any, mask_pattern: int) -> None:
            if self._placing_data:
                super().map_data(data, mask_pattern)

        def best_mask_pattern(self) -> int:
            self._placing_data = False
            try:
                self.makeImpl(True, 0)  # the function patterns alone: the data's modules are None
            finally:
                self._placing_data = True
            data = np.array([[module is None for module in row] for row in self.modules])
            self.makeImpl(True, 0)  # qrcode's test layout of mask 0 (format and version areas light)
            first = np.array(self.modules, dtype=bool)
            masks = _masks(len(first))
            return int(np.argmin(mask_penalties(first ^ (data & (masks[0] ^ masks)))))

    return MaskChosenOnArrays


@functools.cache
def _masks(size: int) -> Any:
    """The eight mask patterns of a code of ``size`` modules a side, as a (8, size, size) array."""
    import numpy as np

    i, j = np.indices((size, size))
    return np.array([(i + j) % 2 == 0, i % 2 == 0, j % 3 == 0, (i + j) % 3 == 0, (i // 2 + j // 3) % 2 == 0,
                     (i * j) % 2 + (i * j) % 3 == 0, ((i * j) % 2 + (i * j) % 3) % 2 == 0,
                     ((i * j) % 3 + (i + j) % 2) % 2 == 0])


#: The finder-like run (1:1:3:1:1 with four light modules on one side) that costs 40 points.
_FINDER_LIKE = ((1, 0, 1, 1, 1, 0, 1, 0, 0, 0, 0), (0, 0, 0, 0, 1, 0, 1, 1, 1, 0, 1))


def mask_penalties(layouts: Any) -> list[int]:
    """The penalty of each of a stack of code layouts ((masks, size, size) booleans), by qrcode's
    ``util.lost_point`` rules: runs of five or more alike (length - 2), 2×2 blocks alike (3),
    finder-like runs (40), and 10 for each full 5% the dark share is away from half."""
    import numpy as np
    from numpy.lib.stride_tricks import sliding_window_view

    size = layouts.shape[-1]
    lines = np.concatenate([layouts, layouts.transpose(0, 2, 1)], axis=1)  # rows, then columns
    alike = lines[..., 1:] == lines[..., :-1]
    fives = alike[..., :-3] & alike[..., 1:-2] & alike[..., 2:-1] & alike[..., 3:]  # five alike from here
    run_starts = fives.copy()
    run_starts[..., 1:] &= ~alike[..., :size - 5]
    corner = layouts[:, :-1, :-1]
    blocks = (corner == layouts[:, 1:, :-1]) & (corner == layouts[:, :-1, 1:]) & (corner == layouts[:, 1:, 1:])
    windows = sliding_window_view(lines, 11, axis=2)
    finder_like = sum((windows == np.array(pattern, dtype=bool)).all(axis=-1) for pattern in _FINDER_LIKE)
    points = (fives.sum(axis=(1, 2)) + 2 * run_starts.sum(axis=(1, 2)) + 3 * blocks.sum(axis=(1, 2))
              + 40 * finder_like.sum(axis=(1, 2)))
    dark = layouts.sum(axis=(1, 2))
    # The dark share's rule computed as qrcode computes it (the same float steps, the same points).
    return [int(p) + int(abs(float(d) / size**2 * 100 - 50) / 5) * 10 for p, d in zip(points, dark, strict=True)]


@functools.lru_cache(maxsize=4096)
def qr_img(payload: str, module_mm: float = 0.7) -> str:
    """An ``<img>`` element drawing ``payload`` as a QR code, ``module_mm`` millimetres a module."""
    from PIL import Image

    matrix = qr_matrix(payload)
    size = len(matrix)
    image = Image.new("1", (size, size), 1)
    image.putdata([0 if dark else 1 for row in matrix for dark in row])
    buffer = io.BytesIO()
    image.save(buffer, format="PNG", optimize=True)
    data = base64.b64encode(buffer.getvalue()).decode("ascii")
    side = f"{size * module_mm:.2f}mm"
    return (f'<img class="qr" alt="QR" width="{size}" height="{size}" style="width: {side}; height: {side}" '
            f'src="data:image/png;base64,{data}">')


#: The largest module a box-sized code gets (the score sheets' 0.6 mm: about 3.5 pixels at 150 dpi).
MAX_MODULE_MM = 0.6


def qr_module_mm(payload: str, side_mm: float, most: float = MAX_MODULE_MM) -> float:
    """The module size that fits ``payload``'s code, quiet zone included, in a square of
    ``side_mm`` (at most ``most``): a longer payload gets smaller modules, never a bigger code."""
    return min(most, side_mm / len(qr_matrix(payload)))
