"""Policy-and-value networks as files and as numba kernels: what the ``net`` agent plays.

A model is a small multilayer perceptron over a game's observation tensor
(the OpenSpiel ``observation_tensor`` of the player to move): ReLU hidden
layers, then two heads on the last one, the logits of every action id
(masked to the legal ones when played) and the value, the mover's expected
return divided by the game's utility scale (``kernels.utility_scale``, the
bound ISMCTS also scales rewards by). ``cardlab train --algo ppo`` trains one
(:mod:`cardlab.learn`); playing it needs no deep-learning library: the
forward pass is the numba kernel :func:`forward`, on the weights flattened
into one ``float32`` vector (:func:`flat_weights`).

File format (one ``.npz``, read without pickle): for hidden layer ``k`` the
arrays ``hidden_w{k}`` (``[inputs, width]``) and ``hidden_b{k}``; the heads
``policy_w`` (``[width, actions]``), ``policy_b``, ``value_w`` (``[width]``)
and ``value_b`` (``[1]``); for a game with linked entries (Literature),
``link_inputs`` (``[actions, links]``: the observation entries each action's
logit reads, -1 for none, whole numbers) and ``link_w`` (their weights), the
logit adding ``link_w[a, k] * x[link_inputs[a, k]]``; all ``float32``; a training checkpoint adds the
arrays its run resumes from, named ``state_...``; and ``metadata``, a JSON text with
``format``, ``version``, ``game``, ``parameters``, ``observation``,
``inputs``, ``actions``, ``hidden`` (the widths), ``action_frame`` (``mover``:
the policy head names seats counted from the mover, as its observation does),
``links`` (entries per action, 0 for none), ``commit`` and ``checksum``
(SHA-256 of the arrays), plus what the trainer records (``training``). A model
loaded for a game is refused (``ValueError`` naming what differs) if it was
trained on another game or other parameters, and so is a file that is not a
model, whose arrays do not match their checksum or their declared shapes, or
whose weights are not finite.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pyspiel
from numba import njit

from cardlab.cfr.policy import check_game, code_commit, game_identity
from cardlab.core.files import load_checked_npz, save_checked_npz
from cardlab.core.layout import DECK
from cardlab.core.rng import random_unit
from cardlab.games import kernels

FORMAT = "cardlab-network"
VERSION = 1
OBSERVATIONS = ("observation", "information_state")
#: How the policy head names actions: as the game does (``absolute``), or in the mover's own
#: frame, seats counted from itself as its observation counts them (``mover``, every model
#: trained since; files without the key are ``absolute``).
ACTION_FRAMES = ("absolute", "mover")
#: What a network's first head gives: the logits of every action id (``policy``, with a value
#: head: what ``net`` plays) or, for each card and each seat after the observer's, the logit that
#: this seat holds the card (``holders``: a hand-inference model, its value head zero,
#: :mod:`cardlab.agents.inference`). Files without the key are ``policy``.
HEADS = ("policy", "holders")
#: The most hidden layers a model may have (the numba forward pass holds their widths in a row).
MAX_HIDDEN_LAYERS = 4
#: The widest layer a model may have, and the most inputs: far above what plays at numba speed.
MAX_WIDTH = 4096
MAX_INPUTS = 1 << 16
#: The most observation entries one action's logit may read (:func:`action_links`).
MAX_LINKS = 8

# ---- the shape row the numba kernels read -------------------------------------------------------
INPUTS = 0  # observation entries
ACTIONS = 1  # action ids (the policy head's width)
LAYERS = 2  # hidden layers
PERFECT_RECALL = 3  # 1: the input is the information-state tensor
MOVER_FRAME = 4  # 1: the policy head names actions in the mover's own frame (``kernels.mover_action``)
LINKS = 5  # observation entries linked to each action's logit (0: none)
HIDDEN = 6  # the widths of the hidden layers, one column each
#: Where the policy head's transposed copy starts (one row of hidden weights per action, :func:`forward_at`).
POLICY_BY_ACTION = HIDDEN + MAX_HIDDEN_LAYERS
#: The columns that describe one network.
NETWORK_COLUMNS = POLICY_BY_ACTION + 1
#: A searcher's second network, its hand-inference model (:func:`with_beliefs`): where its weights
#: start in the flat vector (-1: none), and its own shape row, after this column.
BELIEFS_AT = NETWORK_COLUMNS
BELIEFS_SHAPE = BELIEFS_AT + 1
SHAPE_WIDTH = BELIEFS_SHAPE + NETWORK_COLUMNS


#: Arrays of a training run's checkpoint beside the network (an optimizer's moments) start with this.
STATE_PREFIX = "state_"


@dataclass(frozen=True)
class NetworkModel:
    """A trained network: its weights by name (``float32``), what it was trained on, and (in a
    training checkpoint) the state the run resumes from, arrays named ``state_...``."""

    arrays: dict[str, np.ndarray]
    metadata: dict[str, Any]
    state: dict[str, np.ndarray] = field(default_factory=dict)

    @property
    def hidden(self) -> tuple[int, ...]:
        return tuple(int(width) for width in self.metadata["hidden"])

    @property
    def inputs(self) -> int:
        return int(self.metadata["inputs"])

    @property
    def actions(self) -> int:
        return int(self.metadata["actions"])

    @property
    def perfect_recall(self) -> bool:
        return self.metadata["observation"] == "information_state"

    @property
    def game(self) -> str:
        return str(self.metadata["game"])

    @property
    def action_frame(self) -> str:
        return str(self.metadata.get("action_frame", "absolute"))

    @property
    def links(self) -> int:
        return int(self.metadata.get("links", 0))

    @property
    def head(self) -> str:
        return str(self.metadata.get("head", "policy"))


def array_shapes(inputs: int, hidden: tuple[int, ...], actions: int, links: int = 0
                 ) -> dict[str, tuple[int, ...]]:
    """The name and shape of every weight array of a network, in the order the forward pass reads them."""
    shapes: dict[str, tuple[int, ...]] = {}
    width = inputs
    for k, size in enumerate(hidden):
        shapes[f"hidden_w{k}"] = (width, size)
        shapes[f"hidden_b{k}"] = (size,)
        width = size
    shapes.update(policy_w=(width, actions), policy_b=(actions,), value_w=(width,), value_b=(1,))
    if links:
        shapes.update(link_inputs=(actions, links), link_w=(actions, links))
    return shapes


def action_links(game: pyspiel.Game, head: str = "policy") -> np.ndarray | None:
    """The observation entries linked to each output of a ``head`` for ``game`` (``int64 [outputs,
    links]``, -1 for none): an action of a policy head, a (card, seat) of a hand-inference one;
    None for a game without links (:attr:`GameSpec.action_links`, :attr:`GameSpec.holder_links`)."""
    from cardlab.games import game_spec  # the specs import the agents that import this module
    spec = game_spec(game.get_type().short_name)
    array = game.new_initial_state().array
    if head == "holders":
        return None if spec.holder_links is None else spec.holder_links(array, *holder_outputs(game))
    if spec.action_links is None:
        return None
    return spec.action_links(array, game.num_distinct_actions())


def check_architecture(inputs: int, hidden: tuple[int, ...] | list[int], actions: int) -> tuple[int, ...]:
    """The hidden widths, checked: 1..MAX_HIDDEN_LAYERS layers of 1..MAX_WIDTH units (``ValueError``)."""
    hidden = tuple(hidden)
    if not 1 <= len(hidden) <= MAX_HIDDEN_LAYERS or any(
            isinstance(w, bool) or not isinstance(w, int | np.integer) or not 1 <= w <= MAX_WIDTH
            for w in hidden):
        raise ValueError(f"hidden layers must be 1 to {MAX_HIDDEN_LAYERS} widths in 1..{MAX_WIDTH}, "
                         f"got {list(hidden)}")
    if not 1 <= inputs <= MAX_INPUTS or not 1 <= actions <= MAX_INPUTS:
        raise ValueError(f"a network needs 1..{MAX_INPUTS} inputs and actions, got {inputs} and {actions}")
    return tuple(int(w) for w in hidden)


def holder_outputs(game: pyspiel.Game) -> tuple[int, int]:
    """``(cards, others)`` of a hand-inference head for ``game``: a row per card id of its deck, a
    column per seat after the observer's (the seat ``k + 1`` places on)."""
    deck = int(game.new_initial_state().array[DECK])
    return deck.bit_length(), game.num_players() - 1


