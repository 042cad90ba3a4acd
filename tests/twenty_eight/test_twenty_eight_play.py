"""Twenty-Eight at scale: random invariants, engine/wrapper agreement, resampling, OpenSpiel tools."""

from __future__ import annotations

import numpy as np
import pyspiel
import pytest
from twenty_eight_scenarios import raw_replay

from cardlab.core.bitboard import popcount
from cardlab.core.cards import SUIT_MASKS
from cardlab.core.layout import UNDEALT
from cardlab.core.rng import make_stream, random_below
from cardlab.games.twenty_eight import engine as E
from cardlab.games.twenty_eight.game import (
    TWENTY_EIGHT_ENGINE,
    deal_chance_actions,
    new_engine_state,
)
from cardlab.games.twenty_eight.rules import CALL_TRUMP, STANDARD_DECK
from cardlab.games.twenty_eight.sampling import publicly_known_cards, resample_hidden_hands
from cardlab.games.twenty_eight.strategy import play_duplicate_deals, rules_action


@pytest.fixture(scope="module")
def game() -> pyspiel.Game:
    return pyspiel.load_game("cardlab_twenty_eight")


def suit_of(card: int) -> int:
    return card // 13


def reference_play_actions(s: np.ndarray) -> list[int]:
    """Rulings 5 and 6 written out directly from the contract's text, for cross-checking."""
    seat = int(s[E.TO_MOVE])
    hand = [c for c in range(52) if int(s[E.HANDS + seat]) >> c & 1]
    trick = [int(s[E.TRICK + i]) for i in range(int(s[E.TRICK_SIZE]))]
    led = suit_of(trick[0]) if trick else None
    trump = int(s[E.TRUMP])
    bidder = int(s[E.BIDDER])
    if s[E.MUST_PLAY_TRUMP] == seat:  # the caller / shower must play a trump if he holds one
        trumps = [c for c in hand if suit_of(c) == trump]
        return trumps or hand
    follow = [c for c in hand if led is not None and suit_of(c) == led]
    if s[E.TRUMP_SHOWN]:  # phase 2: follow suit, else anything
        return follow or hand
    if seat != bidder:
        if led is None:
            return hand  # the leader never calls
        return follow if follow else hand + [CALL_TRUMP]
    if not hand:  # the hidden indicator is his last card
        return [int(s[E.INDICATOR])]
    plain = [c for c in hand if suit_of(c) != trump]
    if led is None:
        return plain or hand
    if follow:
        return follow
    if led != trump:
        return plain + [CALL_TRUMP]
    return hand + [CALL_TRUMP]


# ---- Random invariants in numba --------------------------------------------------------
def test_ten_thousand_random_hands_keep_every_invariant():
    results = np.zeros((10_000, len(E.RESULT_FIELDS)))
    steps = E.play_random_hands(new_engine_state({}), 10_000, make_stream(4), results)
    assert steps > 10_000 * 32
    outcome = results[:, 5]
    played = outcome == E.PLAYED_OUT
    assert played.mean() > 0.9
    assert np.all(results[:, 7] == 0)  # zero-sum, void hands included
    assert np.all(results[~played, 0] == 0)
    assert np.all(results[played, 1] + results[played, 2] == 28)
    shown = results[played, 6]
    assert np.all((shown >= 0) & (shown <= 7))  # the trump is shown by trick 8
    assert np.any(shown == 7)
    # Ruling 8 on every played hand.
    bidder_team = results[played, 3].astype(int) % 2
    taken = np.where(bidder_team == 0, results[played, 1], results[played, 2])
    bids = results[played, 4].astype(int)
    expected = np.array([E.game_points_for(b, t >= b) for b, t in zip(bids, taken, strict=True)])
    seat0 = np.where(bidder_team == 0, expected, -expected)
    assert np.array_equal(results[played, 0], seat0)
    assert set(np.unique(outcome)) == {E.PLAYED_OUT, E.REDEALT, E.FOUR_JACKS, E.ALL_TRUMPS}


