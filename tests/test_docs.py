"""The documentation agrees with the code.

``docs/actions.md`` and ``docs/rules/<game>.md`` are how a clone of cardlab reads
its own rules. These tests parse their tables and headings and compare them with
the code, both ways, so a change on either side that the other does not follow
fails here: action ids and strings, the rulings the code cites, the game
parameters, the links between pages, and no reference to files outside the
repository.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator
from functools import partial
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

import cardlab  # noqa: F401  (registers the games)
from cardlab.core.bitboard import cards_in
from cardlab.core.cards import NUM_CARD_IDS, card_string
from cardlab.core.engine import CHANCE_PLAYER
from cardlab.games.kaiser import engine as kaiser_engine
from cardlab.games.kaiser import game as kaiser_game
from cardlab.games.kaiser import rules as kaiser_rules
from cardlab.games.literature import game as literature_game
from cardlab.games.literature import rules as literature_rules
from cardlab.games.twenty_eight import engine as twenty_eight_engine
from cardlab.games.twenty_eight import game as twenty_eight_game
from cardlab.games.twenty_eight import rules as twenty_eight_rules

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
ACTIONS = DOCS / "actions.md"

#: Each game's OpenSpiel module, its rules constants, and the mask of every card its deals can give.
GAMES: dict[str, tuple[ModuleType, ModuleType, int]] = {
    "kaiser": (kaiser_game, kaiser_rules, kaiser_rules.STANDARD_DECK),
    "twenty_eight": (twenty_eight_game, twenty_eight_rules, twenty_eight_rules.STANDARD_DECK),
    "literature": (literature_game, literature_rules,
                   int(np.bitwise_or.reduce(literature_rules.DECKS))),
}
#: How many rulings the contract gives each game; their numbers never change.
RULING_COUNTS = {"kaiser": 7, "twenty_eight": 8, "literature": 6}


def rule_page(game: str) -> Path:
    return DOCS / "rules" / f"{game}.md"


# ---- Reading markdown -------------------------------------------------------------------------
def github_slug(heading: str) -> str:
    """The anchor GitHub gives a heading: lower case, punctuation dropped, spaces to hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def anchors(path: Path) -> set[str]:
    """Every heading anchor of a markdown page, with GitHub's -1, -2 suffixes for repeats."""
    seen: dict[str, int] = {}
    result = set()
    for line in path.read_text().splitlines():
        if match := re.match(r"#{1,6} (.+)", line):
            slug = github_slug(match[1])
            result.add(f"{slug}-{seen[slug]}" if slug in seen else slug)
            seen[slug] = seen.get(slug, 0) + 1
    return result


def table_rows(path: Path) -> Iterator[tuple[str, str, list[str]]]:
    """``(section, subsection, cells)`` for every body row of every table of the page."""
    section = subsection = ""
    previous_in_table = False
    for line in path.read_text().splitlines():
        if line.startswith("## "):
            section, subsection = line[3:].strip(), ""
        elif line.startswith("### "):
            subsection = line[4:].strip()
        in_table = line.startswith("|")
        header_or_rule = in_table and (not previous_in_table or re.fullmatch(r"[|\-: ]+", line))
        previous_in_table = in_table
        if in_table and not header_or_rule:
            yield section, subsection, [cell.strip() for cell in line.strip().strip("|").split("|")]


def section_rows(path: Path, section: str) -> list[list[str]]:
    return [cells for name, _, cells in table_rows(path) if name == section]


# ---- docs/actions.md ----------------------------------------------------------------------------
ID_AND_STRING = re.compile(r"(\d+) `([^`]+)`")  # a table cell such as  78 `bid 6`
DOMAIN = re.compile(r"\b([a-z]) = (\d+)[–-](\d+)")  # t = 0–15
PLACEHOLDER = re.compile(r"\{([a-z])\}")


def expand_formula(ident: str, meaning: str, template: str,
                   card_strings: dict[int, str]) -> Iterator[tuple[int, str]]:
    """Every ``(id, string)`` of a row such as  ``64·t + c | ... (t = 0–15, c = 0–53) | `ask P{t} {c}```."""
    assert re.fullmatch(r"[0-9a-z·+ ]+", ident), f"not an id formula: {ident!r}"
    domains = {name: range(int(low), int(high) + 1) for name, low, high in DOMAIN.findall(meaning)}
    names = sorted(set(re.findall(r"[a-z]", ident)))
    assert set(names) <= set(domains), f"{ident!r}: no range given for {set(names) - set(domains)}"
    for values in itertools.product(*(domains[name] for name in names)):
        env = dict(zip(names, values, strict=True))
        number = eval(ident.replace("·", "*"), {"__builtins__": {}}, env)  # digits, letters, + and *
        text = PLACEHOLDER.sub(
            lambda m, env=env: card_strings[env[m[1]]] if m[1] == "c" else str(env[m[1]]), template)
        yield number, text


