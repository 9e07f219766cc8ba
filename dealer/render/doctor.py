"""``dealer doctor``: can this machine print? Which font will Chinese text use?"""

from __future__ import annotations

import ctypes.util
import io
import shutil
import subprocess
from dataclasses import dataclass

from dealer.resources import templates_dir

PROBE_TEXT = "升级复式赛 庄家 级数 东北西南 ♠♥♣♦ 大王 小王"


@dataclass
class Check:
    name: str
    ok: bool
    detail: str


def _fc_match(pattern: str) -> str:
    if not shutil.which("fc-match"):
        return "fc-match not found (install fontconfig)"
    result = subprocess.run(
        ["fc-match", "-f", "%{family[0]} (%{file})", pattern],
        capture_output=True, text=True, check=False,
    )
    return result.stdout.strip() or result.stderr.strip()


def embedded_fonts(pdf: bytes) -> list[str]:
    """Base font names embedded in a PDF (subset prefixes removed)."""
    from pypdf import PdfReader

    names: set[str] = set()
    for page in PdfReader(io.BytesIO(pdf)).pages:
        resources = page.get("/Resources")
        fonts = resources.get_object().get("/Font") if resources else None
        if not fonts:
            continue
        for ref in fonts.get_object().values():
            base = str(ref.get_object().get("/BaseFont", ""))
            names.add(base.lstrip("/").split("+", 1)[-1])
    return sorted(names)


def probe_font() -> list[str]:
    """Render a line of Chinese with the templates' CSS and report the fonts actually embedded."""
    import weasyprint

    html = (
        '<!DOCTYPE html><html lang="zh-CN"><head><meta charset="utf-8">'
        '<link rel="stylesheet" href="base.css"></head>'
        f"<body><p>{PROBE_TEXT}</p></body></html>"
    )
    pdf = weasyprint.HTML(string=html, base_url=str(templates_dir())).write_pdf()
    return embedded_fonts(bytes(pdf))


def run_checks() -> list[Check]:
    checks: list[Check] = []
    try:
        import weasyprint

        checks.append(Check("WeasyPrint", True, str(weasyprint.__version__)))
    except (ImportError, OSError) as error:
        return [Check("WeasyPrint", False, f"cannot load: {error} (run: make system-deps)")]
    subset = ctypes.util.find_library("harfbuzz-subset")
    checks.append(Check(
        "HarfBuzz subset", subset is not None,
        subset or "missing: font subsetting falls back to fontTools and is ~10× slower (make system-deps)",
    ))
    checks.append(Check("fontconfig zh-cn", True, _fc_match(":lang=zh-cn")))
    fonts = probe_font()
    cjk = [name for name in fonts if "CJK" in name or "Han" in name or "Hei" in name or "SC" in name]
    checks.append(Check(
        "font used for Chinese", bool(cjk),
        ", ".join(fonts) if cjk else f"no Chinese font found, got {', '.join(fonts) or 'none'} "
        "(install fonts-noto-cjk: make system-deps)",
    ))
    return checks
