"""A game's parameters, each declared once: its name, default, allowed values and engine slot.

A game's module lists its parameters in one :class:`ParameterTable`; what
OpenSpiel and the checks need is read from it: the defaults
(:attr:`ParameterTable.defaults`, whose types are the parameters' types), the
rules :func:`cardlab.core.openspiel.checked_parameters` applies at
``load_game`` (:attr:`ParameterTable.rules`), the research parameters of the
small games (:attr:`ParameterTable.research`) and the engine slots that take a
value as it is given (:meth:`ParameterTable.slot_values`). Adding a parameter
is one :class:`Parameter` line plus the rule code that reads it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Parameter:
    """One game parameter.

    ``allowed`` is a ``range``, a tuple of values, or ``None`` for any value of the
    default's type (a game may check it further against the other parameters).
    ``slot`` is the engine state slot that holds the value as given, if one does
    (a value the engine derives from several parameters is the game's to compute).
    ``research`` marks cardlab's own parameters of the small games for exact
    solving, which are not rule variants.
    """

    name: str
    default: bool | int | float
    allowed: range | tuple | None = None
    slot: int | None = None
    research: bool = False

    @property
    def kind(self) -> type:
        return type(self.default)


class ParameterTable:
    """A game's parameters in the order OpenSpiel lists them."""

    def __init__(self, *parameters: Parameter) -> None:
        names = [parameter.name for parameter in parameters]
        repeated = sorted({name for name in names if names.count(name) > 1})
        if repeated:
            raise ValueError(f"parameters declared twice: {repeated}")
        self.parameters = parameters

    @property
    def defaults(self) -> dict[str, Any]:
        return {parameter.name: parameter.default for parameter in self.parameters}

    @property
    def rules(self) -> dict[str, tuple[type, Any]]:
        """``name: (type, allowed)``, as :func:`cardlab.core.openspiel.checked_parameters` takes them."""
        return {parameter.name: (parameter.kind, parameter.allowed) for parameter in self.parameters}

    @property
    def research(self) -> tuple[str, ...]:
        return tuple(parameter.name for parameter in self.parameters if parameter.research)

    def slot_values(self, values: Mapping[str, Any]) -> dict[int, Any]:
        """``slot: value`` for every parameter the engine holds as given."""
        return {parameter.slot: values[parameter.name] for parameter in self.parameters
                if parameter.slot is not None}