def documented_actions() -> tuple[dict[int, str], dict[tuple[str, str], dict[int, str]], list[str]]:
    """The card table, ``{(game, context): {id: string}}`` from every action table, and ids
    documented twice with different strings."""
    rows = list(table_rows(ACTIONS))
    cards = {int(m[1]): m[2] for section, _, cells in rows if section == "Cards"
             for cell in cells if (m := ID_AND_STRING.fullmatch(cell))}
    actions: dict[tuple[str, str], dict[int, str]] = {}
    conflicts = []
    for section, subsection, cells in rows:
        game = re.search(r"`cardlab_(\w+)`", section)
        if not game:
            continue
        table = actions.setdefault((game[1], subsection.lower()), {})
        pairs = [(int(m[1]), m[2]) for cell in cells if (m := ID_AND_STRING.fullmatch(cell))]
        if not pairs and len(cells) == 3 and (template := re.fullmatch(r"`([^`]+)`", cells[2])):
            pairs = list(expand_formula(cells[0], cells[1], template[1], cards))
        for number, text in pairs:
            if table.setdefault(number, text) != text:
                conflicts.append(f"{game[1]} ({subsection}): {number} is `{table[number]}` and `{text}`")
    return cards, actions, conflicts


CARDS, ACTION_TABLES, CONFLICTS = documented_actions()


def placing_string(player: int, action: int) -> str:
    """Twenty-Eight's string of ``action`` while ``player``, the bidder, places the indicator."""
    E = twenty_eight_engine
    state = np.zeros(E.STATE_SIZE, dtype=np.int64)
    state[E.PHASE] = E.PLACING
    state[E.BIDDER] = player
    return twenty_eight_game.state_action_to_string(state, player, action)


def giving_string(player: int, action: int) -> str:
    """Kaiser's string of ``action`` at a giving node (11.32-11.35)."""
    state = np.zeros(kaiser_engine.STATE_SIZE, dtype=np.int64)
    state[kaiser_engine.PHASE] = kaiser_engine.GIVING
    return kaiser_game.state_action_to_string(state, player, action)


#: ``(game, context)``: the function that gives the code's string of an action id.
CONTEXTS = {
    **{(game, "chance"): partial(module.action_to_string, CHANCE_PLAYER)
       for game, (module, _, _) in GAMES.items()},
    **{(game, "players"): partial(module.action_to_string, 0) for game, (module, _, _) in GAMES.items()},
    ("twenty_eight", "placing the indicator"): partial(placing_string, 0),
    ("kaiser", "giving cards"): partial(giving_string, 0),
}


def test_card_table_is_the_code_card_strings():
    assert CARDS == {card: card_string(card) for card in range(NUM_CARD_IDS)}


def test_every_documented_context_is_known():
    assert set(ACTION_TABLES) == set(CONTEXTS)


def test_no_id_is_documented_with_two_strings():
    assert not CONFLICTS


@pytest.mark.parametrize("game, context", sorted(CONTEXTS))
def test_documented_ids_have_the_documented_strings(game, context):
    code_string = CONTEXTS[game, context]
    documented = ACTION_TABLES.get((game, context), {})
    assert documented, f"docs/actions.md has no {context} table for {game}"
    wrong = {a: (text, code_string(a)) for a, text in documented.items() if code_string(a) != text}
    assert not wrong, f"{game} ({context}): id: (documented, code) {wrong}"


def accepted_ids(code_string, ids: range) -> set[int]:
    accepted = set()
    for action in ids:
        try:
            code_string(action)
        except ValueError:
            continue
        accepted.add(action)
    return accepted


