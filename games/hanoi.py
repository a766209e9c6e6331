"""Towers of Hanoi with any number of disks and pegs (a loopy puzzle: moves are reversible).

Rules: `disks` disks of different sizes on `pegs` pegs. A move takes the top (smallest)
disk of a peg onto another peg that is empty or whose top disk is larger. Start: every disk
on peg 1; goal (WIN, remoteness 0): every disk on the last peg. Every position can reach
the goal, so every reachable position is a WIN and its remoteness is the fewest moves to
the goal: 2^n - 1 from the start with 3 pegs, the Frame-Stewart numbers with 4.

Position string: one character per disk, smallest disk first, giving the peg it stands on,
'1'..'pegs' (the order of the disks on a peg follows from their sizes). Start with 3 disks:
`111`, goal `333`. Moves are named `FROM->TO` by peg, e.g. `1->3`.

Hash: the string read as a base-`pegs` number, smallest disk the least significant digit
(digit = peg - 1): h = sum_i (peg_i - 1) * pegs^i, size pegs^disks, every hash a position
and every position reachable.

`gsolve analyze hanoi` also prints the optimal line from the start (the first best move at
each step) in the notation of the "Software writing software" DFS experiment: its
DomainStates row (the disk moved at each step, 1 = smallest) and RangeStates row (the peg it
went to), plus, for short lines, its per-disk, per-peg MoveStates bit masks.
"""

from __future__ import annotations

import numpy as np

from games import register
from games.base import WIN, Game, PositionError, Variant, VariantError
from hashing.jit import njit

MAX_HASH = 1 << 32  # 8 GiB of records at 2 bytes a position; larger variants are refused


@njit(cache=True, nogil=True)
def primitive(ctx, h, scratch):
    params = ctx[0]
    if h == params[2]:
        return WIN
    return 0


@njit(cache=True, nogil=True)
def _moves(ctx, h, out, moves, scratch, parents_only):
    """Children (codes in `moves`), or with parents_only the children less the goal and
    no codes written (then `moves` may be `out` itself)."""
    params, pw = ctx
    n = params[0]
    k = params[1]
    goal = params[2]
    # scratch[p]: the smallest disk on peg p, -1 when the peg is empty
    for p in range(k):
        scratch[p] = -1
    x = h
    for i in range(n):
        d = x % k
        x //= k
        if scratch[d] < 0:
            scratch[d] = i
    cnt = 0
    for a in range(k):
        da = scratch[a]
        if da < 0:
            continue
        for b in range(k):
            if b == a:
                continue
            db = scratch[b]
            if db < 0 or db > da:
                c = h + (b - a) * pw[da]
                if parents_only:
                    if c == goal:
                        continue
                else:
                    moves[cnt] = a * k + b
                out[cnt] = c
                cnt += 1
    return cnt


@njit(cache=True, nogil=True)
def children(ctx, h, out, moves, scratch):
    return _moves(ctx, h, out, moves, scratch, False)


@njit(cache=True, nogil=True)
def parents(ctx, h, out, scratch):
    """Moves are reversible, so the parents are the children, less the goal (a primitive
    position has no moves, so it is nobody's parent)."""
    return _moves(ctx, h, out, out, scratch, True)


