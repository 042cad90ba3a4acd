"""``cardlab advise``: the position typed in, the same table for the same seed, and bids ranked as a
direct duplicate simulation through the Python game loop ranks them."""

from __future__ import annotations

import numpy as np
import pyspiel
import pytest

from cardlab import agents
from cardlab.core.cards import card_string, parse_card
from cardlab.core.openspiel import receiving_seat_of
from cardlab.play.advise import advise_bids, bidding_position, parse_hand, weighted_summary

STRONG = "AS KS QS JS AH KH QH 5H"  # spades and hearts, the 5H: a hand for a high bid
WEAK = "7C 8C 7D 8D 9D 8H 3S 8S"  # nothing: passing should beat bidding


def test_the_position_follows_the_typed_hand_and_bids() -> None:
    game = pyspiel.load_game("cardlab_kaiser")
    state = bidding_position(game, STRONG, 1, "pass 7")
    assert state.current_player() == 1
    assert state.observation_string(1).splitlines()[2] == "hand: " + " ".join(
        card_string(c) for c in sorted(parse_hand(STRONG)))
    assert "bidding: P3 pass, P0 bid 7" in state.observation_string(1)


@pytest.mark.parametrize("hand, seat, bids, message", [
    ("AS AS KS QS JS AH KH QH", 0, "", "holds AS twice"),
    ("AS KS", 0, "", "a hand here is 8 cards"),
    ("AS KS QS JS AH KH QH 2C", 0, "", "2C is not in the deck"),
    (STRONG, 0, "pass bid 99", "no dealer makes these bids"),
    (STRONG, 9, "", "--seat must be 0..3"),
])
def test_a_bad_position_is_a_one_line_error(hand: str, seat: int, bids: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        bidding_position(pyspiel.load_game("cardlab_kaiser"), hand, seat, bids)


def test_twenty_eight_takes_four_cards_in_the_first_round() -> None:
    game = pyspiel.load_game("cardlab_twenty_eight")
    state = bidding_position(game, "JH 9H AH TC", 1, "")
    assert state.current_player() == 1
    advice = advise_bids(state, 1, worlds=24, seed=3)
    assert {row.bid for row in advice.rows} == {state.action_to_string(1, a) for a in state.legal_actions()}


def test_the_same_seed_gives_the_same_table() -> None:
    game = pyspiel.load_game("cardlab_kaiser")
    state = bidding_position(game, STRONG, 1, "pass 7")
    first = advise_bids(state, 1, worlds=40, seed=5).text()
    assert advise_bids(state, 1, worlds=40, seed=5).text() == first
    assert advise_bids(state, 1, worlds=40, seed=6).text() != first


def test_weighted_summary_is_the_plain_one_with_equal_weights() -> None:
    values = np.array([3.0, -1.0, 4.0, 1.0, -5.0, 9.0, 2.0, 6.0])
    mean, low, high, quantile = weighted_summary(values, np.ones(8), 0.25)
    assert mean == pytest.approx(values.mean())
    assert high - mean == pytest.approx(1.959964 * values.std() / np.sqrt(8), rel=1e-5)
    assert quantile == -1.0 and low < mean < high


def direct_duplicate(game: pyspiel.Game, hand: list[int], seat: int, bids: list[str], deals: int,
                     seed: int) -> dict[str, float]:
    """Each bid's mean return over the same random deals of the other cards, played by the rules
    bots through the OpenSpiel game loop (no compiled simulation, no world pool)."""
    rng = np.random.default_rng(seed)
    base = bidding_position(game, " ".join(card_string(c) for c in hand), seat, " ".join(bids))
    dealer = int(base.get_game().get_parameters()["dealer"])
    totals: dict[str, float] = {}
    for _ in range(deals):
        state = base.get_game().new_initial_state()
        others = [c for c, _ in state.chance_outcomes() if c not in hand]
        rng.shuffle(others)
        ours = list(hand)
        while state.is_chance_node():
            state.apply_action(ours.pop(0) if receiving_seat_of(state.array) == seat else others.pop())
        for bid in bids:
            player = state.current_player()
            state.apply_action(next(a for a in state.legal_actions()
                                    if state.action_to_string(player, a) in (bid, f"bid {bid}")))
        bots = [agents.make("rules", state.get_game(), p, int(rng.integers(1 << 30))) for p in range(4)]
        for action in state.legal_actions():
            line = state.clone()
            line.apply_action(action)
            while not line.is_terminal():
                line.apply_action(bots[line.current_player()].step(line))
            name = state.action_to_string(seat, action)
            totals[name] = totals.get(name, 0.0) + line.returns()[seat] / deals
    assert dealer == (seat - 1 - len(bids)) % 4
    return totals


@pytest.mark.parametrize("hand", [STRONG, WEAK])
def test_the_ranking_of_bids_agrees_with_a_direct_duplicate_simulation(hand: str) -> None:
    game = pyspiel.load_game("cardlab_kaiser")
    seat = 1
    state = bidding_position(game, hand, seat, "")
    advice = advise_bids(state, seat, worlds=120, seed=1)
    direct = direct_duplicate(game, parse_hand(hand), seat, [], deals=120, seed=2)
    rows = {row.bid: row for row in advice.rows}
    compared = 0
    for a in rows.values():
        for b in rows.values():
            if a.low > b.high + 5:  # clearly apart in the advice
                compared += 1
                assert direct[a.bid] > direct[b.bid], (a.bid, b.bid, direct)
    assert compared > 0
    # The bid direct play finds best is the advice's first, or one the advice cannot tell from it.
    best = rows[max(direct, key=direct.get)]
    assert best.high >= advice.rows[0].low, (best, advice.rows[0])


def stored_literature_game(directory) -> int:
    """A 4-player Literature game between the rules bots, saved as ``cardlab play`` saves one."""
    from cardlab.arena import play_deal
    from cardlab.play.record import save_game

    game = pyspiel.load_game("cardlab_literature", {"players": 4})
    bots = [agents.make("rules", game, seat, seat) for seat in range(4)]
    state, _ = play_deal(game, bots, 9)
    return save_game(directory, state, ["rules"] * 4, 9, [0.0] * 4, [0] * 4, [""] * len(state.history()))


def test_literature_claims_certain_ones_are_sure_and_odds_repeat_for_a_seed(tmp_path) -> None:
    from cardlab.games.literature import engine as E
    from cardlab.games.literature import knowledge as K
    from cardlab.games.literature.deductions import claim_odds, live_half_suits
    from cardlab.games.literature.rules import half_suit_name
    from cardlab.play.record import load_deal
    from cardlab.play.replay import Replay

    deal = stored_literature_game(tmp_path)
    replay = Replay(load_deal(tmp_path, deal))
    for step in range(0, len(replay), max(1, len(replay) // 6)):
        state = replay.state_before(step)
        seat = state.current_player()
        odds, worlds = claim_odds(state, seat, worlds=200, seed=4)
        assert worlds > 0
        assert [row.half_suit for row in odds] == [half_suit_name(h) for h in live_half_suits(state.array)]
        view = E.private_knowledge(state.array, seat)
        for h, row in zip(live_half_suits(state.array), odds, strict=True):
            assert row.certain == bool(K.claim_is_certain(view, h, seat % 2))
            assert 0.0 <= row.best_claim_right <= row.team_holds <= 1.0
            if row.certain:
                assert row.team_holds == 1.0 and row.best_claim_right == 1.0
        again, _ = claim_odds(state, seat, worlds=200, seed=4)
        assert again == odds


def test_the_advise_command_prints_a_table_or_one_line(tmp_path, capsys) -> None:
    from cardlab.cli import main

    assert main(["advise", "kaiser", "--hand", STRONG, "--seat", "1", "--bids", "pass 7",
                 "--worlds", "30"]) == 0
    out = capsys.readouterr().out
    assert "bidding: P3 pass, P0 bid 7" in out and "95% interval" in out and "\npass " in out
    for args, message in ((["--hand", "AS KS"], "a hand here is 8 cards"),
                          (["--hand", STRONG, "--solver", "dd", "--param", "kaiser_40=true"],
                           "--solver dd: the double-dummy solver does not model kaiser_40"),
                          (["--hand", STRONG, "--worlds", "0"], "--worlds must be a positive integer")):
        assert main(["advise", "kaiser", "--seat", "1", *args]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and err.startswith("cardlab: error:") and message in err, err
    stored_literature_game(tmp_path)
    assert main(["advise", "literature", "--position", str(tmp_path), "--move", "20", "--worlds", "50"]) == 0
    assert "half-suit" in capsys.readouterr().out
    assert main(["advise", "literature", "--position", str(tmp_path), "--move", "100000"]) == 2
    assert "--move must be 1.." in capsys.readouterr().err


def deduced_claim_position():
    """4 players, dealer 0: P0 holds 2S-5S, P2 6S, P1 7S; P0 and P1 ask in vain, then P2 takes 7S from P1.

    P0 now knows S-low is all in its team: 7S went to P2, and P2 had to hold
    another card of S-low to ask for it, which can only be 6S. P2 cannot know
    where 2S-5S are.
    """
    from cardlab.games.literature import engine as E
    from cardlab.games.literature.rules import CLAIM, ask_action

    game = pyspiel.load_game("cardlab_literature", {"players": 4})
    state = game.new_initial_state()
    wanted = {0: ["2S", "3S", "4S", "5S"], 1: ["7S"], 2: ["6S"]}
    reserved = {parse_card(c) for cards in wanted.values() for c in cards}
    while state.is_chance_node():
        seat = receiving_seat_of(state.array)
        outcomes = [a for a, _ in state.chance_outcomes()]
        mine = [parse_card(c) for c in wanted.get(seat, []) if parse_card(c) in outcomes]
        state.apply_action(mine[0] if mine else next(a for a in outcomes if a not in reserved))
    spades_low = {parse_card(c) for c in ("2S", "3S", "4S", "5S", "6S", "7S")}

    def fail(asker: int, target: int) -> None:
        assert state.current_player() == asker
        hand = int(state.array[E.HANDS + target])
        state.apply_action(next(a for a in state.legal_actions() if a < CLAIM and a // 64 == target
                                and a % 64 not in spades_low and not hand >> (a % 64) & 1))

    fail(0, 1)
    fail(1, 2)
    state.apply_action(ask_action(1, parse_card("7S")))
    assert state.current_player() == 2
    return state


def test_a_claim_proved_by_deduction_is_certain_in_a_position_file(tmp_path, capsys) -> None:
    from cardlab.cli import main
    from cardlab.games.literature.deductions import claim_odds
    from cardlab.play.position import load_position, save_position

    state = deduced_claim_position()
    path = save_position(tmp_path / "position.json", state, seat=0)
    position = load_position(path)
    assert position.seat == 0 and position.state.history() == state.history()
    odds = {row.half_suit: row for row in claim_odds(position.state, 0, worlds=100, seed=3)[0]}
    spades = odds["S-low"]
    assert spades.certain and spades.team_holds == 1.0 and spades.best_claim_right == 1.0
    assert spades.best_claim == "2S:P0 3S:P0 4S:P0 5S:P0 6S:P2 7S:P2"
    assert not {row.half_suit: row for row in claim_odds(state, 2, worlds=100, seed=3)[0]}["S-low"].certain
    assert main(["advise", "literature", "--position", str(path), "--worlds", "80", "--seed", "5"]) == 0
    first = capsys.readouterr().out
    assert main(["advise", "literature", "--position", str(path), "--worlds", "80", "--seed", "5"]) == 0
    assert capsys.readouterr().out == first  # same seed, same table
    line = next(line for line in first.splitlines() if line.startswith("S-low"))
    assert line.split()[1:4] == ["yes", "100.0%", "100.0%"]
    assert first.startswith("P0 after the history in")


@pytest.mark.parametrize("text, message", [
    ("{", "not a readable position file"),
    ('{"format": "x"}', "not a position file"),
    ('{"format": "cardlab-position/1", "game": "cardlab_literature", "history": [999]}', "is not legal"),
    ('{"format": "cardlab-position/1", "game": "cardlab_literature", "history": [], "seat": 9}',
     "\"seat\" must be 0..5"),
    ('{"format": "cardlab-position/1", "games": "nowhere", "move": 1}', "no manifest.json"),
])
def test_a_bad_position_file_is_one_line(tmp_path, capsys, text, message) -> None:
    from cardlab.cli import main

    (tmp_path / "p.json").write_text(text)
    assert main(["advise", "literature", "--position", str(tmp_path / "p.json")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err, err


def test_a_position_file_may_name_a_move_of_a_stored_game(tmp_path, capsys) -> None:
    from cardlab.cli import main

    stored_literature_game(tmp_path / "plays")
    head = '{"format": "cardlab-position/1", "games": "plays", '
    (tmp_path / "p.json").write_text(head + '"deal": 0, "move": 20}')
    assert main(["advise", "literature", "--position", str(tmp_path / "p.json"), "--worlds", "60"]) == 0
    by_file = capsys.readouterr().out.splitlines()
    assert main(["advise", "literature", "--position", str(tmp_path / "plays"), "--move", "20",
                 "--worlds", "60"]) == 0
    by_folder = capsys.readouterr().out.splitlines()
    assert by_file[0].startswith("P") and "before move 20 of deal 0 in" in by_file[0]
    assert by_file[1:] == by_folder[1:]  # the same position, seat and worlds
    (tmp_path / "p.json").write_text(head + '"move": 100000}')
    assert main(["advise", "literature", "--position", str(tmp_path / "p.json")]) == 2
    assert "\"move\" must be 1.." in capsys.readouterr().err


# ---- --solver dd: the cards of every world played double dummy --------------------------------
def test_a_hand_played_out_double_dummy_takes_the_solvers_points() -> None:
    name = "cardlab_kaiser"
    from cardlab.arena.native import RULES, agent_kinds, empty_options
    from cardlab.games import game_spec
    from cardlab.play.kernels import play_out
    from cardlab.solver import solve
    from tests.test_solver import random_play_state

    game = pyspiel.load_game(name)
    spec = game_spec(name)
    rng = np.random.default_rng(5)
    points = spec.engine.HAND_POINTS
    for _ in range(3):
        state = random_play_state(game, rng, 5)
        expected = solve(state).points
        s = state.array.copy()
        seed = np.uint64(7)  # a deal seed is unsigned, as advice passes it (no second compilation)
        assert play_out(spec.kernel_id, agent_kinds([RULES]), s, np.full(4, RULES), empty_options(4), seed,
                        True)
        assert (int(s[points]), int(s[points + 1])) == expected


def test_double_dummy_advice_repeats_for_a_seed_and_differs_from_play() -> None:
    game = pyspiel.load_game("cardlab_kaiser")
    state = bidding_position(game, STRONG, 1, "pass 7")
    first = advise_bids(state, 1, worlds=12, seed=3, solver="dd")
    again = advise_bids(state, 1, worlds=12, seed=3, solver="dd")
    assert [(r.bid, r.mean) for r in first.rows] == [(r.bid, r.mean) for r in again.rows]
    assert first.players == "rules, the cards double dummy"
    played = advise_bids(state, 1, worlds=12, seed=3)
    assert {r.bid for r in played.rows} == {r.bid for r in first.rows}
    assert all(np.isfinite([r.mean, r.low, r.high]).all() for r in first.rows)
    with pytest.raises(ValueError, match="unknown solver 'exact'"):
        advise_bids(state, 1, worlds=4, solver="exact")
    twenty_eight = bidding_position(pyspiel.load_game("cardlab_twenty_eight"), "JS 9S AS TS", 1, "")
    with pytest.raises(ValueError, match="--solver dd: Twenty-Eight"):
        advise_bids(twenty_eight, 1, worlds=4, solver="dd")


def _finals(game: str, rows: int, **params) -> np.ndarray:
    """``rows`` copies of a new state of ``game`` (its side table filled), to be given an outcome."""
    state = pyspiel.load_game(game, params).new_initial_state()
    return np.tile(np.asarray(state.array, dtype=np.int64), (rows, 1))


def test_the_contract_outcome_reads_our_side_made_and_thrown_in_hands() -> None:
    """Bid advice's columns from final states: does the seat's side hold the contract, did it make it."""
    from cardlab.games import game_spec
    from cardlab.games.kaiser import engine as E
    from cardlab.games.twenty_eight import engine as T

    kaiser = game_spec("kaiser").contract_outcome
    finals = _finals("cardlab_kaiser", 3)
    finals[:, E.WINNER] = -1
    finals[0, E.DECLARER], finals[0, E.LAST_DELTA + 1] = 3, 9  # seat 3's team made it
    finals[1, E.DECLARER], finals[1, E.LAST_DELTA] = 2, -10  # seat 2's team went set
    finals[2, E.DECLARER], finals[2, E.WINNER] = -1, E.DRAWN  # every seat passed: thrown in
    returns = np.zeros((3, 4))
    assert [kaiser(finals, returns, seat)[0].tolist() for seat in (1, 0)] == [[True, False, False],
                                                                             [False, True, False]]
    assert kaiser(finals, returns, 1)[1].tolist() == [True, False, False]

    # Five players each for himself: seat 1 is not seat 3's partner (a parity test would say so).
    finals = _finals("cardlab_kaiser", 2, players=5)
    finals[:, E.WINNER], finals[:, E.DECLARER] = -1, 3
    finals[0, E.LAST_DELTA + 3], finals[1, E.LAST_DELTA + 3] = 8, -8
    assert [kaiser(finals, np.zeros((2, 5)), seat)[0].tolist() for seat in (3, 1)] == [[True, True],
                                                                                       [False, False]]
    assert kaiser(finals, np.zeros((2, 5)), 3)[1].tolist() == [True, False]
    # Six players: two teams of three by parity, or three teams of two (partners opposite).
    for params, partner, opponent in (({}, 5, 0), ({"three_teams": True}, 0, 1)):
        finals = _finals("cardlab_kaiser", 1, players=6, **params)
        finals[:, E.WINNER], finals[:, E.DECLARER] = -1, 3
        side = finals[0, E.SIDE_OF + 3]
        finals[0, E.LAST_DELTA + side] = 7
        assert kaiser(finals, np.zeros((1, 6)), partner)[0].tolist() == [True], params
        assert kaiser(finals, np.zeros((1, 6)), opponent)[0].tolist() == [False], params
        assert kaiser(finals, np.zeros((1, 6)), opponent)[1].tolist() == [True], params

    twenty_eight = game_spec("twenty_eight").contract_outcome
    finals = _finals("cardlab_twenty_eight", 2)
    finals[:, T.BIDDER], finals[:, T.OUTCOME] = 1, T.PLAYED_OUT
    finals[1, T.OUTCOME] = T.REDEALT  # not played out: no contract
    returns = np.array([[-2.0, 2.0, -2.0, 2.0], [0.0, 0.0, 0.0, 0.0]])
    assert twenty_eight(finals, returns, 3)[0].tolist() == [True, False]
    assert twenty_eight(finals, returns, 0)[0].tolist() == [False, False]
    assert twenty_eight(finals, returns, 0)[1].tolist() == [True, False]
    # Three players: the bidder alone; six: partners opposite (seat mod 3).
    for players, partner, opponent in ((3, 1, 2), (6, 4, 3)):
        finals = _finals("cardlab_twenty_eight", 1, players=players)
        finals[:, T.BIDDER], finals[:, T.OUTCOME] = 1, T.PLAYED_OUT
        returns = np.where(np.arange(players) % (3 if players == 6 else players) == 1, 1.0, -1.0)[None]
        assert twenty_eight(finals, returns, partner)[0].tolist() == [True], players
        assert twenty_eight(finals, returns, opponent)[0].tolist() == [False], players
        assert twenty_eight(finals, returns, opponent)[1].tolist() == [True], players
