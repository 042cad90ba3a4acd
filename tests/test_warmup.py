"""`cardlab warmup`: which groups each game has, and the order that keeps the solver's games apart."""

from __future__ import annotations

from cardlab.warmup import GROUPS, _apart, applies

ALL = ["cardlab_kaiser", "cardlab_twenty_eight", "cardlab_literature"]


def test_the_solver_games_start_apart_so_the_second_loads_the_shared_search() -> None:
    order = _apart(ALL)
    assert sorted(order) == sorted(ALL)
    assert order[0] == "cardlab_kaiser" and order[-1] == "cardlab_twenty_eight"
    assert _apart(["cardlab_literature"]) == ["cardlab_literature"]
    assert _apart(["cardlab_twenty_eight", "cardlab_kaiser"]) == ["cardlab_twenty_eight", "cardlab_kaiser"]


def test_literature_has_no_solver_groups() -> None:
    skipped = [group for group in GROUPS if not applies(group, "cardlab_literature")]
    assert skipped == ["pimc", "solver", "play"]
    assert all(applies(group, "cardlab_kaiser") for group in GROUPS)
