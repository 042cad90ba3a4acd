"""The studies and their notebooks: tiny datasets generated in a temporary folder, every notebook executed.

Each notebook's last output is its findings as JSON; the tests check them
against the dataset read directly, and that every interval holds its value.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from cardlab.results import ResultsError
from experiments import (
    agents,
    evaluation,
    kaiser_bidding,
    literature_claims,
    small_games_solved,
    twenty_eight_bidding,
)
from experiments.findings import rate_ci, summarize
from experiments.frame import load_study, run_study
from experiments.notebooks import NOTEBOOKS, NOTEBOOKS_DIR, execute

TINY = [
    (kaiser_bidding.STUDY, {"deals": 200, "chunk_size": 100, "double_dummy_every": 20, "par_every": 100}),
    (twenty_eight_bidding.STUDY, {"deals": 600, "chunk_size": 300}),
    (literature_claims.STUDY, {"deals": 12, "chunk_size": 6, "sample_every": 8, "worlds": 24}),
    (small_games_solved.STUDY, {"deals": 4, "chunk_size": 2, "agents": "rules,ismcts-10",
                                "variant_draws": "literature_2x2_4:2"}),
]


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    folder = tmp_path_factory.mktemp("studies")
    for study, overrides in TINY:
        run_study(study, study.parameters(**overrides), folder / study.name, progress=False)
    return folder


def findings(notebook) -> dict:
    text = "".join(notebook.cells[-1].outputs[0]["text"])
    return json.loads(text)


def check_intervals(values: dict) -> None:
    for key, f in values.items():
        if all(math.isfinite(f[k]) for k in ("value", "low", "high")):
            assert f["low"] - 1e-9 <= f["value"] <= f["high"] + 1e-9, key
        assert f["deals"] >= 0, key


def test_study_is_resumable_and_seeded(tmp_path):
    study = twenty_eight_bidding.STUDY
    parameters = study.parameters(deals=40, chunk_size=10)
    run_study(study, parameters, tmp_path / "a", progress=False)
    manifest = json.loads((tmp_path / "a" / "manifest.json").read_text())
    del manifest["chunks"]["2"]  # as if the run had been killed before chunk 2 was listed
    manifest["complete"] = False
    (tmp_path / "a" / "manifest.json").write_text(json.dumps(manifest))
    run_study(study, parameters, tmp_path / "a", progress=False)
    run_study(study, study.parameters(deals=40, chunk_size=40), tmp_path / "b", progress=False)
    _, resumed = load_study(study.name, tmp_path / "a")
    _, whole = load_study(study.name, tmp_path / "b")
    assert resumed.equals(whole)  # the rows do not depend on the chunking or on the resume
    with pytest.raises(ResultsError, match="choose another --out"):
        run_study(study, study.parameters(deals=40, chunk_size=10, seed=1), tmp_path / "a", progress=False)
    with pytest.raises(ValueError, match="has no parameter 'hands'"):
        study.parameters(hands=3)


@pytest.mark.parametrize("arguments, message", [
    (["--set", "deals=x"], "--set 'deals=x'"),
    (["--set", "hands=3"], "KEY one of seed, deals"),
    (["--set", "deals=0"], "deals must be at least 1"),
    (["--workers", "0"], "--workers must be at least 1"),
])
def test_study_command_line_errors_are_one_line(tmp_path, arguments, message):
    from experiments.frame import main

    with pytest.raises(SystemExit, match=message) as error:
        main(twenty_eight_bidding.STUDY, [*arguments, "--out", str(tmp_path / "out")])
    assert "\n" not in str(error.value)


def test_agents_command_refuses_bad_budgets(tmp_path):
    with pytest.raises(SystemExit, match="--budgets must be"):
        agents.main(["--game", "kaiser", "--budgets", "5,x", "--out", str(tmp_path / "a")])


def test_rate_and_summaries():
    p, low, high = rate_ci(0, 10)
    assert p == 0 and low == 0 and 0.2 < high < 0.35
    table = summarize(__import__("pandas").DataFrame({"g": [0, 0, 1, 1], "x": [True, False, True, True]}),
                      "g", "x", kind="rate")
    assert list(table["n"]) == [2, 2] and list(table["x"]) == [0.5, 1.0]


def test_kaiser_dataset_is_consistent(data):
    _, rows = load_study(kaiser_bidding.STUDY.name, data / kaiser_bidding.STUDY.name)
    assert len(rows) == 4 * 200
    assert (rows.groupby("deal")["hand"].apply(lambda h: np.bitwise_or.reduce(h.to_numpy())).nunique() == 1)
    assert (rows[["clubs", "diamonds", "hearts", "spades"]].sum(axis=1) == 8).all()
    played = rows[rows["declarer"] >= 0]
    both = played.groupby("deal")["team_points"].sum()
    assert (both == 2 * 10).all()  # each deal's two teams, counted twice (two seats each), hold 10
    declarers = played[played["seat"] == played["declarer"]]
    solved = declarers.dropna(subset=["dd_points"])
    assert len(solved) >= 5 and solved["dd_points"].between(-3, 13).all()
    assert (declarers["forced"] <= (declarers["position"] == 3)).all()  # only the dealer is forced


@pytest.mark.integration  # executes a notebook (a kernel process)
def test_kaiser_notebook(data, tmp_path):
    values = findings(execute("kaiser_bidding", data, tmp_path / "kaiser_bidding.ipynb"))
    check_intervals(values)
    _, rows = load_study(kaiser_bidding.STUDY.name, data / kaiser_bidding.STUDY.name)
    declarers = rows[rows["seat"] == rows["declarer"]]
    made = (declarers["team_points"] >= declarers["contract_value"]).mean()
    assert values["made_rate"]["value"] == pytest.approx(made)
    assert 0 < values["model_mae"]["value"] < 5
    assert values["ace_value"]["value"] > 0  # an ace helps the declaring team
    assert -10 <= values["hidden_information_cost"]["value"] <= 10


@pytest.mark.integration  # executes a notebook (a kernel process)
def test_twenty_eight_notebook(data, tmp_path):
    values = findings(execute("twenty_eight_bidding", data, tmp_path / "twenty_eight_bidding.ipynb"))
    check_intervals(values)
    _, rows = load_study(twenty_eight_bidding.STUDY.name, data / twenty_eight_bidding.STUDY.name)
    bidders = rows[rows["seat"] == rows["bidder"]]
    made = (bidders["team_card_points"] >= bidders["final_bid"]).mean()
    assert values["made_rate"]["value"] == pytest.approx(made)
    assert (bidders["game_points"] > 0).mean() == pytest.approx(made)  # made bids score, failed lose
    assert 0 <= values["redeal_rate"]["value"] < 0.2


def test_literature_dataset_is_consistent(data):
    _, rows = load_study(literature_claims.STUDY.name, data / literature_claims.STUDY.name)
    assert set(rows["table"]) == {"4", "6", "8", "6-major", "6-misclaim"}
    assert rows.groupby("table")["deal"].nunique().eq(12).all()
    first = rows[rows["ask"] == 0]
    assert (first.groupby(["table", "deal"]).size() == 8).all()  # every half-suit live before the first ask
    assert first["status"].between(0, 2).all()  # each one scored or void at the end
    known = first[first["certain_at"] >= 0]
    assert (known["certain_at"] <= known["claimed_at"]).all()  # the player claims a certain half-suit
    assert ((known["whole_at"] >= 0) & (known["whole_at"] <= known["certain_at"])).all()  # proof after truth
    mover = first[first["mover_certain_at"] >= 0]  # the seat on turn's certainty is some seat's
    assert (mover["certain_at"].between(0, mover["mover_certain_at"])).all()
    assert (mover["claimed_at"] >= mover["mover_certain_at"]).all()
    certain = rows[rows["certain_now"]]
    assert (certain["claim_now"] == literature_claims.RIGHT).all()  # deduction is sound
    assert (certain["p_right"] == 1).all()  # and the sampler agrees with it
    assert rows["p_right"].between(0, 1).all() and (rows["p_right"] <= rows["p_team"] + 1e-12).all()
    assert (rows["entropy_bits"] >= 0).all() and (rows["worlds_drawn"] == 24).all()
    same = first.pivot_table(index=["deal", "half_suit"], columns="table", values="claimed_at")
    assert (same["6"] == same["6-major"]).all() and (same["6"] == same["6-misclaim"]).all()  # same play


def test_literature_self_play_is_the_arenas():
    """The study's own compiled loop plays the very games of the arena's rules agents."""
    import pyspiel

    from experiments.frame import deal_seeds, self_play

    arena = self_play("cardlab_literature", {"players": 6}, 5, range(3, 13))
    initial = pyspiel.load_game("cardlab_literature", {"players": 6}).new_initial_state().array.copy()
    actions, offsets, finals = literature_claims.play_rules_games(initial, deal_seeds(5, range(3, 13)))
    assert np.array_equal(actions, arena.actions) and np.array_equal(offsets, arena.offsets)
    assert np.array_equal(finals, arena.finals)


def test_literature_rows_do_not_depend_on_the_chunking(tmp_path):
    study = literature_claims.STUDY
    small = {"deals": 4, "tables": "4", "sample_every": 10, "worlds": 8}
    run_study(study, study.parameters(chunk_size=1, **small), tmp_path / "a", progress=False)
    run_study(study, study.parameters(chunk_size=4, **small), tmp_path / "b", progress=False)
    assert load_study(study.name, tmp_path / "a")[1].equals(load_study(study.name, tmp_path / "b")[1])


def test_literature_tables_are_checked():
    major = {"players": 6, "major_sets_worth_two": True}
    assert literature_claims.parse_tables("4, 6-major") == [("4", {"players": 4}), ("6-major", major)]
    for text in ("6-double", "six", "4,4"):
        with pytest.raises(ValueError, match="table"):
            literature_claims.parse_tables(text)
    with pytest.raises(ValueError, match="table 5: .*players must be one of"):
        literature_claims.STUDY.parameters(tables="4,5")
    with pytest.raises(ValueError, match="worlds must be at least 1"):
        literature_claims.STUDY.parameters(worlds=0)


@pytest.mark.integration  # executes a notebook (a kernel process)
def test_literature_notebook(data, tmp_path):
    values = findings(execute("literature_claims", data, tmp_path / "literature_claims.ipynb"))
    check_intervals(values)
    _, rows = load_study(literature_claims.STUDY.name, data / literature_claims.STUDY.name)
    first = rows[(rows["ask"] == 0) & (rows["table"] == "6")]
    assert values["certain_share_6"]["value"] == pytest.approx((first["certain_at"] >= 0).mean())
    assert values["certain_share_6"]["deals"] == 12
    for players in (4, 6, 8):
        lost = values[f"lost_{players}"]["value"]
        assert 0 <= lost <= 1, (players, lost)  # NaN fails too: every table proves some half-suit
        assert values[f"bits_failure_{players}"]["value"] > -5  # a failed ask does not add information
    assert set(values) >= {"gain_at_50_6-major", "gain_at_50_6-misclaim", "doubtful_given_away_6-misclaim"}
    # The player claims on odds only when the opponents hold no cards of it: a wrong claim is void, unless
    # misclaim_to_opponents gives it away.
    given_away = values["doubtful_given_away_6"]
    if given_away["deals"] == 0:  # no uncertain end-of-game claim in the tiny dataset: no share to give
        assert math.isnan(given_away["value"])
    else:
        assert given_away["value"] == 0


@pytest.mark.parametrize("games", [("kaiser",), pytest.param(("twenty_eight", "literature"),
                                                              marks=pytest.mark.slow)])
@pytest.mark.integration  # executes a notebook (a kernel process)
def test_agents_notebook(tmp_path, games):
    for game in games:
        agents.main(["--game", game, "--deals", "1", "--budgets", "5,20", "--backend", "serial",
                     "--pimc-worlds", "0", "--cfr-policy-dir", "none",
                     "--no-progress", "--out", str(tmp_path / agents.dataset(game))])
    values = findings(execute("agents", tmp_path, tmp_path / "agents.ipynb"))
    check_intervals(values)
    for game in games:
        assert f"{game}_ismcts-20_vs_rules" in values
        assert values[f"{game}_best"]["deals"] == 1
        assert values[f"{game}_rules_elo_over_random"]["value"] > 0  # rules beats random


def test_agents_optional_entrants_and_their_reasons(tmp_path):
    extra, reasons = agents.optional_entrants("kaiser", 4, str(tmp_path))
    assert [spec.label for spec in extra] == ["pimc-4"] and "no policy" in reasons[0]
    extra, reasons = agents.optional_entrants("literature", 4, str(tmp_path))
    assert extra == () and len(reasons) == 2  # neither the solver nor the bidding abstraction models it
    assert agents.optional_entrants("kaiser", 0, "none") == ((), [])
    (tmp_path / "cardlab_kaiser-coarse.npz").touch()
    extra, _ = agents.optional_entrants("kaiser", 0, str(tmp_path))
    assert [spec.name for spec in extra] == ["cfr-bidding"]
    manifest = {"settings": {"deals": 3, "agents": [s.to_json() for s in agents.entrants((5,), extra)]}}
    assert agents.command("kaiser", manifest) == ("python -m experiments.agents --game kaiser --deals 3 "
                                                  f"--budgets 5 --pimc-worlds 0 --cfr-policy-dir {tmp_path}")


def test_small_games_solved_dataset(data):
    _, rows = load_study(small_games_solved.STUDY.name, data / small_games_solved.STUDY.name)
    assert set(rows["agent"]) == {"equilibrium", "rules", "ismcts-10"}
    draws = rows.drop_duplicates(["variant", "agent", "deal"])
    assert draws.groupby("variant")["deal"].nunique().to_dict() == {
        "kaiser_1": 4, "twenty_eight_1": 4, "literature_2x2_4": 2}  # variant_draws caps Literature
    turns = rows.groupby(["variant", "agent", "deal", "situation", "hand"])["weight"].sum()
    kaiser = turns["kaiser_1"].xs("auction", level="situation")
    assert sorted(set(kaiser.index.get_level_values("hand"))) == ["3S", "5H", "AH", "AS"]
    assert np.allclose(kaiser, 1)  # one card a seat: every hand speaks once in the auction
    openings = rows[rows["situation"] == "opening bid (forced)"].groupby(["agent", "deal"])["weight"].sum()
    first = rows[rows["situation"] == "asking turn, 0 asks made"]
    first_asks = first.groupby(["agent", "deal"])["weight"].sum()
    assert np.allclose(openings, 1)  # every game opens once
    # a claim before the first ask (the equilibrium's on 1e-4 of its turns) gives a second such turn
    assert np.allclose(first_asks, 1, atol=1e-3) and (first_asks >= 1 - 1e-9).all()
    assert (draws["equilibrium_nash_conv"] < 1e-3).all() and draws["outcome"].between(0, 1).all()
    equilibrium = draws[draws["agent"] == "equilibrium"]
    assert equilibrium["loss_to_equilibrium"].abs().max() < 1e-9 and equilibrium["nash_conv"].max() < 1e-3
    rules = draws[draws["agent"] == "rules"]
    deterministic = rules.groupby("variant")["loss_to_equilibrium"].nunique()  # Literature: random ties
    assert deterministic["kaiser_1"] == 1 and deterministic["twenty_eight_1"] == 1
    agents = draws[draws["agent"] != "equilibrium"]
    assert (agents["loss_to_equilibrium"] > -1e-3).all()  # no one beats it
    for bad, message in [({"variants": "kaiser_9"}, "variant 'kaiser_9'"), ({"agents": "ismcts-x"}, "agent"),
                         ({"agents": "rules,rules"}, "distinct"), ({"target": 2.0}, "target"),
                         ({"variant_draws": "kaiser_1:0"}, "variant_draws")]:
        with pytest.raises(ValueError, match=message):
            small_games_solved.STUDY.parameters(**bad)


def test_calling_for_the_trump_changes_nothing_in_one_card_twenty_eight():
    """The README's finding: the equilibrium always calling, or never, loses nothing to it."""
    solved = small_games_solved.solve("twenty_eight_1", 1e-3, 10000)
    a = solved.tree.arrays
    for call in (True, False):
        policy = solved.equilibrium.copy()
        for infoset, state in solved.choices.items():
            names = {action: state.action_to_string(state.current_player(), action)
                     for action in state.legal_actions()}
            if "call trump" in names.values():
                slots = slice(a.infoset_offset[infoset], a.infoset_offset[infoset + 1])
                chosen = np.array([(names[x] == "call trump") == call for x in a.infoset_actions[slots]])
                policy[slots] = chosen / chosen.sum()
        assert abs(small_games_solved.loss_to_equilibrium(solved, policy)) < 1e-4


