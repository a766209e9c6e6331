"""Compact numbering: a game solved on its canonical positions only, each at its own index.

With symmetry a solve needs only the canonical slots of the hash (1 in 8 for a square
board, 1 in 16 for Nine Men's Morris), so its arrays, chunks, window and database hold
those alone: the canonical slots are numbered 0, 1, ... in hash order. The map is a bit
per hash slot (set where the slot is its own canonical form) with a rank directory:

    rank(h)   = canonical slots below h (h's index when h is canonical): a directory
                entry per 512 slots plus the popcounts of at most 8 words;
    select(i) = the slot of index i: a sampled directory (the block of every 512th
                index) narrows a binary search over the blocks, then a word scan.

The bits cost 1/8 byte a slot and the directories about 1/60, against the 2 to 3 bytes a
slot (value, remoteness, reach byte, record) that every solver array saved. A compact
numbering (solver/kernels/numbering.py) is the canonical one renumbered: a generated
module (`wrapper`) maps each index to its slot, calls the rules' canonical forms
(solver/kernels/symmetry.py) and ranks every child and parent, so every solver, kernel
and store runs on it unchanged and every method writes the same bytes. Readers
canonicalize a position and rank it (solver/storage/database.py); the bits are stored in
the database beside value and remoteness, so a reader need not find the canonical slots
again.

A game that numbers its canonical positions itself (`canonical_index`, solver/kernels/
direct.py) needs none of this: `numbering` picks its numbering, and the generated module
calls the game's arithmetic (and its `_indexed` rules, when it has them) instead.
"""

from __future__ import annotations

import hashlib
from functools import cache

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.extending import intrinsic

from games.base import Game, game_functions
from solver.kernels.direct import DirectNumbering, numbers_itself, rules_module

BLOCK = 512  # slots per rank-directory entry (8 words)
SAMPLE = 512  # indices per select-directory entry


@intrinsic
def _popcount(typingctx, x):
    sig = types.int64(types.uint64)

    def codegen(context, builder, signature, args):
        return builder.ctpop(args[0])

    return sig, codegen


@intrinsic
def _trailing_zeros(typingctx, x):
    sig = types.int64(types.uint64)

    def codegen(context, builder, signature, args):
        return builder.cttz(args[0], ir.Constant(ir.IntType(1), 0))

    return sig, codegen


@njit(cache=True, nogil=True, inline="always")
def rank(words, ranks, h):
    """Set bits below slot h."""
    w = h >> 6
    r = ranks[w >> 3]
    for k in range(w & ~7, w):
        r += _popcount(words[k])
    low = words[w] & ((np.uint64(1) << np.uint64(h & 63)) - np.uint64(1))
    return r + np.int64(_popcount(low))


@njit(cache=True, nogil=True, inline="always")
def select(words, ranks, sel, i):
    """The slot of the i-th set bit (from 0)."""
    s = i // SAMPLE
    lo, hi = sel[s], sel[s + 1] + 1  # the block holding i lies in [lo, hi)
    while hi - lo > 1:  # largest block whose rank is <= i
        mid = (lo + hi) >> 1
        if ranks[mid] <= i:
            lo = mid
        else:
            hi = mid
    left = i - ranks[lo]
    w = lo * 8
    while True:
        c = np.int64(_popcount(words[w]))
        if left < c:
            break
        left -= c
        w += 1
    x = words[w]
    for _ in range(left):
        x &= x - np.uint64(1)
    return w * 64 + np.int64(_trailing_zeros(x))


@njit(cache=True, nogil=True)
def _rank_directory(words, ranks):
    """ranks[b]: set bits before block b (the last entry: all of them)."""
    total = 0
    for b in range(ranks.shape[0] - 1):
        ranks[b] = total
        for k in range(b * 8, b * 8 + 8):
            total += _popcount(words[k])
    ranks[ranks.shape[0] - 1] = total
    return total


