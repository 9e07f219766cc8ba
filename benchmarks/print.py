"""Print-pack rendering speed: pages per second, serial and with the parallel renderer, each as a
ratio to a plain WeasyPrint baseline measured in the same run.

    .venv/bin/python benchmarks/print.py [--matches 40] [--boards 16] [--jobs N] [--lang zh]

The event is synthetic: one round of ``--matches`` matches all playing set 1, so one set of
``--boards`` boards is needed in ``--matches`` copies (40 copies by default). The full pack of
that set is built and rendered to PDF files: hand records, wallet + pocket labels, curtain cards,
dealing guide, travellers and score sheets. Serial = every document rendered in this process
(``jobs=1``); parallel = the renderer's pool of ``--jobs`` worker processes.

The baseline is plain WeasyPrint on the same number of pages: one HTML document of A4 pages of
plain Chinese text in Noto Sans CJK SC (two paragraphs of 330 characters a page), rendered with
``weasyprint.HTML(string=...).write_pdf()`` in this process. It runs before and after the pack and
the ratios use the mean of the two (the machine is shared: compare ratios, not seconds). CPU time
is this process's, plus the pool's workers for the parallel run; ``import weasyprint`` and a
warm-up page in each face the pack uses happen before any timing. The serial run also prints each
kind of document's CPU seconds a page (issue 24: hand records and the dealing guide at most 0.25),
and the same divided by a plain page's (steadier from run to run on a shared machine), and the
peak memory of the process by its end. Then the pack's QR code of a label against the qrcode
library making it alone (the pack chooses the mask on arrays).

Last, the floors: what the serial pack would cost if WeasyPrint charged only for what its pages
hold, in CPU seconds of this run. The pages the serial run lays out (every page of a one-layer
document, each layer's distinct pages of a layered one) hold some text and some elements. Their
text alone, as plain pages of paragraphs, is the text floor. Their elements are counted by kind on
WeasyPrint's own boxes of those pages (inline, block in flow, absolutely or relatively placed,
table cell, image), and each kind is priced by what one such element adds to plain pages of the
same run. Text and elements together are what these pages cannot cost less than, whatever their
styles, borders and fonts; plain pages' CPU time over it is the best serial CPU ratio that these
pages allow, printed beside the CPU time that issue 24's target (0.4) leaves.

The script benchmarks an older commit of the project when run with ``PYTHONPATH`` pointing at a
worktree of it (it uses ``build_documents``, ``render_documents``, ``label_payload``,
``qr_matrix``, ``qr_img``, ``distinct_pages``, ``render_html`` and the engine's parsed
stylesheets only).
"""

from __future__ import annotations

import argparse
import html
import os
import re
import resource
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

from dealer.app import EventSession
from dealer.app.dealing import deal_event
from dealer.files import load_event_text
from dealer.render import PrintOptions, build_documents, default_jobs, render_documents
from dealer.store.folder import EventFolder

PLAIN_TEXT = ("双升是四人两副牌的扑克游戏，对家为一方，庄家一方打级，闲家一方抢分，"
              "得分达到规定的分数才能上台坐庄。") * 8
PLAIN_STYLE = ('@page { size: A4; margin: 15mm } body { font-family: "Noto Sans CJK SC"; font-size: 10.5pt } '
               ".page { break-after: page } .page:last-child { break-after: auto }")


def event_text(matches: int, boards: int) -> str:
    lines = [
        "[event]", 'id = "bench"', 'name = "排版基准 Print benchmark"', 'profile = "official-2002"',
        "decks = 2", f"boards_per_set = {boards}", "sets = 1", "",
    ]
    for team in range(1, 2 * matches + 1):
        lines += ["[[teams]]", f'id = "T{team}"', f'name = "第{team}队"', ""]
    lines += ["[[rounds]]", "number = 1", "matches = ["]
    lines += [f'  {{ id = "{m}", home = "T{2 * m - 1}", away = "T{2 * m}", set = 1 }},'
              for m in range(1, matches + 1)]
    lines += ["]"]
    return "\n".join(lines) + "\n"


def plain_document(bodies: list[str]) -> str:
    """An HTML document of A4 pages of plain text, a page for each of ``bodies``."""
    pages = "".join(f'<div class="page">{body}</div>' for body in bodies)
    return f'<html lang="zh-CN"><head><style>{PLAIN_STYLE}</style></head><body>{pages}</body></html>'


def plain_pages(pages: int) -> bytes:
    """The baseline: ``pages`` A4 pages of plain CJK text, one WeasyPrint document."""
    import weasyprint

    paragraph = PLAIN_TEXT[:330]
    return bytes(weasyprint.HTML(string=plain_document([f"<p>{paragraph}</p><p>{paragraph}</p>"] * pages)).write_pdf())


