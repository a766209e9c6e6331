"""glibc's allocator, set to give every large block back to the system when it is freed.

A solve's chunk cache holds thousands of 1 MiB store chunks and drops them in another order
than it took them, beside transient buffers of every size (compressed chunks, child ranges).
glibc maps a large block on its own at first, but once one is freed it raises that
threshold to the freed block's size (up to 32 MiB), and from then on the chunks come from
the heap, where the holes they leave are kept: Connect-4 7x4 at `--memory 1.5` held 112 MiB
free in a 554 MiB heap beside a 407 MiB cache, and 8x4 at `--memory 16` went 1.8 GiB over
its budget. A fixed threshold turns the raising off (mallopt(3)).
"""

from __future__ import annotations

import ctypes

M_MMAP_THRESHOLD = -3  # glibc's <malloc.h>
LARGE = 128 << 10  # glibc's own starting threshold, kept fixed


def map_large_blocks() -> bool:
    """Blocks of LARGE bytes and more in mappings of their own, unmapped when freed; whether
    the allocator took it (not glibc, e.g. musl or macOS: nothing changes)."""
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):
        return False
    mallopt.argtypes, mallopt.restype = (ctypes.c_int, ctypes.c_int), ctypes.c_int
    return bool(mallopt(M_MMAP_THRESHOLD, LARGE))


def mapping_limit() -> int:
    """The memory mappings a process may hold (vm.max_map_count; Linux's default where it
    cannot be read). Past it a block over LARGE comes from the heap, whose holes are kept."""
    try:
        with open("/proc/sys/vm/max_map_count") as f:
            return int(f.read())
    except (OSError, ValueError):
        return 65530
