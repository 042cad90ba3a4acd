"""Agent options: how an agent declares the options it takes, and how given values are checked."""

from __future__ import annotations

from typing import Any


def reject_unknown_options(agent: str, options: dict[str, Any], known: tuple[str, ...] = ()) -> None:
    """Raise ``ValueError`` naming any option of ``options`` that ``agent`` does not take."""
    unknown = sorted(set(options) - set(known))
    if unknown:
        raise ValueError(
            f"agent {agent!r}: unknown option(s) {', '.join(unknown)}"
            + (f"; known: {', '.join(known)}" if known else "; it takes no options")
        )
