"""Bit for bit the same games as the golden digests: speed work must not change what the games do.

``tests/same_results.py`` prints one digest per configuration (random games and deals, compiled
arena games of random, rules, ISMCTS and PIMC agents on every game's variant sets, double-dummy
tables); ``tests/golden/`` holds the lines of the version they were written with. A change that
alters a game, a random stream or an agent's choice shows here as the configuration it altered.
A deliberate change of results rewrites the golden file (``python tests/same_results.py all``)
and says why in its commit.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests import same_results

GOLDEN = Path(__file__).parent / "golden"


def _golden(group: str) -> list[str]:
    if group == "solver":
        return (GOLDEN / "same-results-solver.txt").read_text().splitlines()
    lines = (GOLDEN / "same-results-all.txt").read_text().splitlines()
    return [line for line in lines if line.startswith("lit-") == (group == "lit")]


@pytest.mark.integration
@pytest.mark.parametrize("group", ["lit", "tricks", "solver"])
def test_every_configuration_gives_the_golden_digest(group: str, capsys: pytest.CaptureFixture) -> None:
    same_results.main(group)
    lines = capsys.readouterr().out.splitlines()
    golden = _golden(group)
    assert len(golden) > 4
    changed = [f"{line!r} (golden {expected!r})" for line, expected in zip(lines, golden, strict=False)
               if line != expected]
    assert not changed, "results changed:\n" + "\n".join(changed[:10])
    assert len(lines) == len(golden)
