"""Where numba caches the games' and the hash's compiled functions.

numba keys a cached function by its own source file only: after an upgrade that changes
a callee (say the generic hash inlined into every game's children), a game whose file
did not change would load machine code built against the old callee and answer wrong.
So the cache folder is named after a digest of every source in games/ and hashing/:
changed sources compile afresh, unchanged ones load as before. NUMBA_CACHE_DIR, when the
user sets it, is left alone.
"""

from __future__ import annotations

import hashlib
import os
import sys
import tempfile
from pathlib import Path

_ROOT = Path(__file__).resolve().parent.parent


def source_digest() -> str:
    digest = hashlib.sha256()
    for package in ("games", "hashing"):
        for path in sorted((_ROOT / package).glob("*.py")):
            digest.update(path.name.encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def cache_base() -> Path:
    """gsolve's cache folder (compiled kernels, indices, locks of store URLs, this machine's
    speed): $GSOLVE_CACHE, else $XDG_CACHE_HOME/gsolve, else ~/.cache/gsolve."""
    env = os.environ.get("GSOLVE_CACHE")
    xdg = os.environ.get("XDG_CACHE_HOME")
    return Path(env) if env else (Path(xdg) if xdg else Path.home() / ".cache") / "gsolve"


def pin_cache_dir() -> None:
    if os.environ.get("NUMBA_CACHE_DIR"):
        return
    path = cache_base() / "numba" / source_digest()
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError:
        path = Path(tempfile.gettempdir()) / f"gsolve-{os.getuid()}" / "numba" / source_digest()
        path.mkdir(parents=True, exist_ok=True)
    os.environ["NUMBA_CACHE_DIR"] = str(path)
    if "numba" in sys.modules:  # imported before us: its config was already read
        sys.modules["numba"].config.CACHE_DIR = str(path)
