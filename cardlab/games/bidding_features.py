"""Each game's auction as the CFR bidder abstracts it, gathered by game for :mod:`cardlab.cfr.bidding`.

A game whose auction is modelled describes it in ``games/<game>/bidding_features.py``:
a hand's bucket, the auction as a seat sees it, the actions kept, the slot of a
contract in the leaf cache, and the constants below. The kernels here are
tables by game kernel id (:func:`cardlab.core.specialize.by_key`), so a literal
game id compiles one game's features alone.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from cardlab.core.specialize import by_key
from cardlab.games.kaiser import bidding_features as kaiser
from cardlab.games.kaiser.game import GAME_NAME as KAISER_NAME
from cardlab.games.kernels import KAISER, TWENTY_EIGHT
from cardlab.games.twenty_eight import bidding_features as twenty_eight
from cardlab.games.twenty_eight.game import GAME_NAME as TWENTY_EIGHT_NAME

#: The games whose auctions are modelled, by OpenSpiel name, and the parameters each accepts.
#: Any other parameter changes the auction or the hand's value in ways the abstraction does
#: not model (a Kaiser match scores games, not hands; the kitty adds cards) and is refused.
MODELLED_PARAMETERS = {
    KAISER_NAME: kaiser.MODELLED_PARAMETERS,
    TWENTY_EIGHT_NAME: twenty_eight.MODELLED_PARAMETERS,
}


def _by_game_id(kaiser_value, twenty_eight_value) -> np.ndarray:
    """One row a modelled game, indexed by its kernel id (what a kernel reads with ``table[game]``)."""
    rows = {KAISER: kaiser_value, TWENTY_EIGHT: twenty_eight_value}
    return np.array([rows[game] for game in sorted(rows)], dtype=np.int64)


#: Buckets per game (rows by kernel id: Kaiser, Twenty-Eight) and grain (columns: coarse, fine).
NUM_BUCKETS = _by_game_id(kaiser.NUM_BUCKETS, twenty_eight.NUM_BUCKETS)
#: Cards of the auction's deal: Kaiser deals all 32 first, Twenty-Eight 16 (its first stage).
AUCTION_DEAL = _by_game_id(kaiser.AUCTION_DEAL, twenty_eight.AUCTION_DEAL)
#: Leaf-cache slots per deal: declarer seat x high bid (Kaiser ranks 0..40, Twenty-Eight 0..28).
CONTRACTS = _by_game_id(kaiser.CONTRACTS, twenty_eight.CONTRACTS)


def _per_game(name: str, kaiser_kernel, twenty_eight_kernel, fallback=None):
    return by_key(name, {KAISER: kaiser_kernel, TWENTY_EIGHT: twenty_eight_kernel}, fallback)


@njit(cache=True)
def _no_modelled_auction(s):
    return False


#: ``in_auction(game, s)``: is ``s`` a decision of the auction the abstraction models? (Never,
#: in a game without a modelled auction.)
in_auction = _per_game("in_auction", kaiser.in_auction, twenty_eight.in_auction, _no_modelled_auction)
#: ``auction_features(game, s, seat, position, fine)``: ``(bucket, throw_in, auction)`` of ``seat``,
#: ``position`` seats after the dealer: its hand's bucket at the grain, whether it may throw the
#: hand in (or ask for a redeal), and the auction as it sees it, packed in one number.
auction_features = _per_game("auction_features", kaiser.auction_features, twenty_eight.auction_features)
#: ``abstract_actions(game, s, legal, n, out)``: the actions the abstraction keeps among the ``n``
#: legal ones, ascending, into ``out``; returns their number.
abstract_actions = _per_game("abstract_actions", kaiser.abstract_actions, twenty_eight.abstract_actions)
#: ``contract_slot(game, s)``: the leaf cache slot of the contract an auction ended in.
contract_slot = _per_game("contract_slot", kaiser.contract_slot, twenty_eight.contract_slot)
