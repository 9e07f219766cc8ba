"""HTML from the Jinja2 templates, PDF from WeasyPrint, in parallel over chunks of pages.

A :class:`Document` is one output file: a template, a context common to its pages and the list
of page contexts (each template draws one sheet of paper per page context). Rendering splits the
pages of all documents into chunks, renders the chunks in a pool of worker processes and merges
each document's chunks with pypdf. ``import weasyprint`` happens inside functions only.

A *layered* document (curtain cards, labels, travellers, score sheets: the same slips in many
copies) is drawn in layers, named in ``Document.layers``, bottom first. The template reads
``layer``: "base" draws what many pages share (a curtain card's cards, a result slip's boxes and
conversion table), "top" what is each page's own (QR codes, the copy number), a layer between them
what a group of pages shares (a match's lines on its result slips), "all" everything (HTML output).
The parts of the upper layers sit in boxes of fixed size or place, so every layer puts each line
where the one-layer page does. Each layer's distinct pages (pages whose layer is the same HTML) are
laid out once and stored once, as form XObjects that each page draws in turn: WeasyPrint lays out
a copy number or a QR code a page instead of every card, and the PDF holds the cards of a set once
instead of once a copy.
"""

from __future__ import annotations

import contextlib
import functools
import gc
import io
import os
import re
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from dealer.files import OWNER_ONLY, write_atomic
from dealer.render.strings import strings
from dealer.resources import templates_dir

#: Below this many pages in all, rendering stays in this process (a pool costs a second).
PARALLEL_THRESHOLD = 24


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
    #: The layers it is drawn in, bottom first (see the module's docstring); none: one layer,
    #: "all". The template must read ``layer``.
    layers: tuple[str, ...] = ()
    #: A page for a screen, not paper (the projector's timer): always written as its HTML.
    screen: bool = False


@dataclass
class Written:
    path: Path
    kind: str
    pages: int
    size: int
    units: dict[str, int]
    secret: bool = False


def _markup(text: str) -> Any:
    import markupsafe

    return markupsafe.Markup(text)


def render_html(template: str, common: dict[str, Any], pages: Sequence[dict[str, Any]], layer: str = "all",
                pdf: bool = False, sketch: bool = False) -> str:
    """The HTML of the pages; for a PDF (``pdf``) without links to the stylesheets, which WeasyPrint
    is given parsed. A ``sketch`` has each QR code as one tag naming its payload, not an image: it
    tells pages apart and counts their elements without making the codes."""
    context = dict(common)
    context["pdf"] = pdf
    context["t"] = strings(str(common["lang"]))
    context["pages"] = pages
    context["layer"] = layer
    if sketch:
        context["qr"] = _qr_sketch
    from dealer.render.templates import environment

    return str(environment().get_template(template).render(**context))


def _qr_sketch(payload: str, module_mm: float = 0.7) -> Any:
    return _markup(f"<qr {payload!r} {module_mm}>")


@functools.cache
def _font_config() -> Any:
    """One font configuration a process: fontconfig is asked about the faces once, not per chunk."""
    from weasyprint.text.fonts import FontConfiguration

    return FontConfiguration()


@functools.cache
def _stylesheet(name: str) -> Any:
    """A template stylesheet, parsed once a process (WeasyPrint CSS objects are reusable)."""
    import weasyprint

    return weasyprint.CSS(filename=str(templates_dir() / name), font_config=_font_config())


#: Pseudo-elements that WeasyPrint's HTML user-agent stylesheet gives every element and that the
#: pack never shows: list markers (it has no list items), footnote and note calls and markers (it
#: has no notes). WeasyPrint computes a style for each of them on every element of a document:
#: about a tenth of a pack's CPU time; without those rules every page is drawn the same
#: (tests/test_print_pack.py).
UNUSED_PSEUDO_ELEMENTS = ("marker", "footnote-call", "footnote-marker", "note-call", "note-marker", "note-callback")
UNUSED_UA_RULES = re.compile(rf"^::({'|'.join(UNUSED_PSEUDO_ELEMENTS)}) *\{{[^{{}}]*\}}\n?", re.MULTILINE)


@functools.cache
def _html_class() -> Any:
    """``weasyprint.HTML`` with the user-agent stylesheet less those of :data:`UNUSED_UA_RULES`
    it holds (each is unused on its own). The stylesheet is WeasyPrint's own file, read as
    WeasyPrint reads it; if it holds none of them, or WeasyPrint no longer asks
    ``_ua_stylesheets`` for it, the pack is drawn with the full stylesheet (the same pages, more
    slowly)."""
    from importlib.resources import files

    import weasyprint

    text = (files("weasyprint.css") / "html5_ua.css").read_text("utf-8")
    trimmed, removed = UNUSED_UA_RULES.subn("", text)
    if not removed or not hasattr(weasyprint.HTML, "_ua_stylesheets"):
        return weasyprint.HTML
    user_agent = weasyprint.CSS(string=trimmed)

    class PackHTML(weasyprint.HTML):  # type: ignore[misc]
        def _ua_stylesheets(self, forms: bool = False) -> list[Any]:
            return [user_agent, *super()._ua_stylesheets(forms)[1:]]

    return PackHTML


