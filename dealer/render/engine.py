"""HTML from the Jinja2 templates, PDF from WeasyPrint, in parallel over chunks of pages.

A :class:`Document` is one output file: a template, a context common to its pages and the list
of page contexts (each template draws one sheet of paper per page context). Rendering splits the
pages of all documents into chunks, renders the chunks in a pool of worker processes and merges
each document's chunks with pypdf. ``import weasyprint`` happens inside functions only.
"""

from __future__ import annotations

import functools
import io
import os
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from dealer.files import OWNER_ONLY, write_atomic
from dealer.render.qrcodes import qr_img
from dealer.render.strings import strings
from dealer.resources import templates_dir

#: Below this many pages in all, rendering stays in this process (a pool costs a second).
PARALLEL_THRESHOLD = 24
CHUNK_PAGES = 16


@dataclass
class Document:
    path: Path
    kind: str
    template: str
    common: dict[str, Any]
    pages: list[dict[str, Any]]
    #: What the document holds besides pages, e.g. {"labels": 32} (for the summary).
    units: dict[str, int] = field(default_factory=dict)
    #: It shows cards: written owner-only (0600), as the board sets.
    secret: bool = False


@dataclass
class Written:
    path: Path
    kind: str
    pages: int
    size: int
    units: dict[str, int]
    secret: bool = False


@functools.cache
def _environment() -> Any:
    import jinja2

    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(templates_dir())),
        autoescape=jinja2.select_autoescape(["html"]),
        trim_blocks=True,
        lstrip_blocks=True,
        undefined=jinja2.StrictUndefined,
    )
    env.globals["qr"] = lambda payload, module_mm=0.7: _markup(qr_img(payload, float(module_mm)))
    return env


def _markup(text: str) -> Any:
    import markupsafe

    return markupsafe.Markup(text)


def render_html(template: str, common: dict[str, Any], pages: Sequence[dict[str, Any]]) -> str:
    context = dict(common)
    context["t"] = strings(str(common["lang"]))
    context["pages"] = pages
    return str(_environment().get_template(template).render(**context))


def render_pdf(template: str, common: dict[str, Any], pages: Sequence[dict[str, Any]]) -> bytes:
    """One PDF of the given pages (runs in worker processes too)."""
    import weasyprint

    html = render_html(template, common, pages)
    return bytes(weasyprint.HTML(string=html, base_url=str(templates_dir())).write_pdf())


def _merge(parts: Sequence[bytes]) -> bytes:
    if len(parts) == 1:
        return parts[0]
    from pypdf import PdfReader, PdfWriter

    writer = PdfWriter()
    for part in parts:
        writer.append(PdfReader(io.BytesIO(part)))
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def default_jobs() -> int:
    return max(1, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1))


def _write(doc: Document, data: bytes) -> None:
    # A unique temporary file, fsynced, then renamed over any earlier rendering of the same file
    # (two print runs at once never share a temporary file).
    write_atomic(doc.path, data, mode=OWNER_ONLY if doc.secret else None, replace=True, field="out")


def render_documents(
    documents: Sequence[Document],
    fmt: str = "pdf",
    jobs: int | None = None,
    progress: Callable[[int], None] | None = None,
) -> list[Written]:
    """Render every document to its path; ``progress(n)`` is called as ``n`` more pages are done.

    ``jobs`` = 1 renders each document whole in this process; more jobs render chunks of pages in
    that many worker processes.
    """
    jobs = default_jobs() if jobs is None else max(1, jobs)
    written: list[Written] = []
    if fmt == "html":
        for doc in documents:
            data = render_html(doc.template, doc.common, doc.pages).encode("utf-8")
            _write(doc, data)
            written.append(Written(doc.path, doc.kind, len(doc.pages), len(data), doc.units, doc.secret))
            if progress:
                progress(len(doc.pages))
        return written
    total = sum(len(doc.pages) for doc in documents)
    results: dict[int, list[bytes]] = {}
    if jobs == 1 or total < PARALLEL_THRESHOLD:
        for index, doc in enumerate(documents):
            results[index] = [render_pdf(doc.template, doc.common, doc.pages)] if doc.pages else []
            if progress:
                progress(len(doc.pages))
    else:
        size = max(1, min(CHUNK_PAGES, -(-total // (jobs * 2))))
        with ProcessPoolExecutor(max_workers=jobs) as pool:
            futures = {}
            for index, doc in enumerate(documents):
                chunks = [doc.pages[i:i + size] for i in range(0, len(doc.pages), size)]
                results[index] = [b""] * len(chunks)
                for position, chunk in enumerate(chunks):
                    future = pool.submit(render_pdf, doc.template, doc.common, chunk)
                    futures[future] = (index, position, len(chunk))
            for future in as_completed(futures):
                index, position, count = futures[future]
                results[index][position] = future.result()
                if progress:
                    progress(count)
    for index, doc in enumerate(documents):
        data = _merge(results[index]) if results[index] else b""
        _write(doc, data)
        written.append(Written(doc.path, doc.kind, len(doc.pages), len(data), doc.units, doc.secret))
    return written
