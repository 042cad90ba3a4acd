"""Agents: every agent is a ``pyspiel.Bot``, created by name.

    bot = cardlab.agents.make("rules", game, player=0, seed=1)

Built-in names (:data:`BUILTIN_AGENTS`, from the table of :mod:`cardlab.agents.builtin`):
``random``, ``rules`` (each game's rule-based player), ``ismcts``, ``pimc``, ``cfr``,
``cfr-bidding`` and ``net``. Outside code adds its own with :func:`register`.
"""

from __future__ import annotations

from cardlab.agents.random_agent import RandomBot
from cardlab.agents.registry import BUILTIN_AGENTS, agent_names, make, register

__all__ = ["BUILTIN_AGENTS", "RandomBot", "agent_names", "make", "register"]