def warm_up() -> None:
    """Import weasyprint, and load the faces the pack prints in (regular and bold; the monospaced
    face that older commits used) once, before any timing: the baseline's timed pages find their
    one face loaded, so do the pack's documents (else the first of them, the hand records, pays
    the process's loading of the other faces)."""
    import weasyprint

    plain_pages(1)
    sample = (f'<html lang="zh-CN"><head><style>{PLAIN_STYLE} .mono {{ font-family: "Noto Sans Mono CJK SC" }}'
              f'</style></head><body><p>{PLAIN_TEXT[:40]}</p><p><b>{PLAIN_TEXT[:40]}</b></p>'
              f'<p class="mono">{PLAIN_TEXT[:40]} 0123456789</p></body></html>')
    weasyprint.HTML(string=sample).write_pdf()


def cpu_seconds() -> float:
    """CPU time of this process and of its waited-for children (the pool's workers)."""
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + children.ru_utime + children.ru_stime


def timed_baseline(pages: int) -> tuple[float, float]:
    start, cpu = time.perf_counter(), cpu_seconds()
    plain_pages(pages)
    return time.perf_counter() - start, cpu_seconds() - cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--matches", type=int, default=40, help="matches playing the set (= copies)")
    parser.add_argument("--boards", type=int, default=16)
    parser.add_argument("--jobs", type=int, default=default_jobs(), help="worker processes of the parallel run")
    parser.add_argument("--lang", default="zh", choices=["zh", "en"])
    args = parser.parse_args()

    import dealer

    warm_up()
    with tempfile.TemporaryDirectory(prefix="print-bench-") as folder:
        root = Path(folder)
        event = load_event_text(event_text(args.matches, args.boards), "benchmark event")
        deal_event(event, EventFolder(event.id, root / "boards"))
        print(f"{Path(dealer.__file__).parent.parent}: set of {args.boards} boards in "
              f"{event.copies_needed(1)} copies, {args.matches} matches; {os.cpu_count()} CPUs, "
              f"parallel jobs {args.jobs}; load average {os.getloadavg()[0]:.1f} at start")
        # The pack's page count, to give the baseline the same number of pages before the pack.
        with EventSession.open(event, root / "boards") as session:
            pages = sum(len(doc.pages) for doc in build_documents(
                session, "all", PrintOptions(lang=args.lang, out_dir=root / "count", boards_root=root / "boards")))
        first = timed_baseline(pages)
        runs: dict[str, tuple[int, float, float, float]] = {}
        by_kind: dict[str, tuple[int, float]] = {}  # the serial run's documents: pages, CPU seconds
        for name, jobs in (("serial", 1), ("parallel", args.jobs)):
            options = PrintOptions(lang=args.lang, out_dir=root / name, boards_root=root / "boards")
            start, cpu = time.perf_counter(), cpu_seconds()
            with EventSession.open(event, root / "boards") as session:
                documents = build_documents(session, "all", options)
            if jobs == 1:  # serial renders each document whole, in turn: timed one by one
                written = []
                for document in documents:
                    before = cpu_seconds()
                    written += render_documents([document], "pdf", 1)
                    pages_before, cpu_before = by_kind.get(document.kind, (0, 0.0))
                    by_kind[document.kind] = (pages_before + len(document.pages), cpu_before + cpu_seconds() - before)
            else:
                written = render_documents(documents, "pdf", jobs)
            seconds, cpu = time.perf_counter() - start, cpu_seconds() - cpu
            pages = sum(item.pages for item in written)
            size = sum(item.size for item in written) / 1024 / 1024
            runs[name] = (pages, seconds, cpu, size)
            if jobs == 1:  # this process's peak memory so far: the serial run's (it comes first)
                serial_peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        last = timed_baseline(pages)
        base_wall, base_cpu = (first[0] + last[0]) / 2, (first[1] + last[1]) / 2
        print(f"{'baseline':9} plain CJK text: {pages} pages in {base_wall:6.1f} s = {pages / base_wall:6.1f} pages/s, "
              f"{pages / base_cpu:6.1f} pages per CPU-s (runs {first[0]:.1f} s and {last[0]:.1f} s)")
        for name, (count, seconds, cpu, size) in runs.items():
            print(f"{name:9} {count} pages in {seconds:6.1f} s = {count / seconds:6.1f} pages/s, "
                  f"{count / cpu:6.1f} pages per CPU-s, {size:.1f} MiB; / baseline: "
                  f"{(count / seconds) / (pages / base_wall):.3f} (CPU {(count / cpu) / (pages / base_cpu):.3f})")
        print("serial, by document: " + ", ".join(
            f"{kind} {cpu / count:.3f} ({count} p)" for kind, (count, cpu) in by_kind.items() if count)
            + f" CPU-s a page (plain pages: {base_cpu / pages:.3f}); / a plain page: " + ", ".join(
            f"{kind} {cpu / count / (base_cpu / pages):.1f}" for kind, (count, cpu) in by_kind.items() if count)
            + f"; peak memory of the process by the end of the serial run {serial_peak:.0f} MiB")
        serial, parallel = runs["serial"], runs["parallel"]
        print(f"parallel / serial: speed {serial[1] / parallel[1]:.2f}x, PDF size {parallel[3] / serial[3]:.2f}x; "
              f"load average {os.getloadavg()[0]:.1f} at end")
        print(qr_codes(event.id, event.copies_needed(1), args.boards))
        print(floors(documents, base_cpu / pages))