@pytest.mark.parametrize("game", sorted(GAMES))
def test_every_id_the_code_names_is_documented(game):
    _, rules, _ = GAMES[game]
    # A variant's actions may take ids above the standard game's (Kaiser's bids 99, 100).
    bound = getattr(rules, "MAX_DISTINCT_ACTIONS", rules.NUM_DISTINCT_ACTIONS)
    ids = range(bound + 64)
    accepted = accepted_ids(CONTEXTS[game, "players"], ids)
    assert accepted == set(ACTION_TABLES.get((game, "players"), {}))
    assert max(accepted) < bound
    if (game, "placing the indicator") in CONTEXTS:
        placing = accepted_ids(CONTEXTS[game, "placing the indicator"], range(52))
        assert placing == set(ACTION_TABLES.get((game, "placing the indicator"), {}))


@pytest.mark.parametrize("game", sorted(GAMES))
def test_every_card_a_deal_can_give_is_a_documented_chance_action(game):
    _, _, deck = GAMES[game]
    dealt = {int(card) for card in cards_in(np.int64(deck))}
    assert dealt <= set(ACTION_TABLES.get((game, "chance"), {}))


@pytest.mark.parametrize("game", sorted(GAMES))
def test_num_distinct_actions_is_documented(game):
    _, rules, _ = GAMES[game]
    text = ACTIONS.read_text().split(f"`cardlab_{game}`", 1)[1]
    documented = re.search(r"`num_distinct_actions` = (\d+)", text)
    assert documented and int(documented[1]) == rules.NUM_DISTINCT_ACTIONS


# ---- Rulings ------------------------------------------------------------------------------------
CITATION = re.compile(r"(?<![A-Za-z])[Rr]ulings?[ _]?(\d+(?:(?:\s*(?:,|and|to|-|–)\s*|_)\d+)*)")


def cited_rulings(text: str) -> set[int]:
    """Ruling numbers cited as "ruling 3", "rulings 5 and 6", "rulings 1-8", ``test_ruling4_5``."""
    numbers: set[int] = set()
    for citation in CITATION.finditer(text):
        numbers.update(int(n) for n in re.findall(r"\d+", citation[1]))
        for low, high in re.findall(r"(\d+)\s*[-–]\s*(\d+)", citation[1]):
            numbers.update(range(int(low), int(high) + 1))
    return numbers


def test_citations_are_read_as_meant():
    assert cited_rulings("ruling 3; Rulings 5 and 6; rulings 1-8; test_ruling4_5_6_x") == set(range(1, 9))
    assert cited_rulings("the rulings of the contract, a ruling") == set()


@pytest.mark.parametrize("game", sorted(GAMES))
def test_rulings_are_numbered_as_in_the_contract(game):
    headings = re.findall(r"^### Ruling (\d+)$", rule_page(game).read_text(), flags=re.M)
    assert [int(n) for n in headings] == list(range(1, RULING_COUNTS[game] + 1))


@pytest.mark.parametrize("game", sorted(GAMES))
def test_every_cited_ruling_has_a_heading(game):
    sources = [*(ROOT / "cardlab" / "games" / game).rglob("*.py"),
               *(p for p in (ROOT / "tests").rglob("*.py") if game in p.relative_to(ROOT).as_posix())]
    cited = {n: path for path in sources for n in cited_rulings(path.read_text())}
    assert cited, f"no ruling of {game} is cited in its code or tests"
    page_anchors = anchors(rule_page(game))
    missing = {n: str(path.relative_to(ROOT)) for n, path in cited.items()
               if f"ruling-{n}" not in page_anchors}
    assert not missing, f"rulings cited but not in docs/rules/{game}.md: {missing}"


# ---- Links --------------------------------------------------------------------------------------
def project_files(*patterns: str) -> list[Path]:
    return sorted({path for pattern in patterns for path in ROOT.glob(pattern)
                   if ".venv" not in path.parts})


def test_links_between_pages_resolve():
    for page in project_files("README.md", "docs/**/*.md"):
        for target in re.findall(r"\]\(([^)\s]+)\)", page.read_text()):
            if re.match(r"[a-z]+://", target):
                continue
            file, _, anchor = target.partition("#")
            path = (page.parent / file).resolve() if file else page
            assert path.exists(), f"{page.relative_to(ROOT)}: no file {file}"
            if anchor:
                assert anchor in anchors(path), f"{page.relative_to(ROOT)}: no anchor {target}"


