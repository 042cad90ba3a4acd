"""Agent options, declared once: their types, defaults, valid ranges and the kernels' row.

An agent declares what it takes as an :class:`OptionSet` of :class:`Option`
declarations. Every consumer reads that one declaration: the agent's factory
and its bot resolve given values with :meth:`OptionSet.resolve` (the
declared defaults, then the game's own defaults from its spec, then the
values given, each checked strictly), the compiled arena asks
:meth:`OptionSet.runs_compiled` whether it can play those options itself,
and both the bot and the arena hand the search kernels the same float
row, :meth:`Options.row`, with each compiled option at its declared column.
:meth:`OptionSet.describe` prints the table for docstrings and the command
line. A changed default therefore cannot drift between the Python and the
compiled paths. Option text (``simulations=500,uct_c=1.5``, an agent spec's or
the command line's) is read by :func:`parse_options` alone.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

import numpy as np

if TYPE_CHECKING:
    from cardlab.games.spec import GameSpec

#: Width of an agent's options row: a compiled agent reads the columns it declares.
ROW_WIDTH = 12

Kind = Literal["int", "float", "bool", "choice", "text"]


def parse_value(text: str) -> bool | int | float | str:
    """An option's value as written in text: ``true``/``false``, an int, a float, else the text itself."""
    lowered = text.lower()
    if lowered in ("true", "false"):
        return lowered == "true"
    for convert in (int, float):
        try:
            return convert(text)
        except ValueError:
            pass
    return text


def parse_options(items: Iterable[str], what: str = "option") -> dict[str, Any]:
    """``["simulations=500", "uct_c=1.5"]`` as ``{"simulations": 500, "uct_c": 1.5}`` (:func:`parse_value`).

    ``ValueError`` names the item (after ``what``) that is not ``key=value``
    or repeats a key.
    """
    options: dict[str, Any] = {}
    for item in items:
        key, sep, value = (part.strip() for part in item.partition("="))
        if not sep or not key or not value:
            raise ValueError(f"{what} {item!r} must look like key=value")
        if key in options:
            raise ValueError(f"{what} {key!r} is given twice")
        options[key] = parse_value(value)
    return options


def _number(value: float | None) -> str:
    """A bound as people write it: 10000000, not 1e+07."""
    if value is None:
        return ""
    return str(int(value)) if float(value).is_integer() else f"{value:g}"


@dataclass(frozen=True)
class Option:
    """One option: its type, default, valid values, and where the compiled kernels read it.

    Numbers are valid from ``low`` (excluded when ``low_open``) up to ``high``;
    a ``default`` of ``None`` means the option may also be left unset. A
    ``choice`` maps each allowed name to the code the kernels read; a
    ``text`` (a file path) is any non-empty string and never compiled.
    ``column`` is the option's place in the options row, for options the
    compiled arena can run; the others need the agent's Python bot.
    ``needs`` names a :class:`~cardlab.games.spec.GameSpec` flag that a
    non-zero value requires (``"has_static_evaluation"``).
    """

    name: str
    kind: Kind
    default: Any
    doc: str
    low: float | None = None
    high: float | None = None
    low_open: bool = False
    choices: Mapping[str, int] = field(default_factory=dict)
    column: int | None = None
    needs: str | None = None

    @property
    def compiled(self) -> bool:
        """True if the compiled arena can run this option (it has a column in the row)."""
        return self.column is not None

    def valid_text(self) -> str:
        """The valid values, as error messages and :meth:`OptionSet.describe` print them."""
        if self.kind == "bool":
            text = "true or false"
        elif self.kind == "choice":
            text = "one of " + ", ".join(repr(name) for name in self.choices)
        else:
            text = "an integer" if self.kind == "int" else "a finite number"
            low, high = _number(self.low), _number(self.high)
            if self.low is not None and self.high is not None:
                text += f" in {'(' if self.low_open else '['}{low}, {high}]"
            elif self.low is not None:
                text += f" {'>' if self.low_open else '>='} {low}"
            elif self.high is not None:
                text += f" <= {high}"
        if self.needs:
            text += f" (above 0 only with a {_feature(self.needs)})"
        return text + (" or unset" if self.default is None else "")

    def check(self, agent: str, value: Any) -> Any:
        """``value`` as this option's Python type; ``ValueError`` naming the option if invalid.

        Numbers may come as strings (from the command line), booleans as the
        strings ``true``/``false``; nothing else is coerced.
        """
        if value is None and self.default is None:
            return None
        checked = self._convert(value)
        if checked is None or not self._in_range(checked):
            raise ValueError(f"agent {agent!r}: option {self.name} must be {self.valid_text()}, "
                             f"got {value!r}")
        return checked

    def _convert(self, value: Any) -> Any:
        """The value as ``int``/``float``/``bool``/``str``, or ``None`` if it is not of the kind."""
        if self.kind == "choice":
            return value if isinstance(value, str) and value in self.choices else None
        if self.kind == "text":
            return value if isinstance(value, str) and value else None
        if isinstance(value, str):
            value = parse_value(value)
        if self.kind == "bool":
            return bool(value) if isinstance(value, bool | np.bool_) else None
        if isinstance(value, bool | np.bool_):
            return None
        if isinstance(value, int | np.integer) or (self.kind == "float"
                                                   and isinstance(value, float | np.floating)):
            return int(value) if self.kind == "int" else float(value)
        return None

    def _in_range(self, value: Any) -> bool:
        if self.kind not in ("int", "float"):
            return True
        if self.kind == "float" and not math.isfinite(value):
            return False
        if self.low is not None and (value <= self.low if self.low_open else value < self.low):
            return False
        return self.high is None or value <= self.high

    def code(self, value: Any) -> float:
        """The value as the kernels read it in the options row."""
        if self.kind == "choice":
            return float(self.choices[value])
        return float(value)


