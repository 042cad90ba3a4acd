"""`cardlab warmup`: which groups each game has, and the order that keeps the solver's games apart."""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor

from cardlab.warmup import GROUPS, TAIL_GROUPS, _apart, applies, run_in_pool

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


def test_a_games_rl_and_play_groups_wait_for_its_engine_and_any_free_process_takes_them() -> None:
    events: list[tuple[str, str, str]] = []
    lock = threading.Lock()

    def warm(name: str, groups: list[str]) -> dict[str, float | str]:
        with lock:
            events.append(("start", name, ",".join(groups)))
        time.sleep(0.3 if name == "cardlab_kaiser" and "tournament" in groups else 0.01)
        with lock:
            events.append(("end", name, ",".join(groups)))
        return {group: 1.0 for group in groups}

    reported: list[tuple[str, dict]] = []
    with ThreadPoolExecutor(2) as pool:
        results = run_in_pool(pool, warm, ALL, list(GROUPS),
                              lambda name, spent: reported.append((name, spent)))
    assert results == {name: {group: 1.0 for group in GROUPS} for name in ALL}
    assert sorted(name for name, _ in reported) == sorted(ALL)  # once per game, with every group
    assert all(spent == results[name] for name, spent in reported)
    head = ",".join(group for group in GROUPS if group not in TAIL_GROUPS)
    tail = ",".join(TAIL_GROUPS)
    for name in ALL:
        assert events.index(("end", name, head)) < events.index(("start", name, tail))
    # Kaiser's long head keeps one thread; the other takes Literature's and Twenty-Eight's tails meanwhile
    kaiser_done = events.index(("end", "cardlab_kaiser", head))
    assert events.index(("start", "cardlab_twenty_eight", tail)) < kaiser_done
