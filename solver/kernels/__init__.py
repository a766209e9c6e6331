"""Kernel templates: numba sweeps written against the game API's fixed global names.

These files are not imported directly; `solver.kernels.codegen.kernels` binds one to a game.
"""
