"""Twenty-Eight as the rest of cardlab sees it (see :mod:`cardlab.games.spec`)."""

from cardlab.games import kernels
from cardlab.games.spec import GameSpec
from cardlab.games.twenty_eight import engine, rules, strategy, summary
from cardlab.games.twenty_eight.game import GAME_NAME, TwentyEightGame
from cardlab.games.twenty_eight.variants import VARIANTS

SPEC = GameSpec(
    name=GAME_NAME,
    title="Twenty-Eight",
    aliases=("twenty_eight", "twenty-eight", "28"),
    kernel_id=kernels.TWENTY_EIGHT,
    game_class=TwentyEightGame,
    engine=engine,
    strategy=strategy,
    summary=summary.summary,
    rules_doc="docs/rules/twenty_eight.md",
    ismcts_defaults={"widening": 1.0, "rollout_depth": 0},
    variants=VARIANTS,
    player_counts=rules.PLAYER_COUNTS,
    contract_outcome=summary.contract_outcome,
    bidding_hand_sizes=(rules.STAGE_SIZE, rules.HAND_SIZE),  # the first round bids on the first four
)
