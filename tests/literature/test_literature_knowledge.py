"""Literature card-location inference: soundness on every step, deductions, and the resampler."""

from __future__ import annotations

import numpy as np
import pyspiel
from numba import njit

from cardlab.core.bitboard import popcount
from cardlab.core.rng import make_stream, random_below
from cardlab.games.literature import engine as E
from cardlab.games.literature import knowledge as K
from cardlab.games.literature.sampling import consistent_with_log, resample_hidden_hands, sample_hands


@njit(cache=True)
def _soundness_failures(template, num_games, stream, certain):
    """Play random games; on every step check the public knowledge and every seat's private
    view against the real hands. ``certain[team]`` sums the cards each team's seats are
    known (publicly) to hold, over all steps."""
    legal = np.empty(E.MAX_LEGAL_ACTIONS, dtype=np.int64)
    view = np.empty(K.KNOWLEDGE_SIZE, dtype=np.int64)
    failures = 0
    steps = 0
    for _ in range(num_games):
        s = E.random_deal(template, stream)
        while s[E.PHASE] != E.GAME_OVER:
            n = E.legal_actions(s, legal)
            E.apply_action(s, legal[random_below(stream, n)])
            steps += 1
            hands = s[E.HANDS:E.HANDS + 16]
            public = E.knowledge_of(s)
            if not K.is_sound(public, hands):
                failures += 1
            for team in range(2):
                certain[team] += K.certain_cards(public, team)
            for seat in range(s[E.NUM_PLAYERS]):
                K.private_view(public, seat, s[E.HANDS + seat], view)
                if not K.is_sound(view, hands):
                    failures += 1
    return failures, steps


def test_inference_is_sound_on_every_step_of_5000_games() -> None:
    certain = np.zeros(2, dtype=np.int64)
    for params, games in (({}, 3000), ({"players": 8}, 1000), ({"players": 4}, 500),
                          ({"jokers_ninth_set": True}, 500)):
        game = pyspiel.load_game("cardlab_literature", params)
        failures, steps = _soundness_failures(game.initial_array, games, make_stream(7), certain)
        assert failures == 0, f"{failures} unsound steps with {params}"
        assert steps > games * 50
    assert certain.min() > 0  # random play does produce certainties for both teams


def test_deductions_place_cards_and_exclude_holders() -> None:
    k = K.new_knowledge(6, 0)
    two_h, three_h, four_h = 26, 27, 28
    K.observe_ask(k, 0, 1, three_h, False)  # P0 has a low heart, not 3H; P1 lacks 3H
    assert not K.may_hold(k, 0, three_h) and not K.may_hold(k, 1, three_h)
    assert K.minimum(k, 0, 4) == 1
    K.observe_ask(k, 0, 3, two_h, True)  # 2H placed with P0, who now holds two low hearts
    assert K.holder_of(k, two_h) == 0 and K.minimum(k, 0, 4) == 2
    assert K.hand_size(k, 0) == 9 and K.hand_size(k, 3) == 7
    # P0's own view adds his hand: his cards are placed, nobody else may hold them.
    view = np.empty(K.KNOWLEDGE_SIZE, dtype=np.int64)
    hand = (1 << two_h) | (1 << 30) | ((1 << 7) - 1)  # 2H, 6H and seven clubs
    K.private_view(k, 0, hand, view)
    assert K.holder_of(view, 30) == 0 and K.minimum(view, 0, 4) == 2
    assert not K.may_hold(view, 0, four_h) and K.may_hold(view, 2, four_h)


def test_a_half_suit_minimum_only_one_card_can_meet_places_it() -> None:
    k = K.new_knowledge(6, 0)
    low_hearts = [26, 27, 28, 29, 30, 31]
    # P2 asks for 2H, 3H, 4H, 5H (all refused by P1): P2 holds a low heart, not those four.
    for card in low_hearts[:4]:
        K.observe_ask(k, 2, 1, card, False)
    # P4 asks P1 for 6H and is refused: P4 too holds a low heart.
    K.observe_ask(k, 4, 3, 31, False)
    # P0's view: he holds 6H, so P2's low heart can only be the 7H.
    view = np.empty(K.KNOWLEDGE_SIZE, dtype=np.int64)
    K.private_view(k, 0, (1 << 30) | 0b1111111, view)
    assert K.holder_of(view, 31) == 2
    assert not K.claim_is_certain(view, 4, 0)  # P4's low heart is still somewhere


