"""The game API: everything a solver may know about a game.

A game is a module in `games/` that defines

* numba functions at module level, compiled with ``cache=True``, that the solvers'
  generated kernels call by name: ``primitive`` and ``children`` always, the optional
  ones where the game has them (the table :data:`FUNCTIONS` below gives each one's
  signature and meaning).
  ``ctx`` is the game's own tuple of precomputed arrays (built once per variant) and
  ``scratch`` an int8 work buffer of ``scratch_size`` cells that the caller owns, so no
  call allocates.

  A rule with `_canonical` or `_indexed` forms is written once, its numbering an argument,
  and :func:`forms` makes each form a function of the module.

* a subclass of :class:`Game` that holds the variant, the context, the hash size, the
  start, and the position-string and move-name conversions, registered by
  ``@games.register``.

The optional functions are listed, with their signatures and what each needs beside it, in
one table, :data:`FUNCTIONS` below; the contract check, the kernel binding
(solver/kernels/codegen.py), the symmetry wrapper (solver/kernels/symmetry.py) and `gsolve
check` all read it. Capabilities are derived from which functions a module defines, never
declared, so a class cannot claim one its module lacks: a game has un-moves exactly when
its module defines ``parents``, and symmetries exactly when it defines ``canonical`` (the
images must be positions of the same game with the same value and remoteness; the
symmetry tables live in ``ctx``). A tiered game also has a ``tiers`` method (see
:class:`Tier`).

The base class checks, when a game is constructed, every attribute a solver relies on
(:meth:`Game.check_contract`); `gsolve check` (solver/command/check.py) tests the functions.
"""

from __future__ import annotations

import functools
import numbers
import types
import weakref
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

UNDECIDED, LOSE, DRAW, TIE, WIN = 0, 1, 2, 3, 4
VALUE_WORDS = {UNDECIDED: "undecided", LOSE: "lose", DRAW: "draw", TIE: "tie", WIN: "win"}


@dataclass(frozen=True)
class Function:
    """One numba function a game module defines (required) or may define (optional)."""

    name: str
    args: str  # the signature; every function returns an int
    required: bool
    needs: tuple[str, ...]  # functions the module must define beside this one
    bound: bool  # bound into the kernel templates as game_<name> (solver/kernels/codegen.py)
    what: str


FUNCTIONS: tuple[Function, ...] = (
    Function("primitive", "ctx, h, scratch", True, (), True,
             "0 while the game goes on, else the value code for the player to move "
             "(puzzles: WIN at a goal, LOSE at a dead end)"),
    Function("children", "ctx, h, out, moves, scratch", True, (), True,
             "the hash of every child into out and a move code into moves (same index); "
             "returns how many, at least one; called on non-primitive positions only"),
    Function("expand", "ctx, h, out, moves, scratch", False, (), True,
             "-value at a primitive position, else children: one call where deciding "
             "'primitive?' and generating children share their work"),
    Function("parents", "ctx, h, out, scratch", False, (), True,
             "the distinct positions one move before h (un-moves, for retrograde)"),
    Function("parents_in_tier", "ctx, h, out, scratch", False, ("parents",), True,
             "the parents that lie in h's own tier (the retrograde inside a loopy tier); "
             "without it the kernel filters parents"),
    Function("canonical", "ctx, h, scratch", False, ("orbit",), False,
             "the smallest hash among h's symmetric images (scratch_size must cover it)"),
    Function("orbit", "ctx, h, scratch", False, ("canonical",), False,
             "how many distinct images h has"),
    Function("children_canonical", "ctx, h, out, moves, scratch", False, ("canonical",),
             False, "children, each already in canonical form, repeats allowed (bitboard "
             "games rank the canonical image directly: games/common.py rank_image)"),
    Function("expand_canonical", "ctx, h, out, moves, scratch", False,
             ("canonical", "expand"), False, "expand with canonical children"),
    Function("parents_canonical", "ctx, h, out, scratch", False, ("canonical", "parents"),
             False, "parents in canonical form, repeats allowed"),
    Function("parents_in_tier_canonical", "ctx, h, out, scratch", False,
             ("canonical", "parents_in_tier"), False, "parents_in_tier in canonical form"),
    Function("canonical_index", "ctx, h", False, ("canonical", "canonical_slot"), False,
             "the place of canonical h in the game's own numbering of canonical positions, "
             "increasing with h, gaps allowed, below the game's canonical_size: a compact "
             "solve then needs no index of canonical slots (solver/kernels/compact.py)"),
    Function("canonical_slot", "ctx, i", False, ("canonical_index",), False,
             "the hash at index i of canonical_index's numbering"),
    Function("children_indexed", "ctx, i, out, moves, scratch", False,
             ("canonical_index",), False,
             "children of the position at index i, each as its canonical index, repeats "
             "allowed (spares a compact solve the slot and block search of every child)"),
    Function("parents_indexed", "ctx, i, out, scratch", False, ("canonical_index", "parents"),
             False, "parents of the position at index i as canonical indices, repeats "
             "allowed"),
    Function("expand_indexed", "ctx, i, out, moves, scratch", False,
             ("canonical_index", "expand"), False, "expand of the position at index i, its "
             "children as canonical indices"),
    Function("parents_in_tier_indexed", "ctx, i, out, scratch", False,
             ("canonical_index", "parents_in_tier"), False,
             "parents_in_tier of the position at index i as canonical indices, repeats "
             "allowed"),
    Function("orbit_sizes_indexed", "ctx, first, value, out, scratch", False,
             ("canonical_index", "orbit"), False,
             "out[j]: orbit of the position at index first + j, 0 where value[j] is 0 (a "
             "count of every position, solver/use/analysis.py, skips what no symmetry fixes)"),
)
FUNCTION_NAMES = tuple(f.name for f in FUNCTIONS)
# the rules that have a `_canonical` form, in the table's order
CANONICAL_FORMS = tuple(n for n in FUNCTION_NAMES if f"{n}_canonical" in FUNCTION_NAMES)


