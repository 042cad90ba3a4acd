"""The double-dummy solver: hand-built endings, agreement with plain minimax, tables and bad input."""

from __future__ import annotations

import numpy as np
import pyspiel
import pytest

from cardlab.cli import main
from cardlab.core.cards import card_id, cards_string, mask_of, parse_card
from cardlab.core.layout import CARDS_DEALT, DEALT, PHASE, TO_MOVE, UNDEALT
from cardlab.games.kaiser import engine as K
from cardlab.games.kaiser import rules as kaiser_rules
from cardlab.games.twenty_eight import engine as T
from cardlab.solver import (
    analyse,
    contract_points,
    deal_from_seed,
    par,
    parse_hands,
    reference_points,
    solve,
)
from cardlab.solver.analysis import analyse_many
from cardlab.solver.rules import ALL_TECHNIQUES, TECHNIQUE_NAMES

KAISER_GAME = pyspiel.load_game("cardlab_kaiser")
TWENTY_EIGHT_GAME = pyspiel.load_game("cardlab_twenty_eight")


def kaiser_ending(hands: list[str], leader: int, trump: str | None, won: tuple[int, int] = (0, 0),
                  low: bool = False) -> pyspiel.State:
    """A Kaiser play-phase state with only ``hands`` left (equal sizes), ``leader`` to lead."""
    state = KAISER_GAME.new_initial_state()
    s = state.array
    masks = [mask_of(h.split()) for h in hands]
    s[PHASE] = K.PLAYING
    s[CARDS_DEALT] = 32
    s[UNDEALT] = 0
    kind = kaiser_rules.LOW_NO_TRUMP if low else (kaiser_rules.WITH_TRUMP if trump else kaiser_rules.NO_TRUMP)
    s[K.HIGH_BID] = 3 * 7 + kind
    s[K.DECLARER] = leader
    s[K.TRUMP] = "CDHS".index(trump) if trump else -1
    s[K.TRICK_NUMBER] = 8 - len(hands[0].split())
    s[K.TRICK_LEADER] = s[TO_MOVE] = leader
    s[K.HAND_POINTS], s[K.HAND_POINTS + 1] = won
    for seat in range(4):
        s[K.HANDS + seat] = s[DEALT + seat] = masks[seat]
    state.refresh()
    return state


def twenty_eight_ending(hands: list[str], leader: int, trump: str, won: tuple[int, int],
                        bidder: int = 0, bid: int = 16) -> pyspiel.State:
    """A Twenty-Eight state with the trump shown and only ``hands`` left."""
    state = TWENTY_EIGHT_GAME.new_initial_state()
    s = state.array
    s[PHASE] = T.PLAYING
    s[CARDS_DEALT] = 32
    s[UNDEALT] = 0
    s[T.BIDDER] = s[T.FIRST_BIDDER] = s[T.HIGH_BIDDER] = bidder
    s[T.HIGH_BID] = bid
    s[T.TRUMP] = "CDHS".index(trump)
    s[T.INDICATOR] = card_id("CDHS".index(trump), 9)
    s[T.TRUMP_SHOWN] = 1
    s[T.TRUMPS_FROM] = 0
    s[T.TRICK_NUMBER] = 8 - len(hands[0].split())
    s[T.TRICK_LEADER] = s[TO_MOVE] = leader
    s[T.CARD_POINTS_WON], s[T.CARD_POINTS_WON + 1] = won
    for seat in range(4):
        s[T.HANDS + seat] = s[DEALT + seat] = mask_of(hands[seat].split())
    state.refresh()
    return state


# ---- Hand-built endings ---------------------------------------------------------------
def test_the_five_of_hearts_goes_with_the_trick():
    state = kaiser_ending(["8H", "5H", "9H", "TH"], leader=0, trump=None, won=(3, 1))
    assert solve(state).points == (3, 1 + 1 + 5)  # seat 3's TH takes the trick and the 5H


