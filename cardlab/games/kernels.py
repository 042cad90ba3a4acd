"""One numba entry point per engine operation, for code that works over every game.

Search (ISMCTS), compiled tournament loops and batched playouts are written
once, against these kernels, with the game passed as a small integer. The
branch on the game id costs nothing next to the work it selects, and unlike
functions passed as arguments it keeps numba's on-disk cache working.

Every kernel takes the game id and the engine state array of that game.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from cardlab.core import infostate, layout
from cardlab.games.kaiser import engine as kaiser_engine
from cardlab.games.kaiser import observation as kaiser_observation
from cardlab.games.kaiser import sampling as kaiser_sampling
from cardlab.games.kaiser import strategy as kaiser_strategy
from cardlab.games.literature import engine as literature_engine
from cardlab.games.literature import observation as literature_observation
from cardlab.games.literature import sampling as literature_sampling
from cardlab.games.literature import strategy as literature_strategy
from cardlab.games.literature.rules import HALF_SUIT_VALUES
from cardlab.games.twenty_eight import engine as twenty_eight_engine
from cardlab.games.twenty_eight import observation as twenty_eight_observation
from cardlab.games.twenty_eight import sampling as twenty_eight_sampling
from cardlab.games.twenty_eight import strategy as twenty_eight_strategy

#: Kernel ids of the games (each game's spec names its own: ``GameSpec.kernel_id``).
KAISER = 0
TWENTY_EIGHT = 1
LITERATURE = 2
#: Edge id for a choice the observer cannot see (every action id is below it).
HIDDEN_ACTION = 4095
#: The largest number of legal actions any state of any game can have.
MAX_LEGAL_ACTIONS = 1100



@njit(cache=True)
def current_player(game, s):
    """The same for every game: it reads only the common header (:mod:`cardlab.core.layout`)."""
    return layout.current_player(s)


@njit(cache=True)
def legal_actions(game, s, out):
    if game == TWENTY_EIGHT:
        return twenty_eight_engine.legal_actions(s, out)
    if game == LITERATURE:
        return literature_engine.legal_actions(s, out)
    return kaiser_engine.legal_actions(s, out)


@njit(cache=True)
def apply_action(game, s, action):
    if game == TWENTY_EIGHT:
        twenty_eight_engine.apply_action(s, action)
    elif game == LITERATURE:
        literature_engine.apply_action(s, action)
    else:
        kaiser_engine.apply_action(s, action)


@njit(cache=True)
def apply_in_random_playout(game, s, action):
    """:func:`apply_action` in a playout of uniformly random moves: the same game, without
    the bookkeeping only a reasoning player reads (Literature's event log and knowledge).

    The state's record is then stale: only the rules (legal actions, returns, the
    static evaluation) may read it afterwards.
    """
    if game == LITERATURE:
        literature_engine.apply_unrecorded(s, action)
    else:
        apply_action(game, s, action)


@njit(cache=True)
def random_playout(game, s, stream, legal):
    """Play ``s`` to its end with uniformly random moves, the game chosen once, not at every move.

    The moves are those of :func:`random_action` and :func:`apply_action` in turn.
    Returns False, having played nothing, for a game whose random rollouts may stop
    early at its static evaluation (Literature: the caller plays move by move).
    """
    if game == KAISER:
        kaiser_engine.play_out_randomly(s, stream, legal)
        return True
    if game == TWENTY_EIGHT:
        twenty_eight_engine.play_out_randomly(s, stream, legal)
        return True
    return False


@njit(cache=True, inline="always")
def rules_playout(game, s):
    """Play ``s`` on with the rule-based player as far as one call of the game's own loop
    goes (Kaiser and Twenty-Eight: the card play), the game chosen once, not at every move.

    The moves are those of :func:`rules_action` and :func:`apply_action` in turn. Returns
    the moves made: 0 where the game has no such loop (the caller plays move by move).
    Inlined, so a game without one pays a comparison per move, not a counted call.
    """
    if game == TWENTY_EIGHT:
        return twenty_eight_strategy.play_cards_by_rules(s)
    if game == KAISER:
        return kaiser_strategy.play_cards_by_rules(s)
    return 0


@njit(cache=True)
def returns(game, s, out):
    if game == TWENTY_EIGHT:
        twenty_eight_engine.returns(s, out)
    elif game == LITERATURE:
        literature_engine.returns(s, out)
    else:
        kaiser_engine.returns(s, out)


@njit(cache=True)
def num_players(game, s):
    return s[layout.NUM_PLAYERS]


@njit(cache=True)
def utility_scale(game, s):
    """A bound on |return|, to bring rewards near [-1, 1] for UCB."""
    if game == TWENTY_EIGHT:
        return 4.0  # game points: at most 3 won or 4 lost
    if game == LITERATURE:  # every half-suit in play, at its value
        total = 0
        for h in range(HALF_SUIT_VALUES.shape[1]):
            if s[literature_engine.STATUS + h] != literature_engine.VOID:
                total += HALF_SUIT_VALUES[s[literature_engine.MAJOR_SETS_WORTH_TWO], h]
        return float(total)
    if s[kaiser_engine.MATCH]:
        return 1.0
    return kaiser_engine.hand_utility_bound(s)


@njit(cache=True)
def random_action(game, s, stream, legal):
    """A uniformly random legal action (``legal`` is scratch space for the games that need it)."""
    if game == KAISER:
        return kaiser_engine.random_action(s, stream, legal)
    if game == TWENTY_EIGHT:
        return twenty_eight_engine.random_action(s, stream, legal)
    return literature_engine.random_action(s, stream)


@njit(cache=True)
def rules_action(game, s, stream):
    if game == TWENTY_EIGHT:
        return twenty_eight_strategy.rules_action(s, stream)
    if game == LITERATURE:
        return literature_strategy.rules_action(s, stream)
    return kaiser_strategy.rules_action(s, stream)


@njit(cache=True)
def expansion_scores(game, s, legal, n, out):
    """The rule-based player's preference for each legal action, into ``out``.

    Returns False for a game whose rule-based player only names its choice
    (Kaiser, Twenty-Eight): search then tries that choice first, the rest at random.
    """
    if game == LITERATURE:
        literature_strategy.action_scores(s, legal, n, out)
        return True
    return False


@njit(cache=True)
def dominant_action(game, s):
    """An action known to be at least as good as every other for the player to move, or -1.

    Only provable cases: in a Literature claim, naming the seat a card is known
    to be with (any other name loses the claim).
    """
    if game == LITERATURE:
        return literature_strategy.certain_assignment(s)
    return -1


@njit(cache=True)
def static_returns(game, s, out):
    """A heuristic value of a non-terminal ``s`` into ``out``, for cut-off rollouts.

    Returns False for a game without one (the rollout then plays to the end); a game
    that has one says so in its spec (``GameSpec.has_static_evaluation``).
    """
    if game == LITERATURE:
        literature_strategy.expected_returns(s, out)
        return True
    return False


@njit(cache=True)
def resample(game, s, seat, stream):
    """A world ``seat`` cannot tell from ``s``, drawn by the game's belief-consistent sampler."""
    if game == TWENTY_EIGHT:
        return twenty_eight_sampling.resample_hidden_hands(s, seat, stream)
    if game == LITERATURE:
        # The sampler can only fail on an inconsistent state; the true hands are then kept.
        world, _ = literature_sampling.resample_hidden_hands(s, seat, stream,
                                                              literature_sampling.RESAMPLE_DRAWS)
        return world
    return kaiser_sampling.resample_hidden_hands(s, seat, stream)


