"""Local best response against the exact best response, agents' distributions, and the AIVAT estimator."""

from __future__ import annotations

import json

import numpy as np
import pyarrow as pa
import pytest

import cardlab  # noqa: F401
from cardlab.arena import native
from cardlab.arena.entrants import AgentSpec, native_tables
from cardlab.arena.tournament import TournamentSettings, run_tournament
from cardlab.cli import main
from cardlab.core.rng import make_stream
from cardlab.evaluation import aivat
from cardlab.evaluation.exact import check_against_best_response
from cardlab.evaluation.lbr import exploit
from cardlab.games import game_spec, kernels
from cardlab.results import load_results

#: The small games solved exactly (docs/cfr.md), each with the share of the exact best response's
#: gain LBR reaches at the least, summed over the seats and at the worst seat (measured: the test
#: prints the values; docs/evaluation.md lists them).
SMALL_GAMES = {
    "kaiser_1_short": ("kaiser", {"hand_size": 1, "min_bid": 3}),
    "kaiser_1": ("kaiser", {"hand_size": 1}),
    "twenty_eight_1_short": ("twenty_eight", {"hand_size": 1, "bidding_rounds": 1, "max_bid": 6}),
    "twenty_eight_1": ("twenty_eight", {"hand_size": 1, "bidding_rounds": 1, "max_bid": 8}),
    "literature_2x2_1": ("literature", {"players": 4, "half_suit_size": 2, "half_suits": 2, "max_asks": 1}),
}
#: LBR reaches at least this share of the best response's gain over the agent's own play, summed over
#: the seats, and at least WORST_SEAT at every seat (default options).
TOTAL_SHARE = 0.7
WORST_SEAT = 0.3
KAISER_POLICY = "cardlab/agents/policies/cardlab_kaiser-coarse.npz"


# ---- local best response --------------------------------------------------------------
@pytest.mark.parametrize("variant", list(SMALL_GAMES))
@pytest.mark.parametrize("agent", ["rules", "random"])
def test_lbr_never_beats_the_exact_best_response_and_comes_close(variant, agent):
    name, parameters = SMALL_GAMES[variant]
    checks = check_against_best_response(game_spec(name).load(parameters), AgentSpec(agent, agent))
    gain = sum(c.best_response_value - c.agent_value for c in checks)
    found = sum(c.lbr_value - c.agent_value for c in checks)
    print(variant, agent, [round(c.fraction, 3) for c in checks], round(found / gain if gain else 1.0, 3))
    for check in checks:
        assert check.lbr_value <= check.best_response_value + 1e-9  # a strategy never beats the best one
        assert check.fraction >= WORST_SEAT
    assert gain <= 1e-9 or found / gain >= TOTAL_SHARE


def test_lbr_equals_the_best_response_against_the_rules_in_one_card_kaiser():
    """Against a deterministic bidder that its inference reads exactly, every LBR seat is a best response."""
    game = game_spec("kaiser").load({"hand_size": 1, "min_bid": 3})
    for check in check_against_best_response(game, AgentSpec("rules", "rules")):
        assert check.lbr_value == pytest.approx(check.best_response_value)


def test_exact_check_refuses_an_agent_without_a_known_distribution():
    game = game_spec("kaiser").load({"hand_size": 1, "min_bid": 3})
    with pytest.raises(ValueError, match="no exactly known action distribution"):
        check_against_best_response(game, AgentSpec("ismcts", "ismcts", {"simulations": 10}))


def test_exploit_is_seeded_and_independent_of_the_chunks():
    small = {"hand_size": 1}
    one = exploit("kaiser", small, AgentSpec("random", "random"), 12, 5, {"worlds": 4}, chunk_size=12)
    other = exploit("kaiser", small, AgentSpec("random", "random"), 12, 5, {"worlds": 4}, chunk_size=5)
    assert np.array_equal(one.scores, other.scores) and one.deals == 12
    low, high = one.interval()
    assert low <= one.mean <= high


