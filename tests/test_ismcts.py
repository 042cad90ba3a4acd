"""The numba ISMCTS agent: determinism, legality, consistent worlds, a forced win, strength."""

from __future__ import annotations

import numpy as np
import pyspiel
import pytest
from conftest import decisions

from cardlab import agents
from cardlab.agents.ismcts import search
from cardlab.agents.ismcts.bot import CHUNK
from cardlab.arena import play_deal, play_duplicate_match
from cardlab.core.cards import mask_of, parse_card
from cardlab.core.engine import TERMINAL_PLAYER
from cardlab.core.rng import make_stream
from cardlab.games import game_names, game_spec, kernels
from cardlab.games.kaiser import engine as E
from cardlab.games.literature import engine as L

GAMES = game_names()


def _ismcts(**options):
    return lambda game, seat, seed: agents.make("ismcts", game, seat, seed, **options)


@pytest.mark.parametrize("game_name", GAMES)
def test_same_seed_same_game(game_name):
    game = pyspiel.load_game(game_name)
    bots = lambda: [agents.make("ismcts", game, seat, seed=seat, simulations=60)  # noqa: E731
                    for seat in range(game.num_players())]
    first, _ = play_deal(game, bots(), deal_seed=4)
    second, _ = play_deal(game, bots(), deal_seed=4)
    assert first.history() == second.history()


@pytest.mark.parametrize("game_name", GAMES)
def test_every_move_is_legal_and_worlds_match_the_searchers_information(game_name):
    game = pyspiel.load_game(game_name)
    decisions = 0
    deals = 3 if game_name == "cardlab_literature" else 25  # a Literature game has ~150 decisions
    for deal_seed in range(deals):
        bots = [agents.make("ismcts", game, seat, seed=deal_seed, simulations=40, world_pool=40, debug=True,
                            rollout="random" if seat % 2 else "rules")
                for seat in range(game.num_players())]
        state = game.new_initial_state()
        stream = np.random.default_rng(deal_seed)
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                state.apply_action(outcomes[stream.integers(len(outcomes))][0])
                continue
            action = bots[state.current_player()].step(state)  # debug mode checks the worlds
            assert action in state.legal_actions()
            state.apply_action(action)
            decisions += 1
    assert decisions > 300


def _forced_win_position(game: pyspiel.Game) -> pyspiel.State:
    """Trick 7 of a spades contract by P1 (bid 6): P0 plays last to 5H 9H KH.

    P0 holds 8S and 7C. Ruffing with the 8S takes the 5H trick (+6) and sets
    the contract; the 7C hands it to the opponents and lets them make it.
    In every world P0 can imagine, only the 8S wins.
    """
    state = game.new_initial_state()
    s = state.array
    hands = {0: ["8S", "7C"], 1: ["QD"], 2: ["9C"], 3: ["TC"]}
    for seat, cards in hands.items():
        s[E.HANDS + seat] = mask_of(cards)
    s[E.PHASE], s[E.DEALER], s[E.CARDS_DEALT] = E.PLAYING, 3, 32
    s[E.SPOKEN:E.SPOKEN + 4] = [52, 60 + 18, 52, 52]
    s[E.HIGH_BID], s[E.DECLARER], s[E.TRUMP] = 18, 1, 3
    s[E.TRICK_NUMBER], s[E.TRICK_LEADER], s[E.TRICK_SIZE], s[E.TO_MOVE] = 6, 1, 3, 0
    trick = [parse_card(c) for c in ("5H", "9H", "KH")]
    s[E.TRICK:E.TRICK + 3] = trick
    s[E.TRICK_HISTORY + 24:E.TRICK_HISTORY + 27] = trick
    for seat in range(4):  # earlier tricks are left out of the history: dealt = held + this trick
        s[E.DEALT + seat] = s[E.HANDS + seat]
    for position, card in enumerate(trick):
        s[E.DEALT + (1 + position) % 4] |= 1 << card
    s[E.PLAYED] = s[E.DECK] & ~(mask_of(["8S", "7C", "QD", "9C", "TC"]))
    s[E.TRICKS_WON:E.TRICKS_WON + 2] = [3, 3]
    s[E.HAND_POINTS:E.HAND_POINTS + 2] = [3, 0]  # team 1 took the 3S earlier
    state.refresh()
    return state