@njit(cache=True, nogil=True)
def _select_directory(ranks, sel):
    """sel[s]: the block of index s * SAMPLE (the last block past the last index)."""
    s = 0
    for b in range(ranks.shape[0] - 1):
        while s * SAMPLE < ranks[b + 1]:
            sel[s] = b
            s += 1
    while s < sel.shape[0]:
        sel[s] = max(0, ranks.shape[0] - 2)
        s += 1


@njit(cache=True, nogil=True)
def rank_all(words, ranks, hs, out):
    for j in range(hs.shape[0]):
        out[j] = rank(words, ranks, hs[j])


@njit(cache=True, nogil=True)
def select_all(words, ranks, sel, idx, out):
    for j in range(idx.shape[0]):
        out[j] = select(words, ranks, sel, idx[j])


class CanonicalIndex:
    """The canonical slots of a hash of `slots` positions: bits and their directories."""

    kind = "canonical"

    def __init__(self, words: np.ndarray, slots: int):
        nblocks = -(-slots // BLOCK)
        if words.dtype != np.uint64 or words.shape != (nblocks * 8,):
            raise ValueError(f"an index of {slots:,} slots has {nblocks * 8:,} words, "
                             f"not {words.shape}")
        self.words, self.slots = words, slots
        self.ranks = np.zeros(nblocks + 1, np.int64)
        self.count = int(_rank_directory(words, self.ranks))
        self.sel = np.zeros(self.count // SAMPLE + 2, np.int64)
        _select_directory(self.ranks, self.sel)

    @staticmethod
    def words_for(slots: int) -> int:
        return -(-slots // BLOCK) * 8

    @staticmethod
    def nbytes_for(slots: int, count: int) -> int:
        """Memory of the index of `count` canonical slots among `slots`."""
        words = CanonicalIndex.words_for(slots)
        return 8 * (words + words // 8 + 1 + count // SAMPLE + 2)

    def arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        return self.words, self.ranks, self.sel

    def digest(self) -> str:
        return hashlib.sha256(self.words.tobytes()).hexdigest()[:32]

    def has(self, h: int) -> bool:
        return bool((int(self.words[h >> 6]) >> (h & 63)) & 1)

    def rank(self, h: int) -> int:
        """Index of canonical slot h (or the canonical slots below any h <= slots)."""
        if h >= self.slots:
            return self.count
        out = np.empty(1, np.int64)
        rank_all(self.words, self.ranks, np.array([h], np.int64), out)
        return int(out[0])

    def select(self, i: int) -> int:
        if not 0 <= i < self.count:
            raise IndexError(f"index {i} is outside 0..{self.count - 1}")
        out = np.empty(1, np.int64)
        select_all(self.words, self.ranks, self.sel, np.array([i], np.int64), out)
        return int(out[0])

    def nbytes(self) -> int:
        return self.nbytes_for(self.slots, self.count)

    def select_all(self, idx: np.ndarray, out: np.ndarray) -> None:
        select_all(self.words, self.ranks, self.sel, idx, out)


def numbering(game: Game):
    """How a compact solve numbers `game`'s canonical positions: the game's own numbering
    when its module has one, else the index of canonical slots (`build`)."""
    return DirectNumbering(game) if numbers_itself(game) else build(game)


def build(game: Game) -> CanonicalIndex:
    """The index of `game` (symmetry on): every slot asked whether it is canonical, in
    blocks of whole words on the thread pool (Quixo 4x4: 86 M slots, 10 s on one core).
    It depends on the rules and the variant alone, so it is kept beside the compiled
    kernels, under a digest of every source the rules read, and loaded next time."""
    from solver.kernels.symmetry import wrapper
    from solver.runtime.parallel import run_blocks

    n = game.hash_size
    k = wrapper(rules_module(game))
    cached = _cached(game)
    try:  # trusted only whole (its digest) and right (a sample of slots asked again)
        with np.load(cached) as f:
            words, digest = f["words"], str(f["digest"])
        if (words.dtype == np.uint64 and words.shape == (CanonicalIndex.words_for(n),)
                and hashlib.sha256(words.tobytes()).hexdigest() == digest
                and _spot_check(k, game, words)):
            return CanonicalIndex(words, n)
    except (OSError, ValueError, KeyError):
        pass
    words = np.zeros(CanonicalIndex.words_for(n), np.uint64)
    run_blocks(k.canonical_bits, (game.ctx, words, 0, n), 0, -(-n // 64), game.scratch_size,
               min_block=1 << 10)
    try:
        import os
        import tempfile

        fd, tmp = tempfile.mkstemp(dir=cached.parent, suffix=".tmp")
        with os.fdopen(fd, "wb") as f:
            np.savez(f, words=words, digest=hashlib.sha256(words.tobytes()).hexdigest())
        os.replace(tmp, cached)
    except OSError:  # a read-only cache: found again next time
        pass
    return CanonicalIndex(words, n)


def count_canonical(game: Game, lo: int, hi: int) -> int:
    """How many slots of [lo, hi) are canonical, asked afresh (a plan's samples)."""
    from solver.kernels.symmetry import wrapper

    k = wrapper(rules_module(game))
    first = lo // 64
    words = np.zeros(-(-hi // 64) - first, np.uint64)
    k.canonical_bits(game.ctx, words, first, game.hash_size, first, first + words.size,
                     game.scratch_size)
    bits = np.unpackbits(words.view(np.uint8), bitorder="little")
    return int(bits[lo - 64 * first:hi - 64 * first].sum())


def orbit_share(game: Game, hashes: np.ndarray) -> float:
    """The share of canonical slots estimated on `hashes` (random slots of a set the
    symmetries keep): the mean of 1 / orbit size (symmetry.py `orbit_share`)."""
    from solver.kernels.symmetry import wrapper

    if not hashes.size:
        return 0.0
    k = wrapper(rules_module(game))
    return float(k.orbit_share(game.ctx, hashes.astype(np.int64), game.scratch_size)
                 / hashes.size)


def _spot_check(k, game: Game, words: np.ndarray, samples: int = 64) -> bool:
    """Whether 64 words (4,096 slots) spread over the hash read as found afresh."""
    n = game.hash_size
    fresh = np.zeros(1, np.uint64)
    for w in np.linspace(0, -(-n // 64) - 1, samples).astype(np.int64).tolist():
        fresh[0] = 0
        k.canonical_bits(game.ctx, fresh, w, n, w, w + 1, game.scratch_size)
        if fresh[0] != words[w]:
            return False
    return True


def _cached(game: Game):
    """Where the index of `game` is kept (solver/kernels/codegen.py's cache folder)."""
    from solver.kernels.codegen import cache_dir, dependencies

    digest = hashlib.sha256(f"{game.variant_key}/{game.hash_size}".encode())
    for f in dependencies(rules_module(game), __name__):
        digest.update(f.name.encode())
        digest.update(f.read_bytes())
    folder = cache_dir().parent / "index"
    folder.mkdir(parents=True, exist_ok=True)
    return folder / f"{game.name}-{digest.hexdigest()[:24]}.npz"


# -- the compact game ---------------------------------------------------------------------
_WRAPPER = '''"""Generated by solver/kernels/compact.py: {sym} numbered by canonical index."""
from hashing.jit import njit  # rules borrow their arrays: no reference counts

{numbering}
from {sym} import orbit as _orbit, primitive as _primitive  # noqa: F401
{imports}


@njit(cache=True, nogil=True)
def primitive(cctx, i, scratch):
    return _primitive(cctx[0], _slot(cctx, i), scratch)


@njit(cache=True, nogil=True)
def canonical(cctx, i, scratch):
    return i


@njit(cache=True, nogil=True)
def orbit(cctx, i, scratch):
    return _orbit(cctx[0], _slot(cctx, i), scratch)


{orbit_sizes}{rest}'''

_ORBIT_SIZES = '''@njit(cache=True, nogil=True)
def orbit_sizes(cctx, first, value, out, scratch):
    """out[i]: the distinct images of position first + i, 0 where it is not reached."""
    for i in range(value.shape[0]):
        out[i] = orbit(cctx, first + i, scratch) if value[i] != 0 else 0
'''

_ORBIT_SIZES_INDEXED = '''from {direct} import orbit_sizes_indexed as _orbit_sizes


@njit(cache=True, nogil=True)
def orbit_sizes(cctx, first, value, out, scratch):
    """The game's own: it knows which runs of its numbering no symmetry can fix."""
    return _orbit_sizes(cctx[0], first, value, out, scratch)
'''

_BY_INDEX = '''from solver.kernels.compact import rank, select


@njit(cache=True, nogil=True, inline="always")
def _slot(cctx, i):
    return select(cctx[1], cctx[2], cctx[3], i)


@njit(cache=True, nogil=True, inline="always")
def _ranks(cctx, out, n):
    for j in range(n):
        out[j] = rank(cctx[1], cctx[2], out[j])
    return n
'''

_DIRECT = '''from solver.kernels.retrograde import add_distinct  # noqa: F401
from {module} import canonical_index, canonical_slot


@njit(cache=True, nogil=True, inline="always")
def _slot(cctx, i):
    return canonical_slot(cctx[0], i)


@njit(cache=True, nogil=True, inline="always")
def _ranks(cctx, out, n):
    for j in range(n):
        out[j] = canonical_index(cctx[0], out[j])
    return n
'''

_MOVES = '''

@njit(cache=True, nogil=True)
def {name}(cctx, i, out, moves, scratch):
    n = _{name}(cctx[0], _slot(cctx, i), out, moves, scratch)
    return n if n < 0 else _ranks(cctx, out, n)
'''

_UNMOVES = '''

@njit(cache=True, nogil=True)
def {name}(cctx, i, out, scratch):
    return _ranks(cctx, out, _{name}(cctx[0], _slot(cctx, i), out, scratch))
'''

_MOVES_INDEXED = '''

@njit(cache=True, nogil=True)
def {name}(cctx, i, out, moves, scratch):
    return _{name}(cctx[0], i, out, moves, scratch)
'''

_UNMOVES_INDEXED = '''

@njit(cache=True, nogil=True)
def {name}(cctx, i, out, scratch):
    """Distinct, as the contract asks (the game's indexed parents may repeat)."""
    m = 0
    for j in range(_{name}(cctx[0], i, out, scratch)):
        m = add_distinct(out, m, out[j])
    return m
'''


@cache
def wrapper(sym_module: str, direct: str | None = None):
    """The generated compact module over the canonical wrapper `sym_module`, numbered by
    the index of canonical slots, or (`direct`: the game's module) by its own numbering."""
    import importlib

    from solver.kernels.codegen import import_generated, module_file

    have = game_functions(importlib.import_module(sym_module))
    own = game_functions(importlib.import_module(direct)) if direct else {}
    imports, rest = [], []
    for name, text, indexed in (("children", _MOVES, _MOVES_INDEXED),
                                ("expand", _MOVES, _MOVES_INDEXED),
                                ("parents", _UNMOVES, _UNMOVES_INDEXED),
                                ("parents_in_tier", _UNMOVES, _UNMOVES_INDEXED)):
        if indexed and f"{name}_indexed" in own:  # the game's own: no slot, no rank
            # (also where the canonical wrapper lacks the plain form: Connect-4 has
            # expand_indexed but no expand_canonical, and a composed expand would decode
            # each reached position twice, once for primitive and once for its children)
            imports.append(f"from {direct} import {name}_indexed as _{name}")
            rest.append(indexed.format(name=name))
        elif name in have:
            imports.append(f"from {sym_module} import {name} as _{name}")
            rest.append(text.format(name=name))
    numbered = _DIRECT.format(module=direct) if direct else _BY_INDEX
    sizes = (_ORBIT_SIZES_INDEXED.format(direct=direct) if "orbit_sizes_indexed" in own
             else _ORBIT_SIZES)
    src = _WRAPPER.format(sym=sym_module, numbering=numbered, imports="\n".join(imports),
                          orbit_sizes=sizes, rest="".join(rest))
    digest = hashlib.sha256(src.encode())
    digest.update(module_file(__name__).read_bytes())
    if direct:
        digest.update(module_file(direct).read_bytes())
    return import_generated(f"gsolve_compact_{sym_module}_{digest.hexdigest()[:12]}", src)
