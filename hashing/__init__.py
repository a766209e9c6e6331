"""Generic hash contexts (rank, unrank, sizes) and the combinatorics under them."""

from hashing.generic import HashContext, combo_of, rank, unrank

__all__ = ["HashContext", "combo_of", "rank", "unrank"]