def test_lbr_takes_points_from_the_rule_based_player_in_kaiser():
    result = exploit("kaiser", {}, AgentSpec("rules", "rules"), 40, 2026)
    low, _ = result.interval()
    assert result.mean > 0 and low > -5  # a seeded run: the bound is positive, the interval honest


@pytest.mark.parametrize("arguments, message", [
    (["--agent", "cfr:policy=x.npz"], "exploit needs an agent of the compiled arena"),
    (["--agent", "rules", "--lbr", "worlds=0"], "option worlds must be an integer"),
    (["--agent", "rules", "--lbr", "worlds"], "must look like key=value"),
    (["--agent", "rules", "--deals", "0"], "--deals must be a positive integer"),
    (["--agent", "nobody"], "nobody"),
    (["--agent", "rules", "--param", "hand_size=0"], "hand_size"),
])
def test_exploit_command_errors_are_one_line(arguments, message, capsys):
    assert main(["exploit", "--game", "kaiser", "--quiet", *arguments]) == 2
    # On a cold cache the game's kernels may compile first, and say so in a line of their own.
    lines = [line for line in capsys.readouterr().err.splitlines() if not line.startswith("compiling ")]
    assert len(lines) == 1 and message in lines[0]


def test_exploit_command_prints_and_writes_the_bound(tmp_path, capsys):
    out = tmp_path / "lbr.json"
    assert main(["exploit", "--game", "kaiser", "--param", "hand_size=1", "--agent", "random", "--deals", "6",
                 "--lbr", "worlds=4,agent_moves=1", "--quiet", "--out", str(out)]) == 0
    assert "points per deal the agent loses" in capsys.readouterr().out
    written = json.loads(out.read_text())
    assert len(written["scores"]) == 6 and written["options"]["worlds"] == 4
    assert written["command"].startswith("cardlab exploit --game kaiser")


# ---- agents' distributions -----------------------------------------------------------------
@pytest.fixture(scope="module")
def kaiser():
    return game_spec("kaiser").load({})


def _midgame(game, seed, moves):
    """A rule-based game's state after ``moves`` actions (chance included)."""
    state = game.new_initial_state()
    rng = np.random.default_rng(seed)
    while len(state.history()) < moves:
        if state.is_chance_node():
            state.apply_action(int(rng.choice([a for a, _ in state.chance_outcomes()])))
        else:
            state.apply_action(int(kernels.rules_action(kernels.KAISER, state.array, np.zeros(1, np.uint64))))
    return state


def test_distributions_of_the_native_agents(kaiser):
    specs = [AgentSpec("random", "random"), AgentSpec("rules", "rules"),
             AgentSpec("ismcts", "ismcts", {"simulations": 50}),
             AgentSpec("cfr-bidding", "cfr-bidding", {"policy": KAISER_POLICY})]
    kinds, options, policies = native_tables(specs, kaiser)
    allowed = native.agent_kinds(kinds)
    actions = np.empty(kernels.MAX_LEGAL_ACTIONS, dtype=np.int64)
    probabilities = np.empty(kernels.MAX_LEGAL_ACTIONS)
    for moves in (33, 40, 50):  # bidding, then card play
        state = _midgame(kaiser, moves, moves)
        legal = state.legal_actions()
        for agent in range(4):
            n, exact = native.agent_policy(kernels.KAISER, allowed, agent, kinds, options, policies,
                                           state.array, np.array([7], dtype=np.uint64), actions,
                                           probabilities)
            assert list(actions[:n]) == legal and probabilities[:n].sum() == pytest.approx(1.0)
            assert exact == (agent != 2)  # ISMCTS's visit shares are a view, not how it plays
            known = native.behaviour_policy(kernels.KAISER, allowed, agent, kinds, options, policies,
                                            state.array, actions, probabilities)
            assert (known < 0) == (agent == 2)
        native.behaviour_policy(kernels.KAISER, allowed, 1, kinds, options, policies, state.array, actions,
                                probabilities)
        rules = kernels.rules_action(kernels.KAISER, state.array, np.zeros(1, np.uint64))
        assert probabilities[:len(legal)].tolist() == [float(a == rules) for a in legal]


