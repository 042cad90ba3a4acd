"""Small games (docs/rules/<game>.md#small-games): the research parameters, their rules, their exact solution.

The parameter checks and hand-built scenarios run by default; the trees of
whole small games are slow (compiling the engine walk, or walking the wrapped
game in Python) and run under ``-m slow``.
"""

from __future__ import annotations

import numpy as np
import pyspiel
import pytest
from conftest import act, deal, game_loader
from open_spiel.python.algorithms import exploitability

from cardlab import agents
from cardlab.cfr.engine_tree import build_from_engine
from cardlab.cfr.evaluation import nash_conv
from cardlab.cfr.policy import to_tabular_policy
from cardlab.cfr.pyspiel_tree import build_from_pyspiel
from cardlab.cfr.solvers import TabularSolver
from cardlab.core.cards import cards_string
from cardlab.games import game_spec
from cardlab.games.kaiser import engine as E
from cardlab.games.kaiser.game import engine_parameters
from cardlab.games.kaiser.rules import HAND_SIZE, MAX_BID, STANDARD_DECK, bid_action, small_game_bids
from cardlab.games.literature import engine as LE
from cardlab.games.literature.game import new_engine_state as literature_state
from cardlab.games.literature.game import validated_parameters as literature_parameters
from cardlab.games.literature.rules import DECKS as LITERATURE_DECKS
from cardlab.games.literature.rules import NUM_HALF_SUITS, VOID
from cardlab.games.literature.rules import STANDARD as LITERATURE_STANDARD
from cardlab.games.twenty_eight import engine as TE
from cardlab.games.twenty_eight.game import new_engine_state as twenty_eight_state
from cardlab.games.twenty_eight.rules import STANDARD_DECK as TWENTY_EIGHT_DECK
from experiments.small_games import count_nodes

load = game_loader("cardlab_kaiser")


def bids_of(state: pyspiel.State) -> list[str]:
    return [state.action_to_string(state.current_player(), a) for a in state.legal_actions()]


def test_standard_game_is_unchanged():
    game = load()
    state = game.new_initial_state()
    assert state.array[E.DECK] == STANDARD_DECK
    assert state.array[E.HAND_CARDS] == HAND_SIZE and state.array[E.TOP_BID] == MAX_BID
    assert len(state.chance_outcomes()) == 32
    hands = {seat: "" for seat in range(4)}
    cards = cards_string(STANDARD_DECK).split()
    for k, card in enumerate(cards):
        hands[(1 + k) % 4] += " " + card
    state = deal(state, {seat: text.strip() for seat, text in hands.items()})
    assert state.current_player() == 1
    bids = [a for a in state.legal_actions() if a >= 60]
    assert bids == [bid_action(v, k) for v in range(6, 13) for k in (0, 1)]
    # The defaults fill the new slots with the standard values: the same game as before them.
    assert np.array_equal(engine_parameters({}), engine_parameters({"hand_size": 8, "max_bid": 12}))


@pytest.mark.parametrize("hand_size, deck, bids", [
    (1, "5H AH 3S AS", (2, 3)),
    (2, "KC AC KD AD 5H AH 3S AS", (3, 6)),
    (3, "QC KC AC QD KD AD 5H KH AH 3S KS AS", (3, 7)),
    (8, cards_string(STANDARD_DECK), (6, 12)),
])
def test_small_packs_keep_the_point_cards_and_scale_the_bids(hand_size, deck, bids):
    assert cards_string(int(load(hand_size=hand_size).new_initial_state().array[E.DECK])) == deck
    assert small_game_bids(hand_size) == bids


