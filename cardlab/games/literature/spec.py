"""Literature as the rest of cardlab sees it (see :mod:`cardlab.games.spec`)."""

from cardlab.games import kernels
from cardlab.games.literature import deductions, engine, observation, rules, strategy, summary
from cardlab.games.literature.game import GAME_NAME, LiteratureGame
from cardlab.games.literature.variants import VARIANTS
from cardlab.games.spec import GameSpec

SPEC = GameSpec(
    name=GAME_NAME,
    title="Literature",
    aliases=("literature", "fish"),
    kernel_id=kernels.LITERATURE,
    game_class=LiteratureGame,
    engine=engine,
    strategy=strategy,
    summary=summary.summary,
    rules_doc="docs/rules/literature.md",
    has_static_evaluation=True,  # strategy.expected_returns: each team's share of every half-suit
    # Among dozens of asks the search does best trying a few, in the deduction player's order
    # (widening 0.05, 0.1 and 0.2 were tried); rollouts are long (~160 moves) and noisy, and
    # eight moves then the card-share evaluation was as strong as fifteen and 3x cheaper
    # than playing out (experiments/results/, 100-deal screens; docs/performance.md#strength).
    ismcts_defaults={"widening": 0.1, "rollout_depth": 8},
    small_parameters={"players": 4},
    variants=VARIANTS,
    player_counts=rules.PLAYER_COUNTS,
    cards_change_hands=True,
    move_prompt=deductions.claim_prompt,
    deductions=deductions.knows_text,
    claim_odds=deductions.claim_odds,
    action_links=observation.action_links,
    holder_links=observation.holder_links,
)
