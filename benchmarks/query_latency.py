"""Query latency: HTTP round trips to a running `gsolve serve`, and `gsolve query` runs.

    python benchmarks/query_latency.py [--game connect4] [-V ...] [-n 1000] [--db DIR]
                                       [--clients 8] [--threads]

Solves the game into the database root first if needed, starts `gsolve serve` on a free
port, picks n random reachable positions (uniform over the database's reachable slots), has
the clients ask them all once untimed (each worker process decodes the chunks it needs),
and times GET /api/query for each, one request at a time: over one keep-alive connection,
then with a new connection per request (as curl would). Then `--clients` clients at once
(processes by default, `--threads` for threads of this process), each asking all n
positions, over one keep-alive connection each (as a browser or UWAPI's requests session
asks) and with a new connection a request, for /api/query and for the UWAPI provider URL
of the same positions (GamesmanClassic's /positions/?p=, in the provider's strings where
solver/use/uwapi.py's table lists the game), with the server's and the clients' CPU time
a request. Then times whole `gsolve query` commands (warm kernel cache). Prints
percentiles in milliseconds, and the load average before and after, since the machine
may be shared.

`--wrk SECONDS` adds the same four loads driven by wrk (Debian's `wrk`, a C load generator:
the Python clients spend 0.13-0.45 ms of CPU a request on the same cores as the server,
wrk about a tenth of that), `--clients` connections for SECONDS each, every connection
cycling the positions from its own place in the list (a new connection each request with
`Connection: close`; wrk's latency counts from the request's first byte, after connect).
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
    numbered = solved.db.numbered_game()  # a --symmetry store's chunks hold canonical indices
    return [numbered.to_string(int(i)) for i in picks], int(reachable.size)


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


def _client(port: int, paths: list[str], fresh: bool, go, out, nice: int = 0) -> None:
    """One client: every path in turn, over one keep-alive connection (as a browser or
    UWAPI's requests session asks) or a new connection each (as curl would); sends its
    times, failures and own CPU seconds through `out`."""
    times, failed = [], []
    if nice:
        os.nice(nice)
    conn = http.client.HTTPConnection("127.0.0.1", port)
    go.wait()
    c = os.times()
    for path in paths:
        t = time.perf_counter()
        if fresh:
            conn = http.client.HTTPConnection("127.0.0.1", port)
        conn.request("GET", path)
        r = conn.getresponse()
        r.read()
        if fresh:
            conn.close()
        times.append((time.perf_counter() - t) * 1000)
        if r.status != 200:
            failed.append(f"{path}: {r.status}")
    c2 = os.times()
    conn.close()
    out.send((times, failed, c2.user + c2.system - c.user - c.system))


def time_clients(port: int, paths: list[str], clients: int, fresh: bool = False,
                 threads: bool = False, nice: int = 0) -> tuple[list[float], float]:
    """`clients` clients at once, each asking every path (each from its own place in the
    list): processes by default (so the clients' own interpreter lock queues nothing),
    or threads of this process. Every answer must be 200. Returns the times and the
    clients' CPU milliseconds a request (for threads: this process's)."""
    import multiprocessing as mp

    ctx = mp.get_context("spawn")
    go = (threading.Barrier if threads else ctx.Barrier)(clients)
    pipes = [(ctx.Pipe(duplex=False)) for _ in range(clients)]
    make = threading.Thread if threads else ctx.Process
    c = os.times()
    runs = [make(target=_client, args=(port, paths[k * len(paths) // clients:]
                                       + paths[:k * len(paths) // clients], fresh, go, w,
                                       0 if threads else nice))
            for k, (_, w) in enumerate(pipes)]
    for r in runs:
        r.start()
    got = [r.recv() for r, _ in pipes]
    for r in runs:
        r.join()
    c2 = os.times()
    out = [t for times, _, _ in got for t in times]
    failed = [f for _, fs, _ in got for f in fs]
    if failed:
        raise SystemExit(f"{len(failed)} requests failed, e.g. {failed[0]}")
    cpu = (c2.user + c2.system - c.user - c.system) if threads else sum(g[2] for g in got)
    return out, cpu * 1000 / len(out)


WRK_SCRIPT = r"""
-- each connection cycles the paths of the file from its own place; done() prints JSON
local paths, close, at = {}, false, 0
local counter = 0
function setup(thread)
  thread:set("id", counter)
  counter = counter + 1
end
function init(args)
  for line in io.lines(args[1]) do paths[#paths + 1] = line end
  close = args[2] == "close"
  at = (id * 7919) % #paths
end
function request()
  at = at % #paths + 1
  if close then return wrk.format("GET", paths[at], {["Connection"] = "close"}) end
  return wrk.format("GET", paths[at])
end
function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    '{"requests": %d, "seconds": %.3f, "errors": %d, "status_errors": %d, '
    .. '"p50": %.3f, "p90": %.3f, "p99": %.3f, "p999": %.3f, "max": %.3f, '
    .. '"mean": %.3f}\n',
    summary.requests, summary.duration / 1e6, e.connect + e.read + e.write + e.timeout,
    e.status, latency:percentile(50) / 1e3, latency:percentile(90) / 1e3,
    latency:percentile(99) / 1e3, latency:percentile(99.9) / 1e3, latency.max / 1e3,
    latency.mean / 1e3))