def qr_codes(event_id: str, copies: int, boards: int) -> str:
    """The pack's QR code of a label (``qr_matrix``, uncached) against the qrcode library making
    the same code by itself, on the wallet labels' payloads of this set (a stand-in key)."""
    import qrcode
    import qrcode.constants

    from dealer.formats.qr import label_payload
    from dealer.render.qrcodes import QUIET_ZONE, qr_matrix

    payloads = [label_payload(bytes(32), event_id, 1, board, copy)
                for board in range(1, boards + 1) for copy in range(1, copies + 1)]

    def library(payload: str) -> tuple[tuple[bool, ...], ...]:
        code = qrcode.QRCode(error_correction=qrcode.constants.ERROR_CORRECT_M, border=QUIET_ZONE)
        code.add_data(payload)
        code.make(fit=True)
        return tuple(tuple(bool(v) for v in row) for row in code.get_matrix())

    seconds = {}
    for name, make in (("library", library), ("pack", qr_matrix.__wrapped__)):
        start = time.process_time()
        for payload in payloads:
            make(payload)
        seconds[name] = (time.process_time() - start) / len(payloads)
    return (f"QR codes: {len(payloads)} labels' codes, the pack's {seconds['pack'] * 1000:.2f} ms a code, the "
            f"qrcode library's own {seconds['library'] * 1000:.2f} ms; / library: "
            f"{seconds['library'] / seconds['pack']:.2f}x the speed")


def laid_out_layers(documents: list[Any]) -> list[tuple[Any, str, list[dict[str, Any]]]]:
    """(document, layer, pages) of each WeasyPrint document the serial run makes: a one-layer
    document's pages, each layer's distinct pages of a layered one."""
    from dealer.render.engine import distinct_pages

    return [(doc, layer, distinct_pages(doc, layer)[0] if doc.layers else doc.pages)
            for doc in documents for layer in doc.layers or ("all",)]


def pack_document(text: str) -> Any:
    """A WeasyPrint document of HTML as the pack makes its documents (the pack's user-agent
    stylesheet, where the code has one)."""
    import weasyprint

    from dealer.render import engine

    make = getattr(engine, "html_document", None)
    return make(text) if make else weasyprint.HTML(string=text)


def least_cpu(text: str, runs: int = 2) -> float:
    best = float("inf")
    for _ in range(runs):
        start = time.process_time()
        pack_document(text).write_pdf()
        best = min(best, time.process_time() - start)
    return best


#: Issue 24's target for the 8-match serial ratio.
TARGET_RATIO = 0.4


def element_kind(box: Any) -> str:
    """The kind of element a WeasyPrint box lays out, as :func:`element_costs` prices them."""
    from weasyprint.formatting_structure import boxes

    if box.style["position"] == "absolute":
        return "absolute"
    if isinstance(box, boxes.ReplacedBox):
        return "image"
    if isinstance(box, boxes.TableCellBox):
        return "cell"
    if isinstance(box, boxes.InlineBox | boxes.InlineBlockBox):
        return "inline"
    if box.style["position"] == "relative":
        return "relative"
    return "block"