# The numbering a form of a rule works in: a game's function for several forms takes it as
# an argument (solver/kernels/symmetry.py calls the canonical forms, compact.py the indexed).
PLAIN, CANONICAL, INDEXED = 0, 1, 2
_SUFFIX = {PLAIN: "", CANONICAL: "_canonical", INDEXED: "_indexed"}
# the operations one function may serve together, told apart by a second flag (true for
# the second: expand, or the parents within the tier)
PAIRS = (("children", "expand"), ("parents", "parents_in_tier"))


def forms(*ops: str, canonical: bool = False, indexed: bool = False):
    """Declare one function of a game module as the body of every form of `ops`.

    `ops` is one operation of the table (say "parents") or a pair of :data:`PAIRS` (say
    "children", "expand"). The decorated function takes the form's arguments and then the
    numbering (PLAIN, and CANONICAL or INDEXED where asked for), and for a pair whether it
    is the second operation. Each form (``children``, ``children_canonical``, ...,
    ``expand_indexed``) is made a module-level njit function of the game's module that
    calls it with those flags as constants: the body is inlined (declare it
    ``inline="always"``) and compiled once per form, as a hand-written wrapper was, and
    numba caches each beside the game's source (see :func:`_form`)."""
    pair = ops in PAIRS
    if not pair and (len(ops) != 1 or ops[0] not in FUNCTION_NAMES):
        raise TypeError(f"forms() takes one function of the table or a pair of {PAIRS}, "
                        f"not {ops}")
    numberings = [PLAIN] + [CANONICAL] * canonical + [INDEXED] * indexed
    made = {op + _SUFFIX[n]: (n, bool(second)) if pair else (n,)
            for second, op in enumerate(ops) for n in numberings}
    for name in made:
        if name not in FUNCTION_NAMES or name.split("_")[0] not in ("children", "expand",
                                                                    "parents"):
            raise TypeError(f"forms() makes children, expand and parents forms: {name} is "
                            "none of the table's")

    def declare(rule):
        import sys

        module = sys.modules[rule.py_func.__module__]
        for name, flags in made.items():
            setattr(module, name, _form(rule, name, flags))
        return rule

    return declare


# The bodies of the forms: the rule's arguments, then its flags (constants: globals of
# the function _form builds from these, which numba freezes at compile time).
RULE = NUMBERING = SECOND = None


