"""What players may see (:mod:`dealer.app.public`): one read model in the application layer, the
static site's and the live pages', holding the released sets only, the audited report and, from
the director's, counts only."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

from site_support import sixteen_team_site, swiss_site

from dealer.app import EventSession
from dealer.app.played import folder_seed
from dealer.app.public import published


def test_the_public_read_model_is_the_applications_and_both_faces_read_it() -> None:
    graph = sys.modules.get("import_graph")
    if graph is None:  # dev tooling, loaded by its path as tests/test_import_contract.py loads it
        spec = importlib.util.spec_from_file_location(
            "import_graph", Path(__file__).resolve().parents[1] / "scripts" / "import_graph.py")
        assert spec is not None and spec.loader is not None
        graph = sys.modules["import_graph"] = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(graph)
    _modules, edges = graph.build_graph()
    imported = {e.target for e in edges if e.source == "dealer.app.public"}
    assert [m for m in imported if m.startswith(("dealer.site", "dealer.serve", "dealer.render"))] == []
    assert {"dealer.site", "dealer.serve.livepages"} <= {e.source for e in edges if e.target == "dealer.app.public"}


def test_what_players_may_see_holds_the_released_sets_only(tmp_path: Path) -> None:
    event, folder, _site = swiss_site(tmp_path)  # every round played; sets 1 and 2 released, 3 not
    with EventSession.open(event, folder) as session:
        shown = published(session)
    assert sorted(shown.released) == sorted(shown.boardsets) == [1, 2]
    assert shown.key_release is None and shown.unused == {} and shown.withheld == {}
    # nothing withheld: the public report is the director's scores, its field's figures counting
    # the released sets only (issue 39)
    assert shown.data.scored is shown.scores.scored and shown.data.standings is shown.scores.standings
    assert shown.data.public_sets == {1, 2} and shown.scores.public_sets is None
    assert shown.scores.audited is not None  # audited before anything is shown
    assert shown.lots_seed == folder_seed(folder)
    assert (shown.progress, shown.missing_matches) == ({}, 0)


def test_a_round_in_play_shows_counts_and_withholds_the_boards_the_field_has_not_played(tmp_path: Path) -> None:
    event, folder, _site = sixteen_team_site(tmp_path)  # the final misses its last two results
    with EventSession.open(event, folder) as session:
        shown = published(session)
        final = max(r.number for r in session.event.rounds)
    assert 4 not in shown.boardsets and shown.withheld  # its set is neither released nor played out
    assert shown.missing_matches == 1
    progress = shown.progress[final]
    assert (progress["matches"], progress["matches_done"]) == (1, 0)
    assert [w["boards"] for w in progress["waiting"]] and all(isinstance(b, int) for w in progress["waiting"]
                                                              for b in w["boards"])
    # The public report leaves the withheld boards out; the director's keeps them.
    assert shown.data is not shown.scores