def element_kinds(layers: list[tuple[Any, str, list[dict[str, Any]]]]) -> Counter[str]:
    """How many elements of each kind the laid-out pages hold, counted on WeasyPrint's own boxes
    (an element split over lines or pages once; anonymous boxes, lines and text not at all)."""
    from weasyprint.formatting_structure import boxes

    from dealer.render.engine import _font_config, _stylesheet, render_html

    def walk(box: Any) -> Any:
        yield box
        if getattr(box, "_box", None) is not None:  # an absolutely placed box's placeholder
            yield from walk(box._box)
        for child in getattr(box, "children", None) or ():
            yield from walk(child)

    counts: Counter[str] = Counter()
    for doc, layer, pages in layers:
        sheets = [_stylesheet("base.css"), _stylesheet(str(doc.common["css"]))]
        text = render_html(doc.template, doc.common, pages, layer, pdf=True)
        rendered = pack_document(text).render(stylesheets=sheets, font_config=_font_config())
        seen: dict[int, str] = {}
        for page in rendered.pages:
            for box in walk(page._page_box):
                element = getattr(box, "element", None)
                if (element is None or id(element) in seen or box.element_tag in ("html", "body")
                        or isinstance(box, boxes.LineBox | boxes.TextBox)):
                    continue
                seen[id(element)] = element_kind(box)
        counts.update(seen.values())
    return counts


def element_costs(pages: int = 30, elements: int = 100, runs: int = 3) -> dict[str, float]:
    """CPU seconds one element of each kind adds to a page: pages of a paragraph cut into
    ``elements`` parts, each part a span (inline), a div in flow (block), a div placed absolutely
    or relatively, a table cell; or the paragraph whole and ``elements`` QR codes of the pack
    (image); against the same pages with the paragraph whole. The least of ``runs`` interleaved
    runs of each."""
    from dealer.render.qrcodes import qr_img

    paragraph = PLAIN_TEXT[:330]
    step = len(paragraph) // elements
    parts = [paragraph[i * step:(i + 1) * step] for i in range(elements)]
    whole = f"<p>{paragraph[: elements * step]}</p>"
    rows = [parts[i:i + 10] for i in range(0, elements, 10)]
    bodies: dict[str, Callable[[int], str]] = {
        "whole": lambda page: whole,
        "inline": lambda page: "<p>" + "".join(f"<span>{part}</span>" for part in parts) + "</p>",
        "block": lambda page: "".join(f"<div>{part}</div>" for part in parts),
        "absolute": lambda page: "".join(
            f'<div style="position: absolute; left: {i % 10 * 20}mm; top: {i // 10 * 25}mm; width: 18mm">{part}</div>'
            for i, part in enumerate(parts)),
        "relative": lambda page: "".join(f'<div style="position: relative">{part}</div>' for part in parts),
        "cell": lambda page: "<table>" + "".join(
            "<tr>" + "".join(f"<td>{part}</td>" for part in row) + "</tr>" for row in rows) + "</table>",
        "image": lambda page: whole + "".join(qr_img(f"BENCH-{page}-{i}", 0.6) for i in range(elements)),
    }
    least = dict.fromkeys(bodies, float("inf"))
    for _ in range(runs):
        for kind, body in bodies.items():
            least[kind] = min(least[kind], least_cpu(plain_document([body(page) for page in range(pages)]), runs=1))
    return {kind: max(0.0, least[kind] - least["whole"]) / (pages * elements) for kind in bodies if kind != "whole"}


def floors(documents: list[Any], plain_page_cpu: float) -> str:
    """Below what the serial pack can cost in WeasyPrint with its pages' text and elements (see the
    module's docstring), and the best CPU ratio to plain pages that follows."""
    from dealer.render.engine import render_html

    layers = laid_out_layers(documents)
    laid_out = [render_html(doc.template, doc.common, [page], layer, pdf=True)
                for doc, layer, pages in layers for page in pages]
    texts = [re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", " ", page.split("<body", 1)[1].split(">", 1)[1])))
             .strip() for page in laid_out]
    text_cpu = least_cpu(plain_document([f"<p>{html.escape(text)}</p>" for text in texts]))
    counts = element_kinds(layers)
    costs = element_costs()
    elements_cpu = sum(count * costs[kind] for kind, count in counts.items())
    least = text_cpu + elements_cpu
    pages = sum(len(doc.pages) for doc in documents)
    budget = pages * plain_page_cpu / TARGET_RATIO
    listed = ", ".join(f"{counts[kind]:,} {kind} at {costs[kind] * 1000:.3f} ms" for kind in costs if counts[kind])
    return (f"floors: the {len(laid_out)} laid-out pages' text ({sum(map(len, texts)):,} characters) as plain "
            f"pages {text_cpu:.2f} CPU-s; their {sum(counts.values()):,} elements ({listed}, each kind's cost "
            f"on plain pages of this run) {elements_cpu:.2f} CPU-s; together {least:.2f} CPU-s: a serial CPU ratio "
            f"of at most {pages * plain_page_cpu / least:.3f} with these pages' elements (the target {TARGET_RATIO} "
            f"leaves {budget:.2f} CPU-s)")


if __name__ == "__main__":
    main()