def _rule4(ctx, h, out, scratch):
    return RULE(ctx, h, out, scratch, NUMBERING)


def _rule4_pair(ctx, h, out, scratch):
    return RULE(ctx, h, out, scratch, NUMBERING, SECOND)


def _rule5(ctx, h, out, moves, scratch):
    return RULE(ctx, h, out, moves, scratch, NUMBERING)


def _rule5_pair(ctx, h, out, moves, scratch):
    return RULE(ctx, h, out, moves, scratch, NUMBERING, SECOND)


_BODIES = {(4, 1): _rule4, (4, 2): _rule4_pair, (5, 1): _rule5, (5, 2): _rule5_pair}


def _form(rule, name: str, flags: tuple):
    """The njit function `name` of rule's module: a body above with its own globals. Its
    code names rule's file, line and `name`, so that numba caches it there, keyed by that
    file (a changed rule compiles afresh) and apart from every other form."""
    import types

    from hashing.jit import njit

    args = next(f.args for f in FUNCTIONS if f.name == name).count(",") + 1
    body = _BODIES[args, len(flags)]
    code = rule.py_func.__code__
    code = body.__code__.replace(co_filename=code.co_filename, co_name=name,
                                 co_qualname=name, co_firstlineno=code.co_firstlineno)
    scope = {"__name__": rule.py_func.__module__, "RULE": rule, "NUMBERING": flags[0],
             "SECOND": flags[-1]}
    f = types.FunctionType(code, scope, name)
    f.__doc__ = f"{name}: {rule.py_func.__name__} with the flags {flags} (games.base.forms)."
    return njit(cache=True, nogil=True)(f)


def game_functions(module) -> dict[str, object]:
    """The table's functions that `module` (a module object) defines, by name; TypeError
    when a required one is missing or not callable, or one lacks a function it needs."""
    have = {f.name: getattr(module, f.name) for f in FUNCTIONS if hasattr(module, f.name)}
    for f in FUNCTIONS:
        if f.required and f.name not in have:
            raise TypeError(f"{module.__name__} does not define {f.name}({f.args})")
        if f.name in have:
            if not callable(have[f.name]):
                raise TypeError(f"{module.__name__}.{f.name} is not callable")
            lacking = [n for n in f.needs if n not in have]
            if lacking:
                raise TypeError(f"{module.__name__} defines {f.name} without "
                                f"{' and '.join(lacking)}")
    return have


def shown_remoteness(value: int, remoteness: int, puzzle: bool) -> int | None:
    """Remoteness as reported: none for draws, and none for puzzle losses (no goal)."""
    if value in (WIN, TIE) or (value == LOSE and not puzzle):
        return int(remoteness)
    return None


class GsolveError(Exception):
    """An error a user can act on; the command prints its message as one line."""


class UnknownGameError(GsolveError):
    pass


class VariantError(GsolveError):
    pass


class PositionError(GsolveError):
    pass


@dataclass(frozen=True)
class Tier:
    """A stage of the game: a contiguous range [start, stop) of the game's hash numbering,
    and the tiers its moves lead to (itself too, when moves can stay inside the tier)."""

    label: str
    start: int
    stop: int
    children: tuple[int, ...]

    @property
    def size(self) -> int:
        return self.stop - self.start


class Variant:
    """One variant key: its default, allowed range (or list of values) and meaning."""

    def __init__(self, default: int, lo: int, hi: int, help: str,
                 choices: tuple[int, ...] | None = None):
        self.default, self.lo, self.hi, self.help = default, lo, hi, help
        self.choices = choices

    def allowed(self) -> str:
        if self.choices:
            return ", ".join(map(str, self.choices))
        return f"{self.lo}..{self.hi}"


class _classproperty:
    """A read-only property computed from the class, so it answers on classes too."""

    def __init__(self, f):
        self.f = f
        self.__doc__ = f.__doc__

    def __get__(self, obj, cls=None):
        return self.f(cls if cls is not None else type(obj))


_TIERS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # each game's tier list
_SYMMETRIC_TIERS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # and with images
_RULES: dict[type, types.ModuleType] = {}  # each class's rules module