def test_the_three_of_spades_is_dumped_on_the_opponents_trick():
    # Seat 3 holds no club: whichever club trick team 0 wins gets the 3S.
    state = kaiser_ending(["AC 7C", "KC QC", "8C 9C", "3S 8D"], leader=0, trump=None, won=(5, 6))
    solution = solve(state)
    assert solution.points == (5 + 1 - 3, 6 + 1)
    assert solution.action_points == {parse_card("7C"): (3, 7), parse_card("AC"): (3, 7)}


def test_order_of_play_matters_cash_the_ace_first():
    # NT, seat 0 leads. The AD must be cashed now: after a club lead seat 3 keeps
    # the lead with clubs and the AD is thrown away on them.
    state = kaiser_ending(["AD 7C", "8C 9C", "KD QD", "TC JC"], leader=0, trump=None, won=(4, 4))
    solution = solve(state)
    assert solution.action_points[parse_card("AD")] == (5, 5)
    assert solution.action_points[parse_card("7C")] == (4, 6)
    assert solution.best_actions == [parse_card("AD")]
    assert reference_points(state) == {a: p[0] for a, p in solution.action_points.items()}


def test_a_simple_squeeze_needs_the_squeeze_card_first():
    # No trump, seat 0 leads. West (seat 1) alone guards hearts (K 9 against North's A Q)
    # and diamonds (Q against North's J). The club ace first makes him let one guard go,
    # and North, discarding after him, keeps the threat he left: all three tricks. Leading
    # anything else first gives West a trick.
    state = kaiser_ending(["AC 8H 7D", "KH 9H QD", "AH QH JD", "8S 9S TS"], leader=0, trump=None,
                          won=(4, 3))
    solution = solve(state)
    assert solution.points == (7, 3)
    assert solution.best_actions == [parse_card("AC")]
    assert solution.action_points[parse_card("8H")] == (6, 4)
    assert solution.action_points[parse_card("7D")] == (6, 4)
    assert reference_points(state) == {a: p[0] for a, p in solution.action_points.items()}
    state.apply_action(parse_card("AC"))
    for discard in state.legal_actions():  # every discard of the victim loses the third trick
        after = state.clone()
        after.apply_action(discard)
        assert solve(after).points == (7, 3), cards_string(1 << discard)


def test_cards_the_deck_lacks_are_refused():
    # Kaiser's deck has the 5H and 3S instead of the 7H and 7S.
    state = kaiser_ending(["7H", "KH", "AH", "8H"], leader=0, trump=None, won=(5, 4))
    with pytest.raises(ValueError, match="not in the deck"):
        solve(state)


def test_trumps_and_low_no_trump_change_the_winner():
    hands = ["AS", "8H", "9S", "KH"]
    assert solve(kaiser_ending(hands, 0, None, won=(5, 4))).points == (6, 4)  # AS wins, spades led
    assert solve(kaiser_ending(hands, 0, "H", won=(5, 4))).points == (5, 5)  # KH trumps it
    low = kaiser_ending(["AC", "8H", "7C", "KH"], 0, None, won=(5, 4), low=True)
    assert solve(low).points == (6, 4)  # 7C is the highest club in low no trump


def test_twenty_eight_jack_catches_the_nine_and_ace():
    # Spades trump. Whatever seat 0 leads, seats 1 and 3 must follow hearts to the
    # JH in the end: J 3 + 9 2 + A 1 to team 0 (J 9 A is the order of strength).
    state = twenty_eight_ending(["JH 7S", "9H 8C", "7D 8D", "AH KC"], leader=0, trump="S", won=(10, 12))
    solution = solve(state)
    assert solution.points == (16, 12)
    assert reference_points(state) == {a: p[0] for a, p in solution.action_points.items()}


def test_twenty_eight_ruff_takes_the_jack():
    # Seat 1, void in hearts, ruffs partner-less JH with a trump: 3 + 1 points to team 1.
    state = twenty_eight_ending(["JH", "7S", "8H", "TH"], leader=0, trump="S", won=(10, 14))
    assert solve(state).points == (10, 18)


