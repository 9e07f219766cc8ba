"""Render the small PNG previews of the README ("From deal to tables") with the project itself.

    .venv/bin/python scripts/previews.py [--out docs/images] [--dpi 60]

Deals the demo event with a throw-away key in a temporary folder (never the repo's boards/),
prints set 1 of every kind in Chinese, and rasterizes the first page of each with pypdfium2.
Not part of `make test`.
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

from dealer.app.dealing import deal_event
from dealer.files import load_event_text
from dealer.store.folder import EventFolder
from dealer.app import EventSession
from dealer.render import KINDS, PrintOptions, build_documents, render_documents
from dealer.resources import demo_event_text


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, default=Path("docs/images"))
    parser.add_argument("--dpi", type=int, default=60)
    args = parser.parse_args()

    import pypdfium2

    event = load_event_text(demo_event_text(), "demo")
    with tempfile.TemporaryDirectory(prefix="previews-") as folder:
        root = Path(folder)
        deal_event(event, EventFolder(event.id, root / "boards"))
        options = PrintOptions(lang="zh", out_dir=root / "out", sets=(1,), boards_root=root / "boards")
        with EventSession.open(event, root / "boards") as session:
            documents = build_documents(session, "all", options)
        written = render_documents(documents, "pdf", 1)
        args.out.mkdir(parents=True, exist_ok=True)
        for item in written:
            pdf = pypdfium2.PdfDocument(str(item.path))
            image = pdf[0].render(scale=args.dpi / 72).to_pil().quantize(colors=32)
            pdf.close()
            target = args.out / f"{item.kind}.png"
            image.save(target, optimize=True)
            print(f"wrote {target} ({target.stat().st_size // 1024} KiB)")
    assert {item.kind for item in written} == set(KINDS)


if __name__ == "__main__":
    main()