def test_finds_the_only_winning_card():
    game = pyspiel.load_game("cardlab_kaiser")
    state = _forced_win_position(game)
    assert sorted(state.legal_actions()) == sorted([parse_card("8S"), parse_card("7C")])
    for rollout in ("random", "rules"):
        bot = agents.make("ismcts", game, 0, seed=3, simulations=200, rollout=rollout)
        policy, action = bot.step_with_policy(state)
        assert action == parse_card("8S")
        assert dict(policy)[parse_card("8S")] > 0.8


def test_time_budget_and_tree_reuse_and_workers():
    game = pyspiel.load_game("cardlab_kaiser")
    state = _forced_win_position(game)
    timed = agents.make("ismcts", game, 0, seed=1, time_ms=30)
    assert timed.step(state) == parse_card("8S")
    # A time budget runs whole chunks of iterations until its clock has passed, however fast the machine.
    assert timed.last_search["seconds"] >= 0.030
    assert timed.last_search["iterations"] >= CHUNK and timed.last_search["iterations"] % CHUNK == 0
    # With a few thousand simulations the position after the others' cards is often in the tree.
    reuse = agents.make("ismcts", game, 1, seed=1, simulations=3000, reuse_tree=True)
    rules = [agents.make("rules", game, seat, 0) for seat in range(4)]
    roots = []  # where each search of the reusing bot started in its tree
    rng = np.random.default_rng(9)
    for position in decisions(game.new_initial_state(), rng,
                              lambda s: rules[s.current_player()].step(s)):
        if position.current_player() == 1 and len(position.legal_actions()) > 1:
            assert reuse.step(position) in position.legal_actions()
            roots.append(reuse._tree.root)
    assert roots[0] == 0 and any(root > 0 for root in roots[1:])  # later searches grew an old subtree
    parallel = [agents.make("ismcts", game, 0, seed=5, simulations=100, workers=2) for _ in range(2)]
    assert parallel[0].step_with_policy(state) == parallel[1].step_with_policy(state)


@pytest.mark.parametrize("game_name", GAMES)
def test_ismcts_crushes_random(game_name):
    game = pyspiel.load_game(game_name)
    result = play_duplicate_match(game, _ismcts(simulations=100, rollout="random"),
                                  lambda g, seat, seed: agents.make("random", g, seat, seed),
                                  deals=8, seed=2)
    assert result.mean > 0 and sum(score > 0 for score in result.scores) >= 6


def test_bad_options_are_rejected():
    game = pyspiel.load_game("cardlab_kaiser")
    with pytest.raises(ValueError, match="unknown option"):
        agents.make("ismcts", game, 0, sims=10)
    with pytest.raises(ValueError, match="rollout"):
        agents.make("ismcts", game, 0, rollout="smart")
    with pytest.raises(ValueError, match="simulations"):
        agents.make("ismcts", game, 0, simulations=0)


def test_rollout_cutoff_needs_a_static_evaluation():
    with pytest.raises(ValueError, match="static evaluation"):
        agents.make("ismcts", pyspiel.load_game("cardlab_kaiser"), 0, rollout_depth=10)
    literature = pyspiel.load_game("cardlab_literature")
    with pytest.raises(ValueError, match="rollout_depth"):
        agents.make("ismcts", literature, 0, rollout_depth=-1)
    rules = [agents.make("rules", literature, seat, 0) for seat in range(literature.num_players())]
    rng = np.random.default_rng(3)
    differ = 0
    for count, state in enumerate(decisions(literature.new_initial_state(), rng,
                                            lambda s: rules[s.current_player()].step(s))):
        if count % 10 or len(state.legal_actions()) < 3:
            continue
        player = state.current_player()
        policies = [agents.make("ismcts", literature, player, seed=4, simulations=60, widening=1.0,
                                rollout_depth=depth).step_with_policy(state)[0] for depth in (0, 3, 3)]
        assert policies[1] == policies[2]  # deterministic for a seed
        differ += policies[0] != policies[1]  # the cut-off changes what the search learns
    assert differ >= 3


def test_naming_a_known_holder_in_a_claim_is_not_searched():
    """Any other name loses the claim, so the bot names the holder at once, with certainty."""
    game = pyspiel.load_game("cardlab_literature")
    rules = [agents.make("rules", game, seat, seed=seat) for seat in range(game.num_players())]
    forced_seen = 0
    for state in decisions(game.new_initial_state(), np.random.default_rng(2),
                           lambda state: rules[state.current_player()].step(state)):
        forced = kernels.dominant_action(kernels.LITERATURE, state.array)
        if forced >= 0 and len(state.legal_actions()) > 1:
            bot = agents.make("ismcts", game, state.current_player(), seed=1, simulations=50)
            policy, action = bot.step_with_policy(state)
            assert action == forced and dict(policy)[forced] == 1.0
            assert bot.last_search == {}  # no search ran
            forced_seen += 1
    assert forced_seen >= 6