# ---- Agreement with exhaustive minimax ----------------------------------------------------
def random_play_state(game: pyspiel.Game, rng: np.random.Generator, tricks_left: int) -> pyspiel.State:
    """A play-phase state of a random game with ``tricks_left`` tricks to go, maybe mid-trick."""
    engine = K if game.get_type().short_name == "cardlab_kaiser" else T
    while True:
        state = game.new_initial_state()
        extra = int(rng.integers(4))
        while not state.is_terminal():
            s = state.array
            playing, trick_number, trick_size = engine.PLAYING, engine.TRICK_NUMBER, engine.TRICK_SIZE
            if s[PHASE] == playing and (8 - s[trick_number]) * 4 - s[trick_size] == tricks_left * 4 - extra:
                return state
            legal = state.legal_actions()
            state.apply_action(int(legal[rng.integers(len(legal))]))


def random_kaiser_position(rng: np.random.Generator, tricks_left: int) -> tuple:
    """The solver's reading of a random Kaiser play-phase position (:func:`random_play_state`):
    ``(rules, hands, trick, size, leader, tricks_left, trumps_from)``."""
    from cardlab.games.kernels import KAISER
    from cardlab.solver.position import load

    state = random_play_state(KAISER_GAME, rng, tricks_left)
    hands = np.zeros(4, dtype=np.int64)
    trick = np.full(4, -1, dtype=np.int64)
    rules, _, size, leader, tricks_left, trumps_from, _ = load(KAISER, state.array, ALL_TECHNIQUES, hands,
                                                                trick)
    return rules, hands, trick, size, leader, tricks_left, trumps_from


def shown(state: pyspiel.State) -> pyspiel.State:
    """Twenty-Eight: the same position with the trump shown now (the solver's open reading)."""
    state = state.clone()
    s = state.array
    if T.trump_hidden(s):
        s[T.TRUMP_SHOWN] = 1
        s[T.TRUMPS_FROM] = s[T.TRICK_SIZE]
        s[T.HANDS + s[T.BIDDER]] |= 1 << int(s[T.INDICATOR])
        state.refresh()
    return state


def check_against_minimax(game: pyspiel.Game, positions: int, tricks: tuple[int, ...], seed: int) -> None:
    rng = np.random.default_rng(seed)
    for i in range(positions):
        state = random_play_state(game, rng, tricks[i % len(tricks)])
        if game is TWENTY_EIGHT_GAME:
            state = shown(state)
        solution = solve(state, techniques=int(rng.integers(ALL_TECHNIQUES + 1)))
        expected = reference_points(state)
        assert {a: p[0] for a, p in solution.action_points.items()} == expected, state
        best = solution.best_actions[0]
        assert best in state.legal_actions()
        after = state.clone()
        after.apply_action(best)
        if not after.is_terminal():
            assert solve(after).points == solution.points


@pytest.mark.parametrize("game", [KAISER_GAME, TWENTY_EIGHT_GAME], ids=["kaiser", "twenty_eight"])
def test_solver_equals_minimax_on_random_endings(game):
    check_against_minimax(game, 150, (2, 3), seed=1)


@pytest.mark.slow
@pytest.mark.parametrize("game", [KAISER_GAME, TWENTY_EIGHT_GAME], ids=["kaiser", "twenty_eight"])
def test_solver_equals_minimax_on_ten_thousand_endings(game):
    check_against_minimax(game, 5000, (2, 3, 4), seed=2)


def test_engine_rules_search_equals_minimax_before_the_show():
    rng = np.random.default_rng(3)
    checked = 0
    while checked < 20:
        state = random_play_state(TWENTY_EIGHT_GAME, rng, 3)
        s = state.array
        if not T.trump_hidden(s) or T.bidding_team_held_all_trumps(s):
            continue
        solution = solve(state, rules="engine")
        assert {a: p[0] for a, p in solution.action_points.items()} == reference_points(state)
        checked += 1


