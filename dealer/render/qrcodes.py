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

QUIET_ZONE = 4  # modules of white border, as the QR standard asks


@functools.lru_cache(maxsize=4096)
def qr_matrix(payload: str) -> tuple[tuple[bool, ...], ...]:
    """The modules of ``payload`` as a QR code (error correction M) with its quiet zone."""
    import qrcode
    import qrcode.constants

    code = qrcode.QRCode(error_correction=qrcode.constants.ERROR_CORRECT_M, border=QUIET_ZONE)
    code.add_data(payload)
    code.make(fit=True)
    return tuple(tuple(bool(v) for v in row) for row in code.get_matrix())


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