@pytest.mark.parametrize("game_name", GAMES)
def test_every_node_is_found_again_from_its_parent(game_name):
    """The children threaded through the node table: each node's edge (parent, mover, action)
    leads back to it, and the root's children share every simulation."""
    game = pyspiel.load_game(game_name)
    game_id = game_spec(game_name).kernel_id
    state = next(s for s in decisions(game.new_initial_state(), np.random.default_rng(3),
                                      lambda s: s.legal_actions()[0])
                 if len(s.legal_actions()) > 2 and kernels.dominant_action(game_id, s.array) < 0)
    bot = agents.make("ismcts", game, state.current_player(), seed=2, simulations=300, widening=0.0)
    bot.step(state)
    nodes, size = bot._tree.nodes, int(bot._tree.size[0])
    assert size > 50
    for node in range(1, size):
        edge = nodes[node, search.PARENT], nodes[node, search.MOVER], nodes[node, search.ACTION]
        assert search.find_child(nodes, *edge) == node
    assert search.find_child(nodes, 0, state.current_player(), 4000) == search.NO_NODE
    visits = np.zeros(kernels.MAX_LEGAL_ACTIONS, dtype=np.int64)
    assert search.root_statistics(game_id, state.array, bot.player, 0, nodes, visits) == len(
        state.legal_actions())
    assert visits.sum() >= 300


def test_random_literature_playouts_skip_the_record_yet_play_the_same_game():
    """A random rollout applies moves without the log and knowledge it never reads: the same
    moves, hands and scores as applying them in full."""
    game = pyspiel.load_game("cardlab_literature")
    legal = np.empty(kernels.MAX_LEGAL_ACTIONS, dtype=np.int64)
    rng = np.random.default_rng(5)
    starts = [s.array.copy() for s in decisions(game.new_initial_state(), rng, lambda s: s.legal_actions()[
        rng.integers(len(s.legal_actions()))])][::15]
    assert len(starts) >= 5
    for start in starts:
        full, unrecorded = start.copy(), start.copy()
        streams = make_stream(7), make_stream(7)
        while kernels.current_player(kernels.LITERATURE, full) != TERMINAL_PLAYER:
            action = kernels.random_action(kernels.LITERATURE, full, streams[0], legal)
            assert kernels.random_action(kernels.LITERATURE, unrecorded, streams[1], legal) == action
            kernels.apply_action(kernels.LITERATURE, full, action)
            kernels.apply_in_random_playout(kernels.LITERATURE, unrecorded, action)
        before_record = slice(0, L.LOG_LENGTH)  # hands, turn, scores: all but the log and knowledge
        assert np.array_equal(full[before_record], unrecorded[before_record])


@pytest.mark.parametrize("game_name", ["cardlab_kaiser", "cardlab_twenty_eight"])
def test_a_random_playout_plays_the_moves_of_random_action(game_name):
    """``kernels.random_playout`` chooses the game once; the moves, chance included, are those
    of ``random_action`` then ``apply_action``, from the deal or from the middle of a hand."""
    game = pyspiel.load_game(game_name)
    game_id = game_spec(game_name).kernel_id
    legal = np.empty(kernels.MAX_LEGAL_ACTIONS, dtype=np.int64)
    rng = np.random.default_rng(6)
    starts = [game.new_initial_state().array.copy()] + [
        s.array.copy() for s in decisions(game.new_initial_state(), rng, lambda s: s.legal_actions()[
            rng.integers(len(s.legal_actions()))])][::4]
    for seed, start in enumerate(starts):
        by_move, at_once = start.copy(), start.copy()
        stream = make_stream(seed)
        while kernels.current_player(game_id, by_move) != TERMINAL_PLAYER:
            kernels.apply_action(game_id, by_move, kernels.random_action(game_id, by_move, stream, legal))
        other = make_stream(seed)
        assert kernels.random_playout(game_id, at_once, other, legal)
        assert np.array_equal(by_move, at_once) and np.array_equal(stream, other)
    assert not kernels.random_playout(kernels.LITERATURE, np.zeros(0, dtype=np.int64), stream, legal)