def test_every_technique_switched_off_gives_the_same_values():
    rng = np.random.default_rng(5)
    for game in (KAISER_GAME, TWENTY_EIGHT_GAME):
        for _ in range(3):
            state = random_play_state(game, rng, 5)
            if game is TWENTY_EIGHT_GAME:
                state = shown(state)
            expected = solve(state).action_points
            for flag in TECHNIQUE_NAMES.values():
                assert solve(state, techniques=ALL_TECHNIQUES & ~flag).action_points == expected


@pytest.mark.slow
@pytest.mark.parametrize("name", ["cardlab_kaiser", "cardlab_twenty_eight"])
def test_full_deals_equal_the_engine_search(name):
    """200 full deals: the table's no-trump/first-suit entry equals alpha-beta over engine states."""
    from cardlab.solver import engine_search
    from cardlab.solver.solve import game_id_of

    game = pyspiel.load_game(name)
    rng = np.random.default_rng(4)
    entries, generation = engine_search.new_table()
    for _ in range(200):
        state = random_play_state(game, rng, 8)
        if name == "cardlab_twenty_eight":
            state = shown(state)
        generation[0] += 1
        exact = engine_search.alpha_beta(game_id_of(name), state.array, -1000, 1000, entries, generation)
        assert solve(state).points[0] == exact


# ---- Tables, par and the command line ---------------------------------------------------------
def test_table_entries_equal_solving_the_engine_state():
    hands = deal_from_seed("cardlab_kaiser", 7)
    table = analyse("cardlab_kaiser", hands)
    assert sum(table.team_points(0, 0)) == kaiser_rules.POINTS_PER_HAND
    state = kaiser_ending([cards_string(int(h)) for h in hands], 0, "H")
    assert solve(state).points == table.team_points(0, 2)
    assert (analyse_many("cardlab_kaiser", np.array([hands, hands]))[1] == table.points).all()


@pytest.mark.parametrize("game", ["cardlab_kaiser", "cardlab_twenty_eight"])
def test_contract_points_are_the_table_entries(game):
    deals = np.array([deal_from_seed(game, seed) for seed in (3, 7)])
    leaders, strains = np.array([2, 3]), np.array([4 if game == "cardlab_kaiser" else 1, 0])
    points = contract_points(game, deals, leaders, strains)
    for hands, leader, strain, value in zip(deals, leaders, strains, points, strict=True):
        assert analyse(game, hands).team_points(int(leader), int(strain))[0] == value
    with pytest.raises(ValueError, match="one leader and one strain per deal"):
        contract_points(game, deals, leaders[:1], strains)
    with pytest.raises(ValueError, match="strain one of"):
        contract_points(game, deals[:1], leaders[:1], np.array([9]))


def test_par_is_a_contract_of_the_table():
    table = analyse("cardlab_kaiser", deal_from_seed("cardlab_kaiser", 7))
    best0, best1, par_contract = par(table)
    assert best0.declarer % 2 == 0 and best1.declarer % 2 == 1
    assert par_contract in (best0, best1) or par_contract.rank > min(best0.rank, best1.rank)
    assert par_contract.points == table.team_points(par_contract.declarer, par_contract.strain)


@pytest.mark.parametrize("text, message", [
    ("AS KS", "4 hands"),
    ("AS / KS / QS / JS", "1 cards"),
    ("2C 7C 8C 9C TC JC QC KC / AC 7D 8D 9D TD JD QD KD / AD 8H 9H TH JH QH KH AH / "
     "5H 8S 9S TS JS QS KS AS", "2C not in"),
    ("7C 7C 8C 9C TC JC QC KC / AC 7D 8D 9D TD JD QD KD / AD 8H 9H TH JH QH KH AH / "
     "5H 8S 9S TS JS QS KS AS", "written twice"),
    ("XX / KS / QS / JS", "not a card"),
])
def test_bad_typed_deals_are_one_line_errors(text, message):
    with pytest.raises(ValueError, match=message):
        parse_hands("cardlab_kaiser", text)


