"""Agents: every agent is a ``pyspiel.Bot``, created by name.

    bot = cardlab.agents.make("rules", game, player=0, seed=1)

Names: ``random`` (any game), ``rules`` (the rule-based player of the game).
Games add their own factories with :func:`register`.
"""

from __future__ import annotations

from cardlab.agents.random_agent import RandomBot
from cardlab.agents.registry import agent_names, make, register

__all__ = ["RandomBot", "agent_names", "make", "register"]