def test_one_card_game_bids_names_trump_and_scores_one_trick():
    game = load(hand_size=1)
    state = deal(game.new_initial_state(), {0: "AH", 1: "5H", 2: "3S", 3: "AS"})
    assert bids_of(state) == ["pass", "bid 2", "bid 2NT", "bid 3", "bid 3NT"]
    act(state, "pass", "bid 2")  # P1 passes, P2 bids 2
    act(state, "bid 2NT")  # P3
    assert bids_of(state) == ["pass", "bid 2NT", "bid 3", "bid 3NT"]  # the dealer may equal
    act(state, "bid 3")
    # Only the pack's suits may be named trump.
    assert bids_of(state) == ["trump H", "trump S"]
    act(state, "trump S")
    # P0 leads the AH; the 5H must follow; P2's 3S trumps it, and P3's AS overtrumps.
    assert bids_of(state) == ["AH"]
    act(state, "AH", "5H", "3S", "AS")
    assert state.is_terminal()
    # P3 takes the one trick: 1 + 5 - 3 = 3 points to team 1; P0's 3 failed: -3.
    assert state.returns() == [-6.0, 6.0, -6.0, 6.0]


def test_two_card_game_plays_two_tricks_with_a_short_ladder():
    game = load(hand_size=2, max_bid=4)
    state = deal(game.new_initial_state(), {0: "AC KC", 1: "AD KD", 2: "5H AH", 3: "3S AS"})
    assert bids_of(state) == ["pass", "bid 3", "bid 3NT", "bid 4", "bid 4NT"]
    act(state, "bid 4", "pass", "pass", "pass", "trump D")
    # P1 declares 4 with diamonds trumps and takes both tricks: 2 tricks + 5H - 3S = 4.
    act(state, "AD", "AH", "AS", "AC", "KD", "5H", "3S", "KC")
    assert state.is_terminal()
    assert state.returns() == [-4.0, 4.0, -4.0, 4.0]


def test_dealer_must_bid_the_lowest_when_everyone_passes():
    state = deal(load(hand_size=1, min_bid=3).new_initial_state(), {0: "AH", 1: "5H", 2: "3S", 3: "AS"})
    act(state, "pass", "pass", "pass")
    assert bids_of(state) == ["bid 3", "bid 3NT"]


@pytest.mark.parametrize("hand_size", [1, 2, 3])
def test_random_and_rule_based_small_games_deal_and_score_every_point(hand_size):
    game = load(hand_size=hand_size)
    rng = np.random.default_rng(hand_size)
    players = [agents.make("rules", game, seat, seed=7) for seat in range(4)]
    for k in range(30):
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes = [a for a, _ in state.chance_outcomes()]
                state.apply_action(int(rng.choice(outcomes)))
            elif k % 2:  # the rule-based player on odd hands, random play on even ones
                state.apply_action(players[state.current_player()].step(state))
            else:
                state.apply_action(int(rng.choice(state.legal_actions())))
        s = state.array
        assert s[E.TRICK_NUMBER] == hand_size
        assert s[E.HAND_POINTS] + s[E.HAND_POINTS + 1] == hand_size + 2
        assert sum(state.returns()) == 0.0


@pytest.mark.parametrize("params, message", [
    ({"hand_size": 0}, "'hand_size' must be in 1..8"),
    ({"hand_size": 9}, "'hand_size' must be in 1..8"),
    ({"min_bid": 3}, r"'min_bid' must be one of \(5, 6, 7\)"),
    ({"max_bid": 10}, "needs hand_size < 8"),
    ({"hand_size": 2, "max_bid": 7}, "max_bid <= 6"),
    ({"hand_size": 1, "min_bid": 3, "max_bid": 2}, "min_bid <= max_bid"),
    ({"hand_size": 2, "players": 3}, r"\['players'\] cannot be set"),
    ({"hand_size": 2, "kitty_34_card": True}, r"\['kitty_34_card'\] cannot be set"),
    ({"hand_size": 2, "les_rois": True}, r"\['les_rois'\] cannot be set"),
])
def test_bad_small_game_parameters_are_refused(params, message):
    with pytest.raises(ValueError, match=message):
        load(**params)


