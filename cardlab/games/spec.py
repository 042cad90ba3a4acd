"""What the rest of cardlab needs to know about a game, declared once in the game's folder.

Every game package (``cardlab/games/<game>/``) ends with a ``spec.py`` holding
one :class:`GameSpec`. The arena, the agents and the command line read games
only through these specs (:func:`cardlab.games.game_spec`), so adding a game
means writing its folder and one line in :data:`cardlab.games.SPECS`; the only
other central place is the numba dispatch in :mod:`cardlab.games.kernels`,
because numba's disk cache needs each kernel called by name.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType, ModuleType
from typing import Any

import numpy as np
import pyspiel

from cardlab.games.variants import Variant


def _frozen(mapping: Mapping[str, Any]) -> Mapping[str, Any]:
    return MappingProxyType(dict(mapping))


@dataclass(frozen=True)
class GameSpec:
    """One game, as the library sees it.

    ``engine`` and ``strategy`` are the game's kernel modules (transitions; the
    rule-based player's ``rules_action``); ``summary(finals)`` turns the final
    engine states of a batch of games into the game's own result columns
    (bids, contracts, claims); ``ismcts_defaults`` are the search options tuned
    for this game (any option of :data:`cardlab.agents.ismcts.OPTIONS`);
    ``small_parameters`` are the game parameters of its smallest playable
    version, for fast tests and exact solvers; ``variants`` the named rule
    variants of the game's rule page (:mod:`cardlab.games.variants`).
    """

    name: str
    title: str
    aliases: tuple[str, ...]
    kernel_id: int
    game_class: type[pyspiel.Game]
    engine: ModuleType
    strategy: ModuleType
    summary: Callable[[np.ndarray], dict[str, Any]]
    rules_doc: str
    has_static_evaluation: bool = False
    ismcts_defaults: Mapping[str, Any] = field(default_factory=dict)
    small_parameters: Mapping[str, Any] = field(default_factory=dict)
    variants: tuple[Variant, ...] = ()
    #: Bid advice (``cardlab advise``) reads, from the final engine states of played-out deals,
    #: their returns and a seat: whether that seat's side holds the contract, and whether the
    #: declaring side made it (both False where no contract was played).
    contract_outcome: Callable[[np.ndarray, np.ndarray, int], tuple[np.ndarray, np.ndarray]] | None = None
    #: Do cards pass from hand to hand in play (Literature's asks)? Then a seat's hidden cards depend
    #: on others' choices, and the AIVAT estimator's chance corrections do not apply.
    cards_change_hands: bool = False
    #: For a game whose actions each have an entry of the observation that speaks of them
    #: (Literature's asks and claims): ``action_links(state_array, num_actions)``, the entries linked
    #: to each action id, -1 for none (:mod:`cardlab.agents.network`'s links).
    action_links: Callable[[np.ndarray, int], np.ndarray] | None = None
    #: The same for a hand-inference head (:data:`cardlab.agents.network.HEADS` ``holders``):
    #: ``holder_links(state_array, cards, others)``, the entries linked to the logit that the seat
    #: ``k + 1`` places after the observer holds card ``c`` (row ``c * others + k``).
    holder_links: Callable[[np.ndarray, int, int], np.ndarray] | None = None
    #: The table sizes the game is played at (its ``players`` parameter's values).
    player_counts: tuple[int, ...] = ()
    #: The number of cards a seat may hold when it bids (Twenty-Eight: four in the first round).
    bidding_hand_sizes: tuple[int, ...] = ()
    #: At the table (``cardlab play``, ``serve``), for a game whose moves reveal where hidden cards
    #: are: the question the next move answers where the list of moves does not say it (a claim's
    #: next card), and what a seat can deduce (the ``knows`` command).
    move_prompt: Callable[[pyspiel.State], str | None] | None = None
    deductions: Callable[[pyspiel.State, int], str] | None = None
    #: Claim advice (``cardlab advise``): ``claim_odds(state, seat, worlds, seed)``, each live
    #: claim's odds over sampled worlds and the number of worlds drawn.
    claim_odds: Callable[..., tuple[list[Any], int]] | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "ismcts_defaults", _frozen(self.ismcts_defaults))
        object.__setattr__(self, "small_parameters", _frozen(self.small_parameters))

    def load(self, parameters: Mapping[str, Any] | None = None) -> pyspiel.Game:
        """The OpenSpiel game with these parameters.

        Names, types and sizes are checked here, before OpenSpiel converts the
        values to C++ (where an integer beyond 32 bits is a bare cast error);
        the game then checks the rules' ranges and combinations. Raises
        ``ValueError`` naming the parameter.
        """
        return pyspiel.load_game(self.name, self.checked(parameters))

    def seat_sides(self, game: pyspiel.Game) -> list[int]:
        """The side (a team, or a seat alone) each seat of ``game`` scores with.

        Sides depend on the parameters (Kaiser with 3, 5 or 6 players,
        Twenty-Eight with 6), so the engine's ``side_of`` answers, on the
        game's initial array: an OpenSpiel state would compile the whole
        transition kernel, which a compiled tournament never calls from Python.
        """
        state = game.initial_array
        return [int(self.engine.side_of(state, seat)) for seat in range(game.num_players())]

    def game_type(self) -> pyspiel.GameType:
        """The game's OpenSpiel registration (its parameters and their defaults)."""
        return next(t for t in pyspiel.registered_games() if t.short_name == self.name)

    def checked(self, parameters: Mapping[str, Any] | None) -> dict[str, Any]:
        """``parameters`` with every name, type and size OpenSpiel can take checked."""
        defaults = self.game_type().parameter_specification
        checked = {}
        for key, value in dict(parameters or {}).items():
            if key not in defaults:
                raise ValueError(f"{self.name} has no parameter {key!r}; "
                                 f"known: {', '.join(sorted(defaults))}")
            kind = type(defaults[key])
            if kind is float and type(value) is int:
                value = float(value)
            if type(value) is not kind:
                raise ValueError(f"{self.name}: parameter {key} must be "
                                 f"{KIND_NAMES.get(kind, kind.__name__)}, got {value!r:.60}")
            if kind is int and not -2**31 <= value < 2**31:  # OpenSpiel's parameters are C++ ints
                raise ValueError(f"{self.name}: parameter {key}={value} is out of range")
            checked[key] = value
        return checked


    def parameter_lines(self) -> list[str]:
        """One line per game parameter: name, type, default, allowed values and its variants.

        Read from the game module's ``DEFAULT_PARAMETERS`` and ``PARAMETER_RULES``
        (``(type, allowed)``, as :func:`cardlab.core.openspiel.checked_parameters`
        takes them) and from the variants whose settings name the parameter; the game's
        ``RESEARCH_PARAMETERS`` (small games for exact solving) are marked as such.
        """
        module = sys.modules[self.game_class.__module__]
        lines = []
        for name, default in module.DEFAULT_PARAMETERS.items():
            kind, allowed = module.PARAMETER_RULES[name]
            owners = [variant.name.split(".", 1)[1] for variant in self.variants
                      if name in variant.settings()]
            shown = str(default).lower() if isinstance(default, bool) else str(default)
            origin = ("cardlab research parameter (small games), not a rule variant"
                      if name in getattr(module, "RESEARCH_PARAMETERS", ())
                      else f"variant: {', '.join(owners) or 'contract'}")
            lines.append(f"{name}: {kind.__name__}, default {shown}, allowed "
                         f"{_allowed_text(kind, allowed)}; {origin}")
        return lines


#: How each OpenSpiel parameter type is named in error messages.
KIND_NAMES = {bool: "true or false", int: "an integer", float: "a number", str: "a string"}


def _allowed_text(kind: type, allowed: object) -> str:
    if isinstance(allowed, range):
        return f"{allowed.start}..{allowed.stop - 1}"
    if isinstance(allowed, tuple):
        return ", ".join(str(value) for value in allowed)
    return "true, false" if kind is bool else "checked with the other parameters"