# ---- Action strings ---------------------------------------------------------------------
def test_action_strings_follow_the_contract(game):
    state = game.new_initial_state()
    assert state.action_to_string(-1, 48) == "JS"
    assert [state.action_to_string(0, a) for a in (48, 52, 53, 54, 60 + 17)] == [
        "JS", "pass", "call trump", "redeal", "bid 17"]
    assert game.num_distinct_actions() == 89
    assert [state.action_to_string(0, a) for a in range(55, 60)] == [
        "show pointless", "surrender", "accept", "play on", "thani"]  # docs/variants.md
    with pytest.raises(ValueError, match="no action with id 89"):
        state.action_to_string(0, 89)


# ---- Resampling ----------------------------------------------------------------------------
def random_decision_state(game, rng, policy_stream=None):
    """A state at a random decision point (random or rules play), or None if the hand ended."""
    state = game.new_initial_state()
    stop_after = int(rng.integers(0, 60))
    steps = 0
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes = state.chance_outcomes()
            state.apply_action(outcomes[rng.integers(len(outcomes))][0])
            continue
        if steps >= stop_after:
            return state
        if policy_stream is not None:
            state.apply_action(int(rules_action(state.array, policy_stream)))
        else:
            legal = state.legal_actions()
            state.apply_action(legal[rng.integers(len(legal))])
        steps += 1
    return None


def world_chance_actions(world: np.ndarray) -> list[int]:
    """The deal of a resampled world, as chance actions in contract order."""
    n = int(world[E.NUM_PLAYERS])
    first = [sorted(_cards(world[E.FIRST_FOUR + seat])) for seat in range(n)]
    second = [sorted(_cards(world[E.DEALT + seat] & ~world[E.FIRST_FOUR + seat]))
              for seat in range(n)]
    dealer = int(world[E.DEALER])
    if n == 6:
        return deal_chance_actions(dealer, first)[0]
    if all(len(c) == 4 for c in second):
        stage1, stage2 = deal_chance_actions(dealer, first, second)
        return stage1 + stage2
    stage1, _ = deal_chance_actions(dealer, first, [[0, 1, 2, 3]] * n)
    return stage1


def _cards(mask) -> list[int]:
    return [c for c in range(52) if int(mask) >> c & 1]


def replay_world(state: pyspiel.State, world: np.ndarray) -> np.ndarray:
    """Replay ``state``'s public actions on ``world``'s deal; every step must be legal."""
    chance = iter(world_chance_actions(world))
    stage_one = world[E.OLD_INDICATOR] if world[E.OLD_INDICATOR] >= 0 else world[E.INDICATOR]
    placements = iter([stage_one, world[E.INDICATOR]])
    raw = state.get_game().initial_array.copy()
    for action in state.history():
        if raw[E.PHASE] == E.DEALING:
            action = next(chance)
        elif raw[E.PHASE] == E.PLACING:
            action = int(next(placements))
        TWENTY_EIGHT_ENGINE.apply(raw, int(action))  # raises ValueError if illegal
    return raw


def check_world(state: pyspiel.State, player: int, world_state: pyspiel.State) -> None:
    a, b = state.array, world_state.array
    n = int(a[E.NUM_PLAYERS])
    assert b[E.HANDS + player] == a[E.HANDS + player]
    assert b[E.DEALT + player] == a[E.DEALT + player]
    assert b[E.FIRST_FOUR + player] == a[E.FIRST_FOUR + player]
    hidden = np.zeros(E.STATE_SIZE, dtype=bool)
    for base in (E.HANDS, E.DEALT, E.FIRST_FOUR):
        hidden[base:base + n] = True
    hidden[[E.INDICATOR, E.OLD_INDICATOR, E.TRUMP, UNDEALT]] = True  # the undealt cards too
    assert np.array_equal(a[~hidden], b[~hidden])  # every public fact kept
    if E.trump_hidden(a) and player != a[E.BIDDER]:
        pass  # the indicator and trump are redrawn
    elif a[E.INDICATOR] >= 0:
        assert b[E.INDICATOR] == a[E.INDICATOR] and b[E.TRUMP] == a[E.TRUMP]
    for seat in range(n):
        assert popcount(b[E.HANDS + seat]) == popcount(a[E.HANDS + seat])
        secret = int(b[E.HANDS + seat]) & ~int(publicly_known_cards(b, seat))
        for suit in range(4):
            if (b[E.VOIDS + seat] >> suit) & 1:
                assert secret & int(SUIT_MASKS[suit]) == 0
    # The world is a real state: its history deals its hands and replays to it.
    assert len(world_state.history()) == len(state.history())
    np.testing.assert_array_equal(world_state.get_game().replay(world_state.history()).array,
                                  world_state.array)
    assert world_state.information_state_string(player) == state.information_state_string(player)
    assert world_state.information_state_tensor(player) == state.information_state_tensor(player)
    assert np.array_equal(replay_world(state, b), b)