@njit(cache=True)
def _resampler_failures(template, num_samples, stream):
    """Draw worlds for the player to move at random points of random games; count any that
    break a constraint, change the observer's hand, contradict the log or cannot be played on."""
    legal = np.empty(E.MAX_LEGAL_ACTIONS, dtype=np.int64)
    failures = 0
    samples = 0
    moved = 0
    while samples < num_samples:
        s = E.random_deal(template, stream)
        while s[E.PHASE] != E.GAME_OVER and samples < num_samples:
            n = E.legal_actions(s, legal)
            E.apply_action(s, legal[random_below(stream, n)])
            if s[E.PHASE] != E.ASKING:
                continue
            seat = s[E.TO_MOVE]
            world, draws = resample_hidden_hands(s, seat, stream, 1000)
            samples += 1
            view = E.private_knowledge(s, seat)
            hands = world[E.HANDS:E.HANDS + 16]
            if draws <= 0 or not K.is_sound(view, hands):
                failures += 1
            if world[E.HANDS + seat] != s[E.HANDS + seat] or not consistent_with_log(s, hands):
                failures += 1
            if not K.is_sound(E.knowledge_of(world), hands):
                failures += 1
            for other in range(s[E.NUM_PLAYERS]):
                if popcount(world[E.DEALT + other]) != popcount(s[E.DEALT + other]):
                    failures += 1
                if world[E.HANDS + other] != s[E.HANDS + other]:
                    moved += 1
            # The world plays on to the end.
            while world[E.PHASE] != E.GAME_OVER:
                m = E.legal_actions(world, legal)
                if m == 0:
                    failures += 1
                    break
                E.apply_action(world, legal[random_below(stream, m)])
    return failures, moved


def test_resampler_draws_10000_valid_worlds() -> None:
    game = pyspiel.load_game("cardlab_literature")
    failures, moved = _resampler_failures(game.initial_array, 10_000, make_stream(21))
    assert failures == 0
    assert moved > 10_000  # the hidden hands really are redrawn
    game8 = pyspiel.load_game("cardlab_literature", {"players": 8})
    assert _resampler_failures(game8.initial_array, 2_000, make_stream(22))[0] == 0


def test_sampler_reports_contradictions() -> None:
    k = K.new_knowledge(4, 0)
    k[K.MINIMUM + 1 * 9 + 0] = 7  # P1 "holds seven low clubs": impossible
    hands = np.zeros(16, dtype=np.int64)
    assert not sample_hands(k, 0, np.int64(0), make_stream(1), hands)


def test_resample_from_infostate_through_openspiel() -> None:
    game = pyspiel.load_game("cardlab_literature")
    state = game.new_initial_state()
    rng = np.random.default_rng(2)
    while state.is_chance_node() or len(state.history()) < 80:
        if state.is_terminal():
            break
        actions = ([a for a, _ in state.chance_outcomes()] if state.is_chance_node()
                   else state.legal_actions())
        state.apply_action(actions[rng.integers(len(actions))])
    player = state.current_player()
    world = state.resample_from_infostate(player, rng.random)
    assert world.information_state_string(player) == state.information_state_string(player)
    assert world.observation_tensor(player) == state.observation_tensor(player)
    # The world is a real state: its history deals its hands and replays to it.
    assert len(world.history()) == len(state.history())
    np.testing.assert_array_equal(world.get_game().replay(world.history()).array, world.array)


def test_the_observation_spells_out_the_claims_in_reach_and_the_next_cards_holders() -> None:
    """P0 is dealt the whole of the low clubs with 9C and TC: the low clubs are a certain claim
    held by his team, the high clubs neither; a card of his is held by one seat, one he lacks by
    any of the five others; and once he claims, the 2C's only possible holder is himself."""
    from conftest import deal

    from cardlab.core.cards import cards_string, mask_of
    from cardlab.core.encoding import piece_starts
    from cardlab.games.literature.observation import pieces_of_state
    from cardlab.games.literature.rules import CLAIM, DECKS

    game = pyspiel.load_game("cardlab_literature")
    own = "2C 3C 4C 5C 6C 7C 9C TC"
    rest = cards_string(int(DECKS[0]) & ~mask_of(own.split())).split()
    state = deal(game.new_initial_state(), {0: own, **{seat: " ".join(rest[8 * (seat - 1):8 * seat])
                                                       for seat in range(1, 6)}})
    start = piece_starts(pieces_of_state(state.array, False))
    x = np.asarray(state.observation_tensor(0), dtype=np.float64)
    low_clubs, high_clubs, two_clubs, two_diamonds = 0, 1, 0, 13
    assert x[start["certain_claims"] + low_clubs] == 1 and x[start["team_holds"] + low_clubs] == 1
    assert x[start["certain_claims"] + high_clubs] == 0 and x[start["team_holds"] + high_clubs] == 0
    holders = x[start["holder_counts"]:start["holder_counts"] + 54] * 6  # how many seats may hold each card
    assert round(holders[two_clubs]) == 1 and round(holders[two_diamonds]) == 5
    assert not x[start["next_card_holders"]:start["next_card_holders"] + 6].any()  # no claim is being made
    state.apply_action(CLAIM + low_clubs)
    x = np.asarray(state.observation_tensor(0))
    assert list(x[start["next_card_holders"]:start["next_card_holders"] + 6]) == [1, 0, 0, 0, 0, 0]
    seen_by_the_next_seat = np.asarray(state.observation_tensor(1))  # P1 cannot place the 2C: P0 or P2..P5
    assert list(seen_by_the_next_seat[start["next_card_holders"]:start["next_card_holders"] + 6]) == [
        0, 1, 1, 1, 1, 1]