@pytest.mark.integration  # executes a notebook (a kernel process)
def test_small_games_solved_notebook(data, tmp_path):
    values = findings(execute("small_games_solved", data, tmp_path / "small_games_solved.ipynb"))
    check_intervals(values)
    assert values["kaiser_1_rules_loss"]["value"] == pytest.approx(2.62, abs=0.01)
    assert values["kaiser_1_rules_nash_conv"]["value"] == pytest.approx(11.6, abs=0.1)
    assert values["kaiser_1_rules_loss"]["low"] == pytest.approx(values["kaiser_1_rules_loss"]["high"])
    assert values["kaiser_1_equilibrium_no_trump_share"]["value"] > 0.99
    assert values["kaiser_1_equilibrium_bluff_rate"]["value"] == pytest.approx(0.25, abs=0.01)
    assert 0 < values["kaiser_1_ismcts-10_loss"]["value"] < values["kaiser_1_rules_loss"]["value"] + 3
    assert values["kaiser_1_dealer_side_value"]["deals"] == 4
    # one-card Twenty-Eight: the equilibrium opens 8 on a jack; the rule-based opener always bids 5
    assert values["twenty_eight_1_equilibrium_opens_8_jack"]["value"] > 0.99
    assert values["twenty_eight_1_rules_opens_8_jack"]["value"] == 0
    assert values["twenty_eight_1_rules_loss"]["value"] == pytest.approx(0.817, abs=0.001)
    # Literature 2x2 is worth nothing to either side; the rule-based player loses nothing to the equilibrium
    assert abs(values["literature_2x2_4_dealer_side_value"]["value"]) < 1e-3
    assert abs(values["literature_2x2_4_rules_loss"]["value"]) < 1e-3
    assert values["literature_2x2_4_dealer_side_value"]["deals"] == 2


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_committed_notebook_is_its_source_executed(name):
    """The reviewed .py and the committed .ipynb have the same cells, and every code cell ran."""
    import jupytext
    import nbformat

    source = jupytext.read(NOTEBOOKS_DIR / f"{name}.py")
    executed = nbformat.read(NOTEBOOKS_DIR / f"{name}.ipynb", as_version=4)
    assert [c.source for c in source.cells] == [c.source for c in executed.cells], (
        f"notebooks/{name}.ipynb is stale: python -m experiments.notebooks {name}")
    code = [c for c in executed.cells if c.cell_type == "code"]
    assert all(c.execution_count for c in code)
    assert not any(o.output_type == "error" for c in code for o in c.outputs)


