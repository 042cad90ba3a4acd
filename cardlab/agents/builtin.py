"""The agents cardlab ships, declared once: name, factory, options and, for a native agent, its kind.

Every other table of agents is read from :data:`BUILTIN`: the factories by
name (:data:`cardlab.agents.registry.BUILTIN_AGENTS`), the agents the compiled
loop plays (:data:`cardlab.arena.entrants.NATIVE_AGENTS`) and the kind codes
that :mod:`cardlab.arena.native` compiles into its kernels (:data:`NATIVE_KINDS`).
Adding an agent is one :class:`BuiltinAgent` line here; a native one also
needs its kernel in the compiled loop. A kind code, once given, never changes:
result files and compiled tables hold it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import pyspiel

from cardlab.agents import cfr, cfr_bidding, ismcts, net, pimc, random_agent, rules
from cardlab.agents.options import OptionSet
from cardlab.games import double_dummy

if TYPE_CHECKING:
    from cardlab.games.spec import GameSpec

Factory = Callable[..., pyspiel.Bot]

#: The games of the double-dummy solver and of the abstracted auctions.
DOUBLE_DUMMY_GAMES = tuple(double_dummy.GAME_IDS)


@dataclass(frozen=True)
class BuiltinAgent:
    """One agent cardlab ships: its factory and options, and where the compiled loop can play it.

    ``kind`` is its code in the compiled loop (``None``: it plays only as its
    Python bot); that loop runs the options declared with a column in the row,
    any other option (ISMCTS's ``time_ms``...) sends the agent through the
    Python loop, unless ``compiled_when`` decides (a policy file's table).
    ``network_kind`` is its code when its options make it read a network
    (``uses_network``): a kernel of its own, so that the loops of the agent
    without one compile no network code.
    """

    name: str
    factory: Factory
    options: OptionSet
    kind: int | None = None
    games: tuple[str, ...] | None = None  # the games the compiled loop plays it in, if not every game
    compiled_when: Callable[[dict[str, Any]], bool] | None = None
    network_kind: int | None = None
    uses_network: Callable[[dict[str, Any]], bool] | None = None

    def kind_for(self, given: dict[str, Any]) -> int | None:
        """The kind code the compiled loop plays the agent with the options ``given`` as."""
        if self.network_kind is not None and self.uses_network is not None and self.uses_network(given):
            return self.network_kind
        return self.kind

    def runs_compiled(self, given: dict[str, Any]) -> bool:
        """True if the compiled loop can play the agent with the options ``given``."""
        if self.kind is None:
            return False
        if self.compiled_when is not None:
            return self.compiled_when(given)
        return self.options.runs_compiled(given)

    def options_row(self, given: dict[str, Any], game: GameSpec) -> np.ndarray:
        """The row of ``given`` in ``game``: the very row the agent's Python bot hands the kernels."""
        if self.games is not None and game.name not in self.games:
            raise ValueError(f"{self.name} plays {' and '.join(self.games)} only, not {game.name}")
        return self.options.resolve(given, game).row()


#: The agents cardlab ships, by name.
BUILTIN: dict[str, BuiltinAgent] = {agent.name: agent for agent in (
    BuiltinAgent("random", random_agent.make_random, random_agent.OPTIONS, kind=0),
    BuiltinAgent("rules", rules.make_rules, rules.OPTIONS, kind=1),
    BuiltinAgent("ismcts", ismcts.make_ismcts, ismcts.OPTIONS, kind=2, compiled_when=ismcts.runs_compiled,
                 network_kind=6, uses_network=ismcts.uses_network),
    BuiltinAgent("cfr", cfr.make_cfr, cfr.OPTIONS),  # a policy file of a small game: cfr:policy=PATH
    BuiltinAgent("cfr-bidding", cfr_bidding.make_cfr_bidding, cfr_bidding.OPTIONS, kind=4,
                 games=DOUBLE_DUMMY_GAMES, compiled_when=cfr_bidding.runs_compiled),
    BuiltinAgent("pimc", pimc.make_pimc, pimc.OPTIONS, kind=3, games=DOUBLE_DUMMY_GAMES),
    BuiltinAgent("net", net.make_net, net.OPTIONS, kind=5, compiled_when=net.runs_compiled),
)}

#: The kind code of each native agent, by name: what the compiled loop's kernels switch on.
NATIVE_KINDS: dict[str, int] = {name: agent.kind for name, agent in BUILTIN.items() if agent.kind is not None}
#: The kind code of each native agent that may read a network, when it does.
NETWORK_KINDS: dict[str, int] = {name: agent.network_kind for name, agent in BUILTIN.items()
                                 if agent.network_kind is not None}
if len(set(NATIVE_KINDS.values()) | set(NETWORK_KINDS.values())) != len(NATIVE_KINDS) + len(NETWORK_KINDS):
    raise ValueError(f"native agents need distinct kind codes, got {NATIVE_KINDS} and {NETWORK_KINDS}")
