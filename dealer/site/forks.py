"""Work spread over forked worker processes that reach one build's objects through the fork.

The function given to :func:`fork_map` (a bound method or a closure over a build's objects) is
handed to each worker by the pool's initializer: with the ``fork`` start method nothing is
pickled, the worker has the parent's memory as it was, and this process keeps nothing of it
once the pool is closed (no module-level state outlives the build).
"""

from __future__ import annotations

import multiprocessing
from collections.abc import Callable, Iterator, Sequence
from typing import Any

#: The function of the pool this worker serves; set in forked workers only, never here.
_WORKER: list[Callable[[Any], Any]] = []


def _install(function: Callable[[Any], Any]) -> None:
    _WORKER[:] = [function]


def _call(item: Any) -> Any:
    return _WORKER[0](item)


def can_fork() -> bool:
    return "fork" in multiprocessing.get_all_start_methods()


def fork_map(function: Callable[[Any], Any], items: Sequence[Any], processes: int) -> Iterator[Any]:
    """``function(item)`` of each of ``items`` in ``processes`` forked workers, as they finish."""
    with multiprocessing.get_context("fork").Pool(processes, initializer=_install, initargs=(function,)) as pool:
        yield from pool.imap_unordered(_call, items)
