"""solver/storage/chunks.py: the same data and the same stored bytes as zarr's own indexing."""

import numpy as np
import pytest
import zarr

from solver.storage.chunks import ChunkArray, ChunkGroup, chunk_array
from solver.storage.database import create_array


def pair(tmp_path, dtype, scratch, n=10_000, chunk=1024):
    g = zarr.open_group(str(tmp_path / "g"), mode="w")
    a = create_array(g, "a", (n,), dtype, chunk=chunk, scratch=scratch)
    b = create_array(g, "b", (n,), dtype, chunk=chunk, scratch=scratch)
    return g, a, b


@pytest.mark.parametrize("dtype", [np.uint8, np.uint16])
@pytest.mark.parametrize("scratch", [False, True])
def test_writes_store_the_bytes_zarr_stores(tmp_path, dtype, scratch):
    g, a, b = pair(tmp_path, dtype, scratch)
    fast = ChunkArray(b)
    rng = np.random.default_rng(1)
    for lo, hi in ((0, 10_000), (500, 700), (1024, 4096), (9_990, 10_000), (3, 2050)):
        data = rng.integers(0, 200, hi - lo).astype(dtype)
        a[lo:hi] = data
        fast[lo:hi] = data
        assert np.array_equal(fast[0:10_000], a[:])
    for c in range(-(-10_000 // 1024)):  # edge chunk included: padded as zarr pads it
        assert (tmp_path / "g" / "a" / "c" / str(c)).read_bytes() == \
            (tmp_path / "g" / "b" / "c" / str(c)).read_bytes()


def test_reads_what_zarr_wrote_and_fill_where_nothing_was(tmp_path):
    g, a, _ = pair(tmp_path, np.uint8, False)
    a[2048:3000] = 7
    fast = ChunkArray(a)
    got = fast[1000:3100]
    assert np.array_equal(got, a[1000:3100])
    assert not got[:1048].any() and (got[1048:2000] == 7).all()
    assert fast[5:5].size == 0
    with pytest.raises(IndexError):
        fast[::2]


def test_damaged_chunk_fails_to_read(tmp_path):
    g, a, _ = pair(tmp_path, np.uint8, False)
    a[:] = 3
    p = tmp_path / "g" / "a" / "c" / "2"
    raw = bytearray(p.read_bytes())
    raw[len(raw) // 2] ^= 0xFF
    p.write_bytes(bytes(raw))
    with pytest.raises(Exception):  # noqa: B017 - whatever the checksum codec raises
        ChunkArray(a)[2048:2049]


@pytest.mark.parametrize("dtype", [np.uint8, np.uint16])
@pytest.mark.parametrize("scratch", [False, True])
def test_unpacked_without_zarr_as_zarr_unpacks(tmp_path, dtype, scratch):
    """gsolve's arrays (blosc and a crc32c) are unpacked straight into the result, and
    read as zarr's own codecs read them: whole chunks, parts, the edge chunk, into `out`."""
    g, a, _ = pair(tmp_path, dtype, scratch)
    a[:] = np.random.default_rng(2).integers(0, 300, 10_000).astype(dtype)
    fast = ChunkArray(a)
    assert fast._direct is True
    for lo, hi in ((0, 10_000), (1024, 2048), (1000, 3100), (9_216, 10_000), (9_999, 10_000)):
        assert np.array_equal(fast[lo:hi], a[lo:hi])
    out = np.empty(10_000 - 9 * 1024, dtype)
    assert fast.read_chunk(9, out) is out and np.array_equal(out, a[9 * 1024:])
    assert fast.read_chunk(3).flags.writeable


def test_other_codecs_are_read_through_zarr(tmp_path):
    g = zarr.open_group(str(tmp_path / "g"), mode="w")
    a = g.create_array("a", shape=(5000,), dtype=np.uint8, chunks=(1024,), compressors=None)
    a[:] = 5
    fast = ChunkArray(a)
    assert fast._direct is None
    assert (fast[1000:5000] == 5).all() and fast.read_chunk(4).flags.writeable


def test_a_sound_checksum_over_the_wrong_chunk_fails(tmp_path):
    """A chunk file of another chunk size (its checksum sound) or cut short is refused, not
    read as a chunk of this array."""
    g, a, _ = pair(tmp_path, np.uint8, True)
    other = create_array(g, "o", (10_000,), np.uint8, chunk=512, scratch=True)
    other[:] = 4
    a[:] = 3
    p = tmp_path / "g" / "a" / "c" / "2"
    p.write_bytes((tmp_path / "g" / "o" / "c" / "2").read_bytes())
    with pytest.raises(ValueError, match="chunk of 512 bytes"):
        ChunkArray(a)[2048:2049]
    q = tmp_path / "g" / "a" / "c" / "3"
    q.write_bytes(q.read_bytes()[:20])
    assert ChunkArray(a).damage(3) == "failing its checksum"


def test_group_wraps_only_the_named_arrays(tmp_path):
    g, a, b = pair(tmp_path, np.uint8, False)
    cg = ChunkGroup(g, ("a",))
    assert isinstance(cg["a"], ChunkArray) and not isinstance(cg["b"], ChunkArray)
    assert "b" in cg and cg["a"].chunks == a.chunks


def test_store_without_sync_methods_goes_through_zarr(tmp_path):
    g = zarr.open_group(zarr.storage.MemoryStore(), mode="w")
    a = create_array(g, "a", (5000,), np.uint8, chunk=1000)
    fast = chunk_array(a)
    fast[100:2500] = 9
    assert np.array_equal(a[:], fast[:5000])
    assert a[99] == 0 and a[100] == 9 and a[2499] == 9 and a[2500] == 0


def test_a_failed_write_keeps_the_old_chunk_and_leaves_no_partial_file(tmp_path, monkeypatch):
    import os

    g, a, _ = pair(tmp_path, np.uint8, False)
    fast = ChunkArray(a)
    fast[0:1024] = 5
    before = (tmp_path / "g" / "a" / "c" / "0").read_bytes()

    def full_disk(fd, data):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "write", full_disk)
    with pytest.raises(OSError):
        fast[0:1024] = 6
    monkeypatch.undo()
    assert (tmp_path / "g" / "a" / "c" / "0").read_bytes() == before
    assert sorted(p.name for p in (tmp_path / "g" / "a" / "c").iterdir()) == ["0"]
    assert (fast[0:1024] == 5).all()
