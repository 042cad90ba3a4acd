"""The training example of docs/rl.md runs as printed, and its team learns."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

PAGE = Path(__file__).resolve().parents[2] / "docs" / "rl.md"


@pytest.mark.slow  # trains for a minute
def test_the_twenty_line_example_trains_the_team() -> None:
    section = PAGE.read_text().split("## Train something in twenty lines", 1)[1]
    code = re.search(r"```python\n(.*?)```", section, re.DOTALL).group(1)
    assert len(code.strip().splitlines()) <= 25
    namespace: dict = {}
    exec(compile(code, str(PAGE), "exec"), namespace)  # noqa: S102 (the documentation's own code)
    returns = namespace["returns"]
    assert len(returns) >= 1000
    first, last = sum(returns[:500]) / 500, sum(returns[-500:]) / 500
    assert last > first
