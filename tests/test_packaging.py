"""The pinned ranges of the libraries whose private calls gsolve uses: CI tests their low
ends from .ci/lowest.txt, which must name exactly pyproject.toml's lower bounds."""

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).parents[1]


def test_lowest_versions_are_pyprojects_lower_bounds():
    deps = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    lower = {}
    for dep in deps:
        m = re.fullmatch(r"([A-Za-z0-9_.-]+)(?:\[[\w,]+\])?>=([0-9.]+)(?:,<([0-9.]+))?", dep)
        assert m, dep
        lower[m.group(1)] = (m.group(2), m.group(3))
    pins = {}
    for line in (ROOT / ".ci" / "lowest.txt").read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            name, _, version = line.partition("==")
            pins[name] = version
    assert pins, ".ci/lowest.txt pins nothing"
    for name, version in pins.items():
        key = "dask" if name == "distributed" else name  # dask[distributed] pins both
        assert key in lower, f"{name} is not a dependency in pyproject.toml"
        assert version == lower[key][0], f"{name}: {version} in .ci/lowest.txt, " \
                                         f">={lower[key][0]} in pyproject.toml"
    # every dependency with an upper bound (private calls) has its low end tested
    for name, (_, upper) in lower.items():
        if upper:
            assert name in pins, f"{name} has an upper bound but no tested low end"
