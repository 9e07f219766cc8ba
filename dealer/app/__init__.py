"""The application layer: every use case of the tool once, each taking an :class:`EventSession`.

Faces sit above it (the ``dealer`` command, the demo, the players' site, the print pack, later
a server); storage (the event's folder and its results database) below it. A face opens one
session per command (later per request), calls use cases on it and words what they return.
"""

from dealer.app.session import EventSession
from dealer.store.chain import AuditMark
from dealer.store.folder import EventFolder

#: The faces' one door to an event: its session, its folder (where its files and outputs go), and
#: the mark of how far a build's audit of its results chain went (kept by the site between builds).
__all__ = ["AuditMark", "EventFolder", "EventSession"]
