"""`python -m solver ...` runs the `gsolve` command."""

from solver.command.console import entry

entry()