class Options(Mapping[str, Any]):
    """Every option of an :class:`OptionSet` with its resolved, checked value."""

    def __init__(self, option_set: OptionSet, values: dict[str, Any]):
        self.option_set = option_set
        self._values = values

    def __getitem__(self, name: str) -> Any:
        return self._values[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._values)

    def __len__(self) -> int:
        return len(self._values)

    def __repr__(self) -> str:
        return f"Options({self.option_set.agent!r}, {self._values!r})"

    def row(self) -> np.ndarray:
        """The float64 row the compiled kernels read: each compiled option at its column."""
        row = np.zeros(ROW_WIDTH, dtype=np.float64)
        for option in self.option_set:
            if option.compiled:
                row[option.column] = option.code(self._values[option.name])
        return row


class OptionSet:
    """The options one agent takes, declared once (see the module docstring).

    ``game_defaults`` names the :class:`~cardlab.games.spec.GameSpec` field
    that holds each game's own defaults for this agent (``"ismcts_defaults"``).
    """

    def __init__(self, agent: str, options: tuple[Option, ...] = (), game_defaults: str | None = None):
        self.agent = agent
        self.game_defaults = game_defaults
        self._options = {option.name: option for option in options}
        columns = [option.column for option in options if option.compiled]
        if len(self._options) != len(options) or len(set(columns)) != len(columns) or any(
                not 0 <= column < ROW_WIDTH for column in columns):
            raise ValueError(f"agent {agent!r}: option names and row columns must be unique, "
                             f"columns in 0..{ROW_WIDTH - 1}")

    def __iter__(self) -> Iterator[Option]:
        return iter(self._options.values())

    def __getitem__(self, name: str) -> Option:
        return self._options[name]

    @property
    def names(self) -> tuple[str, ...]:
        """The option names, in declaration order."""
        return tuple(self._options)

    def reject_unknown(self, given: Mapping[str, Any]) -> None:
        """Raise ``ValueError`` naming any option of ``given`` that the agent does not take."""
        unknown = sorted(set(given) - set(self._options))
        if unknown:
            raise ValueError(
                f"agent {self.agent!r}: unknown option(s) {', '.join(unknown)}"
                + (f"; known: {', '.join(self.names)}" if self._options else "; it takes no options")
            )

    def runs_compiled(self, given: Mapping[str, Any]) -> bool:
        """True if every option of ``given`` is one the compiled arena runs (and is known)."""
        return all(name in self._options and self._options[name].compiled for name in given)

    def defaults(self, spec: GameSpec | None = None) -> dict[str, Any]:
        """The declared defaults, overridden by the game's own (``spec.<game_defaults>``)."""
        values = {option.name: option.default for option in self}
        for name, value in self._game_defaults(spec).items():
            values[name] = self._options[name].check(self.agent, value)
        return values

    def resolve(self, given: Mapping[str, Any], spec: GameSpec | None = None) -> Options:
        """The options given over the defaults (:meth:`defaults`), all checked.

        ``ValueError`` names an unknown option, a value of the wrong type or
        out of range, or a value ``spec``'s game cannot support.
        """
        self.reject_unknown(given)
        values = self.defaults(spec)
        for name, value in given.items():
            values[name] = self._options[name].check(self.agent, value)
        for option in self:
            if option.needs and spec is not None and values[option.name] and not getattr(
                    spec, option.needs):
                raise ValueError(f"agent {self.agent!r}: option {option.name}={values[option.name]!r} "
                                 f"needs a {_feature(option.needs)}, which {spec.name} does not "
                                 f"have (use 0)")
        return Options(self, values)

    def _game_defaults(self, spec: GameSpec | None) -> Mapping[str, Any]:
        if spec is None or self.game_defaults is None:
            return {}
        defaults = getattr(spec, self.game_defaults)
        unknown = sorted(set(defaults) - set(self._options))
        if unknown:
            raise ValueError(f"game {spec.name}: its defaults for agent {self.agent!r} name unknown "
                             f"option(s) {', '.join(unknown)}")
        return defaults

    def describe(self, spec: GameSpec | None = None) -> str:
        """A plain-text table of the options: type, default (``spec``'s if given), valid values."""
        if not self._options:
            return f"{self.agent} takes no options."
        defaults = self.defaults(spec)
        rows = [("option", "type", "default", "valid", "compiled", "meaning")] + [
            (option.name, option.kind, _default_text(defaults[option.name]), option.valid_text(),
             "yes" if option.compiled else "no", option.doc)
            for option in self
        ]
        widths = [max(len(row[i]) for row in rows) for i in range(5)]
        return "\n".join("  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=False))
                         + "  " + row[5] for row in rows)


def _default_text(value: Any) -> str:
    if value is None:
        return "unset"
    if isinstance(value, bool):
        return str(value).lower()
    return str(value)


def _feature(flag: str) -> str:
    """``has_static_evaluation`` -> ``static evaluation``."""
    return flag.removeprefix("has_").replace("_", " ")
