"""The tool's one Jinja2 environment: the print pack, the reports and the players' site render
through it (and a server would).

Made once per process (:func:`environment`): templates under :func:`dealer.resources.templates_dir`
(the site's under ``site/``), autoescaped, ``StrictUndefined`` (a name a context lacks is an
error, never an empty string), blocks trimmed, templates read once (no check of the file at
every page), the site's filters (:data:`dealer.render.rows.FILTERS`) and the ``qr`` global (an
``<img>`` of a QR code). Compiled templates are kept between processes (a rebuild of the site is
a new process) in Jinja's own folder for the user, under a digest of this module and the
filters' (:func:`_options_digest`: Jinja keys a template by its source alone).
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
from pathlib import Path
from typing import Any

import jinja2
import markupsafe

from dealer.resources import templates_dir


@functools.cache
def environment() -> jinja2.Environment:
    """The environment, one per process."""
    from dealer.render.qrcodes import qr_img
    from dealer.render.rows import FILTERS

    try:
        cache: jinja2.BytecodeCache | None = _KeptCompiled(
            pattern=f"__shengji_dealer_{_options_digest()}_%s.cache")
    except (OSError, RuntimeError):  # no safe folder for it: compiled in every process
        cache = None
    env = _DictFirst(
        loader=jinja2.FileSystemLoader(str(templates_dir())),
        autoescape=jinja2.select_autoescape(["html"]),
        trim_blocks=True,
        lstrip_blocks=True,
        undefined=jinja2.StrictUndefined,
        auto_reload=False,
        bytecode_cache=cache,
    )
    env.filters.update(FILTERS)
    env.globals["qr"] = lambda payload, module_mm=0.7: _markup(qr_img(payload, float(module_mm)))
    return env


def _markup(text: str) -> markupsafe.Markup:
    return markupsafe.Markup(text)


@functools.cache
def _options_digest() -> str:
    """A digest of this module's source and of the filters' module: the environment's options
    (trimming, escaping) and how each filter is called (given the render's context or not) are
    compiled into the code, which must not be reused once they change."""
    import dealer.render.rows

    h = hashlib.sha256()
    for source in (Path(__file__), Path(dealer.render.rows.__file__)):
        h.update(source.read_bytes())
    return h.hexdigest()[:16]


#: Names of a plain dict's methods: ``d.items`` is the method, whatever keys ``d`` holds.
_DICT_METHODS = frozenset(dir(dict))


class _DictFirst(jinja2.Environment):
    """``x.name`` on a plain dict (every page context) looks the key up first: Jinja's usual
    order tries the attribute and fails first, which is most of its time on a big page. A dict's
    own methods (``names.get``) stay what they are."""

    def getattr(self, obj: Any, attribute: str) -> Any:
        if type(obj) is dict and attribute not in _DICT_METHODS:
            try:
                return obj[attribute]
            except KeyError:
                pass
        return super().getattr(obj, attribute)


class _KeptCompiled(jinja2.FileSystemBytecodeCache):
    """Compiled templates kept in Jinja's own folder for the user; one that cannot be kept is
    compiled again next time."""

    def dump_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        with contextlib.suppress(OSError):
            super().dump_bytecode(bucket)