def model_metadata(game: pyspiel.Game, observation: str, hidden: tuple[int, ...], action_frame: str = "mover",
                   links: bool = True, head: str = "policy", **extra: Any) -> dict[str, Any]:
    """The metadata of a network for ``game``: what it plays, its shapes, and ``extra`` (training).
    ``links``: whether its logits read the game's linked entries (:func:`action_links`), if it has them;
    ``head``: one of :data:`HEADS` (a ``holders`` head names no action: no frame)."""
    if head not in HEADS:
        raise ValueError(f"head must be one of {HEADS}, got {head!r}")
    if head == "holders":
        action_frame = "absolute"  # no action to name: its seats count from the observer
    if observation not in OBSERVATIONS:
        raise ValueError(f"observation must be one of {OBSERVATIONS}, got {observation!r}")
    if action_frame not in ACTION_FRAMES:
        raise ValueError(f"action_frame must be one of {ACTION_FRAMES}, got {action_frame!r}")
    state = game.new_initial_state()
    inputs = len(state.information_state_tensor(0) if observation == "information_state"
                 else state.observation_tensor(0))
    actions = game.num_distinct_actions()
    extra_head = {}
    if head == "holders":
        cards, others = holder_outputs(game)
        actions, extra_head = cards * others, {"cards": cards, "others": others}
    hidden = check_architecture(inputs, hidden, actions)
    table = action_links(game, head) if links and (action_frame == "mover" or head == "holders") else None
    return {**game_identity(game), "observation": observation, "inputs": inputs, "actions": actions,
            "hidden": list(hidden), "action_frame": action_frame, "head": head, **extra_head,
            "links": 0 if table is None else int(table.shape[1]), **extra}


