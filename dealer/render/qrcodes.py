"""QR codes as inline SVG (vector: sharp at any print or scan resolution)."""

from __future__ import annotations

import functools

QUIET_ZONE = 4  # modules of white border, as the QR standard asks


@functools.lru_cache(maxsize=4096)
def qr_svg(payload: str, module_mm: float = 0.7) -> str:
    """An ``<svg>`` element drawing ``payload`` as a QR code (error correction M) with its quiet
    zone; each module is ``module_mm`` millimetres wide."""
    import qrcode
    import qrcode.constants

    code = qrcode.QRCode(error_correction=qrcode.constants.ERROR_CORRECT_M, border=QUIET_ZONE)
    code.add_data(payload)
    code.make(fit=True)
    matrix = code.get_matrix()
    size = len(matrix)
    runs: list[str] = []
    for y, row in enumerate(matrix):
        x = 0
        while x < size:
            if row[x]:
                start = x
                while x < size and row[x]:
                    x += 1
                runs.append(f"M{start} {y}h{x - start}v1h-{x - start}z")
            else:
                x += 1
    side = f"{size * module_mm:.2f}mm"
    return (
        f'<svg class="qr" xmlns="http://www.w3.org/2000/svg" width="{side}" height="{side}" '
        f'viewBox="0 0 {size} {size}" shape-rendering="crispEdges">'
        f'<rect width="{size}" height="{size}" fill="#fff"/>'
        f'<path d="{"".join(runs)}" fill="#000"/></svg>'
    )