def test_the_net_agent_draws_from_its_softmax_and_says_so(kaiser):
    """``net``'s distribution is exact: all on the move it plays at temperature 0, and at 1 the
    softmax its draws follow (2,000 draws within four standard errors of each probability)."""
    specs = [AgentSpec("net", "net"), AgentSpec("net-warm", "net", {"temperature": 1.0})]
    kinds, options, policies = native_tables(specs, kaiser)
    allowed = native.agent_kinds(kinds)
    actions = np.empty(kernels.MAX_LEGAL_ACTIONS, dtype=np.int64)
    probabilities = np.empty(kernels.MAX_LEGAL_ACTIONS)
    scratch = np.empty(kernels.MAX_LEGAL_ACTIONS, dtype=np.int64)
    for moves in (33, 44):  # bidding, then card play
        state = _midgame(kaiser, moves, moves)
        s, legal = state.array, state.legal_actions()
        shown = []
        for agent in (0, 1):
            n, exact = native.agent_policy(kernels.KAISER, allowed, agent, kinds, options, policies, s,
                                           make_stream(1), actions, probabilities)
            assert exact and list(actions[:n]) == legal and probabilities[:n].sum() == pytest.approx(1.0)
            shown.append(probabilities[:n].copy())
        seatings = [(0, 1)] + [(1, seed) for seed in range(2000)]
        draws = [native.seat_action(kernels.KAISER, allowed, agent, kinds, options, policies, s,
                                    make_stream(seed), scratch) for agent, seed in seatings]
        assert shown[0].tolist() == [float(action == draws[0]) for action in legal]
        assert 0.0 < shown[1].max() < 1.0
        for action, p in zip(legal, shown[1], strict=True):
            assert abs(draws[1:].count(action) / 2000 - p) <= 4 * (p * (1 - p) / 2000) ** 0.5 + 1e-9


def test_ismcts_plays_the_most_visited_of_its_shares(kaiser):
    state = _midgame(kaiser, 3, 40)
    row = native_tables([AgentSpec("ismcts", "ismcts", {"simulations": 200})], kaiser)[1][0]
    actions = np.empty(kernels.MAX_LEGAL_ACTIONS, dtype=np.int64)
    shares = np.empty(kernels.MAX_LEGAL_ACTIONS)
    from cardlab.agents.ismcts import search

    n = search.visit_shares(kernels.KAISER, row, state.array, np.array([11], dtype=np.uint64), actions,
                            shares)
    chosen = search.decide(kernels.KAISER, row, state.array, np.array([11], dtype=np.uint64),
                           np.empty(kernels.MAX_LEGAL_ACTIONS, dtype=np.int64))
    assert shares[:n].sum() == pytest.approx(1.0) and chosen == actions[int(np.argmax(shares[:n]))]