def _arrays_problem(arrays: dict[str, np.ndarray], metadata: dict[str, Any]) -> str | None:
    """What is wrong with a model's arrays against its metadata, or None."""
    try:
        hidden = check_architecture(int(metadata["inputs"]), list(metadata["hidden"]),
                                    int(metadata["actions"]))
    except (KeyError, TypeError, ValueError) as error:
        return f"has no valid architecture ({str(error).splitlines()[0] if str(error) else error!r})"
    if metadata.get("observation") not in OBSERVATIONS:
        return f"names no observation kind (got {metadata.get('observation')!r:.40})"
    if metadata.get("head", "policy") not in HEADS:
        return f"names no head kind (got {metadata.get('head')!r:.40})"
    if metadata.get("action_frame", "absolute") not in ACTION_FRAMES:
        return f"names no action frame (got {metadata.get('action_frame')!r:.40})"
    links = metadata.get("links", 0)
    if isinstance(links, bool) or not isinstance(links, int) or not 0 <= links <= MAX_LINKS:
        return f"has no valid link count (got {links!r:.40})"
    shapes = array_shapes(int(metadata["inputs"]), hidden, int(metadata["actions"]), links)
    if set(arrays) != set(shapes):
        return f"holds arrays {sorted(arrays)}, not {sorted(shapes)}"
    for name, shape in shapes.items():
        array = arrays[name]
        if array.dtype != np.float32 or array.shape != shape:
            return f"array {name} is {array.dtype}{list(array.shape)}, not float32{list(shape)}"
        if not np.isfinite(array).all():
            return f"array {name} holds values that are not finite"
    if links:
        entries = arrays["link_inputs"]
        inputs = int(metadata["inputs"])
        if (entries != np.round(entries)).any() or entries.min() < -1 or entries.max() >= inputs:
            return "array link_inputs holds entries that are not observation indices"
    return None


def make_model(arrays: dict[str, np.ndarray], metadata: dict[str, Any],
               state: dict[str, np.ndarray] | None = None) -> NetworkModel:
    """A model from its arrays (any float type, converted to ``float32``), checked against ``metadata``;
    ``state``: a training run's arrays to keep beside it (names starting ``state_``)."""
    model = NetworkModel({name: np.ascontiguousarray(array, dtype=np.float32)
                          for name, array in arrays.items()}, dict(metadata), dict(state or {}))
    problem = _arrays_problem(model.arrays, model.metadata)
    if problem is not None:
        raise ValueError(f"network {problem}")
    return model


def save_model(model: NetworkModel, path: str | Path) -> Path:
    """Write ``model`` (and its training state, if any) to ``path`` (``.npz``) atomically."""
    if any(not name.startswith(STATE_PREFIX) for name in model.state):
        raise ValueError(f"training state arrays must be named {STATE_PREFIX}..., got {sorted(model.state)}")
    arrays = {**model.arrays, **model.state}
    return save_checked_npz(path, arrays, {"commit": code_commit(), **model.metadata, "format": FORMAT,
                                           "version": VERSION})


