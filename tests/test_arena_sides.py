"""Duplicate seatings by side: tables of 2 teams, 3 teams and seats playing alone."""

from __future__ import annotations

import json

import numpy as np
import pytest

from cardlab.analysis.report import build_report
from cardlab.analysis.scores import duplicate_table
from cardlab.arena.duplicate import play_duplicate_match
from cardlab.arena.entrants import bot_factory, labelled, parse_agent_list
from cardlab.arena.tournament import TournamentSettings, run_tournament
from cardlab.games import game_spec, seat_sides
from cardlab.results import ResultsError, load_results, read_manifest, seat_pattern

SIDES = [
    ("kaiser", {}, [0, 1, 0, 1]),
    ("kaiser", {"players": 2}, [0, 1]),
    ("kaiser", {"players": 3}, [0, 1, 2]),
    ("kaiser", {"players": 5}, [0, 1, 2, 3, 4]),
    ("kaiser", {"players": 6}, [0, 1, 0, 1, 0, 1]),
    ("kaiser", {"players": 6, "three_teams": True}, [0, 1, 2, 0, 1, 2]),
    ("twenty_eight", {}, [0, 1, 0, 1]),
    ("twenty_eight", {"players": 3}, [0, 1, 2]),
    ("twenty_eight", {"players": 6}, [0, 1, 2, 0, 1, 2]),
    ("literature", {"players": 8}, [0, 1] * 4),
]


@pytest.mark.parametrize("game, parameters, sides", SIDES)
def test_seat_sides_follow_the_rules_of_each_table(game, parameters, sides):
    assert seat_sides(game_spec(game).load(parameters)) == sides


def test_other_games_seat_two_sides_by_parity():
    import pyspiel

    assert seat_sides(pyspiel.load_game("kuhn_poker")) == [0, 1]


def test_seat_pattern_puts_the_first_agent_on_each_side_once():
    # Two teams by parity: the historical pattern (even seats, then odd seats).
    assert seat_pattern([(0, 1)], [0, 1, 0, 1]).tolist() == [[0, 1, 0, 1], [1, 0, 1, 0]]
    # Three teams of two: the first agent holds side 0, 1, 2 in turn, the second the other two.
    assert seat_pattern([(0, 1)], [0, 1, 2, 0, 1, 2]).tolist() == [
        [0, 1, 1, 0, 1, 1], [1, 0, 1, 1, 0, 1], [1, 1, 0, 1, 1, 0]]
    # Three agents, three seats alone: 3 pairs x 3 seatings.
    pattern = seat_pattern([(0, 1), (0, 2), (1, 2)], [0, 1, 2])
    assert pattern.shape == (9, 3)
    assert pattern[4].tolist() == [2, 0, 2]  # pair (0, 2), side 1


def _settings(parameters: dict, agents: str = "rules,random", deals: int = 12) -> TournamentSettings:
    return TournamentSettings("cardlab_kaiser", parameters, tuple(labelled(parse_agent_list(agents))),
                              deals, 5, 4)


@pytest.mark.parametrize("parameters", [{"players": 3}, {"players": 6, "three_teams": True}])
def test_tournament_plays_one_seating_per_side_and_scores_each_side(parameters, tmp_path):
    settings = _settings(parameters)
    run_tournament(settings, tmp_path, backend="serial", progress=False)
    manifest, table = load_results(tmp_path)
    assert manifest["settings"]["sides"] == list(settings.sides)
    assert manifest["settings"]["format"] == "round-robin duplicate, each side per pair"
    assert table.num_rows == 12 * 3
    assert set(table.column("pair").to_pylist()) == {0}
    # The score of deal d is the first agent's return summed over the side it held in each seating.
    returns = np.array(table.column("returns").to_pylist())
    seating = np.array(table.column("seating").to_pylist())
    deal = np.array(table.column("deal").to_pylist())
    held = [list(settings.sides).index(k) for k in range(3)]
    expected = np.zeros(12)
    for row in range(table.num_rows):
        expected[deal[row]] += returns[row, held[seating[row]]]
    scores = duplicate_table(table, settings.labels, settings.pairs, list(settings.sides))
    assert np.allclose(scores.scores[:, 0], expected)
    # The agents' seats in each row are the pattern's: the check in load_results passed, and
    # the report reads the run with its sides.
    report = build_report(tmp_path)
    assert len(report.duplicate.deals) == 12


def test_two_sided_runs_keep_the_historical_format(tmp_path):
    settings = _settings({}, deals=4)
    assert settings.sides == (0, 1, 0, 1)
    assert settings.to_json()["format"] == "round-robin duplicate, both parities per pair"
    run_tournament(settings, tmp_path, backend="serial", progress=False)
    # A run written before sides were stored has no "sides": it still reads, and resumes.
    path = tmp_path / "manifest.json"
    manifest = json.loads(path.read_text())
    del manifest["settings"]["sides"]
    path.write_text(json.dumps(manifest))
    load_results(tmp_path)
    again = run_tournament(settings, tmp_path, backend="serial", progress=False)
    assert again.chunks_played == 0
    assert "sides" not in read_manifest(tmp_path)["settings"]


def test_bad_sides_are_refused(tmp_path):
    with pytest.raises(ValueError, match="sides"):
        TournamentSettings("cardlab_kaiser", {}, tuple(labelled(parse_agent_list("rules,random"))),
                           4, 5, 4, sides=(0, 0, 0, 0))
    settings = _settings({}, deals=4)
    run_tournament(settings, tmp_path, backend="serial", progress=False)
    path = tmp_path / "manifest.json"
    manifest = json.loads(path.read_text())
    manifest["settings"]["sides"] = [0, 2, 0, 2]
    path.write_text(json.dumps(manifest))
    with pytest.raises(ResultsError, match="settings.sides"):
        load_results(tmp_path)


def test_duplicate_match_with_seats_alone_sums_every_side():
    game = game_spec("kaiser").load({"players": 3})
    spec_rules, spec_random = labelled(parse_agent_list("rules,random"))

    result = play_duplicate_match(game, bot_factory(spec_rules, game), bot_factory(spec_random, game),
                                  deals=3, seed=11)
    assert result.deals == 3 and all(np.isfinite(result.scores))
    # Two copies of one deterministic agent: every seating is the same game, and the sum of
    # the sides' returns is zero.
    mirror = play_duplicate_match(game, bot_factory(spec_rules, game), bot_factory(spec_rules, game),
                                  deals=3, seed=11)
    assert mirror.scores == pytest.approx([0.0, 0.0, 0.0], abs=1e-9)
