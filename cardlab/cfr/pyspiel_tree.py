"""Build a :class:`~cardlab.cfr.tree.GameTree` by walking any turn-based pyspiel game once.

The walk goes through the Python API, so it suits games of up to a few
hundred thousand nodes (``kuhn_poker``, ``leduc_poker``, small cardlab
positions); it exists so that the solvers can be checked on games nobody here
wrote. Information sets are named by ``information_state_string``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import pyspiel

from cardlab.cfr.tree import CHANCE, TERMINAL, GameTree, TreeRecorder

InfosetName = Callable[[pyspiel.State, int], str]


def _string_name(state: pyspiel.State, player: int) -> str:
    return state.information_state_string(player)


def build_from_pyspiel(
    game: pyspiel.Game,
    roots: Sequence[tuple[pyspiel.State, float]] | None = None,
    infoset_name: InfosetName = _string_name,
) -> GameTree:
    """The tree of ``game`` below its initial state, or below ``roots`` (states with probabilities).

    Several roots hang below a chance node (their edge actions are the root
    numbers). Refuses simultaneous-move games and probabilities that do not sum to 1.
    """
    game_type = game.get_type()
    if game_type.dynamics != pyspiel.GameType.Dynamics.SEQUENTIAL:
        raise ValueError(f"{game_type.short_name}: only turn-based games can be flattened")
    if roots is None:
        roots = [(game.new_initial_state(), 1.0)]
    _check_roots([p for _, p in roots])
    recorder = TreeRecorder(game.num_players())
    depth = [0] * game.num_players()
    if len(roots) == 1:
        _walk(roots[0][0], recorder, infoset_name, depth)
    else:
        _, first = recorder.node(CHANCE, list(range(len(roots))), [p for _, p in roots])
        for k, (state, _) in enumerate(roots):
            recorder.link(first + k, _walk(state, recorder, infoset_name, depth))
    return recorder.finish()


def _check_roots(probabilities: list[float]) -> None:
    if not probabilities or min(probabilities) <= 0 or abs(sum(probabilities) - 1.0) > 1e-9:
        raise ValueError(f"root probabilities must be positive and sum to 1, got {probabilities}")


def _walk(state: pyspiel.State, recorder: TreeRecorder, infoset_name: InfosetName,
          depth: list[int]) -> int:
    """Record ``state``'s subtree in preorder; returns its node id."""
    if state.is_terminal():
        node, _ = recorder.node(TERMINAL, [], utility=state.returns())
        return node
    if state.is_chance_node():
        outcomes = state.chance_outcomes()
        actions = [a for a, _ in outcomes]
        node, first = recorder.node(CHANCE, actions, [p for _, p in outcomes])
    else:
        player = state.current_player()
        if player < 0:
            raise ValueError(f"{state.get_game().get_type().short_name}: only turn-based games "
                             f"can be flattened (player {player} to act)")
        actions = state.legal_actions()
        node, first = recorder.node(player, actions, infoset_name=infoset_name(state, player),
                                    depth=depth[player])
        depth[player] += 1
    for k, action in enumerate(actions):
        recorder.link(first + k, _walk(state.child(action), recorder, infoset_name, depth))
    if not state.is_chance_node():
        depth[state.current_player()] -= 1
    return node