# ---- Twenty-Eight (docs/rules/twenty_eight.md#small-games) ----------------------------------
ONE_CARD_28 = {"hand_size": 1, "bidding_rounds": 1}


def ladder(s: np.ndarray) -> tuple[int, ...]:
    """Opening minimum, partner overcall, second-round raise, top bid and the pack's card points."""
    return tuple(int(s[slot]) for slot in (TE.OPENING_MIN, TE.OVERCALL_MIN, TE.RAISE_MIN, TE.TOP_BID,
                                            TE.DECK_POINTS))


def test_standard_twenty_eight_is_unchanged():
    state = pyspiel.load_game("cardlab_twenty_eight").new_initial_state()
    s = state.array
    assert s[TE.DECK] == TWENTY_EIGHT_DECK and (s[TE.STAGE_CARDS], s[TE.DEAL_CARDS]) == (16, 32)
    assert ladder(s) == (14, 20, 24, 28, 28)
    # The defaults fill the new slots with the standard values: the same game as before them.
    assert np.array_equal(twenty_eight_state({}),
                          twenty_eight_state({"hand_size": 8, "bidding_rounds": 2, "max_bid": 28}))
    for card in [a for a, _ in state.chance_outcomes()][:16]:
        state.apply_action(card)
    assert [b for b in bids_of(state) if b.startswith("bid")] == [f"bid {v}" for v in range(14, 29)]


@pytest.mark.parametrize("params, deck, expected", [
    (ONE_CARD_28, "9H JH 9S JS", (5, 8, 9, 10, 10)),
    ({"hand_size": 2}, "9C JC 9D JD 9H JH 9S JS", (10, 15, 18, 20, 20)),
    ({"hand_size": 4, "max_bid": 20}, "9C TC JC AC 9D TD JD AD 9H TH JH AH 9S TS JS AS",
     (14, 20, 24, 20, 28)),
])
def test_small_twenty_eight_packs_scale_the_bid_thresholds(params, deck, expected):
    s = pyspiel.load_game("cardlab_twenty_eight", params).new_initial_state().array
    assert cards_string(int(s[TE.DECK])) == deck
    assert ladder(s) == expected


def test_one_card_twenty_eight_bids_hides_the_only_card_and_scores_its_band():
    game = pyspiel.load_game("cardlab_twenty_eight", {**ONE_CARD_28, "max_bid": 7})
    state = deal(game.new_initial_state(), {0: "9H", 1: "JH", 2: "9S", 3: "JS"})
    assert bids_of(state) == ["bid 5", "bid 6", "bid 7"]  # the opener may not pass
    act(state, "bid 5", "bid 6")
    assert bids_of(state) == ["pass", "bid 7"]
    act(state, "pass")
    assert bids_of(state) == ["pass"]  # P0 may not overcall his partner below 8
    act(state, "pass", "pass")
    assert bids_of(state) == ["trump 9S"]  # P2's only card goes face down
    act(state, "trump 9S")
    # P1 leads; P2 has only the indicator, shown as he plays it; P3's JS then trumps it.
    act(state, "JH", "9S")
    assert bids_of(state) == ["JS"]
    act(state, "JS", "9H")
    assert state.is_terminal()
    # P3 takes all 10 points; P2's 6 (standard equivalent 17, the band up to 19) fails: -2.
    assert state.returns() == [-2.0, 2.0, -2.0, 2.0]


def test_two_round_small_twenty_eight_deals_a_card_a_stage():
    game = pyspiel.load_game("cardlab_twenty_eight", {"hand_size": 2, "max_bid": 18})
    state = deal(game.new_initial_state(), {0: "9H", 1: "JH", 2: "9S", 3: "JS"})
    act(state, "bid 10", "pass", "pass", "pass", "trump JH")
    deal(state, {0: "JC", 1: "9C", 2: "JD", 3: "9D"})
    assert state.array[TE.PHASE] == TE.RAISING
    assert bids_of(state) == ["pass", "bid 18"]  # the second round starts at 18 (24 of 28)


