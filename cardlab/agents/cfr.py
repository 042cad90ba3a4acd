"""The ``cfr`` agent: plays a tabular policy that ``cardlab train`` computed and saved.

``cfr:policy=PATH`` loads the file once (refusing one trained on another game
or other parameters) and, at each decision, samples the action from the
policy's probabilities at the player's information state, with its own
seeded stream. An information state the policy does not cover (a position
outside the solved subgame) is an error unless ``fallback`` says otherwise.
"""

from __future__ import annotations

import numpy as np
import pyspiel

from cardlab.agents.checks import check_can_move
from cardlab.agents.options import Option, OptionSet
from cardlab.cfr.policy import PolicyTable, load_policy
from cardlab.core.rng import make_stream
from cardlab.games import game_spec

OPTIONS = OptionSet("cfr", (
    Option("policy", "text", None, "the policy file (.npz) written by cardlab train; required"),
    Option("fallback", "choice", "error",
           "at an information state the policy lacks: refuse, play uniformly, or play the "
           "rule-based move", choices={"error": 0, "uniform": 1, "rules": 2}),
    Option("greedy", "bool", False, "play the most likely action instead of sampling"),
))


class CFRBot(pyspiel.Bot):
    """Plays ``table``'s action probabilities at each of its information states."""

    def __init__(self, game: pyspiel.Game, player: int, seed: int, table: PolicyTable,
                 fallback: str = "error", greedy: bool = False):
        pyspiel.Bot.__init__(self)
        self.game = game
        self.player = player
        self.table = table
        self.fallback = fallback
        self.greedy = greedy
        self._rng = np.random.default_rng(seed)
        self._rules = None
        if fallback == "rules":
            self._rules = game_spec(game.get_type().short_name).strategy.rules_action
            self._stream = make_stream(seed)

    def restart_at(self, state: pyspiel.State) -> None:
        pass

    def step_with_policy(self, state: pyspiel.State):
        check_can_move("cfr", self.game, self.player, state)
        legal = state.legal_actions(self.player)
        found = self.table.lookup(state, self.player)
        if found is not None:
            actions, probabilities = found
            if not set(actions.tolist()) <= set(legal):
                raise RuntimeError(f"cfr policy names actions {actions.tolist()} at an information "
                                   f"state whose legal actions are {legal}")
            policy = list(zip(actions.tolist(), probabilities.tolist(), strict=True))
        elif self.fallback == "uniform":
            policy = [(a, 1.0 / len(legal)) for a in legal]
        elif self.fallback == "rules":
            policy = [(int(self._rules(state.array, self._stream)), 1.0)]
        else:
            raise ValueError(f"cfr policy ({self.table.metadata.get('game')}) has no entry for "
                             f"player {self.player}'s information state here; use fallback=uniform "
                             f"or fallback=rules to play such states")
        weights = np.array([p for _, p in policy])
        if self.greedy:
            choice = int(np.argmax(weights))
        else:
            choice = int(self._rng.choice(len(policy), p=weights / weights.sum()))
        return policy, policy[choice][0]

    def step(self, state: pyspiel.State) -> int:
        return self.step_with_policy(state)[1]


def make_cfr(game: pyspiel.Game, player: int, seed: int, **options) -> CFRBot:
    """The ``cfr`` agent for ``game`` (option ``policy`` is required)."""
    values = OPTIONS.resolve(options)
    if values["policy"] is None:
        raise ValueError("agent 'cfr': option policy is required (a file from cardlab train)")
    if values["fallback"] == "rules" and not game.get_type().short_name.startswith("cardlab_"):
        raise ValueError("agent 'cfr': fallback=rules needs a cardlab game (its rule-based player)")
    table = load_policy(values["policy"], game)
    if table.metadata.get("abstraction") == "bidding":
        raise ValueError(f"{values['policy']}: a bidding policy; the cfr-bidding agent plays it")
    return CFRBot(game, player, seed, table, values["fallback"], values["greedy"])
