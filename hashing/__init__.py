"""Generic hash contexts (rank, unrank, sizes) and the combinatorics under them."""

from hashing.numba_cache import pin_cache_dir

pin_cache_dir()  # before any of our numba functions is defined

from hashing.numba_inline import share_inline_copies  # noqa: E402

share_inline_copies()  # before any of them compiles

from hashing.generic import HashContext, combo_of, rank, unrank  # noqa: E402

__all__ = ["HashContext", "combo_of", "rank", "unrank"]
