"""Twenty-Eight's rule variants (docs/variants.md): one hand-built scenario per variant and per
ruling V-T…, every load_game reject, random-play invariants and resampling under each variant.

The checks every game shares (engine/wrapper agreement, OpenSpiel's random_sim_test) run over
every declared variant in tests/test_all_games.py.
"""

from __future__ import annotations

import numpy as np
import pyspiel
import pytest
from test_twenty_eight_play import check_world, random_decision_state
from twenty_eight_scenarios import OPENING, E, act, legal_strings, mask, start

from cardlab.core.rng import make_stream
from cardlab.games.twenty_eight import observation
from cardlab.games.twenty_eight.game import validated_parameters

SWITCHES = ("jack_discard_restriction", "pointless_hand_redeal", "cot", "thani")
#: Each variant alone, then all of them together (every combination is allowed, spec 3.7).
SETTINGS = [{name: True} for name in SWITCHES] + [dict.fromkeys(SWITCHES, True)]
SETTING_IDS = [*SWITCHES, "all"]
GAME_ARRAY = pyspiel.load_game("cardlab_twenty_eight").new_initial_state().array

# Trump clubs (bidder P0 places 7C). P2 holds one club, the JC, and no spade.
JACK_FIRST = ["7C 8C AH KH", "8H 7H JS 9S", "JC KD QD 8D", "AC 9C TC KC"]
JACK_SECOND = ["JH 9H TH QH", "AS TS KS QS", "7D 9D AD TD", "QC 8S 7S JD"]
# P3's eight cards hold no J, 9, A or 10; P0's only point card is the indicator TC.
POINTLESS_FIRST = ["TC KC QC 8C", "JC 9C AC 7H", "JH 9H AH TH", "KD QD 8D 7D"]
POINTLESS_SECOND = ["7C KH QH 8H", "JS 9S AS TS", "JD 9D AD TD", "KS QS 8S 7S"]
# The bidding side (P0, P2) holds J 9 A 10 of every suit: playing high, it wins every trick.
SWEEP_FIRST = ["JC JD 9C 9D", "KC QC KD QD", "AC TC AD TD", "8C 7C 8D 7D"]
SWEEP_SECOND = ["AH TH AS TS", "KH QH KS QS", "JH 9H JS 9S", "8H 7H 8S 7S"]
# The same, with the opponents (P1, P3) holding the top cards.
REVERSE_FIRST = ["KC QC KD QD", "JC JD 9C 9D", "8C 7C 8D 7D", "AC TC AD TD"]
REVERSE_SECOND = ["KH QH KS QS", "AH TH AS TS", "8H 7H 8S 7S", "JH 9H JS 9S"]
# P0 holds J 9 A 10 of clubs and hearts: as Thani bidder he wins every trick himself.
THANI_FIRST = ["JC 9C AC TC", "KC QC KH QH", "8C 7C 8H 7H", "KD QD 8D 7D"]
THANI_SECOND = ["JH 9H AH TH", "JS 9S AS TS", "JD 9D AD TD", "KS QS 8S 7S"]


def play_high(state: pyspiel.State, stop_at_offer: bool = False) -> pyspiel.State:
    """Everyone plays his strongest legal card (never calls) until the hand ends
    (or, with ``stop_at_offer``, until a cot offer node)."""
    while not state.is_terminal():
        if stop_at_offer and legal_strings(state) == ["pass", "surrender"]:
            return state
        cards = [a for a in state.legal_actions() if a < 52]
        assert cards, legal_strings(state)
        state.apply_action(max(cards, key=lambda card: E.STRENGTH[card]))
    return state


# ---- 13.1 jack_discard_restriction -------------------------------------------------------
def jack_game(params: dict) -> pyspiel.State:
    return act(start(JACK_FIRST, JACK_SECOND, OPENING, "7C", params=params), "AS")