@pytest.mark.integration
def test_evaluation_notebook(tmp_path):
    evaluation.main(["--game", "kaiser", "--scale", "0.02", "--samples", "4", "--no-progress",
                     "--out", str(tmp_path / evaluation.dataset("kaiser"))])
    values = findings(execute("evaluation", tmp_path, tmp_path / "evaluation.ipynb"))
    check_intervals(values)
    assert values["kaiser_lbr_rules"]["deals"] == 40 and values["kaiser_lbr_ismcts-1000"]["deals"] == 1
    # exact values, whatever the scale: 0.984 at the study's seed (docs/evaluation.md)
    assert values["kaiser_1_short_rules_lbr_share"]["value"] == pytest.approx(0.984, abs=0.001)
    assert all(values[f"{variant}_{agent}_lbr_share"]["value"] <= 1 + 1e-9
               for variant in evaluation.EXACT_VARIANTS["kaiser"] for agent in evaluation.EXACT_AGENTS)
    assert values["kaiser_aivat_rules_vs_cfr-bidding_narrower"]["deals"] == 3
    assert values["kaiser_aivat_search_rules_vs_ismcts-100_draws8_budget10_narrower"]["deals"] == 3


def test_evaluation_command_refuses_what_it_cannot_run(tmp_path):
    with pytest.raises(SystemExit, match="exact check only"):
        evaluation.main(["--game", "literature", "--out", str(tmp_path / "x")])
    with pytest.raises(SystemExit, match="--scale must be"):
        evaluation.main(["--game", "kaiser", "--scale", "0", "--out", str(tmp_path / "y")])


