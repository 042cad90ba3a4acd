"""The former name of :mod:`cardlab.arena.entrants`, kept only for ``cardlab.rl.vector``'s import."""

from cardlab.arena.entrants import AgentSpec, AgentSpecError, is_native, native_tables, parse_agent

__all__ = ["AgentSpec", "AgentSpecError", "is_native", "native_tables", "parse_agent"]
