"""Study 2, Twenty-Eight bidding: rule-based self-play with each seat's first four cards and the result.

    python -m experiments.twenty_eight_bidding                    # full size (make notebooks)
    python -m experiments.twenty_eight_bidding --set deals=400 --out /tmp/tb

Every deal is played by the rule-based player in all four seats in the
compiled arena (dealer 0, the standard hand). One row per deal and seat: the
seat's position, the four cards it bid on (jacks, nines, aces, tens, card
points, the longest suit) and its whole hand, its first-round bids, who won
the auction at what bid, whether the bidder or partner raised in the second
round, who called for the hidden trump and when it was shown, the card points
the seat's team took and its game points. The notebook is
notebooks/twenty_eight_bidding.py.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyarrow as pa

from cardlab.core.cards import ACE, JACK, NINE, SUIT_MASKS, TEN, card_id
from cardlab.core.layout import DEALER, DEALT
from cardlab.games.twenty_eight import engine as E
from cardlab.games.twenty_eight.rules import BID, CARD_POINTS, NUM_PLAYERS
from experiments.frame import Study, count_cards, main, self_play

GAME = "cardlab_twenty_eight"
DEFAULTS: dict[str, Any] = {"seed": 2026, "deals": 40000, "chunk_size": 4000}


def rank_mask(rank: int) -> int:
    return sum(1 << (13 * suit + rank) for suit in range(4))


def card_points(hands: np.ndarray) -> np.ndarray:
    """The card points (J 3, 9 2, A 1, 10 1: the game's table) each hand mask holds."""
    total = np.zeros(len(hands), dtype=np.int64)
    for rank in (JACK, NINE, ACE, TEN):
        total += int(CARD_POINTS[card_id(0, rank)]) * count_cards(hands, rank_mask(rank))
    return total


def longest_suit(hands: np.ndarray) -> np.ndarray:
    return np.max([count_cards(hands, SUIT_MASKS[s]) for s in range(4)], axis=0)


def play_chunk(parameters: dict[str, Any], deals: range) -> pa.Table:
    """The rows (deal, seat) of ``deals``: first four cards, bids, raises, calls, points."""
    finals = self_play(GAME, {}, parameters["seed"], deals).finals
    n = len(deals)
    rows = np.repeat(np.arange(n), NUM_PLAYERS)
    seat = np.tile(np.arange(NUM_PLAYERS), n)
    team = seat % 2
    dealer = finals[rows, DEALER]
    position = (seat - dealer - 1) % NUM_PLAYERS  # 0: the opener, 3: the dealer
    first_four = finals[rows, E.FIRST_FOUR + seat]
    hand = finals[rows, DEALT + seat]

    # First round: action i was spoken by seat dealer + 1 + i; a seat's best bid, 0 if it never bid.
    own_bid = np.zeros(n * NUM_PLAYERS, dtype=np.int64)
    first_round_high = np.zeros(n, dtype=np.int64)
    for i in range(E.MAX_FIRST_ROUND):
        spoken = finals[:, E.BID_HISTORY + i]
        valid = i < finals[:, E.NUM_BIDS]
        speaker = (finals[:, DEALER] + 1 + i) % NUM_PLAYERS
        value = np.where(valid & (spoken >= BID), spoken - BID, 0)
        first_round_high = np.maximum(first_round_high, value)
        mine = speaker[rows] == seat
        own_bid = np.where(mine, np.maximum(own_bid, value[rows]), own_bid)
    redeal = finals[:, E.OUTCOME] == E.REDEALT
    bidder = np.where(finals[:, E.OUTCOME] == E.PLAYED_OUT, finals[:, E.BIDDER], -1)
    raised_by = np.full(n, -1)
    for k in range(2):  # the first bidder's and then his partner's second-round action
        action = finals[:, E.RAISES + k]
        who = finals[:, E.FIRST_BIDDER] if k == 0 else (finals[:, E.FIRST_BIDDER] + 2) % NUM_PLAYERS
        raised_by = np.where((raised_by < 0) & (action >= BID), who, raised_by)
    columns = {
        "deal": pa.array(np.repeat(np.arange(deals.start, deals.stop), NUM_PLAYERS), pa.int64()),
        "seat": pa.array(seat, pa.int8()),
        "position": pa.array(position, pa.int8()),
        "first_four": pa.array(first_four, pa.int64()),
        "jacks4": pa.array(count_cards(first_four, rank_mask(JACK)), pa.int8()),
        "nines4": pa.array(count_cards(first_four, rank_mask(NINE)), pa.int8()),
        "aces4": pa.array(count_cards(first_four, rank_mask(ACE)), pa.int8()),
        "tens4": pa.array(count_cards(first_four, rank_mask(TEN)), pa.int8()),
        "points4": pa.array(card_points(first_four), pa.int8()),
        "longest4": pa.array(longest_suit(first_four), pa.int8()),
        "hand": pa.array(hand, pa.int64()),
        "points8": pa.array(card_points(hand), pa.int8()),
        "own_bid": pa.array(own_bid, pa.int8()),  # best first-round bid, 0 if none
        "first_round_high": pa.array(first_round_high[rows], pa.int8()),
        "first_bidder": pa.array(np.where(bidder >= 0, finals[:, E.FIRST_BIDDER], -1)[rows], pa.int8()),
        "bidder": pa.array(bidder[rows], pa.int8()),
        "final_bid": pa.array(np.where(bidder >= 0, finals[:, E.HIGH_BID], 0)[rows], pa.int8()),
        "declaring": pa.array((bidder[rows] >= 0) & (bidder[rows] % 2 == team), pa.bool_()),
        "raised_by": pa.array(np.where(bidder >= 0, raised_by, -1)[rows], pa.int8()),
        "trump": pa.array(np.where(bidder >= 0, finals[:, E.TRUMP], -1)[rows], pa.int8()),
        "trumps_held": pa.array(np.where(
            bidder[rows] >= 0,
            count_cards(hand, SUIT_MASKS[np.maximum(finals[rows, E.TRUMP], 0)]), -1), pa.int8()),
        "caller": pa.array(np.where(bidder >= 0, finals[:, E.CALLER], -1)[rows], pa.int8()),
        "shown_in_trick": pa.array(np.where(bidder >= 0, finals[:, E.SHOWN_IN_TRICK], -1)[rows], pa.int8()),
        "redeal": pa.array(redeal[rows], pa.bool_()),
        "outcome": pa.array(finals[rows, E.OUTCOME], pa.int8()),
        "team_card_points": pa.array(finals[rows, E.CARD_POINTS_WON + team], pa.int8()),
        "game_points": pa.array(finals[rows, E.GAME_POINTS + team], pa.int8()),
    }
    return pa.table(columns)


STUDY = Study("twenty-eight-bidding", DEFAULTS, play_chunk)

if __name__ == "__main__":
    main(STUDY)