@register
class Hanoi(Game):
    name = "hanoi"
    title = "Towers of Hanoi"
    puzzle = True
    loopy = True
    variants = {
        "disks": Variant(3, 1, 20, "number of disks"),
        "pegs": Variant(3, 3, 9, "number of pegs (at least 3)"),
    }

    def __init__(self, **variant):
        super().__init__(**variant)
        n, k = self.variant["disks"], self.variant["pegs"]
        self.disks, self.pegs = n, k
        size = k ** n
        if size > MAX_HASH:
            raise VariantError(
                f"hanoi disks={n},pegs={k} has {size:,} positions: too many to solve "
                f"(at most {MAX_HASH:,})")
        pw = np.array([k ** i for i in range(n + 1)], dtype=np.int64)
        goal = (k - 1) * int(pw[:n].sum())
        self.goal = goal
        self.ctx = (np.array([n, k, goal], dtype=np.int64), pw)
        self.hash_size = size
        self.start = 0
        self.max_children = k * (k - 1)
        self.scratch_size = k
        # Any position reaches the goal within 2^n - 1 moves (gather the n-1 smaller disks,
        # move the largest, gather them again), so this bounds every remoteness.
        self.max_remoteness = 2 ** n - 1

    # -- positions ------------------------------------------------------------------
    def to_string(self, h: int) -> str:
        k = self.pegs
        out = []
        for _ in range(self.disks):
            h, d = divmod(h, k)
            out.append(str(d + 1))
        return "".join(out)

    def from_string(self, s: str) -> int:
        text = s.strip()
        n, k = self.disks, self.pegs
        if len(text) != n:
            raise PositionError(
                f"hanoi position '{s}' should have {n} characters, one per disk (smallest "
                f"first) giving its peg 1..{k}")
        h = 0
        for i, ch in enumerate(text):
            if not "1" <= ch <= str(k):
                raise PositionError(
                    f"hanoi position '{s}': disk {i + 1} is on '{ch}', not a peg 1..{k}")
            h += (int(ch) - 1) * k ** i
        return h

    def move_name(self, h: int, code: int) -> str:
        a, b = divmod(int(code), self.pegs)
        return f"{a + 1}->{b + 1}"

    # -- analysis ---------------------------------------------------------------------
    def optimal_line(self, solved) -> list[tuple[str, int, int, str]]:
        """(move name, disk moved 1.., peg it went to 1.., position after) for each step of
        the line that always takes the first best move, from the start to the goal."""
        pos = self.to_string(self.start)
        _, start_rem = solved.lookup(self.start)
        line = []
        while True:
            best = solved.best_moves(pos)
            if not best:
                break
            m = best[0]
            diff = [i for i in range(self.disks) if pos[i] != m.position[i]]
            if len(diff) != 1 or len(line) > (start_rem or 0):
                raise RuntimeError(f"hanoi: unexpected best move {m} from {pos}")
            i = diff[0]
            line.append((m.move, i + 1, int(m.position[i]), m.position))
            pos = m.position
        return line

    def analysis_extras(self, solved) -> dict:
        line = self.optimal_line(solved)
        domain = [d for _, d, _, _ in line]
        rng = [p for _, _, p, _ in line]
        n, k = self.disks, self.pegs
        # MoveStates: for each (disk, peg) a bit per step, 1 where that disk went to that peg
        move_states = {
            str(d): {str(p): "".join("1" if (dd, pp) == (d, p) else "0"
                                    for dd, pp in zip(domain, rng, strict=True))
                     for p in range(1, k + 1)}
            for d in range(1, n + 1)}
        per_disk = {str(d): domain.count(d) for d in range(1, n + 1)}
        notes = [
            "",
            f"optimal line from the start ({len(line)} moves, the first best move at each "
            "step), in the notation of the DFS experiment:",
            "  DomainStates (disk moved, 1 = smallest): " + ",".join(map(str, domain)),
            "  RangeStates  (peg it went to):           " + ",".join(map(str, rng)),
            "  moves:     " + " ".join(name for name, _, _, _ in line),
            "  moves per disk: " + ", ".join(f"disk {d}: {c}" for d, c in per_disk.items()),
        ]
        if 0 < len(line) <= 63 and n <= 6:  # the sizes of the DFS write-up's tables
            notes.append("  MoveStates (disk, peg: 1 at each step where the disk went to "
                         "the peg):")
            for d in range(1, n + 1):
                for p in range(1, k + 1):
                    notes.append(f"    {d} {p} {move_states[str(d)][str(p)]}")
        return {
            "optimal_line": {
                "moves": [name for name, _, _, _ in line],
                "positions": [pos for _, _, _, pos in line],
                "DomainStates": ",".join(map(str, domain)),
                "RangeStates": ",".join(map(str, rng)),
                "MoveStates": move_states,
            },
            "domain_states": domain,
            "range_states": rng,
            "moves_per_disk": per_disk,
            "notes": notes,
        }
