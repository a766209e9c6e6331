"""A solved Connect-4 database against Pascal Pons' solver, position by position.

    python benchmarks/connect4_pons.py --pons BIN -V width=7,height=4 [--db DIR] [-n 2000]
        [--scores FILE]

BIN is Pons' `c4solver` (github.com/PascalPons/connect4) built for the same board: its
Position.hpp fixes WIDTH and HEIGHT at compile time, so build one binary a size, e.g.

    sed -e 's/WIDTH = 7;/WIDTH = 7;/' -e 's/HEIGHT = 6;/HEIGHT = 4;/' Position.hpp

in a copy of its sources, then `g++ --std=c++11 -O3 -DNDEBUG -o c4solver main.cpp Solver.cpp`.
It is exact (negamax with alpha-beta and null windows to the exact score), and its score
gives the remoteness: a position whose mover wins has score (W*H + 1 - m) // 2 where m is
the number of stones on the board just before the winning stone, the loser's score is
minus that of the opponent's win, and 0 is a full board without a line (a tie in gsolve).
The winner hurrying and the loser delaying are what gsolve's remoteness counts too.

Positions are drawn by random play from the start (a walk of random length, every move
equally likely), the start included; primitive positions are skipped (Pons' solver takes
only games still going). Each one's value and remoteness from the database must equal
Pons'; the script prints a line per mismatch, a summary, and exits 1 on any.
"""

from __future__ import annotations

import argparse
import random
import subprocess
import sys
import time


def pons_answer(score: int, stones: int, cells: int) -> tuple[str, int]:
    """(value for the mover, remoteness in plies) of Pons' `score` for a position with
    `stones` on a board of `cells`."""
    if score == 0:
        return "tie", cells - stones
    # the winner's stone is played when m stones are down, m of the winner's parity:
    # the mover's when m - stones is even
    win = score > 0
    s = abs(score)
    for m in (cells + 1 - 2 * s, cells - 2 * s):
        if (m - stones) % 2 == (0 if win else 1) and stones <= m < cells:
            return ("win" if win else "lose"), m - stones + 1
    raise ValueError(f"score {score} cannot be reached with {stones} stones on {cells} cells")


def walks(game, count: int, rng: random.Random) -> list[tuple[str, str]]:
    """`count` distinct (column sequence, position) pairs of random play, the start first."""
    seen, out = set(), [("", game.to_string(game.start))]
    seen.add(out[0][1])
    cells = game.width * game.height
    tries = 0
    while len(out) < count and tries < 50 * count:
        tries += 1
        h, seq = game.start, ""
        for _ in range(rng.randrange(1, cells)):
            moves = game.moves(h)
            if not moves or game.primitive_value(h):
                break
            name, child = rng.choice(moves)
            if game.primitive_value(child):
                break
            h, seq = child, seq + name
        pos = game.to_string(h)
        if pos not in seen:
            seen.add(pos)
            out.append((seq, pos))
    return out


def pons_scores(pons: str, sequences: list[str], cache: str | None) -> tuple[list[int], float]:
    """Pons' score of each move sequence, and the seconds his solver took (0 when read
    from `cache`, a file of the sequences' digest then a score a line)."""
    import hashlib
    from pathlib import Path

    text = "".join(s + "\n" for s in sequences)
    digest = hashlib.sha256(text.encode()).hexdigest()
    if cache and Path(cache).exists():
        head, *rest = Path(cache).read_text().split()
        if head == digest and len(rest) == len(sequences):
            return [int(x) for x in rest], 0.0
    t0 = time.perf_counter()
    out = subprocess.run([pons], input=text, capture_output=True, text=True,
                         check=True).stdout.split("\n")
    seconds = time.perf_counter() - t0
    scores = [int(line.split()[-1]) for line in out if line.strip()]
    if len(scores) != len(sequences):
        sys.exit(f"Pons' solver answered {len(scores)} of {len(sequences)} positions")
    if cache:
        Path(cache).write_text("\n".join([digest, *map(str, scores)]) + "\n")
    return scores, seconds


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--pons", required=True, help="Pons' c4solver built for this board")
    ap.add_argument("-V", "--variant", required=True, help="e.g. width=7,height=4")
    ap.add_argument("--db", default=None, help="database root (default ./gsolve-db)")
    ap.add_argument("-n", "--positions", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--scores", default=None,
                    help="a file of Pons' scores for this sample: read when it holds them, "
                         "else written (Pons may run before or beside the solve)")
    args = ap.parse_args()

    import solver
    from games import get_game
    from games.base import GsolveError

    game = get_game("connect4", args.variant)
    if game.connect != 4:
        sys.exit("Pons' solver plays connect 4 only")
    cells = game.width * game.height
    sample = walks(game, args.positions, random.Random(args.seed))
    scores, seconds = pons_scores(args.pons, [s for s, _ in sample], args.scores)
    try:
        solved = solver.open("connect4", args.variant, args.db)
    except GsolveError as e:  # not solved, or being solved now: Pons' scores are kept
        sys.exit(f"connect4_pons: {e}" + (f" (Pons' scores are in {args.scores})"
                                          if args.scores else ""))
    bad = 0
    tally: dict[str, int] = {}
    for (seq, pos), score in zip(sample, scores, strict=True):
        want = pons_answer(score, len(seq), cells)
        info = solved.query(pos)
        got = (info.value, info.remoteness)
        tally[want[0]] = tally.get(want[0], 0) + 1
        if got != want:
            bad += 1
            print(f"MISMATCH {pos} (moves {seq or '-'}): gsolve {got}, Pons {want}")
    start = solved.query()
    print(f"connect4 {game.variant_key}: {len(sample)} positions "
          f"({', '.join(f'{k} {v}' for k, v in sorted(tally.items()))}), "
          f"{bad} mismatches; start {start.value} in {start.remoteness} "
          f"(Pons: {pons_answer(scores[0], 0, cells)}); Pons took {seconds:.1f} s"
          + (" (read from --scores)" if not seconds else ""))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