end
"""


def time_wrk(port: int, paths: list[str], clients: int, fresh: bool, seconds: int,
             server_pid: int) -> dict:
    """wrk's percentiles (ms) over `clients` connections for `seconds`, the server's CPU a
    request and the answers a second. Every answer must be 200 and every connection live."""
    import shutil
    import tempfile

    wrk = shutil.which("wrk")
    if wrk is None:
        raise SystemExit("--wrk needs wrk on PATH (Debian: apt-get install wrk)")
    with tempfile.TemporaryDirectory(prefix="gsolve-wrk-") as tmp:
        script, listing = Path(tmp, "paths.lua"), Path(tmp, "paths.txt")
        script.write_text(WRK_SCRIPT)
        listing.write_text("\n".join(paths) + "\n")
        cpu = server_cpu(server_pid)
        run = subprocess.run(
            [wrk, "-t", str(min(2, clients)), "-c", str(clients), "-d", f"{seconds}s",
             "--timeout", "5s", "-s", str(script), f"http://127.0.0.1:{port}", "--",
             str(listing), "close" if fresh else "keep"],
            capture_output=True, text=True, check=True)
        cpu = server_cpu(server_pid) - cpu
    line = next((x for x in run.stdout.splitlines() if x.startswith("{")), None)
    if line is None:
        raise SystemExit(f"wrk printed no summary: {run.stdout[-400:]!r}")
    r = json.loads(line)
    if r["errors"] or r["status_errors"]:
        raise SystemExit(f"wrk: {r['errors']} socket errors, {r['status_errors']} answers "
                         "not 200")
    n = r.pop("requests")
    return {**{k: round(v, 3) for k, v in r.items() if k != "seconds"}, "n": n,
            "server_cpu_ms": round(cpu * 1000 / n, 3), "per_second": round(n / r["seconds"])}


def server_cpu(pid: int) -> float:
    """CPU seconds of the server process and its worker processes so far (Linux)."""
    def one(p):
        try:
            fields = Path(f"/proc/{p}/stat").read_text().rsplit(")", 1)[1].split()
            kids = Path(f"/proc/{p}/task/{p}/children").read_text().split()
        except OSError:
            return 0.0
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK") + sum(
            one(int(k)) for k in kids)
    return one(pid)


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
    ap.add_argument("--threads", action="store_true",
                    help="the clients as threads of this process, not processes")
    ap.add_argument("--nice", type=int, default=0,
                    help="the client processes' niceness (10: the server runs first when "
                         "both want a core, as with clients on other machines)")
    ap.add_argument("--wrk", type=int, default=0, metavar="SECONDS",
                    help="also drive each load with wrk for SECONDS (needs wrk on PATH)")
    ap.add_argument("--symmetry", action="store_true",
                    help="solve canonical positions only, where the database is not there yet")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    import tempfile

    import solver
    from games.base import GsolveError

    load_before = os.getloadavg()
    db = Path(args.db) if args.db else Path(tempfile.mkdtemp(prefix="gsolve-latency-"))
    try:  # solved already, either way: as it is (a solve with the other setting redoes it)
        solver.open(args.game, args.variant, db)
    except GsolveError:
        solver.solve(args.game, variant=args.variant, db=db, symmetry=args.symmetry)
    positions, reachable = sample_positions(args.game, args.variant, db, args.n, args.seed)
    proc, port = start_server(db)
    many = {}
    try:
        urls = {"api": query_paths(args.game, args.variant, positions),
                "uwapi": provider_paths(args.game, args.variant, positions)}
        for paths in urls.values():  # warm up: every worker decodes the chunks it needs
            time_clients(port, paths, args.clients, True)
        keep = time_http(port, args.game, args.variant, positions, True)
        fresh = time_http(port, args.game, args.variant, positions, False)
        for name, paths in urls.items():
            for how in ("keep_alive", "new_connection"):
                cpu = server_cpu(proc.pid)
                t = time.perf_counter()
                times, client_cpu = time_clients(port, paths, args.clients,
                                                 how == "new_connection", args.threads,
                                                 args.nice)
                wall = time.perf_counter() - t
                many[f"{name}_{how}"] = {
                    **percentiles(times), "client_cpu_ms": round(client_cpu, 3),
                    "server_cpu_ms": round((server_cpu(proc.pid) - cpu) * 1000
                                           / len(times), 3),
                    "per_second": round(len(times) / wall)}
                if args.wrk:
                    many[f"wrk_{name}_{how}"] = time_wrk(
                        port, paths, args.clients, how == "new_connection", args.wrk,
                        proc.pid)
    finally:
        proc.terminate()
        proc.wait()
    cli, cli_cpu = time_cli(args.game, args.variant, db, positions[0], args.cli_runs)
    report = {
        "game": args.game, "variant": args.variant, "reachable": reachable,
        "http_keep_alive_ms": percentiles(keep), "http_new_connection_ms": percentiles(fresh),
        "clients": args.clients, "clients_as": "threads" if args.threads else "processes",
        "clients_nice": args.nice,
        **{f"clients_{k}_ms": v for k, v in many.items()},
        "gsolve_query_ms": percentiles(cli), "gsolve_query_cpu_ms": percentiles(cli_cpu),
        "load_average_before": load_before, "load_average": os.getloadavg(),
    }
    if args.json:
        print(json.dumps(report))
        return
    print(f"{args.game} {args.variant or ''}: {len(positions):,} random positions of "
          f"{reachable:,} reachable; load average {load_before[0]:.2f} before, "
          f"{report['load_average'][0]:.2f} after")
    n = args.clients
    rows = [("http_keep_alive_ms", "one keep-alive connection"),
            ("http_new_connection_ms", "a new connection each"),
            *((f"clients_{u}_{h}_ms", f"{n} clients, {what}, {how}")
              for u, what in (("api", "/api/query"), ("uwapi", "UWAPI URL"))
              for h, how in (("keep_alive", "keep-alive"), ("new_connection", "new conn."))),
            *((f"clients_wrk_{u}_{h}_ms", f"wrk, {n} conn., {what}, {how}")
              for u, what in (("api", "/api/query"), ("uwapi", "UWAPI URL"))
              for h, how in (("keep_alive", "keep-alive"), ("new_connection", "new conn."))
              if args.wrk),
            ("gsolve_query_ms", "gsolve query, whole command"),
            ("gsolve_query_cpu_ms", "gsolve query, its CPU (user+sys)")]
    for key, label in rows:
        r = report[key]
        extra = (f"  CPU a request: server {r['server_cpu_ms']:.3f} ms"
                 + (f", clients {r['client_cpu_ms']:.3f}" if "client_cpu_ms" in r else "")
                 + f"; {r['per_second']}/s" if "server_cpu_ms" in r else "")
        print(f"  {label:<40} p50 {r['p50']:>8.3f} ms  p90 {r['p90']:>8.3f}  "
              f"p99 {r['p99']:>8.3f}  (n={r['n']}){extra}")


if __name__ == "__main__":
    from games.base import GsolveError

    try:
        main()
    except GsolveError as e:  # an unknown game or variant: one line, not a traceback
        raise SystemExit(f"query_latency: {e}") from None
