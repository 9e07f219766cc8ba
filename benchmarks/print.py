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
peak memory of the process by its end. Last, the pack's QR code of a label against the qrcode
library making it alone (the pack chooses the mask on arrays). The script benchmarks an older
commit of the project when run with ``PYTHONPATH`` pointing at a worktree of it (it uses
``build_documents``, ``render_documents``, ``label_payload`` and ``qr_matrix`` only).
"""

from __future__ import annotations

import argparse
import os
import resource
import tempfile
import time
from pathlib import Path

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


def plain_pages(pages: int) -> bytes:
    """The baseline: ``pages`` A4 pages of plain CJK text, one WeasyPrint document."""
    import weasyprint

    paragraph = PLAIN_TEXT[:330]
    body = "".join(f'<div class="page"><p>{paragraph}</p><p>{paragraph}</p></div>' for _ in range(pages))
    html = f'<html lang="zh-CN"><head><style>{PLAIN_STYLE}</style></head><body>{body}</body></html>'
    return bytes(weasyprint.HTML(string=html).write_pdf())


def warm_up() -> None:
    """Import weasyprint, and load the faces the pack prints in (regular and bold; the monospaced
    face that older commits used) once, before any timing: the baseline's timed pages find their
    one face loaded, so do the pack's documents (else the first of them, the hand records, pays
    the process's loading of the other faces)."""
    import weasyprint

    plain_pages(1)
    html = (f'<html lang="zh-CN"><head><style>{PLAIN_STYLE} .mono {{ font-family: "Noto Sans Mono CJK SC" }}'
            f'</style></head><body><p>{PLAIN_TEXT[:40]}</p><p><b>{PLAIN_TEXT[:40]}</b></p>'
            f'<p class="mono">{PLAIN_TEXT[:40]} 0123456789</p></body></html>')
    weasyprint.HTML(string=html).write_pdf()


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


if __name__ == "__main__":
    main()