def test_jack_of_an_unled_suit_is_barred_when_not_following():
    standard = jack_game({})
    restricted = jack_game({"jack_discard_restriction": True})
    assert standard.current_player() == restricted.current_player() == 2
    assert legal_strings(restricted) == [s for s in legal_strings(standard) if s != "JC"]
    assert "call trump" in legal_strings(restricted)
    act(standard, "7D", "8S")
    act(restricted, "7D", "8S")  # the bidder P0, trump hidden, does not follow either
    assert legal_strings(restricted) == [s for s in legal_strings(standard) if s != "JH"]


def test_jack_of_a_led_suit_is_a_free_discard():
    state = jack_game({"jack_discard_restriction": True})
    state.array[E.LED_SUITS] |= 1 << 0  # had a club trick been led, JC would be free
    state.refresh()
    assert "JC" in legal_strings(state)


def test_v_t4_jacks_stay_legal_when_they_are_all_he_could_play():
    # The caller whose only trump is an unled jack must still play it.
    state = act(jack_game({"jack_discard_restriction": True}), "call trump")
    assert legal_strings(state) == ["JC"]
    act(state, "JC")
    assert state.array[E.NO_HOLD + 2] == mask("9C AC TC KC QC 8C 7C")  # no other club
    # Clarification 2: when only barred jacks are left, they stay legal beside a legal call.
    state = jack_game({"jack_discard_restriction": True})
    state.array[E.HANDS + 2] = mask("JC JH")
    state.refresh()
    assert legal_strings(state) == ["JC", "JH", "call trump"]


def test_forced_jack_discards_constrain_the_resampled_worlds():
    state = act(jack_game({"jack_discard_restriction": True}), "call trump", "JC")
    sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
    clubs_left = mask("9C AC TC KC QC 8C")
    for _ in range(50):
        world = state.resample_from_infostate(1, sampler)
        check_world(state, 1, world)
        assert int(world.array[E.HANDS + 2]) & clubs_left == 0


# ---- 13.2 pointless_hand_redeal ------------------------------------------------------------
def at_the_shows() -> pyspiel.State:
    state = start(POINTLESS_FIRST, POINTLESS_SECOND, OPENING, "TC", raises=(),
                  params={"pointless_hand_redeal": True})
    return state


def test_a_pointless_hand_may_be_shown_and_voids_the_hand():
    state = act(at_the_shows(), "pass", "pass")
    assert state.current_player() == 3
    assert legal_strings(state) == ["pass", "show pointless"]
    act(state, "show pointless")
    assert state.is_terminal() and state.returns() == [0.0] * 4
    assert state.array[E.OUTCOME] == E.POINTLESS_SHOWN
    assert "P3 show pointless" in str(state)


def test_v_t5_every_seat_gets_a_show_node_before_the_second_round():
    state = at_the_shows()
    seats, choices = [], []
    for _ in range(4):
        seats.append(state.current_player())
        choices.append(legal_strings(state))
        act(state, "pass")
    assert seats == [1, 2, 3, 0]  # turn order from dealer + 1, the bidder included
    # P0's hand holds no point card, but his indicator TC does: his eight cards count.
    assert choices == [["pass"], ["pass"], ["pass", "show pointless"], ["pass"]]
    assert state.current_player() == 0 and "bid 24" in legal_strings(state)  # second round


# ---- 13.3 cot --------------------------------------------------------------------------------
def cot_game(*nodes: str, deal=(None, None)) -> pyspiel.State:
    first, second = deal[0] or SWEEP_FIRST, deal[1] or SWEEP_SECOND
    indicator = "9C" if first is SWEEP_FIRST else "QC"
    return start(first, second, OPENING, indicator, raises=("pass", "pass", *nodes),
                 params={"cot": True})


def test_cot_accepted_surrender_scores_the_single_game():
    state = cot_game()
    assert state.current_player() == 1 and legal_strings(state) == ["pass", "surrender"]
    act(state, "surrender")
    assert state.current_player() == 0 and legal_strings(state) == ["accept", "play on"]
    act(state, "accept")
    assert state.is_terminal() and state.returns() == [1.0, -1.0, 1.0, -1.0]  # bid 15: +1


