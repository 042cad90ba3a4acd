"""Kaiser as the rest of cardlab sees it (see :mod:`cardlab.games.spec`)."""

from cardlab.games import kernels
from cardlab.games.kaiser import engine, rules, strategy, summary
from cardlab.games.kaiser.game import GAME_NAME, KaiserGame
from cardlab.games.kaiser.variants import VARIANTS
from cardlab.games.spec import GameSpec

SPEC = GameSpec(
    name=GAME_NAME,
    title="Kaiser",
    aliases=("kaiser",),
    kernel_id=kernels.KAISER,
    game_class=KaiserGame,
    engine=engine,
    strategy=strategy,
    summary=summary.summary,
    rules_doc="docs/rules/kaiser.md",
    # Defaults tuned in duplicate matches against the rule-based player: every bid and card
    # is offered at once (widening 1.0 adds one per visit), rollouts play to the end.
    ismcts_defaults={"widening": 1.0, "rollout_depth": 0},
    variants=VARIANTS,
    player_counts=rules.PLAYER_COUNTS,
    contract_outcome=summary.contract_outcome,
    bidding_hand_sizes=(rules.HAND_SIZE,),
)
