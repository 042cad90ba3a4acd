"""The arena's clocks: thinking time is CPU time, which waiting does not advance."""

import time

from cardlab.arena.clock import cpu_ns, monotonic_ns


def test_cpu_clock_counts_work_and_not_waiting():
    wall, cpu = monotonic_ns(), cpu_ns()
    time.sleep(0.2)
    slept_wall, slept_cpu = monotonic_ns() - wall, cpu_ns() - cpu
    assert slept_wall >= 190_000_000
    assert slept_cpu < 100_000_000  # a sleep costs (almost) no CPU
    cpu = cpu_ns()
    sum(i * i for i in range(2_000_000))
    assert cpu_ns() - cpu > 1_000_000  # work does