def load_model(path: str | Path, game: pyspiel.Game | None = None, head: str | None = "policy"
               ) -> NetworkModel:
    """Read a model file, every array checked; with ``game``, refuse one trained on another game or
    parameters, and with ``head`` one whose head is another kind (None: any). Any fault is a
    one-line ``ValueError`` naming the file."""
    path = Path(path)
    arrays, metadata = load_checked_npz(path, "model", FORMAT, VERSION)
    state = {name: arrays.pop(name) for name in list(arrays) if name.startswith(STATE_PREFIX)}
    problem = _arrays_problem(arrays, metadata)
    if problem is not None:
        raise ValueError(f"{path}: network file {problem}")
    model = NetworkModel(arrays, metadata, state)
    if head is not None and model.head != head:
        what = {"policy": "a policy network", "holders": "a hand-inference model"}
        raise ValueError(f"{path}: {what[model.head]}, not {what[head]} (trained with cardlab train "
                         f"--algo {'holders' if head == 'holders' else 'ppo or bc'})")
    if game is not None:
        check_model_game(metadata, game, path)
        check_model_links(model, game, path)
    return model


def check_model_game(metadata: dict[str, Any], game: pyspiel.Game, path: str | Path) -> None:
    """``ValueError`` unless the model was trained on ``game`` with its parameters (and its tensor size)."""
    try:
        check_game(metadata, game, what="model")
    except ValueError as error:
        raise ValueError(f"{path}: {error}") from None
    expected = model_metadata(game, metadata["observation"], tuple(metadata["hidden"]),
                              head=metadata.get("head", "policy"))
    for key in ("inputs", "actions"):
        if expected[key] != metadata[key]:
            raise ValueError(f"{path}: the model has {metadata[key]} {key}, {game} has {expected[key]}")


def check_model_links(model: NetworkModel, game: pyspiel.Game, path: str | Path) -> None:
    """``ValueError`` unless a model's linked entries are the game's (an observation laid out since)."""
    if model.links and not np.array_equal(model.arrays["link_inputs"], action_links(game, model.head)):
        raise ValueError(f"{path}: the model's action links are not {game}'s (its observation has changed)")


def flat_weights(model: NetworkModel) -> tuple[np.ndarray, np.ndarray]:
    """``(weights, shape)``: every array in forward order in one ``float32`` vector, then the policy
    head's transposed copy (:func:`forward_at`), and the shape row."""
    shapes = array_shapes(model.inputs, model.hidden, model.actions, model.links)
    parts = [model.arrays[name].ravel() for name in shapes]
    weights = np.concatenate([*parts, model.arrays["policy_w"].T.ravel()]).astype(np.float32)
    shape = np.zeros(SHAPE_WIDTH, dtype=np.int64)
    shape[POLICY_BY_ACTION] = sum(part.size for part in parts)
    shape[INPUTS], shape[ACTIONS], shape[LAYERS] = model.inputs, model.actions, len(model.hidden)
    shape[PERFECT_RECALL] = int(model.perfect_recall)
    shape[MOVER_FRAME] = int(model.action_frame == "mover")
    shape[LINKS] = model.links
    shape[HIDDEN:HIDDEN + len(model.hidden)] = model.hidden
    shape[BELIEFS_AT] = -1
    return weights, shape


def no_network_weights() -> tuple[np.ndarray, np.ndarray]:
    """``(weights, shape)`` of no network: what a search holds where it reads none."""
    shape = np.zeros(SHAPE_WIDTH, dtype=np.int64)
    shape[BELIEFS_AT] = -1
    return np.zeros(1, dtype=np.float32), shape


def with_beliefs(network: tuple[np.ndarray, np.ndarray], beliefs: NetworkModel
                 ) -> tuple[np.ndarray, np.ndarray]:
    """``network`` (:func:`flat_weights`, or :func:`no_network_weights`) with the hand-inference
    model ``beliefs`` after it in one flat vector and one shape row (:func:`beliefs_network`)."""
    if beliefs.head != "holders":
        raise ValueError("the beliefs of a search come from a hand-inference model (--algo holders)")
    weights, shape = network
    second, second_shape = flat_weights(beliefs)
    stacked = shape.copy()
    stacked[BELIEFS_AT] = len(weights)
    stacked[BELIEFS_SHAPE:] = second_shape[:NETWORK_COLUMNS]
    return np.concatenate([weights, second]), stacked


@njit(cache=True, inline="always")
def beliefs_network(weights, shape):
    """The hand-inference network stacked by :func:`with_beliefs`: its weights and shape row."""
    return weights[shape[BELIEFS_AT]:], shape[BELIEFS_SHAPE:]


