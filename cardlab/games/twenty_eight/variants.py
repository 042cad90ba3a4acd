"""Twenty-Eight's named rule variants (docs/variants.md; rule page section 13)."""

from cardlab.games.variants import Variant

_TESTS = "tests/twenty_eight/test_twenty_eight_variants.py::"
_COUNTS = "tests/twenty_eight/test_twenty_eight_player_counts.py::"

VARIANTS = (
    Variant(
        "twenty_eight.jack_discard_restriction", "P", ("jack_discard_restriction=true",),
        "a player who does not follow may not play the J of a suit not yet led this hand, "
        "unless every card he could play is such a jack",
        rulings=("V-T4",),
        tests=(_TESTS + "test_jack_of_an_unled_suit_is_barred_when_not_following",
               _TESTS + "test_v_t4_jacks_stay_legal_when_they_are_all_he_could_play"),
    ),
    Variant(
        "twenty_eight.pointless_hand_redeal", "P", ("pointless_hand_redeal=true",),
        "after the full deal every seat may show eight cards without J, 9, A or 10 "
        "(action 55) and void the hand",
        rulings=("V-T5",),
        tests=(_TESTS + "test_a_pointless_hand_may_be_shown_and_voids_the_hand",
               _TESTS + "test_v_t5_every_seat_gets_a_show_node_before_the_second_round"),
    ),
    Variant(
        "twenty_eight.cot", "P", ("cot=true",),
        "a bidding side that wins every trick scores double; before each trick the opponents "
        "may offer to surrender (56), the bidder accepts (57) or plays on (58)",
        rulings=("V-T6",),
        tests=(_TESTS + "test_cot_accepted_surrender_scores_the_single_game",
               _TESTS + "test_cot_every_trick_scores_double",
               _TESTS + "test_v_t6_play_on_then_a_lost_trick_ends_the_hand_at_double_loss"),
    ),
    Variant(
        "twenty_eight.four_card_cot", "D", (),
        "cot bid on four cards with the partner's hand face up",
        reason="the source gives no playable rules: no score, and not who plays the exposed "
               "partner's cards, who leads or whether there are trumps (T12)",
        status="documented",
    ),
    Variant(
        "twenty_eight.thani", "P", ("thani=true",),
        "at his second-round node the bidder may undertake to win every trick himself "
        "(action 59); he leads and scores +4, or -5 at the first trick he does not win",
        rulings=("V-T7",),
        tests=(_TESTS + "test_thani_made_scores_four",
               _TESTS + "test_v_t7_a_trick_won_by_the_partner_defeats_thani"),
    ),
    Variant(
        "twenty_eight.three_player", "P", ("players=3",),
        "three players, 24 cards (no 8s or 7s), opening minimum 12, the bidder alone "
        "against two",
        rulings=("V-T1", "V-T3"),
        tests=(_COUNTS + "test_three_players_deal_two_stages_of_four_from_24_cards",
               _COUNTS + "test_v_t1_two_passes_end_the_first_round_without_a_partner_rule",
               _COUNTS + "test_v_t1_the_second_round_is_the_bidders_node_only",
               _COUNTS + "test_v_t3_three_player_bidder_alone_gets_g_and_each_opponent_minus_g_over_2",
               _COUNTS + "test_three_player_ruling_7_voids_when_the_bidder_alone_held_all_six_trumps"),
    ),
    Variant(
        "twenty_eight.six_player", "P", ("players=6",),
        "six players in three teams of two, 36 cards (6s added), all dealt before the "
        "bidding, opening minimum 12",
        rulings=("V-T2", "V-T3"),
        tests=(_COUNTS + "test_six_players_are_dealt_six_cards_each_from_36_before_the_auction",
               _COUNTS + "test_v_t2_partner_overcalls_below_20_and_five_passes_end_the_first_round",
               _COUNTS + "test_six_players_go_from_the_indicator_straight_to_play_and_play_six_tricks_of_six",
               _COUNTS + "test_v_t3_six_player_bidding_side_gets_g_and_the_four_others_minus_g_over_2",
               _COUNTS + "test_v_t2_ruling_7_voids_the_hand_when_the_bidding_side_held_all_nine_trumps",
               _COUNTS + "test_v_t2_four_jacks_void_the_hand_before_the_auction"),
    ),
    Variant(
        "twenty_eight.fifty_six", "D", (),
        "56, a double-pack relative of the game",
        reason="the source names the game and gives no rules",
        status="documented",
    ),
)

#: The rulings of docs/variants.md that decide the variants' ambiguous points, in plain words.
RULINGS = {
    "V-T1": "three players are dealt two stages of four as in the main game; the opening "
            "minimum is 12; no partner-overcall rule; the first round ends after two passes "
            "following the last bid and the second round is the bidder's node only",
    "V-T2": "six players get all their cards (six each) before the auction, so there is no "
            "second deal and no second round; opening minimum 12; partners (seat + 3) may not "
            "overcall each other below 20; six tricks of six cards",
    "V-T3": "each seat of the bidding side gets the game points G and the other seats share "
            "-G equally, so returns are zero-sum for every player count",
    "V-T4": "every card played without following counts as a discard, trumps after the show "
            "and the shown indicator included; the exception always leaves a legal card "
            "(a caller whose only trump is an unled jack must still play it)",
    "V-T5": "every seat gets the show node, so that having one reveals nothing; the shows "
            "come after the full deal and before the second round",
    "V-T6": "the winning side is the bidding side and the double game is twice the band's "
            "value; the offer may come before any trick, the first included; the opponent "
            "after the bidder offers and the bidder answers; one refusal commits the bidding "
            "side",
    "V-T7": "only the seat that is the bidder when the second round starts may declare Thani; "
            "trumps are unchanged; a trick won by the partner defeats Thani",
}
