"""Query latency: HTTP round trips to a running `gsolve serve`, and `gsolve query` runs.

    python benchmarks/query_latency.py [--game connect4] [-V ...] [-n 1000] [--db DIR]
                                       [--clients 8]

Solves the game into the database root first if needed, starts `gsolve serve` on a free
port, picks n random reachable positions (uniform over the database's reachable slots),
and times GET /api/query for each: once over one keep-alive connection (werkzeug 3 closes
every connection after its answer, so http.client reconnects: in effect a new connection a
request, one at a time), once with a new connection per request (as curl would), then
with `--clients` clients at once (threads, each on its own connection, all n positions
each), for /api/query and for the UWAPI provider URL of the same positions
(GamesmanClassic's /positions/?p=, in the
provider's strings where solver/use/uwapi.py's table lists the game). Then times whole
`gsolve query` commands (warm kernel cache). Prints percentiles in milliseconds, and the
load average, since the machine may be shared (the commands' CPU time is printed too).
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import statistics
import subprocess
import sys
import threading
import time
import urllib.parse
from pathlib import Path


def percentiles(ms: list[float]) -> dict:
    s = sorted(ms)
    pick = lambda q: s[min(len(s) - 1, int(q * len(s)))]  # noqa: E731
    return {"p50": round(pick(0.5), 3), "p90": round(pick(0.9), 3),
            "p99": round(pick(0.99), 3), "mean": round(statistics.fmean(s), 3),
            "n": len(s)}


def sample_positions(game: str, variant: str | None, db: Path, n: int, seed: int):
    import numpy as np

    import solver

    solved = solver.open(game, variant, db)
    rng = np.random.default_rng(seed)
    reachable = np.concatenate([a + np.flatnonzero(v) for a, v, _ in solved.db.chunks()])
    picks = rng.choice(reachable, size=min(n, reachable.size), replace=False)
    return [solved.game.to_string(int(h)) for h in picks], int(reachable.size)


def start_server(db: Path) -> tuple[subprocess.Popen, int]:
    proc = subprocess.Popen([sys.executable, "-m", "solver", "serve", "--port", "0",
                             "--db", str(db)], stdout=subprocess.PIPE, text=True)
    line = proc.stdout.readline()
    if "http://" not in line:
        proc.kill()
        raise SystemExit(f"serve did not start: {line!r}")
    port = int(line.split("http://", 1)[1].split("/", 1)[0].rsplit(":", 1)[1])
    return proc, port


def time_http(port: int, game: str, variant: str | None, positions: list[str],
              keep_alive: bool) -> list[float]:
    out = []
    conn = http.client.HTTPConnection("127.0.0.1", port)
    for p in positions:
        q = {"game": game, "position": p}
        if variant:
            q["variant"] = variant
        path = "/api/query?" + urllib.parse.urlencode(q)
        if not keep_alive:
            conn = http.client.HTTPConnection("127.0.0.1", port)
        t = time.perf_counter()
        conn.request("GET", path)
        body = conn.getresponse().read()
        out.append((time.perf_counter() - t) * 1000)
        if not keep_alive:
            conn.close()
        if json.loads(body).get("position") != p:
            raise SystemExit(f"wrong answer for {p}: {body[:200]!r}")
    conn.close()
    return out


def query_paths(game: str, variant: str | None, positions: list[str]) -> list[str]:
    def path(p):
        q = {"game": game, "position": p}
        if variant:
            q["variant"] = variant
        return "/api/query?" + urllib.parse.urlencode(q)

    return [path(p) for p in positions]


def provider_paths(game: str, variant: str | None, positions: list[str]) -> list[str]:
    """GamesmanClassic's URL of each position: the table's ids and strings where UWAPI
    lists the game variant, else gsolve's names and strings."""
    from games import get_game
    from solver.use import autogui, uwapi

    g = get_game(game, variant)
    e = uwapi.entry_of(game, g.variant_key)
    ids, strings = ((e.game_id, e.variant_id), e.strings(g)) if e else (
        (game, g.variant_key), autogui.Plain(g))
    return [f"/{ids[0]}/{ids[1]}/positions/?" + urllib.parse.urlencode(
        {"p": strings.position(p)}) for p in positions]


