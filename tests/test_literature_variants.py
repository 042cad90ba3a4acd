"""Literature's rule variants (docs/variants.md): the load_game rejects of spec 4.6, and the
variants whose engine work is not done yet refused rather than played as another game.

The variants already implemented are shown by tests/test_literature_rulings.py (each Variant
in cardlab/games/literature/variants.py names its test).
"""

from __future__ import annotations

import pyspiel
import pytest

from cardlab.games.literature.game import NOT_IMPLEMENTED
from cardlab.games.literature.variants import VARIANTS


@pytest.mark.parametrize("name", NOT_IMPLEMENTED)
def test_variants_not_implemented_yet_are_rejected(name: str) -> None:
    with pytest.raises(ValueError, match=f"{name}: not implemented yet"):
        pyspiel.load_game("cardlab_literature", {name: True})
    pyspiel.load_game("cardlab_literature", {name: False})  # the standard game


def test_not_implemented_variants_are_declared_as_such() -> None:
    pending = {v.settings().popitem()[0] for v in VARIANTS if v.status == "not implemented yet"}
    assert pending == set(NOT_IMPLEMENTED)


@pytest.mark.parametrize("params, message", [
    ({"eights_in_play": True, "sevens_removed": True}, "eights_in_play cannot be combined"),
    ({"eights_in_play": True, "jokers_ninth_set": True}, "eights_in_play cannot be combined"),
    ({"ask_own_card_surrender": True, "bluff_own_card": True}, "two different outcomes"),
])
def test_combinations_the_spec_forbids_are_rejected(params: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        pyspiel.load_game("cardlab_literature", params)
