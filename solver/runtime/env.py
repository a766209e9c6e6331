"""Numbers from `GSOLVE_*` environment variables, read one way: unset or empty is the
default; anything else must be a plain number in range, or it is a GsolveError with one
line naming the variable (never a silent default, never a ValueError deep in a solve).

Every `GSOLVE_*` variable gsolve reads is a user's setting (tests/test_product_paths.py
fails on any other: tests install their pauses and faults as hooks, tests/hooked.py):

    GSOLVE_THREADS            worker threads (solver/runtime/parallel.py), a whole number >= 1
    GSOLVE_PROGRESS_SECONDS   seconds between progress lines off a terminal (progress.py)
    GSOLVE_MEMORY             the most memory a solve may use, a size (`8G`) of at least
                              MIN_MEMORY, read by parse_bytes (available_memory)
    GSOLVE_DB                 the databases' root or store URL (storage/database.py)
    GSOLVE_CACHE              compiled kernels and locks (kernels/codegen.py, storage/stores.py)
    GSOLVE_SCRATCH            a paged task's and the verifier's scratch files
                              (engine/scratch.py, methods/verify_tiers.py)
    GSOLVE_DEBUG              a traceback instead of one line on an internal error
                              (command/cli.py)
"""

from __future__ import annotations

import math
import os
import re

from games.base import GsolveError

# the GSOLVE_* variables above, the only ones gsolve reads from a user
USER_SETTINGS = ("GSOLVE_THREADS", "GSOLVE_PROGRESS_SECONDS", "GSOLVE_MEMORY", "GSOLVE_DB",
                 "GSOLVE_CACHE", "GSOLVE_SCRATCH", "GSOLVE_DEBUG")
# set by gsolve for its own processes, never by a user: the game a cluster's forkserver
# loads (engine/cluster.py, engine/forkserver.py)
HANDOFFS = ("GSOLVE_FORKSERVER_GAME",)
MIN_MEMORY = 10 << 20  # the least GSOLVE_MEMORY: less holds no solve (nor this process)
_WHOLE = re.compile(r"[0-9]+")
_REAL = re.compile(r"[0-9]+(\.[0-9]*)?|\.[0-9]+")


def env_number(name: str, default, whole: bool = False, minimum: float | None = None,
               what: str | None = None):
    """The number in $`name` (an int when `whole`), or `default` when unset or empty.

    `what` says what is expected, for the message (default: "a whole number >= minimum"
    or "a number of seconds >= minimum")."""
    text = os.environ.get(name, "")
    s = text.strip()
    if not s:
        return default
    value = None
    if (_WHOLE if whole else _REAL).fullmatch(s):
        value = int(s) if whole else float(s)
    if value is None or not math.isfinite(value) or (minimum is not None
                                                     and value < minimum):
        if what is None:
            what = "a whole number" if whole else "a number of seconds"
            if minimum is not None:
                what += f" >= {minimum:g}"
        shown = text if len(text) <= 20 else text[:17] + "..."
        raise GsolveError(f"{name}='{shown}' is not {what}")
    return value


def threads_setting() -> int | None:
    """$GSOLVE_THREADS, or None when unset."""
    return env_number("GSOLVE_THREADS", None, whole=True, minimum=1,
                      what="a positive whole number")


def progress_seconds() -> float:
    """$GSOLVE_PROGRESS_SECONDS (default 10): seconds between progress lines."""
    return env_number("GSOLVE_PROGRESS_SECONDS", 10.0, minimum=0)


def check_all() -> None:
    """Read every numeric setting, so a bad one fails before any work starts."""
    threads_setting()
    progress_seconds()


def parse_bytes(text: str, what: str) -> int:
    """'8G', '512M', '2.5GiB', '1000000' -> bytes; GsolveError otherwise."""
    m = re.fullmatch(r"\s*([0-9]*\.?[0-9]+)\s*([kmgt]?)(i?b)?\s*", text, re.IGNORECASE)
    if not m:
        raise GsolveError(f"{what}='{text[:40]}' is not a size (e.g. 8G, 512M)")
    scale = 1024 ** " kmgt".index(m.group(2).lower() or " ")
    return int(float(m.group(1)) * scale)


def memory_setting() -> int | None:
    """$GSOLVE_MEMORY in bytes, or None when unset."""
    cap = os.environ.get("GSOLVE_MEMORY")
    if not cap:
        return None
    limit = parse_bytes(cap, "GSOLVE_MEMORY")
    if limit < MIN_MEMORY:
        raise GsolveError(f"GSOLVE_MEMORY='{cap[:40]}' is less than {MIN_MEMORY >> 20}M: "
                          "too little for any solve (e.g. 8G, 512M)")
    return limit


def available_memory() -> int | None:
    """Bytes a solve may use: MemAvailable, capped by $GSOLVE_MEMORY when set."""
    have = None
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    have = int(line.split()[1]) * 1024
                    break
    except OSError:
        pass
    limit = memory_setting()
    if limit is not None:
        have = limit if have is None else min(have, limit)
    return have


def memory_source(have: int | None) -> str:
    """What `have` (available_memory's answer) is, for a message that refuses a solve:
    'available', or the GSOLVE_MEMORY setting that capped it."""
    if have is not None and memory_setting() == have:
        return f"allowed by GSOLVE_MEMORY={os.environ['GSOLVE_MEMORY'].strip()}"
    return "available"
