"""Matches and tournaments between agents.

- :mod:`cardlab.arena.duplicate`: one duplicate match through the Python loop
  (``play_deal``, ``play_duplicate_match``).
- :mod:`cardlab.arena.tournament`: round-robin duplicate tournaments in chunks,
  on a process pool or Ray, resumable (``cardlab tournament``).
- :mod:`cardlab.arena.native`: the compiled game loop and native agent kinds.
- :mod:`cardlab.arena.entrants`: a tournament's agent specs and how each agent is made.
- :mod:`cardlab.arena.config`: a tournament's TOML config file.
- :mod:`cardlab.results`: the Parquet part files and the manifest.
- :mod:`cardlab.arena.summaries`: per-game summary columns (Kaiser: bids, contract).
"""

from cardlab.arena.duplicate import DuplicateResult, play_deal, play_duplicate_match

__all__ = ["DuplicateResult", "play_deal", "play_duplicate_match"]