def test_cot_every_trick_scores_double():
    state = cot_game("pass")
    offers = 0
    while not state.is_terminal():
        if legal_strings(state) == ["pass", "surrender"]:
            assert state.current_player() == 1
            offers += 1
            act(state, "pass")
        else:
            cards = [a for a in state.legal_actions() if a < 52]
            state.apply_action(max(cards, key=lambda card: E.STRENGTH[card]))
    assert offers == 7  # before tricks 2-8: the bidding side won every earlier one
    assert state.array[E.TRICKS_WON] == 8
    assert state.returns() == [2.0, -2.0, 2.0, -2.0]  # twice the single game of a 15 bid


def test_v_t6_play_on_then_a_lost_trick_ends_the_hand_at_double_loss():
    # The opponents offer before the first trick; the bidder plays on and no offer follows.
    state = cot_game("surrender", "play on", deal=(REVERSE_FIRST, REVERSE_SECOND))
    assert state.current_player() == 1 and "surrender" not in legal_strings(state)
    act(state, "JC")
    assert state.current_player() == 2
    play_high(state)  # P1 wins the first trick: the hand ends at once
    assert state.array[E.TRICK_NUMBER] == 1
    assert state.returns() == [-4.0, 4.0, -4.0, 4.0]  # 2 x (-2) for a failed 15
    assert "after playing on" in str(state)


def test_cot_offers_stop_once_the_bidding_side_loses_a_trick():
    state = cot_game("pass", deal=(REVERSE_FIRST, REVERSE_SECOND))
    offers = 0
    while not state.is_terminal():
        offers += legal_strings(state) == ["pass", "surrender"]
        play_high(state, stop_at_offer=True)
        if not state.is_terminal():
            act(state, "pass")
    assert offers == 0 and state.array[E.TRICK_NUMBER] == 8
    assert state.returns() == [-2.0, 2.0, -2.0, 2.0]  # the single game: no double loss


# ---- 13.5 thani ------------------------------------------------------------------------------
def thani_game(first, second, params=None) -> pyspiel.State:
    indicator = "TC" if first is THANI_FIRST else "9C"
    state = start(first, second, OPENING, indicator, raises=(),
                  params={"thani": True, **(params or {})})
    assert state.current_player() == 0
    assert legal_strings(state)[:3] == ["pass", "thani", "bid 24"]
    return act(state, "thani")


def test_thani_made_scores_four():
    state = thani_game(THANI_FIRST, THANI_SECOND, {"cot": True})
    assert state.current_player() == 0  # the partner does not speak; the bidder leads
    assert "surrender" not in legal_strings(state)  # no cot nodes in a Thani hand
    play_high(state)
    assert state.array[E.TRICKS_WON] == 8
    assert state.returns() == [4.0, -4.0, 4.0, -4.0]


def test_v_t7_a_trick_won_by_the_partner_defeats_thani():
    state = thani_game(SWEEP_FIRST, SWEEP_SECOND)
    play_high(state)
    winners = [int(w) for w in state.array[E.TRICK_WINNERS:E.TRICK_WINNERS + 8] if w >= 0]
    assert winners[-1] == 2 and all(w == 0 for w in winners[:-1])  # ended at P2's first trick
    assert state.returns() == [-5.0, 5.0, -5.0, 5.0]


def test_thani_is_the_bidders_choice_only():
    state = start(THANI_FIRST, THANI_SECOND, OPENING, "TC", raises=("pass",),
                  params={"thani": True})
    assert state.current_player() == 2 and "thani" not in legal_strings(state)


# ---- load_game -------------------------------------------------------------------------------
@pytest.mark.parametrize("params, message", [
    ({"players": 5}, "players"),
    ({"players": True}, "players"),
    ({"dealer": 4}, "dealer"),
    ({"cot": "yes"}, "cot"),
    ({"thani": 2}, "thani"),
])
def test_bad_parameters_are_rejected_with_their_name(params, message):
    with pytest.raises(ValueError, match=message):
        validated_parameters(params)