# ---- Literature (docs/rules/literature.md#small-games) -----------------------------------------
TWO_BY_TWO = {"players": 4, "half_suit_size": 2, "half_suits": 2}


def test_standard_literature_is_unchanged():
    p = literature_parameters({})
    assert np.array_equal(literature_state(p), literature_state({**p, "half_suit_size": 6, "half_suits": 8}))
    assert literature_state(p)[LE.LAYOUT] == LITERATURE_STANDARD
    assert bin(int(LITERATURE_DECKS[LITERATURE_STANDARD])).count("1") == 48


def test_two_by_two_literature_is_asked_claimed_and_scored():
    game = pyspiel.load_game("cardlab_literature", {**TWO_BY_TWO, "max_asks": 4})
    state = deal(game.new_initial_state(), {0: "2C", 1: "3C", 2: "9C", 3: "TC"})
    s = state.array
    assert cards_string(int(s[LE.DECK])) == "2C 3C 9C TC" and NUM_HALF_SUITS[s[LE.LAYOUT]] == 2
    assert all(s[LE.STATUS + h] == VOID for h in range(2, 9))
    assert bids_of(state) == ["ask P1 3C", "ask P3 3C", "claim C-low", "claim C-high"]
    act(state, "ask P1 3C", "claim C-low", "assign P0", "assign P0", "pass P2")
    act(state, "ask P3 TC", "claim C-high", "assign P2", "assign P2")
    assert state.is_terminal() and state.returns() == [2.0, -2.0, 2.0, -2.0]


def test_the_ask_limit_voids_what_is_left():
    game = pyspiel.load_game("cardlab_literature", {**TWO_BY_TWO, "max_asks": 1})
    state = deal(game.new_initial_state(), {0: "2C", 1: "9C", 2: "3C", 3: "TC"})
    act(state, "ask P1 3C")  # P2 holds it: a failed ask, and the one ask allowed is spent
    assert state.is_terminal() and state.returns() == [0.0] * 4
    assert state.array[LE.STATUS] == state.array[LE.STATUS + 1] == VOID


@pytest.mark.parametrize("name, params", [
    ("twenty_eight", {**ONE_CARD_28, "max_bid": 6}),
    ("twenty_eight", {"hand_size": 2}),
    ("twenty_eight", {"hand_size": 6, "bidding_rounds": 1}),
    ("literature", {**TWO_BY_TWO, "max_asks": 3}),
    ("literature", {"players": 4, "half_suit_size": 3, "half_suits": 4, "max_asks": 20}),
])
def test_random_and_rule_based_small_games_play_out_zero_sum(name, params):
    game = game_spec(name).load(params)
    rng = np.random.default_rng(3)
    players = [agents.make("rules", game, seat, seed=7) for seat in range(4)]
    for k in range(20):
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply_action(int(rng.choice([a for a, _ in state.chance_outcomes()])))
            elif k % 2:
                state.apply_action(players[state.current_player()].step(state))
            else:  # the tensors of a small layout or ladder keep the game's sizes
                seat = state.current_player()
                assert len(state.information_state_tensor(seat)) == game.information_state_tensor_size()
                assert len(state.observation_tensor(seat)) == game.observation_tensor_size()
                state.apply_action(int(rng.choice(state.legal_actions())))
        assert sum(state.returns()) == 0.0