def test_resampled_worlds_keep_the_players_information_and_replay_legally(game):
    rng = np.random.default_rng(3)
    sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
    stream = make_stream(5)
    checked = 0
    hidden_trump_guesses = 0
    while checked < 3000:
        state = random_decision_state(game, rng, stream if checked % 2 else None)
        if state is None:
            continue
        players = [state.current_player(), int(rng.integers(4))]
        for player in players:
            for _ in range(5):
                world = state.resample_from_infostate(player, sampler)
                check_world(state, player, world)
                checked += 1
                if E.trump_hidden(state.array) and player != state.array[E.BIDDER]:
                    hidden_trump_guesses += 1
    assert hidden_trump_guesses > 300


def test_resampler_draws_the_hidden_trump_in_proportion_to_the_unseen_cards(game):
    # Before any card is played nothing constrains the indicator: it is uniform over the
    # cards the observer has not seen, so each suit comes up in proportion to its count.
    rng = np.random.default_rng(11)
    state = None
    while state is None or state.array[E.PHASE] != E.RAISING:
        state = random_decision_state(game, rng)
    s = state.array
    opponent = (int(s[E.BIDDER]) + 1) % 4
    unseen = int(STANDARD_DECK) & ~int(s[E.HANDS + opponent])
    expected = np.array([bin(unseen & int(SUIT_MASKS[suit])).count("1") for suit in range(4)])
    counts = np.zeros(4)
    for seed in range(3000):
        counts[resample_hidden_hands(s, opponent, make_stream(seed))[E.TRUMP]] += 1
    expected = 3000 * expected / expected.sum()
    assert np.all(np.abs(counts - expected) < 4 * np.sqrt(expected) + 5)


def test_resampler_respects_the_bidders_hidden_trump_lead():
    """A bidder who led spades while hidden, if spades are trump, held only spades."""
    state = None
    game = pyspiel.load_game("cardlab_twenty_eight")
    rng = np.random.default_rng(21)
    found = 0
    for _ in range(4000):
        state = random_decision_state(game, rng)
        if state is None or state.array[E.PHASE] != E.PLAYING:
            continue
        s = state.array
        leads = [suit for suit in range(4) if s[E.BIDDER_HIDDEN_LEADS + suit] >= 0]
        if not leads or not E.trump_hidden(s):
            continue
        observer = (int(s[E.BIDDER]) + 1) % 4
        for seed in range(20):
            world = resample_hidden_hands(s, observer, make_stream(seed))
            trump = int(world[E.TRUMP])
            assert not (world[E.BIDDER_DISCARDS] >> trump) & 1
            if world[E.BIDDER_HIDDEN_LEADS + trump] >= 0:
                assert world[E.HANDS + world[E.BIDDER]] & ~int(SUIT_MASKS[trump]) == 0
        found += 1
        if found >= 40:
            break
    assert found >= 10




# ---- OpenSpiel tools ------------------------------------------------------------------------
def test_openspiel_random_sim_test(game):
    pyspiel.random_sim_test(game, num_sims=20, serialize=True, verbose=False)
    dealt_by_3 = pyspiel.load_game("cardlab_twenty_eight", {"dealer": 3})
    pyspiel.random_sim_test(dealt_by_3, num_sims=5, serialize=True, verbose=False)


def test_tensors_have_the_declared_shapes(game):
    rng = np.random.default_rng(1)
    state = None
    while state is None or state.array[E.PHASE] != E.PLAYING:
        state = random_decision_state(game, rng)
    for player in range(4):
        info = np.array(state.information_state_tensor(player))
        observation = np.array(state.observation_tensor(player))
        assert info.shape == tuple(game.information_state_tensor_shape())
        assert observation.shape == tuple(game.observation_tensor_shape())
        assert info[:52].sum() == popcount(state.array[E.HANDS + player])
        indicator_plane = observation[52:104]
        knows = player == state.array[E.BIDDER] or state.array[E.TRUMP_SHOWN]
        assert indicator_plane.sum() == (1 if knows else 0)