@pytest.mark.integration  # executes a notebook (a kernel process)
def test_learning_notebook_reads_the_committed_curves(tmp_path):
    """The learning curves are committed results (experiments.learning_curve replays the zoo's training):
    the notebook's findings are their first and last measurements."""
    values = findings(execute("learning", tmp_path, tmp_path / "learning.ipynb"))
    check_intervals(values)
    curves = sorted((NOTEBOOKS_DIR.parent / "experiments" / "results").glob("learning-curve-*.json"))
    assert {path.stem for path in curves} == {"learning-curve-kaiser", "learning-curve-twenty_eight"}
    for path in curves:
        curve = json.loads(path.read_text())
        name = curve["game"].removeprefix("cardlab_")
        assert [phase["algo"] for phase in curve["phases"]] == ["bc", "ppo"]
        for opponent in curve["opponents"]:
            measured = [entry for phase in curve["phases"] for entry in phase["history"]
                        if entry["opponent"] == opponent]
            for when, entry in (("first", measured[0]), ("final", measured[-1])):
                found = values[f"{name}_{when}_vs_{opponent.split(':')[0]}"]
                assert [found["value"], found["low"], found["high"]] == [entry["mean"], *entry["ci95"]]
                assert found["deals"] == entry["deals"] == curve["eval_deals"]
