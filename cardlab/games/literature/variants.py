"""Literature's named rule variants (docs/variants.md; rule page section 12)."""

from cardlab.games.variants import Variant

_TESTS = "tests/literature/test_literature_variants.py::"
_RULINGS = "tests/literature/test_literature_rulings.py::"

VARIANTS = (
    Variant(
        "literature.first_ask_left_of_dealer", "P", ("first_ask_left_of_dealer=true",),
        "the player after the dealer, dealer + 1, has the first turn",
        rulings=("V-L1",),
        tests=(_RULINGS + "test_ruling1_dealer_has_first_turn",),
    ),
    Variant(
        "literature.twelve_players", "C", ("players=12",),
        "12 players in two teams of six, 4 cards each",
        tests=(_RULINGS + "test_player_counts_deal_the_whole_deck",),
    ),
    Variant(
        "literature.sixteen_players", "C", ("players=16",),
        "16 players in two teams of eight, 3 cards each",
        tests=(_RULINGS + "test_player_counts_deal_the_whole_deck",),
    ),
    Variant(
        "literature.four_players", "C", ("players=4",),
        "4 players in two teams of two, 12 cards each",
        tests=(_RULINGS + "test_player_counts_deal_the_whole_deck",),
    ),
    Variant(
        "literature.claim_any_time", "P", ("claim_any_time=true",),
        "claim windows before every on-turn decision (1033 declines); at the end the empty "
        "team may hand the turn to any seat of the other team",
        rulings=("V-L2", "V-L3"),
        tests=(_TESTS + "test_claim_windows_poll_the_other_seats_before_each_decision",
               _TESTS + "test_v_l2_a_claim_in_a_window_leaves_the_turn_where_it_was",
               _TESTS + "test_v_l3_empty_handed_seats_claim_in_windows_and_the_endgame_hand_off_widens"),
    ),
    Variant(
        "literature.misclaim_to_opponents", "P", ("misclaim_to_opponents=true",),
        "a claim with every card in the team but a seat named wrongly goes to the opponents "
        "instead of being void",
        tests=(_RULINGS + "test_seed_example2_wrong_seat_voids_the_half_suit",),
    ),
    Variant(
        "literature.sevens_removed", "P", ("sevens_removed=true",),
        "the 7s leave instead of the 8s: low A-6, high 8-K",
        tests=(_RULINGS + "test_sevens_removed_and_jokers_layouts",),
    ),
    Variant(
        "literature.jokers_ninth_set", "P", ("jokers_ninth_set=true",),
        "54 cards: the four 8s and both jokers form a ninth half-suit; six players only",
        tests=(_RULINGS + "test_sevens_removed_and_jokers_layouts",),
    ),
    Variant(
        "literature.major_sets_worth_two", "P", ("major_sets_worth_two=true",),
        "a high half-suit scores 2, a low one (and the ninth set) 1",
        tests=(_RULINGS + "test_ruling6_major_sets_worth_two",),
    ),
    Variant(
        "literature.eights_in_play", "P", ("eights_in_play=true",),
        "the full 52 cards; the 8s join the high half-suits (7 cards, seven assignment nodes)",
        rulings=("V-L4",),
        tests=(_TESTS + "test_v_l4_the_52_cards_are_dealt_round_unevenly",
               _TESTS + "test_a_high_half_suit_claim_names_seven_seats"),
    ),
    Variant(
        "literature.opponent_picks_next_player", "P", ("opponent_picks_next_player=true",),
        "the opponent who last asked an empty-handed seat on turn picks which teammate "
        "takes the turn",
        rulings=("V-L5",),
        tests=(_TESTS + "test_the_last_opponent_to_ask_picks_the_next_player",
               _TESTS + "test_v_l5_a_seat_nobody_asked_picks_for_itself"),
    ),
    Variant(
        "literature.ask_own_card_surrender", "P", ("ask_own_card_surrender=true",),
        "an ask may name one's own card: it goes to the player asked, publicly, and so "
        "does the turn",
        rulings=("V-L6",),
        tests=(_TESTS + "test_asking_for_ones_own_card_surrenders_it",
               _TESTS + "test_v_l6_the_asked_card_meets_the_half_suit_condition"),
    ),
    Variant(
        "literature.bluff_own_card", "P", ("bluff_own_card=true",),
        "an ask may name one's own card, as a bluff that fails like any refused ask",
        rulings=("V-L6",),
        tests=(_TESTS + "test_a_bluff_fails_like_a_refused_ask",
               _TESTS + "test_v_l6_the_asked_card_meets_the_half_suit_condition"),
    ),
    Variant(
        "literature.hidden_card_counts", "D", (),
        "players need not say how many cards they hold",
        reason="a rule of table talk: hand sizes follow from the public history (deal "
               "sizes, asks, claims), so no information state changes",
        status="documented",
    ),
    Variant(
        "literature.forced_claims", "P", ("forced_claims=true",),
        "at the end the team holding cards declares half-suits in turn or passes (1033); "
        "half-suits nobody declares go to the other team",
        rulings=("V-L7",),
        tests=(_TESTS + "test_forced_claims_the_endgame_is_declared_in_turn_or_passed",
               _TESTS + "test_forced_claims_a_wrong_declaration_is_resolved_as_a_claim"),
    ),
    Variant(
        "literature.no_probability_talk", "D", (),
        "no talk about how sure one is during a forced claim",
        reason="a rule of table talk among teammates; an engine has no such channel",
        status="documented",
    ),
    Variant(
        "literature.challenge", "P", ("challenge=true",),
        "a team may be challenged on a half-suit (1072 + h) to place its cards, on a turn "
        "or in a claim window",
        rulings=("V-L8", "V-L9"),
        tests=(_TESTS + "test_a_challenged_team_holding_the_half_suit_must_declare_it",
               _TESTS + "test_a_wrong_or_missing_answer_scores_for_the_challengers",
               _TESTS + "test_v_l8_a_challenge_on_a_team_without_every_card_scores_for_it",
               _TESTS + "test_v_l9_a_challenge_in_a_window_lets_the_window_go_on",
               _TESTS + "test_clarification5_no_challenge_in_the_endgame_without_forced_claims",
               _TESTS + "test_rules_player_challenges_only_what_the_other_team_cannot_place"),
    ),
)

#: The rulings of docs/variants.md that decide the variants' ambiguous points, in plain words.
RULINGS = {
    "V-L1": "the source's \"or right\" is not a parameter: it is the same game with the seats "
            "relabelled, as the source itself says",
    "V-L2": "\"at any time\" becomes one chance per seat between any two on-turn decisions, "
            "which is all the moment of a claim between two asks can change",
    "V-L3": "an empty-handed player claims in the windows and on his own turn hands off as in "
            "the standard game; at the end the empty team may hand the turn to any seat of "
            "the other team",
    "V-L4": "the 52 cards are dealt round as usual, so some seats get one card more; the "
            "major-sets scoring is not implied",
    "V-L5": "if no opponent has ever asked the empty-handed seat, the seat chooses itself, as "
            "in the standard game",
    "V-L6": "an ask for one's own card needs only a card of its half-suit, the asked one "
            "counted",
    "V-L7": "\"suit\" means half-suit; twice the number of forced half-suits is counted per "
            "seat at each (re)start, which begins with the last declarer; the turn moves to "
            "the next seat of the team",
    "V-L8": "a challenge works only against a team that holds every card of the half-suit; "
            "otherwise the challenged team scores it",
    "V-L9": "\"at any time\" is the claim window plus the seat's own turn",
}