def test_references_to_the_docs_resolve():
    for source in project_files("cardlab/**/*.py", "tests/**/*.py", "benchmarks/**/*.py",
                                "experiments/**/*.py", "README.md"):
        for file, anchor in re.findall(r"\b(docs/[\w/]+\.md)(?:#([\w-]+))?", source.read_text()):
            assert (ROOT / file).exists(), f"{source.relative_to(ROOT)}: no {file}"
            if anchor:
                assert anchor in anchors(ROOT / file), f"{source.relative_to(ROOT)}: no {file}#{anchor}"


# ---- Game parameters ----------------------------------------------------------------------------
def documented_value(text: str) -> bool | int | float:
    if text in ("true", "false"):
        return text == "true"
    return float(text) if "." in text else int(text)


def allowed_text(kind: type, allowed: object) -> str | None:
    """How the parameter table writes a rule's allowed values (None: prose, not checked)."""
    if isinstance(allowed, range):
        return f"{allowed.start}–{allowed.stop - 1}"
    if isinstance(allowed, tuple):
        return ", ".join(str(value) for value in allowed)
    return "true, false" if kind is bool else None


@pytest.mark.parametrize("game", sorted(GAMES))
def test_game_parameters_are_documented_with_their_defaults(game):
    module, _, _ = GAMES[game]
    rows = {cells[0].strip("`"): cells for cells in section_rows(rule_page(game), "Game parameters")}
    assert set(rows) == set(module.DEFAULT_PARAMETERS)
    for name, default in module.DEFAULT_PARAMETERS.items():
        _, kind, documented_default, allowed, _ = rows[name]
        rule_kind, rule_allowed = module.PARAMETER_RULES[name]
        assert kind == rule_kind.__name__, name
        value = documented_value(documented_default)
        assert type(value) is type(default) and value == default, name
        expected = allowed_text(rule_kind, rule_allowed)
        assert expected is None or allowed == expected, name


# ---- Self-contained -----------------------------------------------------------------------------
OUTSIDE = ["../" + "shared", "/work/" + "shared", "shared/" + "spec/", "shared/" + "rules/"]


def test_nothing_refers_to_files_outside_the_repository():
    sources = project_files("cardlab/**/*.py", "tests/**/*.py", "experiments/**/*.py",
                            "experiments/**/*.sh", "docs/**/*.md", "README.md", "Makefile",
                            "pyproject.toml")
    found = [f"{path.relative_to(ROOT)}:{number}"
             for path in sources
             for number, line in enumerate(path.read_text().splitlines(), 1)
             if any(needle in line for needle in OUTSIDE)]
    assert not found, f"references outside the repository: {found}"


# ---- docs/variants.md ---------------------------------------------------------------------------
def test_variants_page_is_the_generated_table():
    from cardlab.games.variants_doc import variants_markdown

    assert (DOCS / "variants.md").read_text() == variants_markdown(), (
        "docs/variants.md is stale: python -m cardlab.games.variants_doc > docs/variants.md")


def test_observation_layouts_are_the_generated_tables():
    from cardlab.rl.layout_doc import page_with_layouts

    page = (DOCS / "rl.md").read_text()
    assert page == page_with_layouts(page), (
        "docs/rl.md's observation layouts are stale: python -m cardlab.rl.layout_doc --write")


def test_every_test_a_variant_names_exists():
    from cardlab.games import SPECS

    missing = []
    for spec in SPECS:
        for variant in spec.variants:
            for test in variant.tests:
                path, _, name = test.partition("::")
                source = ROOT / path
                if not source.exists() or not re.search(rf"^def {name}\(", source.read_text(), re.M):
                    missing.append(f"{variant.name}: {test}")
    assert not missing, f"tests named by variants but not found: {missing}"


def test_every_parameter_variant_is_a_game_parameter():
    from cardlab.games import SPECS

    for spec in SPECS:
        defaults = spec.load().get_type().parameter_specification
        for variant in spec.variants:
            if variant.variant_class != "D":
                assert set(variant.settings()) <= set(defaults), variant.name


# ---- The README -------------------------------------------------------------------------------
def test_the_readme_is_a_front_page():
    assert len((ROOT / "README.md").read_text().splitlines()) <= 250


def test_the_readme_tour_runs(capsys: pytest.CaptureFixture) -> None:
    code = re.search(r"```python\n(.*?)```", (ROOT / "README.md").read_text(), re.S).group(1)
    exec(compile(code, "README.md", "exec"), {})
    shown = capsys.readouterr().out
    assert "Contract" in shown or "contract" in shown  # the hand's log
    assert "A - B, points per deal" in shown  # the match's table
