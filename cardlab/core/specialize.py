"""Kernels that choose a function by a small integer, compiled only for the choices in use.

Code written once for every game (search, the compiled arena, the RL
environments) calls a game's kernel by the game's id, and an agent's policy by
its kind code. A plain ``if game == ...`` chain compiles every branch: numba
prunes dead branches only for ``None`` comparisons, never for integers, so a
Kaiser tournament would compile Twenty-Eight's and Literature's kernels too,
and every agent kind it does not use.

:func:`by_key` builds the choice from a table of kernels. When the key is a
*literal* in numba (a constant, or a :class:`LiteralInt` passed from Python),
typing picks the one kernel and the call goes straight to it: nothing else is
compiled. A literal type also travels down through the jitted functions it is
passed to, so a game id passed as a :class:`LiteralInt` at an entry point
specializes the whole call tree below it. A key that is not literal still
works, with a switch at run time over every kernel of the table.
:func:`switch_within` does the same for a key known only at run time but drawn
from a set known at compile time (the agent kinds seated at a table).

Neither adds a function of its own: the call is lowered to the chosen kernel's
call (or to an LLVM ``switch`` over the kernels' calls), so numba compiles no
wrapper (a wrapper would be compiled and optimized as a whole module of its
own, with every kernel below it: the largest cost of compiling a call chain).

Both are also plain Python functions: called from Python they call the chosen
kernel directly.

*Only those keys are literal.* numba compiles a function once for each distinct
constant it is called with (``f(x, 0)`` and ``f(x, 1)`` are two compilations,
besides ``f(x, n)``): in the double-dummy search that was four copies of its
largest function. :func:`compile_constants_once` makes cardlab's kernels take
every constant argument as its plain type, but for the parameters named in
:data:`LITERAL_PARAMETERS` (the game, the allowed agent kinds, whether a
search reads a network), whose
constants are what the specialization is for. LLVM still sees a constant
where it inlines a call, so the code is as fast.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from numba import types
from numba.core.errors import TypingError
from numba.core.imputils import lower_builtin
from numba.core.typing.templates import AbstractTemplate, infer_global, signature
from numba.extending import typeof_impl


class LiteralInt(int):
    """An integer that numba types as a literal, so kernels passed one are compiled for its value.

    A game's kernel id is one (``cardlab.games.kernels.KAISER``): Python code
    that calls a kernel with a spec's ``kernel_id`` gets the kernel compiled
    for that game alone. (``numba.literally`` would do the same from inside a
    kernel, but a Python caller then pays a failed compilation on every call.)
    It is an ``int`` in every other way; ``int(key)`` drops the literal, and a
    kernel called with that is compiled for every key.
    """

    __slots__ = ()  # prints as the plain integer (LLVM constants are formatted from str())


_LITERAL_TYPES: dict[int, types.IntegerLiteral] = {}


@typeof_impl.register(LiteralInt)
def _typeof_literal_int(value: LiteralInt, context: Any) -> types.IntegerLiteral:
    number = int(value)
    if number not in _LITERAL_TYPES:  # typing a call from Python asks for the type each time
        _LITERAL_TYPES[number] = types.IntegerLiteral(number)
    return _LITERAL_TYPES[number]


#: Parameters whose constant arguments cardlab's kernels are compiled for, one compilation a value.
LITERAL_PARAMETERS = frozenset({"game", "allowed", "networked"})
_PARAMETER_NAMES: dict[Any, tuple[str, ...]] = {}


def _unliteral_arguments(dispatcher: Any, args: tuple) -> tuple:
    """``args`` with every literal type made plain, but for :data:`LITERAL_PARAMETERS`."""
    names = _PARAMETER_NAMES.get(dispatcher)
    if names is None:
        names = tuple(inspect.signature(dispatcher.py_func).parameters)
        _PARAMETER_NAMES[dispatcher] = names
    return tuple(arg if index < len(names) and names[index] in LITERAL_PARAMETERS else types.unliteral(arg)
                 for index, arg in enumerate(args))


def compile_constants_once() -> None:
    """Have numba compile cardlab's kernels for plain argument types where a caller passes a constant.

    Patches numba's dispatcher (once per process) for functions of the
    ``cardlab`` package only; other numba code is left as it is.
    """
    from numba.core.dispatcher import Dispatcher

    if getattr(Dispatcher.get_call_template, "_cardlab", False):
        return
    original = Dispatcher.get_call_template

    def get_call_template(self: Any, args: tuple, kws: dict) -> Any:
        if getattr(self.py_func, "__module__", "").startswith("cardlab.") and not kws:
            args = _unliteral_arguments(self, tuple(args))
        return original(self, args, kws)

    get_call_template._cardlab = True  # type: ignore[attr-defined]
    Dispatcher.get_call_template = get_call_template


def _literal(value_type: Any) -> int | None:
    """The value of a literal integer type, or None for a type known only at run time."""
    if isinstance(value_type, types.IntegerLiteral | types.BooleanLiteral):
        return int(value_type.literal_value)
    return None


def _kernel_signature(context: Any, kernel: Callable, arguments: Sequence[types.Type]) -> Any:
    """The signature ``kernel`` is compiled with for ``arguments`` (typing compiles it)."""
    return context.resolve_function_type(types.Dispatcher(kernel), tuple(arguments), {})


def _call(context: Any, builder: Any, kernel: Callable, argument_types: Sequence[types.Type],
          values: Sequence[Any], result_type: types.Type) -> Any:
    """Lower a call of ``kernel``: the arguments cast to its signature, its result to ``result_type``."""
    dispatcher = types.Dispatcher(kernel)
    inner = _kernel_signature(context.typing_context, kernel, argument_types)
    cast = [context.cast(builder, value, given, wanted)
            for value, given, wanted in zip(values, argument_types, inner.args, strict=True)]
    result = context.get_function(dispatcher, inner)(builder, cast)
    return context.cast(builder, result, inner.return_type, result_type)


def _switch(context: Any, builder: Any, key_type: types.Type, key: Any, cases: Sequence[tuple[int, Callable]],
            default: Callable, argument_types: Sequence[types.Type], values: Sequence[Any],
            result_type: types.Type) -> Any:
    """Lower ``cases[key](...)`` (``default(...)`` for any other key) as an LLVM switch."""
    function = builder.function
    done = function.append_basic_block("switch.done")
    otherwise = function.append_basic_block("switch.default")
    switch = builder.switch(key, otherwise)
    incoming = []
    for value, kernel in cases:
        block = function.append_basic_block(f"switch.case{value}")
        switch.add_case(context.get_constant(key_type, value), block)
        builder.position_at_end(block)
        incoming.append((_call(context, builder, kernel, argument_types, values, result_type), builder.block))
        builder.branch(done)
    builder.position_at_end(otherwise)
    incoming.append((_call(context, builder, default, argument_types, values, result_type), builder.block))
    builder.branch(done)
    builder.position_at_end(done)
    merged = builder.phi(incoming[0][0].type)
    for value, block in incoming:
        merged.add_incoming(value, block)
    return merged


def _result_type(context: Any, kernels: Iterable[Callable], arguments: Sequence[types.Type],
                 name: str) -> types.Type:
    """The type every kernel's result is cast to: their results' common type."""
    returns = [_kernel_signature(context, kernel, arguments).return_type for kernel in kernels]
    unified = context.unify_types(*returns) if len(returns) > 1 else returns[0]
    if unified is None:
        raise TypingError(f"{name}: the kernels return types with no common type: {returns}")
    return unified


def by_key(name: str, table: Mapping[int, Callable], fallback: Callable | None = None) -> Callable:
    """``f(key, ...)``: ``table[key](...)``, compiled for one key when the key is a literal.

    ``fallback`` serves a key missing from the table (a game without that
    kernel); without one such a key is a typing error naming ``name`` and the key.
    """
    keys = sorted(table)

    def select(key: int, *args: Any) -> Any:
        kernel = table.get(int(key), fallback)
        if kernel is None:
            raise ValueError(f"{name}: no kernel for key {key} (known: {keys})")
        return kernel(*args)

    select.__name__ = select.__qualname__ = name

    def chosen(key_type: types.Type) -> Callable | None:
        value = _literal(key_type)
        if value is None:
            return None
        kernel = table.get(value, fallback)
        if kernel is None:
            raise TypingError(f"{name}: no kernel for key {value} (known: {keys})")
        return kernel

    def every_kernel() -> list[Callable]:
        return [table[key] for key in keys] + ([fallback] if fallback is not None else [])

    typing_key = ("cardlab.core.specialize.by_key", name, id(select))

    class Template(AbstractTemplate):
        key = typing_key
        prefer_literal = True

        def generic(self, args: tuple, kws: dict) -> Any:
            kernel = chosen(args[0])
            kernels = [kernel] if kernel is not None else every_kernel()
            return signature(_result_type(self.context, kernels, args[1:], name), *args)

    infer_global(select, typing_key=typing_key)(Template)

    @lower_builtin(typing_key, types.Integer, types.VarArg(types.Any))
    def lower(context: Any, builder: Any, sig: Any, args: Sequence[Any]) -> Any:
        kernel = chosen(sig.args[0])
        if kernel is not None:
            return _call(context, builder, kernel, sig.args[1:], args[1:], sig.return_type)
        cases = [(key, table[key]) for key in keys]
        default = fallback if fallback is not None else cases.pop()[1]
        return _switch(context, builder, sig.args[0], args[0], cases, default, sig.args[1:], args[1:],
                       sig.return_type)

    return select


def switch_within(name: str, table: Mapping[int, Callable]) -> Callable:
    """``f(allowed, key, ...)``: ``table[key](...)`` for a key drawn from the bit set ``allowed``.

    With ``allowed`` a literal, only the kernels of its keys are compiled, and a
    key outside it calls ``table[-1]`` (the "unknown" answer the caller
    checks). Without a literal every kernel of the table is compiled.
    """
    keys = sorted(key for key in table if key >= 0)
    unknown = table[-1]

    def switch(allowed: int, key: int, *args: Any) -> Any:
        chosen = (int(allowed) >> int(key)) & 1 and int(key) in table
        return (table[int(key)] if chosen else unknown)(*args)

    switch.__name__ = switch.__qualname__ = name

    def cases(allowed_type: types.Type) -> list[tuple[int, Callable]]:
        value = _literal(allowed_type)
        return [(key, table[key]) for key in keys if value is None or (value >> key) & 1]

    typing_key = ("cardlab.core.specialize.switch_within", name, id(switch))

    class Template(AbstractTemplate):
        key = typing_key
        prefer_literal = True

        def generic(self, args: tuple, kws: dict) -> Any:
            kernels = [kernel for _, kernel in cases(args[0])] + [unknown]
            return signature(_result_type(self.context, kernels, args[2:], name), *args)

    infer_global(switch, typing_key=typing_key)(Template)

    @lower_builtin(typing_key, types.Integer, types.Integer, types.VarArg(types.Any))
    def lower(context: Any, builder: Any, sig: Any, args: Sequence[Any]) -> Any:
        key = context.cast(builder, args[1], sig.args[1], types.int64)
        if _literal(sig.args[0]) is None:  # a key outside the set, known only now, is unknown
            allowed = context.cast(builder, args[0], sig.args[0], types.int64)
            one = context.get_constant(types.int64, 1)
            inside = builder.trunc(builder.and_(builder.ashr(allowed, key), one), one.type.__class__(1))
            key = builder.select(inside, key, context.get_constant(types.int64, -1))
        return _switch(context, builder, types.int64, key, cases(sig.args[0]), unknown, sig.args[2:],
                       args[2:], sig.return_type)

    return switch


def key_set(keys: Iterable[int]) -> LiteralInt:
    """The bit set of ``keys`` (small non-negative integers), for :func:`switch_within`'s ``allowed``."""
    bits = 0
    for key in keys:
        bits |= 1 << int(key)
    return LiteralInt(bits)