def time_clients(port: int, paths: list[str], clients: int) -> list[float]:
    """Each of `clients` threads asks every path over its own keep-alive connection, all
    at once (each from its own place in the list); every answer must be 200."""
    out: list[float] = []
    failed: list[str] = []
    go = threading.Barrier(clients)

    def client(k: int) -> None:
        conn = http.client.HTTPConnection("127.0.0.1", port)
        mine = paths[k * len(paths) // clients:] + paths[:k * len(paths) // clients]
        times = []
        go.wait()
        for path in mine:
            t = time.perf_counter()
            conn.request("GET", path)
            r = conn.getresponse()
            r.read()
            times.append((time.perf_counter() - t) * 1000)
            if r.status != 200:
                failed.append(f"{path}: {r.status}")
        conn.close()
        out.extend(times)

    threads = [threading.Thread(target=client, args=(k,)) for k in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if failed:
        raise SystemExit(f"{len(failed)} requests failed, e.g. {failed[0]}")
    return out


def time_cli(game: str, variant: str | None, db: Path, position: str, runs: int):
    cmd = ["gsolve", "query", game, position, "--db", str(db)]
    if variant:
        cmd += ["-V", variant]
    walls, cpus = [], []
    for _ in range(runs):
        c, t = os.times(), time.perf_counter()
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
        walls.append((time.perf_counter() - t) * 1000)
        c2 = os.times()
        cpus.append((c2.children_user + c2.children_system - c.children_user
                     - c.children_system) * 1000)
    return walls, cpus


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--game", default="connect4")
    ap.add_argument("--variant", "-V", default=None)
    ap.add_argument("--db", default=None, help="database root (default: a temporary one)")
    ap.add_argument("-n", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--cli-runs", type=int, default=10)
    ap.add_argument("--clients", type=int, default=8, help="concurrent clients (default 8)")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    import tempfile

    import solver

    db = Path(args.db) if args.db else Path(tempfile.mkdtemp(prefix="gsolve-latency-"))
    solver.solve(args.game, variant=args.variant, db=db)
    positions, reachable = sample_positions(args.game, args.variant, db, args.n, args.seed)
    proc, port = start_server(db)
    try:
        time_http(port, args.game, args.variant, positions[:50], True)  # warm up
        keep = time_http(port, args.game, args.variant, positions, True)
        fresh = time_http(port, args.game, args.variant, positions, False)
        many = time_clients(port, query_paths(args.game, args.variant, positions),
                            args.clients)
        provider = time_clients(port, provider_paths(args.game, args.variant, positions),
                                args.clients)
    finally:
        proc.terminate()
        proc.wait()
    cli, cli_cpu = time_cli(args.game, args.variant, db, positions[0], args.cli_runs)
    report = {
        "game": args.game, "variant": args.variant, "reachable": reachable,
        "http_keep_alive_ms": percentiles(keep), "http_new_connection_ms": percentiles(fresh),
        "clients": args.clients, "http_clients_ms": percentiles(many),
        "uwapi_provider_clients_ms": percentiles(provider),
        "gsolve_query_ms": percentiles(cli), "gsolve_query_cpu_ms": percentiles(cli_cpu),
        "load_average": os.getloadavg(),
    }
    if args.json:
        print(json.dumps(report))
        return
    print(f"{args.game} {args.variant or ''}: {len(positions):,} random positions of "
          f"{reachable:,} reachable; load average {report['load_average'][0]:.2f}")
    for key, label in (("http_keep_alive_ms", "HTTP, one keep-alive connection"),
                       ("http_new_connection_ms", "HTTP, a new connection each"),
                       ("http_clients_ms", f"HTTP, {args.clients} clients at once"),
                       ("uwapi_provider_clients_ms", f"UWAPI provider, {args.clients} clients"),
                       ("gsolve_query_ms", "gsolve query, whole command"),
                       ("gsolve_query_cpu_ms", "gsolve query, its CPU (user+sys)")):
        r = report[key]
        print(f"  {label:<34} p50 {r['p50']:>8.3f} ms  p90 {r['p90']:>8.3f}  "
              f"p99 {r['p99']:>8.3f}  (n={r['n']})")


if __name__ == "__main__":
    main()