class Game:
    """Base class of every game; subclasses fill in the class attributes and __init__."""

    name: ClassVar[str]
    title: ClassVar[str]
    puzzle: ClassVar[bool] = False
    loopy: ClassVar[bool] = False
    columns: ClassVar[bool] = False  # a move drops a piece down a column (viewers)
    variants: ClassVar[dict[str, Variant]] = {}

    # set by __init__ of a subclass
    ctx: tuple
    hash_size: int
    start: int
    max_children: int
    scratch_size: int
    max_remoteness: int = 4095

    def __init__(self, **variant: int):
        self.variant = self.check_variant(variant)

    def __init_subclass__(cls, **kwargs):
        """Refuse declared capabilities; check the contract after the outermost __init__."""
        super().__init_subclass__(**kwargs)
        if "has_parents" in cls.__dict__:
            raise TypeError(
                f"{cls.__name__} declares has_parents: a game has un-moves exactly when its "
                "module defines parents(ctx, h, out, scratch); remove the declaration")
        tiers = cls.__dict__.get("tiers")
        if tiers is not None:  # computed once per game: big games have many (7x6 connect4:
            @functools.wraps(tiers)  # 823,543), and solvers, estimates and checks ask often
            def cached(self):
                if self not in _TIERS:  # kept beside the game: the game stays as built
                    _TIERS[self] = tiers(self)
                found = _TIERS[self]
                return None if found is None else list(found)

            cls.tiers = cached
        init = cls.__dict__.get("__init__")
        if init is None:
            return

        @functools.wraps(init)
        def checked(self, *args, **kw):
            init(self, *args, **kw)
            if type(self).__init__ is checked:  # not a super().__init__ of a subclass
                self.check_contract()

        cls.__init__ = checked

    def check_contract(self) -> None:
        """Raise TypeError unless every attribute a solver relies on is present and sane.

        Integers are normalised to Python ints. Tiers are checked where they are used
        (check_tiers below), not here: a big game has many and constructing stays cheap."""
        who = f"{type(self).__name__} {self.variant_key}"

        def need(ok: bool, what: str) -> None:
            if not ok:
                raise TypeError(f"{who}: {what}")

        for attr in ("name", "title"):
            need(isinstance(getattr(type(self), attr, None), str), f"{attr} must be a string")
        need(isinstance(getattr(self, "ctx", None), tuple),
             "ctx must be a tuple (of the arrays the numba functions read)")
        ints = {"hash_size": 1, "start": 0, "max_children": 1, "scratch_size": 0,
                "max_remoteness": 1}
        if self.has_parents:
            if not hasattr(self, "max_parents"):
                self.max_parents = self.max_children
            ints["max_parents"] = 1
        if (hasattr(_rules(type(self)), "canonical_index")
                and getattr(self, "canonical_size", 0) is not None):  # None: not numbered
            ints["canonical_size"] = 1
        for attr, low in ints.items():
            v = getattr(self, attr, None)
            need(isinstance(v, numbers.Integral) and not isinstance(v, bool),
                 f"{attr} must be an integer (got {v!r})")
            need(int(v) >= low, f"{attr} must be at least {low} (got {v})")
            setattr(self, attr, int(v))
        need(self.start < self.hash_size,
             f"start {self.start} is outside the hash [0, {self.hash_size})")
        try:
            game_functions(_rules(type(self)))
        except TypeError as e:
            need(False, str(e))

    def check_tiers(self) -> list[Tier] | None:
        """The tiers, after TypeError unless they cover [0, hash_size) with contiguous
        ranges whose child indices exist (the tier solver orders them)."""
        tiers = self.tiers()
        if tiers is None:
            return None

        def need(ok: bool, what: str) -> None:
            if not ok:
                raise TypeError(f"{type(self).__name__} {self.variant_key}: {what}")

        need(len(tiers) > 0, "tiers() returned an empty list")
        pos = 0
        for i, t in enumerate(sorted(tiers, key=lambda t: t.start)):
            need(t.start == pos and t.stop >= t.start,
                 f"tier {i} ({t.label}) leaves a gap or overlaps")
            pos = t.stop
        need(pos == self.hash_size, f"tiers cover {pos:,} of {self.hash_size:,} slots")
        for t in tiers:
            need(all(isinstance(c, int) and 0 <= c < len(tiers) for c in t.children),
                 f"tier {t.label} names a child tier that does not exist")
        return tiers

    # -- variants -------------------------------------------------------------
    @classmethod
    def check_variant(cls, given: dict[str, int]) -> dict[str, int]:
        out = {}
        for key in given:
            if key not in cls.variants:
                known = ", ".join(cls.variants) or "none"
                raise VariantError(f"{cls.name} has no variant key '{key}' (keys: {known})")
        for key, spec in cls.variants.items():
            val = given.get(key, spec.default)
            if (not isinstance(val, int) or not spec.lo <= val <= spec.hi
                    or (spec.choices and val not in spec.choices)):
                raise VariantError(
                    f"{cls.name} variant {key}={val} is not allowed ({spec.allowed()})")
            out[key] = val
        return out

    @property
    def variant_key(self) -> str:
        """The variant's identity: its directory name in the database root."""
        if not self.variant:
            return "default"
        return ",".join(f"{k}={v}" for k, v in self.variant.items())

    # -- optional capabilities --------------------------------------------------------
    max_parents: int  # with un-moves: the most parents a position can have (default
    #                   max_children), the size of the solvers' parent buffer
    canonical_size: int | None  # with canonical_index: the indices of its numbering, gaps
    # and all; None where a variant is not numbered (its tables would not pay)

    @_classproperty
    def has_parents(cls) -> bool:
        """Whether the game has un-moves: its module defines `parents` (class or instance)."""
        return hasattr(_rules(cls), "parents")

    def tiers(self) -> list[Tier] | None:
        """The game's tiers, children before parents not required; None if it has none."""
        return None

    def known_tiers(self) -> list[Tier] | None:
        """The tier list where it is built already (a huge one takes minutes), else None."""
        found = _TIERS.get(self)
        return None if found is None else list(found)

    # a game by itself is numbered by hash slot; a solve on canonical positions numbers it
    # otherwise beside it (solver/kernels/numbering.py), never by changing it
    symmetry: ClassVar[bool] = False

    @_classproperty
    def has_symmetry(cls) -> bool:
        """Whether the game declares board symmetries: its module defines `canonical`."""
        return hasattr(_rules(cls), "canonical")

    def canonical(self, h: int) -> int:
        """The canonical representative of h (h itself for a game without symmetry)."""
        canonical = getattr(_rules(type(self)), "canonical", None)
        if canonical is None:
            return h
        return int(canonical(self.ctx, h, np.empty(self.scratch_size, np.int8)))

    # -- the module holding primitive/children -------------------------------------
    @_classproperty
    def module(cls) -> str:
        """The module whose primitive/children implement this class (a subclass may live
        elsewhere, e.g. in a test, and inherit its rules)."""
        return _rules(cls).__name__

    # -- positions ------------------------------------------------------------------
    def to_string(self, h: int) -> str:
        raise NotImplementedError

    def from_string(self, s: str) -> int:
        """Hash of a position string; PositionError when it does not parse or cannot be."""
        raise NotImplementedError

    def move_name(self, h: int, code: int) -> str:
        return str(code)

    # -- convenience for Python callers (not for hot loops) --------------------------
    def _buffers(self):
        return (np.empty(self.max_children, np.int64), np.empty(self.max_children, np.int64),
                np.empty(self.scratch_size, np.int8))

    def primitive_value(self, h: int) -> int:
        mod = _rules(type(self))
        return int(mod.primitive(self.ctx, h, np.empty(self.scratch_size, np.int8)))

    def moves(self, h: int) -> list[tuple[str, int]]:
        """(move name, child hash) for every legal move; none at a primitive position."""
        if self.primitive_value(h):
            return []
        out, codes, scratch = self._buffers()
        n = _rules(type(self)).children(self.ctx, h, out, codes, scratch)
        return [(self.move_name(h, int(codes[i])), int(out[i])) for i in range(n)]

    def analysis_extras(self, solved) -> dict:
        """Game-specific additions to `gsolve analyze`: extra JSON keys, and "notes", a list
        of lines for the text output. `solved` is the API object (query, best_moves)."""
        return {}

    def describe(self) -> str:
        return f"{self.name} {self.variant_key}"