# ---- the forward pass in numba ------------------------------------------------------------------
@njit(cache=True, inline="always")
def _dense_layer(weights, at, size, out, current, following):
    """``following[:out]``: the layer whose weights start at ``at`` (``[size, out]``, then the bias)
    on ``current[:size]``, in float64, adding the weight rows of the non-zero inputs in order."""
    bias = at + size * out
    for j in range(out):
        following[np.uint64(j)] = weights[np.uint64(bias + j)]
    for i in range(size):
        value = current[i]
        if value != 0.0:
            row = at + i * out
            for j in range(out):
                following[np.uint64(j)] += value * weights[np.uint64(row + j)]


@njit(cache=True, inline="always")
def _hidden_layers(weights, shape, x):
    """The hidden layers of the network on ``x``: ``(current, size, at)``, the last layer's output in
    ``current[:size]`` (float64 holding float32 values) and where the heads' weights start.

    A layer adds the weight rows of its non-zero inputs to its bias: observations
    are mostly zeros (a Kaiser tensor has 15 to 50 non-zero entries of 693) and
    so are ReLU outputs, and each row is one contiguous vector operation. Sums
    are kept in float64, so the outputs are float32's rounding of the exact
    network's, whatever the order of the sums (the training framework's
    float32 matrix products differ from them by their own rounding only).
    """
    inputs, layers = shape[INPUTS], shape[LAYERS]
    width = inputs
    for k in range(layers):
        width = max(width, shape[HIDDEN + k])
    current = np.empty(width, dtype=np.float64)
    following = np.empty(width, dtype=np.float64)
    current[:inputs] = x[:inputs]
    # Unsigned indices: numba wraps signed ones around (a negative index counts from the end),
    # and that test in the inner loops keeps LLVM from vectorizing them (8x slower).
    size = inputs
    at = 0  # where the next layer's weights start
    for k in range(layers):
        out = shape[HIDDEN + k]
        _dense_layer(weights, at, size, out, current, following)
        bias = at + size * out
        for j in range(out):  # the layer's float32 output, through the ReLU
            current[np.uint64(j)] = max(np.float32(following[np.uint64(j)]), np.float32(0.0))
        size = out
        at = bias + out
    return current, size, at


@njit(cache=True, inline="always")
def _value_head(weights, shape, current, size, at):
    """The value head on the last hidden layer ``current[:size]`` (the heads' weights start at ``at``)."""
    start = at + size * shape[ACTIONS] + shape[ACTIONS]
    value = np.float64(weights[start + size])
    for i in range(size):
        value += current[i] * weights[start + i]
    return np.float32(value)


@njit(cache=True, inline="always")
def _add_links(weights, shape, x, size, at, action, score):
    """``score`` plus the linked entries of ``action`` (none without links), in the table after the
    value head's arrays."""
    links, actions = shape[LINKS], shape[ACTIONS]
    table = at + size * actions + actions + size + 1
    scale = table + actions * links
    for k in range(action * links, action * links + links):
        entry = np.int64(weights[np.uint64(table + k)])
        if entry >= 0:
            score += np.float64(weights[np.uint64(scale + k)]) * np.float64(x[entry])
    return score


@njit(cache=True)
def forward(weights, shape, x, logits):
    """The network of ``(weights, shape)`` (:func:`flat_weights`) on input ``x``: writes the action
    logits to ``logits`` and returns the value."""
    current, size, at = _hidden_layers(weights, shape, x)
    actions = shape[ACTIONS]
    scores = np.empty(actions, dtype=np.float64)
    _dense_layer(weights, at, size, actions, current, scores)
    for j in range(actions):
        score = scores[j]
        if shape[LINKS] > 0:
            score = _add_links(weights, shape, x, size, at, j, score)
        logits[np.uint64(j)] = score
    return _value_head(weights, shape, current, size, at)


@njit(cache=True)
def forward_at(weights, shape, x, heads, n, logits):
    """:func:`forward` at the ``n`` head ids ``heads`` only: ``logits[i]`` is the logit of
    ``heads[i]``, equal to the last bit to :func:`forward`'s, and the value is returned.

    A decision needs the logits of its legal actions only, a few dozen of
    Literature's 1,072 ids; each is read from the head's transposed copy (one
    contiguous row per action, after every other array, :data:`POLICY_BY_ACTION`)
    adding the hidden units in :func:`forward`'s order, so the sums are the same.
    """
    current, size, at = _hidden_layers(weights, shape, x)
    actions = shape[ACTIONS]
    bias = at + size * actions
    by_action = shape[POLICY_BY_ACTION]
    for h in range(n):  # the hidden units in :func:`forward`'s order (it vectorizes over actions)
        action = heads[h]
        score = np.float64(weights[np.uint64(bias + action)])
        row = by_action + action * size
        for i in range(size):
            value = current[i]
            if value != 0.0:
                score += value * weights[np.uint64(row + i)]
        if shape[LINKS] > 0:
            score = _add_links(weights, shape, x, size, at, action, score)
        logits[h] = np.float32(score)  # float32 as the whole head's logits, whatever ``logits`` holds
    return _value_head(weights, shape, current, size, at)


