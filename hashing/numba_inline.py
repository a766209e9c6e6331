"""numba's inliner made linear: one memo for all the blocks of the callee it copies.

The games' rules inline their helpers at numba's IR level (`inline="always"`), and numba
copies the callee's IR at every site, block by block, each block with a memo of its own:
every block's variables reach the function's scope, so the whole scope (every variable of
the callee) is copied again for each block, and a callee that itself inlined others has
hundreds of blocks and thousands of variables. That copying was 73 % of compiling Teeko's
`children` (12.7 of 17.3 s, under cProfile). Copying the blocks with one memo copies the
scope once; the blocks come out equal, and the compiled code is the same to the byte
(tests/test_numba_inline.py compares the LLVM IR of both ways).

The change is made to numba's own source of `InlineWorker.inline_ir`, recompiled here: where
a numba release words it otherwise, numba is left as it is (slower to compile, no
different in what it compiles).
"""

from __future__ import annotations

import functools
import inspect
import textwrap

from numba.core import inline_closurecall

# copy_ir's loop as it stands in inline_ir's dedented source, and with one memo
_STOCK = ("        for block_label, block in the_ir.blocks.items():\n"
          "            new_block = copy.deepcopy(the_ir.blocks[block_label])\n")
_SHARED = ("        memo = {}\n"
           "        for block_label, block in the_ir.blocks.items():\n"
           "            new_block = copy.deepcopy(the_ir.blocks[block_label], memo)\n")

stock_inline_ir = inline_closurecall.InlineWorker.inline_ir


@functools.cache
def shared_inline_ir():
    """numba's inline_ir with its copies made through one memo, or None where numba's
    source is not the one this was written against."""
    try:
        source = textwrap.dedent(inspect.getsource(stock_inline_ir))
    except (OSError, TypeError):
        return None
    if source.count(_STOCK) != 1:
        return None
    source = source.replace(_STOCK, _SHARED)
    defined: dict = {}
    exec(compile(source, inline_closurecall.__file__, "exec"), vars(inline_closurecall), defined)
    return defined["inline_ir"]


def first_inline_ir(self, *args, **kwargs):
    """In place until numba first inlines: builds the one-memo version then (20 ms of
    reading numba's source, which a process that only loads cached code never pays)."""
    inline_ir = shared_inline_ir() or stock_inline_ir
    inline_closurecall.InlineWorker.inline_ir = inline_ir
    return inline_ir(self, *args, **kwargs)


def share_inline_copies() -> None:
    """Use the linear copy from numba's next inlining on (idempotent)."""
    if inline_closurecall.InlineWorker.inline_ir is stock_inline_ir:
        inline_closurecall.InlineWorker.inline_ir = first_inline_ir