# ---- Bad input ----------------------------------------------------------------------------
def test_illegal_actions_raise_value_error_and_leave_the_state_unchanged(game):
    state = game.new_initial_state()
    before = state.array.copy()
    with pytest.raises(ValueError, match=r"illegal action 52 \(pass\) for chance"):
        state.apply_action(52)
    assert np.array_equal(state.array, before)
    while state.is_chance_node():
        state.apply_action(state.chance_outcomes()[0][0])
    before = state.array.copy()
    with pytest.raises(ValueError, match=r"illegal action 52 \(pass\) for player 1; legal "
                                         r"actions: \[74 \(bid 14\)"):
        state.apply_action(52)  # the opener may not pass
    assert np.array_equal(state.array, before)
    state.apply_action(74)
    for _ in range(3):
        state.apply_action(52)
    with pytest.raises(ValueError, match=r"illegal action 0 \(trump 2C\) for player 1; legal "
                                         r"actions: \[.*\(trump "):
        state.apply_action(0)
    with pytest.raises(ValueError, match="illegal action"):
        TWENTY_EIGHT_ENGINE.apply(state.array, 88)
    with pytest.raises(ValueError, match="illegal action"):
        TWENTY_EIGHT_ENGINE.apply(state.array, -3)
    with pytest.raises(TypeError, match="int64 array"):
        TWENTY_EIGHT_ENGINE.legal(np.zeros(3))




@pytest.mark.parametrize(
    "params, message",
    [({"dealer": 4}, "'dealer' must be in 0..3"), ({"dealer": -1}, "'dealer' must be in 0..3")],
)
def test_bad_parameters_are_rejected_at_load_game(params, message):
    with pytest.raises(ValueError, match=message):
        pyspiel.load_game("cardlab_twenty_eight", params)






# ---- The rule-based player ----------------------------------------------------------------
def test_rules_player_beats_random_on_duplicate_deals():
    results = np.zeros((400, 2))
    play_duplicate_deals(new_engine_state({}), 400, make_stream(3), results)
    per_deal = results.mean(axis=1)
    mean = per_deal.mean()
    low = mean - 2.0 * per_deal.std() / np.sqrt(len(per_deal))
    assert mean > 1.5 and low > 1.0


def test_random_action_draws_what_the_legal_list_draws():
    """Straight from the card masks, the same action and the same stream as the list."""
    legal = np.empty(E.MAX_LEGAL_ACTIONS, dtype=np.int64)
    for params in ({}, {"players": 6, "cot": True}, {"players": 3, "thani": True}):
        template, stream = new_engine_state(params), make_stream(8)
        for _ in range(30):
            s = template.copy()
            while s[E.PHASE] != E.GAME_OVER:
                twin = stream.copy()
                drawn = E.random_action(s, twin, legal)
                action = legal[random_below(stream, E.legal_actions(s, legal))]
                assert drawn == action and twin[0] == stream[0]
                E.apply_action(s, action)


def test_rules_player_moves_are_legal_in_rules_only_games(game):
    stream = make_stream(2)
    template = new_engine_state({})
    legal = np.empty(E.MAX_LEGAL_ACTIONS, dtype=np.int64)
    rng = np.random.default_rng(0)
    for _ in range(200):
        s = template.copy()
        while s[E.PHASE] != E.GAME_OVER:
            if E.current_player(s) < 0:
                n = E.legal_actions(s, legal)
                E.apply_action(s, legal[rng.integers(n)])
                continue
            action = rules_action(s, stream)
            assert action in TWENTY_EIGHT_ENGINE.legal(s)
            E.apply_action(s, action)
        assert (s[E.OUTCOME] != E.PLAYED_OUT
                or s[E.CARD_POINTS_WON] + s[E.CARD_POINTS_WON + 1] == 28)


def test_deck_is_thirty_two_cards():
    assert popcount(STANDARD_DECK) == 32
    assert raw_replay(pyspiel.load_game("cardlab_twenty_eight").new_initial_state())[E.PHASE] == 0
