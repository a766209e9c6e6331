"""What binds a database to what its solve wrote: the record of its chunk files, each
chunk's digest and the digest of the attributes readers trust (written by
solver/storage/writing.py `seal`, checked by solver/storage/database.py on open and read)."""

from __future__ import annotations

import hashlib
import json

import numpy as np

from games.base import Game
from solver.kernels.numbering import INDEX
from solver.storage import stores
from solver.storage.stores import Location

ARRAYS = ("value", "remoteness")


def present_chunks(array_dir: Location) -> list[int]:
    """Indices of the chunk files of a 1-D array, from one directory listing."""
    return sorted(int(x) for x in stores.listdir(array_dir / "c") if x.isdigit())


def runs(idx: list[int]) -> list[list[int]]:
    """[[first, stop), ...] of consecutive indices: compact for the usual dense listing."""
    out: list[list[int]] = []
    for i in idx:
        if out and out[-1][1] == i:
            out[-1][1] = i + 1
        else:
            out.append([i, i + 1])
    return out


DIGESTS = "digests"  # the array of chunk digests (see chunk_digest)


def chunk_digest(game: Game, name: str, c: int, crc: bytes) -> int:
    """A chunk file's digest: the crc32c its codec stored (its last 4 bytes, over its
    compressed data) bound to its game, variant, array and index, so a chunk file moved,
    swapped or copied from another database fails the record although its own checksum
    holds. Never 0 (0 records that no file was written)."""
    import google_crc32c  # zarr's own crc32c

    where = f"{game.name}/{game.variant_key}/{name}/{c}:".encode()
    return int(google_crc32c.value(where + bytes(crc))) or 1


ATTRIBUTES_DIGEST = "attributes_digest"  # the digest of BOUND and the arrays' metadata


# the attributes readers trust (what "already solved" prints, how the arrays are numbered,
# what the chunks and their digests are), sealed by ATTRIBUTES_DIGEST; the others (times,
# runs, version) are the solve's story, not answers
BOUND = ("format", "game", "variant", "variant_key", "hash_size", "index", "stored",
         "index_digest", "symmetry", "method", "positions", "values", "start_value",
         "start_remoteness", "max_remoteness", "chunks", "digests")


def bound_arrays(attrs: dict) -> tuple[str, ...]:
    """The arrays whose metadata (shape, chunks, type, fill) ATTRIBUTES_DIGEST binds."""
    return (*ARRAYS, DIGESTS, *((INDEX,) if attrs.get("index") == "canonical" else ()))


def attributes_digest(game: Game, attrs: dict, arrays: dict, digests: np.ndarray) -> str:
    """SHA-256 of a canonical JSON of the BOUND attributes (those present), the metadata of
    `arrays` (name to zarr array: the remoteness type among it) and the chunk digests'
    bytes, bound to the game and variant like chunk_digest: an edited attribute, a changed
    chunk shape or a database copied from another variant fails it."""
    meta = {n: {"shape": [int(x) for x in a.shape], "chunks": [int(x) for x in a.chunks],
                "dtype": np.dtype(a.dtype).name, "fill_value": int(a.fill_value)}
            for n, a in arrays.items()}
    body = {"attributes": {k: attrs[k] for k in BOUND if k in attrs}, "arrays": meta,
            "digests": hashlib.sha256(np.ascontiguousarray(digests, "<u4").tobytes()
                                      ).hexdigest()}
    text = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=True,
                      allow_nan=False)
    return hashlib.sha256(f"{game.name}/{game.variant_key}:{text}".encode()).hexdigest()


def chunk_damage(path: Location, attrs: dict, chunk: int,
                 names: tuple[str, ...] = ARRAYS) -> list[tuple[str, int, str]]:
    """(array, chunk index, what) for each chunk file missing or unexpected against the
    record: a directory listing per array, no chunk read."""
    record = attrs.get("chunks")
    if not isinstance(record, dict):
        return [(n, -1, "no record of its chunks") for n in names]
    out = []
    for n in names:
        want = {i for a, b in record.get(n, []) for i in range(a, b)}
        have = set(present_chunks(path / n))
        out += [(n, i, "missing") for i in sorted(want - have)]
        out += [(n, i, "not written by the solve") for i in sorted(have - want)]
    return out
