"""The scoring part of ``dealer demo``: import the sample travellers, write the reports."""

from __future__ import annotations

from collections.abc import Iterator
from importlib import resources
from pathlib import Path

from dealer.event import Event

SAMPLE_TRAVELLERS = "sample-travellers.csv"  # invented results for the demo event (样例数据)


def score_demo(event: Event, boards_root: Path, output_root: Path) -> Iterator[str]:
    """Import the sample travellers once (a second run is a no-op) and write every report."""
    from dealer.report import build_report, write_reports
    from dealer.results.importer import import_file
    from dealer.results.manage import missing, open_results

    conn = open_results(event, boards_root)
    try:
        with resources.as_file(resources.files("dealer") / "data" / SAMPLE_TRAVELLERS) as sample:
            yield "sample travellers (样例数据, invented for the demo): " + import_file(
                conn, event, sample, entered_by="demo").summary()
        gaps = [report for report in missing(conn, event) if report.gaps]
    finally:
        conn.close()
    for report in gaps:
        yield f"still missing: {report.text()}"
    data = build_report(event, boards_root)
    folder = output_root / event.slug / "reports"
    paths = write_reports(data, folder, ["html", "pdf", "csv", "xlsx"], "zh")
    yield f"results reports ({len(paths)} files) in {folder}/: " + ", ".join(p.name for p in paths)
    leader = data.standings[0]
    yield (f"standings leader: {leader.team} with {leader.match_points} match points, "
           f"net {leader.net_level_points:+d} level points")