@njit(cache=True)
def bidding_mismatches(game, world, observer):
    """Bids by the others in ``world`` that the game's rule-based player would not make."""
    if game == TWENTY_EIGHT:
        return twenty_eight_strategy.bidding_mismatches(world, observer)
    if game == LITERATURE:
        return 0  # no bidding: the knowledge constraints already carry what asks reveal
    return kaiser_strategy.bidding_mismatches(world, observer)


@njit(cache=True)
def observed_action(game, s, action, observer):
    """How ``observer`` sees ``action`` taken in ``s``: hidden choices map to ``HIDDEN_ACTION``.

    In Twenty-Eight the card a bidder places face down as the trump indicator
    is seen by nobody else; in Kaiser's 34-card game (11.1), the declarer's discards, and
    with a passing rule (11.32-11.35) the cards given.
    """
    if game == TWENTY_EIGHT and twenty_eight_observation.hides_choice(s, observer):
        return HIDDEN_ACTION
    if game == KAISER and kaiser_observation.hides_action(s, action, observer):  # discards, cards given
        return HIDDEN_ACTION
    return action


@njit(cache=True)
def observation_token(game, s, action, player):
    """What ``player`` observes when ``action`` is applied in ``s``: a token of :mod:`cardlab.core.infostate`.

    Unlike :func:`observed_action` (the action alone, for search edges), the
    token carries everything the step tells the player: its hand at the end of
    a deal stage, the mover, and what the step revealed (an ask's answer, the
    cards a claim shows, the trump indicator).
    """
    if game == TWENTY_EIGHT:
        return twenty_eight_observation.observation_token(s, action, player)
    if game == LITERATURE:
        return literature_observation.observation_token(s, action, player)
    return kaiser_observation.observation_token(s, action, player)


@njit(cache=True)
def game_parameters(game, s):
    """The game's parameters: the table (players, deck) and the engine's parameter slots.

    All are fixed for the whole game, so every state of a game gives the same.
    """
    if game == TWENTY_EIGHT:  # a block and the small games' slots after it
        values = s[twenty_eight_engine.PARAMETER_SLOTS]
    elif game == LITERATURE:
        first, count = literature_engine.PARAMETERS, literature_engine.NUM_PARAMETERS
        values = s[first:first + count]
    else:  # a block and the form's slot after it
        values = kaiser_engine.parameter_values(s)
    parameters = np.empty(2 + len(values), dtype=np.int64)
    parameters[0] = s[layout.NUM_PLAYERS]
    parameters[1] = s[layout.DECK]
    parameters[2:] = values
    return parameters


@njit(cache=True)
def initial_key(game, s, player):
    """``player``'s information-state key before the first action of the game ``s`` belongs to."""
    return infostate.initial_key(game, game_parameters(game, s), player)


@njit(cache=True)
def information_state_key(game, initial, actions, player):
    """``player``'s information-state key after ``actions`` (chance included) from ``initial``.

    Perfect recall in every mode (a Kaiser match included): the key folds
    every step the player observed since the start of the game.
    """
    s = initial.copy()
    key = initial_key(game, s, player)
    for action in actions:
        key = infostate.update_key(key, observation_token(game, s, action, player))
        apply_action(game, s, action)
    return key