@njit(cache=True, inline="always")
def evaluate_state(game, weights, shape, s, player, logits):
    """``player``'s observation of ``s`` through the network: the logits written by action id (a
    head in the mover's frame turned to the game's), the value returned."""
    x = np.empty(shape[INPUTS], dtype=np.float32)
    kernels.encode(game, s, player, shape[PERFECT_RECALL] != 0, x)
    if shape[MOVER_FRAME] == 0:
        return forward(weights, shape, x, logits)
    own = np.empty(shape[ACTIONS], dtype=np.float32)
    value = forward(weights, shape, x, own)
    for action in range(shape[ACTIONS]):
        logits[kernels.absolute_action(game, s, player, action)] = own[action]
    return value


@njit(cache=True, inline="always")
def evaluate_legal(game, weights, shape, s, player, legal, n, scores):
    """:func:`evaluate_state` at the ``n`` action ids ``legal`` only: ``scores[i]`` is the logit of
    ``legal[i]``, the value returned (``n`` = 0: the value alone)."""
    x = np.empty(shape[INPUTS], dtype=np.float32)
    kernels.encode(game, s, player, shape[PERFECT_RECALL] != 0, x)
    heads = np.empty(max(n, 1), dtype=np.int64)
    for i in range(n):
        heads[i] = legal[i] if shape[MOVER_FRAME] == 0 else kernels.mover_action(game, s, player, legal[i])
    return forward_at(weights, shape, x, heads, n, scores)


@njit(cache=True, inline="always")
def softmax_scores(scores, n, temperature):
    """``scores[:n]`` turned in place to their softmax at ``temperature``; temperature 0 puts all
    on the first highest."""
    best = 0
    for i in range(1, n):
        if scores[i] > scores[best]:
            best = i
    if temperature <= 0.0:
        for i in range(n):
            scores[i] = 1.0 if i == best else 0.0
        return
    top = np.float64(scores[best])
    total = 0.0
    for i in range(n):
        scores[i] = np.exp((np.float64(scores[i]) - top) / temperature)
        total += scores[i]
    for i in range(n):
        scores[i] /= total


@njit(cache=True, inline="always")
def legal_policy(logits, legal, n, temperature, probabilities):
    """The softmax of ``logits / temperature`` over the ``n`` legal actions ``legal``, into
    ``probabilities[:n]``; temperature 0 puts all on the first most likely action."""
    for i in range(n):
        probabilities[i] = logits[legal[i]]
    softmax_scores(probabilities, n, temperature)


@njit(cache=True)
def network_policy(game, weights, shape, temperature, s, actions, probabilities):
    """The distribution :func:`network_action` draws from at ``s``: the legal actions into
    ``actions[:n]``, their softmax at ``temperature`` into ``probabilities[:n]``; returns n."""
    n = kernels.legal_actions(game, s, actions)
    if n == 1:
        probabilities[0] = 1.0
        return n
    evaluate_legal(game, weights, shape, s, kernels.current_player(game, s), actions, n, probabilities)
    softmax_scores(probabilities, n, temperature)
    return n


@njit(cache=True)
def network_action(game, weights, shape, temperature, s, stream, scratch):
    """The ``net`` agent's move for the player to move in ``s``: the most likely legal action of
    the policy head, or (``temperature`` > 0) one drawn from its softmax at that temperature."""
    player = kernels.current_player(game, s)
    n = kernels.legal_actions(game, s, scratch)
    if n == 1:
        return scratch[0]
    probabilities = np.empty(n, dtype=np.float64)
    evaluate_legal(game, weights, shape, s, player, scratch, n, probabilities)
    softmax_scores(probabilities, n, temperature)
    draw = random_unit(stream) if temperature > 0.0 else 0.0
    total = 0.0
    for i in range(n):
        total += probabilities[i]
        if draw < total:
            return scratch[i]
    return scratch[n - 1]
