"""Matches and tournaments between agents."""

from cardlab.arena.duplicate import DuplicateResult, play_deal, play_duplicate_match

__all__ = ["DuplicateResult", "play_deal", "play_duplicate_match"]