def _tournament(tmp_path, game, agents, deals, seed=3, backend="serial"):
    settings = TournamentSettings(game, {}, tuple(agents), deals, seed, chunk_size=max(1, deals // 2))
    run_tournament(settings, tmp_path, backend=backend, workers=1, progress=False)
    return load_results(tmp_path)


def test_the_arena_records_the_known_distributions(tmp_path, kaiser):
    agents = [AgentSpec("random", "random"),
              AgentSpec("cfr-bidding", "cfr-bidding", {"policy": KAISER_POLICY}), AgentSpec("rules", "rules")]
    _, table = _tournament(tmp_path / "native", "cardlab_kaiser", agents, 4)
    rows = table.to_pylist()
    for row in rows:
        replay = kaiser.new_initial_state()
        recorded = dict(zip(row["policy_steps"], zip(row["policy_actions"], row["policy_probabilities"],
                                                     strict=True), strict=True))
        for step, action in enumerate(row["actions"]):
            if replay.is_chance_node():
                assert step not in recorded
            else:
                who = row["seat_agents"][replay.current_player()]
                stochastic = who == "random" or (who == "cfr-bidding" and replay.array[0] == 1)  # bidding
                legal = replay.legal_actions()
                if step in recorded:
                    actions, probabilities = recorded[step]
                    assert stochastic and actions == legal and sum(probabilities) == pytest.approx(1)
                    assert action in [a for a, p in zip(actions, probabilities, strict=True) if p > 0]
                    if who == "random":
                        assert probabilities == pytest.approx([1 / len(legal)] * len(legal))
                else:
                    assert who == "rules" or len(legal) == 1 or who == "cfr-bidding"
            replay.apply_action(action)
    # The Python loop (a Python-factory rules agent forces it) records the same for the native agents.
    python_agents = [agents[0], agents[1], AgentSpec("rules", "py:cardlab.agents.rules:make_rules")]
    _, python_table = _tournament(tmp_path / "python", "cardlab_kaiser", python_agents, 4)
    for column in aivat.POLICY_COLUMNS + ["actions"]:
        assert python_table.column(column).to_pylist() == table.column(column).to_pylist()


# ---- the AIVAT estimator ----------------------------------------------------------------------
def test_identical_seatings_cancel_exactly(tmp_path):
    manifest, table = _tournament(tmp_path, "cardlab_kaiser", [AgentSpec("rules", "rules"),
                                                               AgentSpec("rules#2", "rules")], 6)
    reduced = aivat.reduce(manifest, table, samples=4)
    assert reduced.terms > 0 and reduced.fallbacks == 0
    assert np.array_equal(reduced.plain.scores, np.zeros_like(reduced.plain.scores))
    assert np.allclose(reduced.reduced.scores, 0.0, atol=1e-9)


def _correction_z(reduced):
    difference = reduced.reduced.scores - reduced.plain.scores
    return difference.mean(axis=0) / (difference.std(axis=0, ddof=1) / np.sqrt(len(difference)))


@pytest.mark.parametrize("game, policy", [("cardlab_kaiser", KAISER_POLICY),
                                          ("cardlab_twenty_eight",
                                           "cardlab/agents/policies/cardlab_twenty_eight-coarse.npz")])
def test_aivat_corrections_average_zero_and_narrow_the_interval(tmp_path, game, policy):
    agents = [AgentSpec("rules", "rules"), AgentSpec("cfr-bidding", "cfr-bidding", {"policy": policy}),
              AgentSpec("random", "random")]
    manifest, table = _tournament(tmp_path, game, agents, 200)
    reduced = aivat.reduce(manifest, table, samples=16)
    assert np.all(np.abs(_correction_z(reduced)) < 4)
    plain = reduced.plain.scores.std(axis=0)
    assert np.all(reduced.reduced.scores.std(axis=0) < plain)


@pytest.mark.integration  # compiles the play-outs with the network in them
def test_net_is_played_out_by_itself_and_its_pairs_narrow(tmp_path):
    """``net`` plays its own seats in the value function's play-outs (no stand-in), so the reveal
    terms value the cards for the players who hold them: unbiased, and narrower."""
    agents = [AgentSpec("rules", "rules"), AgentSpec("net", "net")]
    manifest, table = _tournament(tmp_path, "cardlab_kaiser", agents, 150)
    reduced = aivat.reduce(manifest, table, samples=64)  # 3.4 times narrower (1.7 at 16 play-outs)
    assert not reduced.notes and reduced.fallbacks == 0
    assert np.all(np.abs(_correction_z(reduced)) < 4)
    assert reduced.reduced.scores.std() < 0.5 * reduced.plain.scores.std()


def test_a_wrong_distribution_is_caught(tmp_path):
    """The zero-mean check has power: corrections from a distribution the agent does not play are biased."""
    manifest, table = _tournament(tmp_path, "cardlab_kaiser", [AgentSpec("rules", "rules"),
                                                               AgentSpec("random", "random")], 150)
    probabilities = table.column("policy_probabilities").to_pylist()
    wrong = [[[1.0] + [0.0] * (len(p) - 1) for p in row] for row in probabilities]  # "always the first"
    table = table.set_column(table.column_names.index("policy_probabilities"), "policy_probabilities",
                             pa.array(wrong, table.schema.field("policy_probabilities").type))
    assert np.abs(_correction_z(aivat.reduce(manifest, table, samples=4))).max() > 4


def test_folders_without_recorded_distributions_still_reduce(tmp_path):
    manifest, table = _tournament(tmp_path, "cardlab_kaiser", [AgentSpec("rules", "rules"),
                                                               AgentSpec("random", "random")], 6)
    full = aivat.reduce(manifest, table, samples=4)
    older = aivat.reduce(manifest, table.drop_columns(aivat.POLICY_COLUMNS), samples=4)
    assert 0 < older.terms < full.terms  # the reveals only
    assert np.array_equal(older.plain.scores, full.plain.scores)


def test_aivat_refuses_literature():
    table = pa.table({"actions": pa.array([[0]], pa.list_(pa.int16()))})
    with pytest.raises(ValueError, match="covers cardlab_kaiser and cardlab_twenty_eight"):
        aivat.game_corrections("cardlab_literature", {}, [], table)


def test_report_prints_both_estimators(tmp_path, capsys):
    _tournament(tmp_path, "cardlab_kaiser", [AgentSpec("rules", "rules"), AgentSpec("random", "random")], 6)
    assert main(["report", str(tmp_path), "--no-plots", "--estimator", "aivat", "--samples", "4",
                 "--resamples", "200"]) == 0
    out = capsys.readouterr().out
    assert "plain and aivat estimators" in out and "narrower" in out
    summary = json.loads((tmp_path / "report" / "aivat.json").read_text())
    assert summary["deals"] == 6 and len(summary["pairs"]) == 1
    assert main(["report", str(tmp_path), "--estimator", "aivat", "--samples", "0"]) == 2
    for bad in (["--search-draws", "-1"], ["--search-draws", "1001"], ["--stand-in-budget", "-1"],
                ["--workers", "0"]):
        assert main(["report", str(tmp_path), "--estimator", "aivat", *bad]) == 2
        assert bad[0] in capsys.readouterr().err


def _search_agents():
    return [{"label": "rules", "name": "rules", "options": {}},
            {"label": "ismcts-100", "name": "ismcts", "options": {"simulations": 100}},
            {"label": "ismcts-timed", "name": "ismcts", "options": {"time_ms": 50.0, "world_pool": 0}},
            {"label": "pimc-4", "name": "pimc", "options": {"worlds": 4}}]


def test_each_search_plays_itself_in_the_play_outs_on_a_smaller_budget():
    """A positive stand-in budget caps every budget of a search (a clock budget is dropped: play-outs
    must not depend on the machine); at 0 the rule-based player plays for it, and the notes say which."""
    agents = _search_agents()
    tables, stand_ins, notes = aivat.value_tables("cardlab_kaiser", {}, agents, search_draws=8,
                                                  stand_in_budget=10)
    kinds, options = tables[0], tables[1]
    assert list(stand_ins) == [0, 4, 5, 6] and len(kinds) == 7
    assert kinds[2] == -1 and kinds[5] == kinds[1] == native.ISMCTS  # a clock budget plays in Python only
    cheap = [aivat.stand_in_spec(AgentSpec(a["label"], a["name"], a["options"]), 10, "cardlab_kaiser")
             for a in agents[1:]]
    assert cheap[0].options == {"simulations": 10, "world_pool": 10}
    assert cheap[1].options == {"simulations": 10, "world_pool": 0}  # uniform worlds stay uniform
    assert cheap[2].options["worlds"] == 4 and cheap[2].options["bid_worlds"] == 8
    for row, spec in zip(options[4:], cheap, strict=True):
        assert np.array_equal(row, native_tables([spec], game_spec("kaiser").load({}))[1][0])
    assert notes[:2] == ["ismcts-100: plays itself in the play-outs with simulations=10, world_pool=10; "
                         "each of its decisions is corrected by 8 reruns of its search",
                         "ismcts-timed: plays itself in the play-outs with simulations=10, world_pool=0, and "
                         "its decisions get no term (not a native agent)"]
    _, stand_ins, notes = aivat.value_tables("cardlab_kaiser", {}, agents)
    assert list(stand_ins) == [0, -1, -1, -1] and len(notes) == 3
    assert all("rule-based player stands in" in note and "get no term" in note for note in notes)
    missing = [{"label": "lost", "name": "cfr-bidding", "options": {"policy": "no/such/policy.npz"}}]
    _, stand_ins, notes = aivat.value_tables("cardlab_kaiser", {}, missing, 8, 10)
    assert list(stand_ins) == [-1] and len(notes) == 1
    assert notes[0].startswith("lost: ")
    assert notes[0].endswith("the rule-based player stands in for it in the play-outs")


@pytest.mark.integration  # compiles ISMCTS into the estimator's kernels
def test_a_searchs_reruns_correct_its_decisions_without_bias(tmp_path):
    """Reruns of ISMCTS at its decisions add terms, keep every correction's mean at zero (150 deals,
    within four standard errors), and the chunks' split over processes changes nothing."""
    agents = [AgentSpec("rules", "rules"), AgentSpec("ismcts", "ismcts", {"simulations": 20})]
    manifest, table = _tournament(tmp_path, "cardlab_kaiser", agents, 150)
    plain = aivat.reduce(manifest, table, samples=8)
    reduced = aivat.reduce(manifest, table, samples=8, search_draws=3, stand_in_budget=5)
    assert reduced.terms > plain.terms and reduced.fallbacks == 0
    assert np.all(np.abs(_correction_z(reduced)) < 4)
    assert reduced.notes == ["ismcts: plays itself in the play-outs with simulations=5, world_pool=5; each "
                             "of its decisions is corrected by 3 reruns of its search"]
    few = table.slice(0, 40)
    alone = aivat.game_corrections("cardlab_kaiser", {}, manifest["settings"]["agents"], few, 8, 3, 5)
    split = aivat.game_corrections("cardlab_kaiser", {}, manifest["settings"]["agents"], few, 8, 3, 5,
                                   workers=2)
    assert np.array_equal(alone[0], split[0]) and np.array_equal(alone[1], split[1])


@pytest.mark.integration
@pytest.mark.parametrize("game, policy", [("cardlab_kaiser", KAISER_POLICY),
                                          ("cardlab_twenty_eight",
                                           "cardlab/agents/policies/cardlab_twenty_eight-coarse.npz")])
def test_aivat_is_unbiased_over_thousands_of_deals(tmp_path, game, policy):
    """Over 2,000 duplicate deals (12,000 games) the corrections average zero in every pair, within
    four standard errors, and the plain and reduced means agree within their intervals."""
    agents = [AgentSpec("rules", "rules"), AgentSpec("cfr-bidding", "cfr-bidding", {"policy": policy}),
              AgentSpec("random", "random")]
    manifest, table = _tournament(tmp_path, game, agents, 2000, seed=11)
    reduced = aivat.reduce(manifest, table, samples=16)
    assert np.all(np.abs(_correction_z(reduced)) < 4) and reduced.fallbacks == 0
    for column in range(len(reduced.plain.pairs)):
        plain, low = reduced.plain.scores[:, column], reduced.reduced.scores[:, column]
        both = 1.96 * np.hypot(plain.std() / np.sqrt(len(plain)), low.std() / np.sqrt(len(low)))
        assert abs(plain.mean() - low.mean()) < both