def test_solve_refuses_other_phases_and_games():
    with pytest.raises(ValueError, match="play phase"):
        solve(KAISER_GAME.new_initial_state())
    with pytest.raises(ValueError, match="Kaiser and Twenty-Eight"):
        solve(pyspiel.load_game("cardlab_literature").new_initial_state())
    with pytest.raises(ValueError, match="rules must be"):
        solve(kaiser_ending(["AS", "8H", "9S", "KH"], 0, None, won=(5, 4)), rules="closed")


def test_cli_prints_the_table_and_rejects_a_bad_deal(capsys):
    assert main(["solve", "--game", "kaiser", "--deal-seed", "7"]) == 0
    out = capsys.readouterr().out
    assert "declarer" in out and "par:" in out
    assert main(["solve", "--game", "kaiser", "--hands", "AS KS / 7C"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "4 hands" in err


def test_a_threshold_is_one_zero_window_question():
    from cardlab.solver.mtd import exact_value, reaches
    from cardlab.solver.search import Table

    rng = np.random.default_rng(6)
    table = Table(12)
    for _ in range(5):
        rules, hands, trick, size, leader, tricks_left, trumps_from = random_kaiser_position(rng, 4)
        table.forget()
        args = (rules, table.entries, table.counters, table.scratch, hands, trick, size, leader,
                tricks_left, trumps_from)
        value = exact_value(*args)
        assert reaches(*args, value) and not reaches(*args, value + 1)


def test_master_trumps_bound_the_defenders_without_search():
    from cardlab.games.kernels import KAISER
    from cardlab.solver.bounds import boundary_bounds
    from cardlab.solver.position import load

    # Seat 1 ruffs both heart tricks with the two top spades, whoever leads what.
    state = kaiser_ending(["AH KH", "AS KS", "QH JH", "TH 9H"], leader=0, trump="S")
    hands = np.zeros(4, dtype=np.int64)
    trick = np.full(4, -1, dtype=np.int64)
    rules, _, _, leader, tricks_left, _, _ = load(KAISER, state.array, ALL_TECHNIQUES, hands, trick)
    assert boundary_bounds(rules, hands, leader, tricks_left) == (0, 0)
    assert solve(state).points[0] == 0  # team 0 takes neither trick


@pytest.mark.parametrize("game", [KAISER_GAME, TWENTY_EIGHT_GAME], ids=["kaiser", "twenty_eight"])
def test_boundary_bounds_bracket_the_exact_value(game):
    """The sure-winner bounds hold on random trick boundaries, and they are not empty words."""
    from cardlab.solver.bounds import boundary_bounds
    from cardlab.solver.mtd import exact_value
    from cardlab.solver.position import load
    from cardlab.solver.rules import points_left
    from cardlab.solver.search import Table
    from cardlab.solver.solve import game_id_of

    rng = np.random.default_rng(8)
    table = Table(14)
    engine = K if game is KAISER_GAME else T
    tightened = 0
    checked = 0
    while checked < 40:
        state = random_play_state(game, rng, 2 + checked % 4)
        if state.array[engine.TRICK_SIZE] != 0:
            continue
        if game is TWENTY_EIGHT_GAME:
            state = shown(state)
        hands = np.zeros(4, dtype=np.int64)
        trick = np.full(4, -1, dtype=np.int64)
        rules, _, _, leader, tricks_left, _, _ = load(game_id_of(game.get_type().short_name), state.array,
                                                      ALL_TECHNIQUES, hands, trick)
        table.forget()
        value = exact_value(rules, table.entries, table.counters, table.scratch, hands, trick, 0, leader,
                            tricks_left, 0)
        lower, upper = boundary_bounds(rules, hands, leader, tricks_left)
        negative, highest, _ = points_left(rules, hands, trick, 0, tricks_left)
        assert lower <= value <= upper
        tightened += lower > negative or upper < highest
        checked += 1
    assert tightened >= 10


def test_the_first_guess_changes_nothing_but_the_work():
    """MTD(f) converges on the same value from any first guess, the playout's and the narrow
    search's included; the playout's value is a line of play (within the points left), the narrow
    search's a value within them that leaves the table's real generation as it found it."""
    from cardlab.solver.mtd import exact_value, narrow_value, playout_value
    from cardlab.solver.rules import points_left
    from cardlab.solver.search import Table
    from cardlab.solver.table import GENERATION, NODES, TAG

    rng = np.random.default_rng(15)
    table = Table(12)
    for _ in range(6):
        rules, hands, trick, size, leader, tricks_left, trumps_from = random_kaiser_position(rng, 5)
        args = (rules, table.entries, table.counters, table.scratch, hands, trick, size, leader,
                tricks_left, trumps_from)
        lowest, highest, _ = points_left(rules, hands, trick, size, tricks_left)
        before = table.counters[NODES]
        assert lowest <= playout_value(*args) <= highest
        assert table.counters[NODES] - before <= 4 * tricks_left  # one node per card
        table.forget()
        generation = table.counters[GENERATION]
        guess = narrow_value(*args)
        assert lowest <= guess <= highest and table.counters[GENERATION] == generation
        assert not np.any(table.entries[:, TAG] // 4 == generation)  # its entries are its own
        values = {exact_value(*args, guess)}
        for guess in (-1000, lowest, highest, (lowest + highest) // 2):
            table.forget()
            values.add(exact_value(*args, guess))
        assert len(values) == 1


def test_a_narrow_search_as_wide_as_a_hand_is_the_real_search():
    """The narrow search's only difference is how many moves a node weighs: eight (a whole hand)
    everywhere gives the exact value; one everywhere is the playout."""
    from cardlab.solver.mtd import _narrow_rules, exact_value, playout_value
    from cardlab.solver.rules import FLAGS, USE_QUICK_TRICKS, USE_TT
    from cardlab.solver.search import Table, search

    rng = np.random.default_rng(16)
    table = Table(12)
    for _ in range(6):
        rules, hands, trick, size, leader, tricks_left, trumps_from = random_kaiser_position(rng, 4)
        position = (hands, trick, size, leader, tricks_left, trumps_from)
        table.forget()
        exact = exact_value(rules, table.entries, table.counters, table.scratch, *position)
        table.forget()
        wide = search(_narrow_rules(rules, 8, 0), table.entries, table.counters, table.scratch, *position,
                      -1000, 1000)
        line = _narrow_rules(rules, 1, 0)
        line[FLAGS] &= ~(USE_TT | USE_QUICK_TRICKS)
        table.forget()
        one = search(line, table.entries, table.counters, table.scratch, *position, -1000, 1000)
        assert wide == exact
        assert one == playout_value(rules, table.entries, table.counters, table.scratch, *position)


def test_contract_codes_differ_for_every_game_strain_and_technique_set():
    """A table is kept while the contract code stays the same, so no two (game, strain,
    techniques) may share one: with seven technique bits a radix of 64 let them collide."""
    from cardlab.games.kernels import KAISER, TWENTY_EIGHT
    from cardlab.solver.analysis import _strain_rules
    from cardlab.solver.table import CONTRACT, NUM_COUNTERS

    counters = np.zeros(NUM_COUNTERS, dtype=np.int64)
    codes = set()
    for game, strains in ((KAISER, 6), (TWENTY_EIGHT, 4)):
        for strain in range(strains):
            for flags in range(ALL_TECHNIQUES + 1):
                _strain_rules(game, strain, flags, counters)
                codes.add(int(counters[CONTRACT]))
    assert len(codes) == 10 * (ALL_TECHNIQUES + 1)
