"""The ``cfr-bidding`` agent: bids with an MCCFR bidding policy, plays cards like another agent.

``cfr-bidding:policy=PATH`` loads a policy of ``cardlab train --solver bidding``
(:mod:`cardlab.cfr.bidding`) once, refusing one trained on another game,
other parameters or another abstraction. Without ``policy`` it plays the
coarse policy trained for the game and shipped with cardlab
(``cardlab/agents/policies/<game>-coarse.npz``, docs/cfr.md). In the auction the abstraction
models (Kaiser's bidding, Twenty-Eight's first round) it computes its seat's
abstract information-set key from the state and samples the policy's action
there; at an abstract set the training never met it bids like the rule-based
player. Every other decision (trump, indicator, second round, cards) goes to
the rule-based player, or with ``play=ismcts`` to ISMCTS.

With ``play=rules`` it is a native agent of the compiled arena too: the
policy goes to numba as an open-addressing table
(:func:`cardlab.cfr.bidding_policy.policy_arrays`) and the auction's bids come from
:func:`cardlab.cfr.bidding_policy.policy_bid`, the very kernel this bot calls, with
the same stream; ``play=ismcts`` runs on the Python game loop.
"""

from __future__ import annotations

from pathlib import Path

import pyspiel

from cardlab.agents.checks import check_can_move
from cardlab.agents.ismcts import make_ismcts
from cardlab.agents.options import Option, OptionSet
from cardlab.cfr.bidding import check_modelled
from cardlab.cfr.bidding_game import information_key
from cardlab.cfr.bidding_policy import policy_arrays, policy_bid
from cardlab.cfr.policy import PolicyTable, load_policy
from cardlab.core.rng import make_stream
from cardlab.games import kernels
from cardlab.games.bidding_features import in_auction

#: The coarse bidding policies shipped with cardlab, one per game (docs/cfr.md says how they were trained).
POLICIES = Path(__file__).with_name("policies")

OPTIONS = OptionSet("cfr-bidding", (
    Option("policy", "text", None, "the bidding policy (.npz) of cardlab train --solver bidding; "
           "default: the coarse policy shipped for the game"),
    Option("play", "choice", "rules", "who plays the rest of the hand: the rule-based player or "
           "ISMCTS (its default options)", choices={"rules": 0, "ismcts": 1}),
    Option("greedy", "bool", False, "bid the policy's most likely action instead of sampling"),
))


class CFRBiddingBot(pyspiel.Bot):
    """Bids from ``table`` at its abstract information sets; ``player_bot`` (or the rules) does the rest."""

    def __init__(self, game: pyspiel.Game, player: int, seed: int, table: PolicyTable,
                 player_bot: pyspiel.Bot | None, greedy: bool = False):
        pyspiel.Bot.__init__(self)
        self.game = game
        self.player = player
        self.table = table
        self.greedy = greedy
        self.kernel_id = check_modelled(game)
        self.fine = table.metadata["granularity"] == "fine"
        self._player_bot = player_bot
        self._stream = make_stream(seed)
        self._arrays = policy_arrays(table)
        self._index = {name: i for i, name in enumerate(table.names)}

    def restart_at(self, state: pyspiel.State) -> None:
        if self._player_bot is not None:
            self._player_bot.restart_at(state)

    def step_with_policy(self, state: pyspiel.State):
        check_can_move("cfr-bidding", self.game, self.player, state)
        s = state.array
        policy = None
        if in_auction(self.kernel_id, s):
            action = int(policy_bid(self.kernel_id, s, self.fine, self.greedy, *self._arrays,
                                    self._stream))
            i = self._index.get(str(int(information_key(self.kernel_id, s, self.fine))))
            if i is not None:  # else an abstract set the training never met: the rule-based bid
                low, high = self.table.offsets[i], self.table.offsets[i + 1]
                policy = list(zip(self.table.actions[low:high].tolist(),
                                  self.table.probabilities[low:high].tolist(), strict=True))
        elif self._player_bot is not None:
            return self._player_bot.step_with_policy(state)
        else:
            action = int(kernels.rules_action(self.kernel_id, s, self._stream))
        if action not in state.legal_actions(self.player):
            raise RuntimeError(f"cfr-bidding chose action {action}, not one of the legal actions "
                               f"{state.legal_actions(self.player)}: is the policy from this game?")
        return policy or [(action, 1.0)], action

    def step(self, state: pyspiel.State) -> int:
        return self.step_with_policy(state)[1]


def policy_path(given: str | None, game: pyspiel.Game) -> Path:
    """The policy file to play: ``given``, else the one shipped for ``game`` (Kaiser, Twenty-Eight)."""
    if given is not None:
        return Path(given)
    check_modelled(game)
    return POLICIES / f"{game.get_type().short_name}-coarse.npz"


def load_bidding_policy(path: str | Path, game: pyspiel.Game) -> PolicyTable:
    """The bidding policy at ``path`` for ``game``; ``ValueError`` for any other file or game."""
    check_modelled(game)
    table = load_policy(path, game)
    if table.metadata.get("abstraction") != "bidding":
        raise ValueError(f"{path}: not a bidding policy (solver {table.metadata.get('solver')!r}); "
                         f"the cfr agent plays it")
    return table


def runs_compiled(given: dict) -> bool:
    """Can the compiled arena play ``cfr-bidding`` with these options? Yes unless ``play=ismcts``."""
    return set(given) <= set(OPTIONS.names) and given.get("play", "rules") == "rules"


def native_policy(given: dict, game: pyspiel.Game) -> tuple[bool, bool, PolicyTable]:
    """What the compiled arena needs of ``cfr-bidding`` with options ``given``: fine grain,
    greedy, and the policy (``ValueError`` for a missing or foreign policy)."""
    values = OPTIONS.resolve(given)
    table = load_bidding_policy(policy_path(values["policy"], game), game)
    return table.metadata["granularity"] == "fine", values["greedy"], table


def make_cfr_bidding(game: pyspiel.Game, player: int, seed: int, **options) -> CFRBiddingBot:
    """The ``cfr-bidding`` agent for Kaiser or Twenty-Eight (default: the policy shipped for the game)."""
    values = OPTIONS.resolve(options)
    table = load_bidding_policy(policy_path(values["policy"], game), game)
    player_bot = make_ismcts(game, player, seed) if values["play"] == "ismcts" else None
    return CFRBiddingBot(game, player, seed, table, player_bot, values["greedy"])