def html_document(html: str) -> Any:
    """The WeasyPrint document of a page of the pack's HTML (the stylesheets' links resolved in
    ``templates/``)."""
    return _html_class()(string=html, base_url=str(templates_dir()))


@contextlib.contextmanager
def _collector_paused() -> Iterator[None]:
    """Python's cycle collector paused while WeasyPrint makes one PDF: the boxes and styles it
    builds live until the PDF is written, and the collector would walk them again and again as
    they pile up: about a tenth of a pack's CPU time, for 2% more peak memory in a 40-match pack.
    Reference counting frees as usual; cycles wait for the next collection after the PDF."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def render_pdf(template: str, common: dict[str, Any], pages: Sequence[dict[str, Any]], layer: str = "all",
               pdf: bool = True) -> bytes:
    """One PDF of the given pages (runs in worker processes too)."""
    html = render_html(template, common, pages, layer, pdf)
    sheets = [_stylesheet("base.css"), _stylesheet(str(common["css"])),
              *(_stylesheet(str(name)) for name in common.get("extra_css", ()))]
    with _collector_paused():
        return bytes(html_document(html).write_pdf(stylesheets=sheets, font_config=_font_config()))


def distinct_pages(doc: Document, layer: str) -> tuple[list[dict[str, Any]], list[int], list[int]]:
    """The distinct pages of one layer of a document (pages whose layer is the same HTML share one),
    for each page the index of its distinct page, and for each distinct page its number of elements
    (WeasyPrint's time is about 1 ms an element: the parallel renderer balances work by it)."""
    distinct: list[dict[str, Any]] = []
    costs: list[int] = []
    seen: dict[str, int] = {}
    index = []
    for page in doc.pages:
        key = render_html(doc.template, doc.common, [page], layer, sketch=True)
        if key not in seen:
            seen[key] = len(distinct)
            distinct.append(page)
            costs.append(key.count("<"))
        index.append(seen[key])
    return distinct, index, costs


def _form(writer: Any, page: Any) -> Any:
    """A page of another PDF as a form XObject added to ``writer`` (its resources cloned once)."""
    from pypdf.generic import DecodedStreamObject, NameObject

    form = DecodedStreamObject()
    form.set_data(page.get_contents().get_data())
    form[NameObject("/Type")] = NameObject("/XObject")
    form[NameObject("/Subtype")] = NameObject("/Form")
    form[NameObject("/BBox")] = page.mediabox
    # The page's own entry: WeasyPrint's pages share one resource dictionary (every image of the
    # document), kept shared by cloning the reference, not the dictionary, for each form.
    form[NameObject("/Resources")] = page.raw_get("/Resources").clone(writer)
    return writer._add_object(form.flate_encode())


def compose(layers: Sequence[tuple[bytes, Sequence[int]]]) -> bytes:
    """One PDF from the layers' PDFs of distinct pages, bottom first: page ``i`` draws page
    ``index[i]`` of each layer. Every distinct page of a layer is stored once, as a form XObject;
    the top layer's pages are the pages themselves when none repeats."""
    from pypdf import PdfReader, PdfWriter
    from pypdf.generic import ArrayObject, DictionaryObject, NameObject

    *under, (top, top_index) = layers
    tops = PdfReader(io.BytesIO(top))
    if list(top_index) == list(range(len(tops.pages))):
        writer = PdfWriter(clone_from=tops)
        pages = list(writer.pages)
        drawn = [page.raw_get("/Contents") for page in pages]
    else:  # top pages repeat: the top layer is drawn as forms too
        writer = PdfWriter()
        top_forms = [_form(writer, page) for page in tops.pages]
        pages, drawn = [], []
        for number in top_index:
            box = tops.pages[number].mediabox
            page = writer.add_blank_page(float(box.width), float(box.height))
            page[NameObject("/Resources")] = DictionaryObject(
                {NameObject("/XObject"): DictionaryObject({NameObject(f"/SjdTop{number}"): top_forms[number]})})
            pages.append(page)
            drawn.append(_stream(writer, f"q /SjdTop{number} Do Q\n"))
    forms = [[_form(writer, page) for page in PdfReader(io.BytesIO(data)).pages] for data, _ in under]
    for position, page in enumerate(pages):
        resources = page["/Resources"].get_object()
        assert isinstance(resources, DictionaryObject)
        if "/XObject" not in resources:
            resources[NameObject("/XObject")] = DictionaryObject()
        xobjects = resources["/XObject"].get_object()
        assert isinstance(xobjects, DictionaryObject)
        draws = []
        for layer, (_, index) in enumerate(under):
            # Pages may share one resource dictionary: each form has a name of its own.
            name = f"/SjdLayer{layer}Page{index[position]}"
            xobjects[NameObject(name)] = forms[layer][index[position]]
            draws.append(f"q {name} Do Q\n")
        page[NameObject("/Contents")] = ArrayObject([_stream(writer, "".join(draws)), drawn[position]])
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def _stream(writer: Any, text: str) -> Any:
    from pypdf.generic import DecodedStreamObject

    stream = DecodedStreamObject()
    stream.set_data(text.encode("ascii"))
    return writer._add_object(stream)


def pdf_page_count(data: bytes) -> int:
    """The pages a PDF holds, as a reader counts them (a document's planned page can flow onto a
    second sheet: the summary says what was printed)."""
    if not data:
        return 0
    from pypdf import PdfReader

    return len(PdfReader(io.BytesIO(data)).pages)


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
    for doc in documents:
        if fmt == "html" or doc.screen:
            data = render_html(doc.template, doc.common, doc.pages).encode("utf-8")
            _write(doc, data)
            written.append(Written(doc.path, doc.kind, len(doc.pages), len(data), doc.units, doc.secret))
            if progress:
                progress(len(doc.pages))
    documents = [doc for doc in documents if not (fmt == "html" or doc.screen)]
    if not documents:
        return written
    total = sum(len(doc.pages) for doc in documents)
    if jobs == 1 or total < PARALLEL_THRESHOLD:
        for doc in documents:
            if not doc.pages:
                data = b""
            elif not doc.layers:
                data = render_pdf(doc.template, doc.common, doc.pages, pdf=True)
            else:
                layers = []
                for layer in doc.layers:
                    pages, index, _ = distinct_pages(doc, layer)
                    layers.append((render_pdf(doc.template, doc.common, pages, layer, pdf=True), index))
                data = compose(layers)
            _write(doc, data)
            written.append(Written(doc.path, doc.kind, pdf_page_count(data), len(data), doc.units, doc.secret))
            if progress:
                progress(len(doc.pages))
        return written
    # Work units: chunks of the pages each document lays out: its pages, or each layer's distinct
    # pages. Each chunk's PDF carries its own font subsets, so a document is cut only when it holds
    # more than a quarter of the work (by elements, as WeasyPrint's time goes); the largest units go
    # first, so the workers finish together. Progress counts a document's pages as its top layer's
    # chunks are done.
    import weasyprint  # noqa: F401  (imported once here: forked workers inherit it)

    _font_config()
    _html_class()
    work: list[tuple[int, str, list[dict[str, Any]], list[int], list[int]]] = []  # document, layer, pages, cost, done
    indexes: dict[tuple[int, str], list[int]] = {}  # a layer's index of distinct pages
    for number, doc in enumerate(documents):
        if not doc.layers:  # every page, even two alike
            costs = [render_html(doc.template, doc.common, [page], sketch=True).count("<") for page in doc.pages]
            work.append((number, "all", doc.pages, costs, [1] * len(doc.pages)))
        for layer in doc.layers:
            pages, index, costs = distinct_pages(doc, layer)
            indexes[(number, layer)] = index
            if layer == doc.layers[-1]:
                drawn = Counter(index)
                work.append((number, layer, pages, costs, [drawn[i] for i in range(len(pages))]))
            else:
                work.append((number, layer, pages, costs, [0] * len(pages)))
    share = -(-sum(sum(costs) for *_, costs, _ in work) // (jobs * 2))
    units: list[tuple[int, str, int, list[dict[str, Any]], int, int]] = []  # ..., position, pages, cost, done
    for number, layer, pages, costs, counts in work:
        chunks = min(len(pages), -(-sum(costs) // share)) if share else 1
        step = -(-len(pages) // chunks) if chunks else 1
        units += [(number, layer, i // step, pages[i:i + step], sum(costs[i:i + step]), sum(counts[i:i + step]))
                  for i in range(0, len(pages), step)]
    parts: dict[tuple[int, str], dict[int, bytes]] = {}
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        futures = {}
        for number, layer, position, pages, _, count in sorted(units, key=lambda unit: -unit[4]):  # largest first
            doc = documents[number]
            future = pool.submit(render_pdf, doc.template, doc.common, pages, layer, True)
            futures[future] = (number, layer, position, count)
        for future in as_completed(futures):
            number, layer, position, count = futures[future]
            parts.setdefault((number, layer), {})[position] = future.result()
            if progress and count:
                progress(count)

    def merged(number: int, layer: str) -> bytes:
        found = parts.get((number, layer), {})
        return _merge([found[i] for i in sorted(found)]) if found else b""

    for number, doc in enumerate(documents):
        if not doc.pages:
            data = b""
        elif not doc.layers:
            data = merged(number, "all")
        else:
            data = compose([(merged(number, layer), indexes[(number, layer)]) for layer in doc.layers])
        _write(doc, data)
        written.append(Written(doc.path, doc.kind, pdf_page_count(data), len(data), doc.units, doc.secret))
    return written
