"""The print pack: hand records, wallet labels, curtain cards, dealing guide, travellers and
score sheets, rendered from ``templates/`` by WeasyPrint.

``build_documents`` (the writer table of :mod:`dealer.render.writers`) prepares the pages;
``render_documents`` (:mod:`dealer.render.engine`) renders them, in parallel when it pays.
"""

from dealer.render.engine import Document, Written, default_jobs, render_documents
from dealer.render.writers import (
    KINDS,
    WRITERS,
    PrintOptions,
    PrintPlan,
    build_documents,
    expand_kinds,
    plan_documents,
)

__all__ = [
    "KINDS",
    "WRITERS",
    "Document",
    "PrintOptions",
    "PrintPlan",
    "Written",
    "build_documents",
    "default_jobs",
    "expand_kinds",
    "plan_documents",
    "render_documents",
]