def hash_tiers(hash_ctx, label, child_counts) -> list[Tier]:
    """One tier per piece-count combination of a HashContext (contiguous hash blocks).

    label(counts) names a tier; child_counts(counts) lists the counts its moves lead to
    (the counts themselves when a move can keep them)."""
    index = {c: i for i, c in enumerate(hash_ctx.combos)}
    out = []
    for i, counts in enumerate(hash_ctx.combos):
        kids = tuple(sorted({index[c] for c in child_counts(counts) if c in index}))
        out.append(Tier(label(counts), int(hash_ctx.offsets[i]), int(hash_ctx.offsets[i + 1]),
                        kids))
    return out


def symmetric_tiers(game: Game) -> list[Tier]:
    """The game's tiers for a solve on canonical positions: a child's canonical form may
    lie in an image of its tier (Connect-4's mirror maps a height vector to its reverse),
    so each child tier brings its images. The image of tier T is taken as the tier of the
    canonical form of T's first position, both ways: exact for a symmetry of order 2 and
    for tiers that every symmetry keeps (square boards by piece counts). Computed once per
    game, beside its tier list (8x4 Connect-4: 390,625 tiers)."""
    if game in _SYMMETRIC_TIERS:
        return list(_SYMMETRIC_TIERS[game])
    tiers = game.tiers()
    starts = np.array([t.start for t in tiers], np.int64)
    firsts = starts.copy()
    if game.has_symmetry:
        canonical, scratch = _rules(type(game)).canonical, np.empty(
            game.scratch_size, np.int8)
        for i, t in enumerate(tiers):
            if t.size:
                firsts[i] = canonical(game.ctx, t.start, scratch)
    image = np.searchsorted(starts, firsts, side="right") - 1
    orbit: list[set[int]] = [{i} for i in range(len(tiers))]
    for i, j in enumerate(image.tolist()):
        if not tiers[i].size:
            j = i
        orbit[i].add(j)
        orbit[j].add(i)
    out = [Tier(t.label, t.start, t.stop, tuple(sorted({o for c in t.children
                                                        for o in orbit[c]})))
           for t in tiers]
    _SYMMETRIC_TIERS[game] = out
    return list(out)


