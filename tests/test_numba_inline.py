"""hashing/numba_inline.py: numba's inliner with one memo a copy compiles what numba's own
does, to the same LLVM IR."""

import re

import numba
import numpy as np
from numba.core import inline_closurecall

from hashing.numba_inline import first_inline_ir, shared_inline_ir, stock_inline_ir


@numba.njit(inline="always")
def _step(a, i, k):
    s = 0
    for j in range(k):
        if a[(i + j) % a.shape[0]] > j:
            s += a[j % a.shape[0]]
        else:
            s -= j
    return s


@numba.njit(inline="always")
def _pair(a, i):
    return _step(a, i, 3) + _step(a, i + 1, 5)


def _top(a):
    t = 0
    for i in range(a.shape[0]):
        t += _pair(a, i) - _pair(a, 2 * i)
    return t


def _compiled_ir(inline_ir):
    """The LLVM IR of a fresh compile of `_top` with numba's inliner set to inline_ir, its
    comments out and the serial numbers numba gives functions, inlined variables and
    blocks renumbered in order of appearance (numba's counters run on from one compile to
    the next)."""
    was = inline_closurecall.InlineWorker.inline_ir
    inline_closurecall.InlineWorker.inline_ir = inline_ir
    try:
        f = numba.njit(_top)
        a = np.arange(7, dtype=np.int64)
        result = f(a)
        (text,) = f.inspect_llvm().values()
    finally:
        inline_closurecall.InlineWorker.inline_ir = was
    text = re.sub(r"[ \t]*;[^\n]*", "", re.sub(r"B\d+v\d+", "Bv", text))
    text = re.sub(r"_v\d+", "_v", text)
    order: dict[str, str] = {}
    return result, re.sub(r"\bB\d+\b", lambda m: order.setdefault(m[0], f"B{len(order)}"), text)


def test_one_memo_compiles_to_the_same_llvm_ir_as_numba():
    shared_ir = shared_inline_ir()
    assert shared_ir is not None, "numba's inline_ir is not the source it was written for"
    stock_result, stock = _compiled_ir(stock_inline_ir)
    shared_result, shared = _compiled_ir(shared_ir)
    assert stock_result == shared_result == _top(np.arange(7, dtype=np.int64))
    assert "_step" in stock and not re.search(r"call [^\n]*_step", stock)  # inlined
    assert stock == shared


def test_the_inliner_in_use_is_the_linear_one_from_the_first_inlining():
    import hashing  # noqa: F401  (the import that sets it)

    assert inline_closurecall.InlineWorker.inline_ir in (first_inline_ir, shared_inline_ir())
    assert numba.njit(_top)(np.arange(5, dtype=np.int64)) == _top(np.arange(5, dtype=np.int64))
    assert inline_closurecall.InlineWorker.inline_ir is shared_inline_ir()
