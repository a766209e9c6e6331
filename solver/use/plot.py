"""Pictures: `gsolve analyze --plot` and `gsolve learn --plot` (matplotlib, no display)."""

from __future__ import annotations

from pathlib import Path

from games.base import GsolveError

COLOURS = {"win": "#2e7d32", "lose": "#b3261e", "tie": "#e0a800", "draw": "#3b6fb6"}
ORDER = ("win", "lose", "tie", "draw")
FORMATS = (".png", ".svg", ".pdf")  # what --plot draws (checked with the command line)


def _pyplot():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _save(fig, path) -> None:
    path = Path(path)
    if path.suffix.lower() not in FORMATS:
        raise GsolveError(f"--plot {path}: name a .png, .svg or .pdf file")
    fig.savefig(path, dpi=110)


def plot_analysis(report: dict, solved, path) -> None:
    """Positions by remoteness, stacked by value (draws and puzzle dead ends, which have
    no remoteness, in a last bar); for two-player games also the start position's moves
    with their value for the player making them."""
    from solver.use.api import for_mover

    plt = _pyplot()
    game = solved.game
    start = solved.query(None)
    two = not game.puzzle and start.moves
    fig, axes = plt.subplots(1, 2 if two else 1, figsize=(12 if two else 7, 4.6),
                             gridspec_kw={"width_ratios": [3, 2]} if two else None,
                             squeeze=False)
    ax = axes[0][0]
    rows = [(str(r), row) for r, row in report["remoteness"].items()]
    none = {w: n for w, n in report["values"].items()
            if w == "draw" or (game.puzzle and w == "lose")}
    if none:
        rows.append(("none", none))
    labels = [r for r, _ in rows]
    bottom = [0] * len(rows)
    for w in ORDER:
        heights = [row.get(w, 0) for _, row in rows]
        if any(heights):
            ax.bar(labels, heights, bottom=bottom, color=COLOURS[w], label=w)
            bottom = [b + h for b, h in zip(bottom, heights, strict=True)]
    ax.set_xlabel("remoteness (moves to the end)")
    ax.set_ylabel("positions")
    ax.set_title(f"{game.name} {game.variant_key}: {report['positions']:,} positions")
    ax.legend(title="value for the mover")
    if len(labels) > 30:
        for i, t in enumerate(ax.get_xticklabels()):
            t.set_visible(i % max(1, len(labels) // 20) == 0)
    if two:
        ax = axes[0][1]
        names, lengths, colours = [], [], []
        for m in start.moves:
            v, r = for_mover(m, game.puzzle)
            names.append(f"{m.move}  {v}" + (f" in {r}" if r is not None else ""))
            lengths.append(r if r is not None else 0)
            colours.append(COLOURS[v])
        ax.barh(names[::-1], lengths[::-1], color=colours[::-1])
        ax.set_xlabel("moves to the end (this one included)")
        sv = start.value + (f" in {start.remoteness}" if start.remoteness is not None else "")
        ax.set_title(f"start {start.position}: {sv}", fontsize=10)
    fig.tight_layout()
    _save(fig, path)
    plt.close(fig)


def plot_curve(report: dict, path) -> None:
    """The learner's curve: wins, losses and ties in each block of games."""
    plt = _pyplot()
    curve = report["curve"]
    x = [row["played"] for row in curve]
    fig, ax = plt.subplots(figsize=(8, 4.2))
    bottom = [0.0] * len(curve)
    width = [row["games"] for row in curve]
    left = [row["played"] - row["games"] for row in curve]
    for key, word in (("wins", "win"), ("ties", "tie"), ("losses", "lose")):
        share = [row[key] / row["games"] for row in curve]
        if any(share):
            ax.bar(left, share, width=width, bottom=bottom, align="edge", color=COLOURS[word],
                   label=key, edgecolor="white", linewidth=0.5)
            bottom = [b + s for b, s in zip(bottom, share, strict=True)]
    ax.set_xlim(0, x[-1] if x else 1)
    ax.set_ylim(0, 1)
    ax.set_xlabel("games played")
    ax.set_ylabel("share of the block's games")
    after = report.get("won_every_game_after")
    tail = "" if after is None else f"; won every game after game {after}"
    ax.set_title(f"matchbox learner, {report['game']} {report['variant']}: "
                 f"{report['learner']} vs {report['against']}{tail}", fontsize=10)
    ax.legend(loc="lower right")
    fig.tight_layout()
    _save(fig, path)
    plt.close(fig)