def _rules(cls) -> types.ModuleType:
    """The module of `Game.module`, found once a class (a server asks it for every
    position it looks up)."""
    import sys

    found = _RULES.get(cls)
    if found is None:
        for c in cls.__mro__:
            mod = sys.modules.get(c.__module__)
            if mod is not None and hasattr(mod, "primitive") and hasattr(mod, "children"):
                found = _RULES[cls] = mod
                break
        else:
            raise TypeError(f"{cls.__name__}: no module defines primitive and children")
    return found


def parse_variant(text: str | None) -> dict[str, int | str]:
    """'width=5,height=4' -> {'width': 5, 'height': 4}; a value that is no integer stays
    text ('pieces=KRk'), which check_variant refuses for an integer key."""
    out: dict[str, int | str] = {}
    if not text:
        return out
    for part in text.split(","):
        part = part.strip()
        if not part:
            continue
        key, sep, val = part.partition("=")
        key, val = key.strip(), val.strip()
        if not sep or not key:
            raise VariantError(f"bad variant '{part}': expected key=value")
        if key in out:
            raise VariantError(f"variant key '{key}' given twice")
        try:
            out[key] = int(val)
        except ValueError:  # a word, e.g. quickchess pieces=KRk: the game's keys check it
            out[key] = val
    return out


def parse_board(text: str, rows: list[int], alphabet: str, game: str) -> list[str]:
    """Split a '/'-joined board into rows of the given lengths, checking its characters."""
    parts = text.split("/")
    if len(parts) != len(rows):
        raise PositionError(
            f"{game} position '{text}' should have {len(rows)} rows joined by '/'")
    cells: list[str] = []
    for i, (part, n) in enumerate(zip(parts, rows, strict=True)):
        if len(part) != n:
            raise PositionError(f"{game} position '{text}': row {i + 1} should have {n} cells")
        for ch in part:
            if ch not in alphabet:
                raise PositionError(
                    f"{game} position '{text}': '{ch}' is not one of '{alphabet}'")
        cells.extend(part)
    return cells
