"""One numba entry point per engine operation, for code that works over every game.

Search (ISMCTS), compiled tournament loops, the RL environments and batched
playouts are written once, against these kernels, with the game passed as a
small integer. Each kernel is a table from game id to the game's own kernel
(:func:`cardlab.core.specialize.by_key`): the game ids below are
:class:`~cardlab.core.specialize.LiteralInt`, so code called with one is
compiled for that game alone, and numba never compiles the other games'
rules into a Kaiser tournament. Unlike functions passed as arguments, this
keeps numba's on-disk cache working.

Every kernel takes the game id and the engine state array of that game.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from cardlab.core import infostate, layout
from cardlab.core.specialize import LiteralInt, by_key
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
KAISER = LiteralInt(0)
TWENTY_EIGHT = LiteralInt(1)
LITERATURE = LiteralInt(2)
#: Edge id for a choice the observer cannot see (every action id is below it).
HIDDEN_ACTION = 4095
#: The largest number of legal actions any state of any game can have.
MAX_LEGAL_ACTIONS = 1100


def _per_game(name: str, kaiser, twenty_eight, literature, fallback=None):
    return by_key(name, {KAISER: kaiser, TWENTY_EIGHT: twenty_eight, LITERATURE: literature}, fallback)


@njit(cache=True)
def current_player(game, s):
    """The same for every game: it reads only the common header (:mod:`cardlab.core.layout`)."""
    return layout.current_player(s)


legal_actions = _per_game("legal_actions", kaiser_engine.legal_actions, twenty_eight_engine.legal_actions,
                          literature_engine.legal_actions)
apply_action = _per_game("apply_action", kaiser_engine.apply_action, twenty_eight_engine.apply_action,
                         literature_engine.apply_action)
returns = _per_game("returns", kaiser_engine.returns, twenty_eight_engine.returns, literature_engine.returns)
#: :func:`apply_action` in a playout of uniformly random moves: the same game, without
#: the bookkeeping only a reasoning player reads (Literature's event log and knowledge).
#: The state's record is then stale: only the rules (legal actions, returns, the
#: static evaluation) may read it afterwards.
apply_in_random_playout = _per_game("apply_in_random_playout", kaiser_engine.apply_action,
                                    twenty_eight_engine.apply_action, literature_engine.apply_unrecorded)


@njit(cache=True)
def _no_playout_loop(s, stream, legal):
    return False


@njit(cache=True)
def _kaiser_random_playout(s, stream, legal):
    kaiser_engine.play_out_randomly(s, stream, legal)
    return True


@njit(cache=True)
def _twenty_eight_random_playout(s, stream, legal):
    twenty_eight_engine.play_out_randomly(s, stream, legal)
    return True


#: Play ``s`` to its end with uniformly random moves, the game chosen once, not at every move.
#: The moves are those of :func:`random_action` and :func:`apply_action` in turn. Returns
#: False, having played nothing, for a game whose random rollouts may stop early at its
#: static evaluation (Literature: the caller plays move by move).
random_playout = _per_game("random_playout", _kaiser_random_playout, _twenty_eight_random_playout,
                           _no_playout_loop)


@njit(cache=True, inline="always")
def _no_rules_loop(s):
    return 0


#: Play ``s`` on with the rule-based player as far as one call of the game's own loop
#: goes (Kaiser and Twenty-Eight: the card play). The moves are those of :func:`rules_action`
#: and :func:`apply_action` in turn. Returns the moves made: 0 where the game has no such
#: loop (the caller plays move by move).
rules_playout = _per_game("rules_playout", kaiser_strategy.play_cards_by_rules,
                          twenty_eight_strategy.play_cards_by_rules, _no_rules_loop)


@njit(cache=True)
def num_players(game, s):
    return s[layout.NUM_PLAYERS]


#: The side a seat scores with (a team, or a seat alone in some variants): ``side_of(game, s, seat)``.
side_of = _per_game("side_of", kaiser_engine.side_of, twenty_eight_engine.side_of, literature_engine.side_of)


@njit(cache=True)
def _twenty_eight_utility_scale(s):
    return 4.0  # game points: at most 3 won or 4 lost


@njit(cache=True)
def _literature_utility_scale(s):
    total = 0  # every half-suit in play, at its value
    for h in range(HALF_SUIT_VALUES.shape[1]):
        if s[literature_engine.STATUS + h] != literature_engine.VOID:
            total += HALF_SUIT_VALUES[s[literature_engine.MAJOR_SETS_WORTH_TWO], h]
    return float(total)


@njit(cache=True)
def _kaiser_utility_scale(s):
    if s[kaiser_engine.MATCH]:
        return 1.0
    return kaiser_engine.hand_utility_bound(s)


#: A bound on |return|, to bring rewards near [-1, 1] for UCB.
utility_scale = _per_game("utility_scale", _kaiser_utility_scale, _twenty_eight_utility_scale,
                          _literature_utility_scale)


@njit(cache=True)
def _literature_random_action(s, stream, legal):
    return literature_engine.random_action(s, stream)


#: A uniformly random legal action (``legal`` is scratch space for the games that need it).
random_action = _per_game("random_action", kaiser_engine.random_action, twenty_eight_engine.random_action,
                          _literature_random_action)
rules_action = _per_game("rules_action", kaiser_strategy.rules_action, twenty_eight_strategy.rules_action,
                         literature_strategy.rules_action)


@njit(cache=True)
def _literature_expansion_scores(s, legal, n, out):
    literature_strategy.action_scores(s, legal, n, out)
    return True


@njit(cache=True)
def _no_expansion_scores(s, legal, n, out):
    return False


#: The rule-based player's preference for each legal action, into ``out``. Returns False
#: for a game whose rule-based player only names its choice (Kaiser, Twenty-Eight): search
#: then tries that choice first, the rest at random.
expansion_scores = _per_game("expansion_scores", _no_expansion_scores, _no_expansion_scores,
                             _literature_expansion_scores)


@njit(cache=True)
def _no_dominant_action(s):
    return -1


#: An action known to be at least as good as every other for the player to move, or -1.
#: Only provable cases: in a Literature claim, naming the seat a card is known to be with
#: (any other name loses the claim).
dominant_action = _per_game("dominant_action", _no_dominant_action, _no_dominant_action,
                            literature_strategy.certain_assignment)


@njit(cache=True)
def _literature_static_returns(s, out):
    literature_strategy.expected_returns(s, out)
    return True


@njit(cache=True)
def _no_static_returns(s, out):
    return False


#: A heuristic value of a non-terminal ``s`` into ``out``, for cut-off rollouts. Returns False
#: for a game without one (the rollout then plays to the end); a game that has one says so in
#: its spec (``GameSpec.has_static_evaluation``).
static_returns = _per_game("static_returns", _no_static_returns, _no_static_returns,
                           _literature_static_returns)


@njit(cache=True)
def _literature_resample(s, seat, stream):
    # The sampler can only fail on an inconsistent state; the true hands are then kept.
    world, _ = literature_sampling.resample_hidden_hands(s, seat, stream, literature_sampling.RESAMPLE_DRAWS)
    return world


@njit(cache=True, inline="always")
def _kaiser_hand(s, seat):
    return s[kaiser_engine.HANDS + seat]


@njit(cache=True, inline="always")
def _twenty_eight_hand(s, seat):
    return s[twenty_eight_engine.HANDS + seat]  # a hidden trump indicator is in nobody's hand


@njit(cache=True, inline="always")
def _literature_hand(s, seat):
    return s[literature_engine.HANDS + seat]


#: The cards ``seat`` holds in ``s`` (a mask): where a world puts each card, whatever the game.
hand = _per_game("hand", _kaiser_hand, _twenty_eight_hand, _literature_hand)


#: A world ``seat`` cannot tell from ``s``, drawn by the game's belief-consistent sampler.
resample = _per_game("resample", kaiser_sampling.resample_hidden_hands,
                     twenty_eight_sampling.resample_hidden_hands, _literature_resample)


@njit(cache=True)
def _no_bidding(world, observer):
    return 0  # no bidding: the knowledge constraints already carry what asks reveal


#: Bids by the others in ``world`` that the game's rule-based player would not make.
bidding_mismatches = _per_game("bidding_mismatches", kaiser_strategy.bidding_mismatches,
                               twenty_eight_strategy.bidding_mismatches, _no_bidding)


@njit(cache=True)
def _kaiser_observed_action(s, action, observer):
    if kaiser_observation.hides_action(s, action, observer):  # discards, cards given
        return HIDDEN_ACTION
    return action


@njit(cache=True)
def _twenty_eight_observed_action(s, action, observer):
    if twenty_eight_observation.hides_choice(s, observer):
        return HIDDEN_ACTION
    return action


@njit(cache=True)
def _literature_observed_action(s, action, observer):
    return action


#: How ``observer`` sees ``action`` taken in ``s``: hidden choices map to ``HIDDEN_ACTION``.
#: In Twenty-Eight the card a bidder places face down as the trump indicator is seen by
#: nobody else; in Kaiser's 34-card game (11.1), the declarer's discards, and with a passing
#: rule (11.32-11.35) the cards given.
observed_action = _per_game("observed_action", _kaiser_observed_action, _twenty_eight_observed_action,
                            _literature_observed_action)


@njit(cache=True)
def _same_action(s, player, action):
    return action


#: ``action`` in ``player``'s own frame, seats counted from itself as in its observation tensor,
#: and back: what a network that reads the tensor chooses among. Only Literature's actions name
#: seats; Kaiser's and Twenty-Eight's are the same in every frame.
mover_action = _per_game("mover_action", _same_action, _same_action, literature_observation.mover_action)
absolute_action = _per_game("absolute_action", _same_action, _same_action,
                            literature_observation.absolute_action)
#: What ``player`` observes when ``action`` is applied in ``s``: a token of
#: :mod:`cardlab.core.infostate`. Unlike :func:`observed_action` (the action alone, for search
#: edges), the token carries everything the step tells the player: its hand at the end of a
#: deal stage, the mover, and what the step revealed (an ask's answer, the cards a claim
#: shows, the trump indicator).
observation_token = _per_game("observation_token", kaiser_observation.observation_token,
                              twenty_eight_observation.observation_token,
                              literature_observation.observation_token)
#: Fill ``out`` (zeroed first) with what ``player`` sees: the observation tensor, or with
#: ``perfect_recall`` the information-state tensor (each game's ``observation.encode``).
encode = _per_game("encode", kaiser_observation.encode, twenty_eight_observation.encode,
                   literature_observation.encode)


@njit(cache=True)
def _kaiser_parameters(s):
    return kaiser_engine.parameter_values(s)  # a block and the form's slot after it


@njit(cache=True)
def _twenty_eight_parameters(s):
    return s[twenty_eight_engine.PARAMETER_SLOTS]  # a block and the small games' slots after it


@njit(cache=True)
def _literature_parameters(s):
    first, count = literature_engine.PARAMETERS, literature_engine.NUM_PARAMETERS
    return s[first:first + count]


_parameter_values = _per_game("parameter_values", _kaiser_parameters, _twenty_eight_parameters,
                              _literature_parameters)


@njit(cache=True)
def game_parameters(game, s):
    """The game's parameters: the table (players, deck) and the engine's parameter slots.

    All are fixed for the whole game, so every state of a game gives the same.
    """
    values = _parameter_values(game, s)
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