# ---- Random play -----------------------------------------------------------------------------
def random_hand_invariants(params: dict, hands: int, seed: int) -> None:
    game = pyspiel.load_game("cardlab_twenty_eight", params)
    results = np.zeros((hands, len(E.RESULT_FIELDS)))
    E.play_random_hands(game.new_initial_state().array, hands, make_stream(seed), results)
    returns = results[:, 0]
    assert np.all(results[:, 7] == 0)  # zero-sum every hand
    assert np.all(np.abs(returns) <= game.max_utility())
    assert np.all(results[:, 1] + results[:, 2] <= 28)
    return results


@pytest.mark.parametrize("params", SETTINGS, ids=SETTING_IDS)
def test_random_hands_keep_the_invariants_under_each_variant(params):
    random_hand_invariants(params, 500, 11)


@pytest.mark.slow
@pytest.mark.parametrize("params", SETTINGS, ids=SETTING_IDS)
def test_ten_thousand_random_hands_keep_the_invariants_under_each_variant(params):
    results = random_hand_invariants(params, 10_000, 12)
    if params.get("cot"):
        assert {-8.0, 8.0} & set(results[:, 0])  # some double games happen
    if params.get("thani") and not params.get("cot"):
        assert {-5.0, 5.0} <= set(results[:, 0])


def test_rules_bots_play_every_variant():
    from cardlab import agents
    from cardlab.arena import play_deal

    game = pyspiel.load_game("cardlab_twenty_eight", dict.fromkeys(SWITCHES, True))
    for seed in range(20):
        bots = [agents.make("rules", game, seat, seed + seat) for seat in range(4)]
        state, returns = play_deal(game, bots, seed)
        assert state.is_terminal() and sum(returns) == 0


def resampling_keeps_the_information_state(params: dict, worlds: int, seed: int) -> None:
    """``worlds`` resampled worlds at random decision points (random or rules play), each checked."""
    game = pyspiel.load_game("cardlab_twenty_eight", params)
    rng = np.random.default_rng(seed)
    sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
    stream = make_stream(seed + 1)
    checked = 0
    while checked < worlds:
        state = random_decision_state(game, rng, stream if checked % 2 else None)
        if state is None:
            continue
        for player in (state.current_player(), int(rng.integers(game.num_players()))):
            check_world(state, player, state.resample_from_infostate(player, sampler))
            checked += 1


@pytest.mark.parametrize("params", SETTINGS, ids=SETTING_IDS)
def test_resampled_worlds_keep_the_information_state_under_each_variant(params):
    resampling_keeps_the_information_state(params, 200, 7)


# ---- What a player sees ----------------------------------------------------------------------
def piece(state: pyspiel.State, player: int, name: str) -> np.ndarray:
    """One named piece of ``player``'s information-state tensor."""
    tensor = np.array(state.information_state_tensor(player))
    start = 0
    for piece_name, size in observation.tensor_pieces(state.array, True):
        if piece_name == name:
            return tensor[start:start + size]
        start += size
    raise KeyError(name)


def test_variant_nodes_and_records_are_in_the_tensors():
    state = thani_game(THANI_FIRST, THANI_SECOND)
    assert piece(state, 1, "variant_record")[2] == 1.0  # Thani, seen by everyone
    assert piece(state, 1, "second_round")[0] == 1.0  # and no raise recorded for it
    assert "variant_nodes" not in dict(observation.tensor_pieces(GAME_ARRAY, True))
    offers = [cot_game(*nodes) for nodes in (("surrender", "play on"),
                                             ("pass",))]
    assert piece(offers[0], 2, "variant_record")[1] == 1 / 8  # played on before trick 1
    assert piece(offers[1], 2, "variant_record")[1] == 0.0
    assert piece(cot_game(), 2, "variant_nodes")[1] == 1.0  # an offer node
