"""Named rule variants, as the documentation and the command line list them.

The rule pages name 61 variants of the three games. Each game folder declares
its own in ``variants.py`` as a tuple of :class:`Variant`, from which the
documentation's table of variants and ``cardlab variants --game kaiser`` are
made.

A variant's *class* says how cardlab carries it:

- ``P``: a game parameter that changes the rules (``parameters`` names it);
- ``C``: expressed by a parameter that belongs to something else
  (``min_bid = 7``, ``players = 12``);
- ``D``: documented only; ``reason`` says why it cannot be a parameter.

A game folder's ``variants.py`` may also hold ``RULINGS``: each ruling id its
variants cite (``V-T4``) with the ruling in plain words, for the table.
"""

from __future__ import annotations

from dataclasses import dataclass

VARIANT_CLASSES = ("P", "C", "D")
#: A variant's status: played by the engine, described only, or rejected by
#: ``load_game`` until its engine work is done (never accepted half-done).
STATUSES = ("implemented", "documented", "not implemented yet")


@dataclass(frozen=True)
class Variant:
    """One named variant of a game's rules.

    ``name`` is the spec's name (``kaiser.kitty_34_card``), ``parameters`` the
    settings that switch it on as written on a command line
    (``kitty_34_card=true``, ``players=5``; empty for class D), ``summary`` the
    rule change in one line, ``rulings`` the numbered rulings that decide its
    ambiguous points (``V-K4``), ``tests`` the test functions that show the
    rule change (``tests/kaiser/test_kaiser_variants.py::test_kitty_discards``), and
    ``status`` ``"implemented"`` or ``"documented"``.
    """

    name: str
    variant_class: str
    parameters: tuple[str, ...]
    summary: str
    rulings: tuple[str, ...] = ()
    tests: tuple[str, ...] = ()
    reason: str = ""
    status: str = "implemented"

    def __post_init__(self) -> None:
        if self.variant_class not in VARIANT_CLASSES:
            raise ValueError(f"{self.name}: class must be one of {VARIANT_CLASSES}")
        if self.variant_class == "D" and not self.reason:
            raise ValueError(f"{self.name}: a documented-only variant needs its reason")
        if self.status not in STATUSES:
            raise ValueError(f"{self.name}: status must be one of {STATUSES}")

    def settings(self) -> dict[str, bool | int | float]:
        """The game parameters that switch the variant on (``{"players": 5}``)."""
        return dict(parse_setting(text) for text in self.parameters)


def parse_setting(text: str) -> tuple[str, bool | int | float]:
    """``"kitty_34_card=true"`` as ``("kitty_34_card", True)``; ints and floats likewise."""
    name, sep, value = text.partition("=")
    if not sep or not name:
        raise ValueError(f"a variant setting looks like name=value, got {text!r}")
    if value in ("true", "false"):
        return name, value == "true"
    try:
        return name, int(value)
    except ValueError:
        return name, float(value)
