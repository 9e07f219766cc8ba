"""The README's phone screenshots of the players' site (docs/images/site-*.png), made by the
project itself: the demo dealt with a throw-away key in a temporary folder (never the repo's
boards/), its sample results imported, its site built as `make demo` builds it, then Debian's
Chromium (Playwright, pointed at /usr/bin/chromium) at a phone's width.

    .venv/bin/python scripts/site_screenshots.py [--out docs/images]

Not part of `make test` (`make previews` runs it).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
#: (page, file, height in CSS pixels: the top of a long page)
SHOTS = (("standings.html", "site-standings.png", 700), ("match-1-1.html", "site-match.png", 900),
         ("board-1-1.html", "site-board.png", 1100))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, default=Path("docs/images"))
    args = parser.parse_args()

    from importlib import resources

    from playwright.sync_api import sync_playwright

    from dealer.app.dealing import deal_event
    from dealer.demo import site_demo
    from dealer.resources import demo_event_text
    from dealer.app import EventSession
    from dealer.app.results import import_file
    from dealer.files import load_event_text
    from dealer.store.folder import EventFolder

    args.out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as temporary:
        root = Path(temporary)
        event = load_event_text(demo_event_text(), "demo-event.toml")
        folder = EventFolder(event.id, root / "boards", root / "output")
        deal_event(event, folder)
        with EventSession.open(event, folder, write=True) as store_session, \
                resources.as_file(resources.files("dealer") / "data" / "sample-travellers.csv") as sample:
            import_file(store_session, sample)
        for line in site_demo(event, folder, pdf=False):
            print(line, file=sys.stderr)
        site = (folder.output_path / "site").resolve()
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            page = browser.new_page(viewport={"width": 375, "height": 812}, device_scale_factor=1)
            for name, target, height in SHOTS:
                page.goto(site.as_uri() + "/" + name)
                full = page.evaluate("document.documentElement.scrollHeight")
                page.screenshot(path=str(args.out / target), clip={"x": 0, "y": 0, "width": 375,
                                                                    "height": min(height, full)})
                print(f"wrote {args.out / target}")
            browser.close()


if __name__ == "__main__":
    main()