@pytest.mark.parametrize("game, params, message", [
    ("cardlab_twenty_eight", {"hand_size": 0}, "'hand_size' must be in 1..8"),
    ("cardlab_twenty_eight", {"bidding_rounds": 3}, "'bidding_rounds' must be one of"),
    ("cardlab_twenty_eight", {"hand_size": 1}, "'hand_size' must be even"),
    ("cardlab_twenty_eight", {**ONE_CARD_28, "max_bid": 4}, "'max_bid' must be in 5..10"),
    ("cardlab_twenty_eight", {"hand_size": 2, "max_bid": 21}, "'max_bid' must be in 10..20"),
    ("cardlab_twenty_eight", {"hand_size": 2, "players": 6}, r"\['players'\] cannot be set"),
    ("cardlab_twenty_eight", {"max_bid": 20, "cot": True}, r"\['cot'\] cannot be set"),
    ("cardlab_literature", {"half_suit_size": 1}, "'half_suit_size' must be one of"),
    ("cardlab_literature", {"half_suits": 9}, "'half_suits' must be one of"),
    ("cardlab_literature", {**TWO_BY_TWO, "sevens_removed": True}, r"\['sevens_removed'\] cannot be set"),
    ("cardlab_literature", {**TWO_BY_TWO, "players": 6}, "4-card deck .* does not divide evenly among 6"),
])
def test_bad_small_game_parameters_of_the_other_games_are_refused(game, params, message):
    with pytest.raises(ValueError, match=message):
        pyspiel.load_game(game, params)


# ---- Whole small games solved (slow: compiling the engine walk, walking the wrapped game) -----
#: The smallest variant of each game (experiments/small_games.py), and the size of its tree.
SMALLEST = {
    "kaiser": ({"hand_size": 1, "min_bid": 3},
               {"nodes": 4289, "terminals": 720, "infosets": 2028, "infoset_actions": 2144}),
    "twenty_eight": ({**ONE_CARD_28, "max_bid": 6},
                     {"nodes": 953, "terminals": 128, "infosets": 332, "infoset_actions": 368}),
    "literature": ({**TWO_BY_TWO, "max_asks": 1},
                   {"nodes": 2273, "terminals": 1072, "infosets": 972, "infoset_actions": 1824}),
}


@pytest.fixture(scope="module", params=sorted(SMALLEST))
def smallest(request):
    name = request.param
    game = game_spec(name).load(SMALLEST[name][0])
    return name, game, build_from_engine(game), build_from_pyspiel(game)


@pytest.mark.slow
def test_the_two_builders_give_the_same_small_game_tree(smallest):
    name, _, engine_tree, pyspiel_tree = smallest
    assert engine_tree.summary() == SMALLEST[name][1]
    for field in engine_tree.arrays._fields:
        np.testing.assert_array_equal(getattr(engine_tree.arrays, field),
                                      getattr(pyspiel_tree.arrays, field), err_msg=field)


@pytest.mark.slow
def test_cfr_plus_solves_the_smallest_game_and_nash_conv_equals_openspiel(smallest):
    _, game, tree, pyspiel_tree = smallest
    solver = TabularSolver(tree, "cfr+")
    solver.run(10)
    policy = solver.average_policy()
    theirs = exploitability.nash_conv(game, to_tabular_policy(game, pyspiel_tree, policy))
    assert nash_conv(tree, policy) == pytest.approx(theirs, abs=1e-6)
    solver.run(990)
    assert nash_conv(tree, solver.average_policy()) < 1e-3


@pytest.mark.slow
def test_vanilla_cfr_reproduces_openspiel_on_the_smallest_game(smallest):
    _, game, _, tree = smallest
    ours, theirs = TabularSolver(tree, "cfr"), pyspiel.CFRSolver(game)
    for _ in range(3):
        ours.run(1)
        theirs.evaluate_and_update_policy()
        expected = pyspiel.nash_conv(game, theirs.average_policy())
        assert nash_conv(tree, ours.average_policy()) == pytest.approx(expected, abs=1e-9)


@pytest.mark.slow
def test_counting_deal_by_deal_gives_the_size_of_the_built_tree(smallest):
    name, _, tree, _ = smallest
    assert count_nodes(name, SMALLEST[name][0])["nodes"] == tree.num_nodes
