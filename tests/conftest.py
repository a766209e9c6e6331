"""Shared fixtures: every test solves into its own temporary database root; a game test
module names the variant it solves whole and its reference rules, and gets both here."""

import atexit
import os
import shutil
import tempfile
from pathlib import Path

import pytest

from hashing.numba_cache import cache_base  # (pins numba's cache folder: the user's)

MARKER = ".gsolve-tests"


def _own_cache() -> None:
    """The suite keeps a cache folder of its own, so its tiny solves never become the
    speed this machine's plans read (speed.json) nor leave locks or indices behind; the
    compiled kernels are the user's (numba's folder is pinned above, the generated modules
    and indices linked in), so nothing compiles twice. Workers and the processes a test
    starts inherit it; the process that made it removes it."""
    base = cache_base()
    if (base / MARKER).exists():
        return
    own = Path(tempfile.mkdtemp(prefix="gsolve-tests-cache-"))
    (own / MARKER).touch()
    for name in ("kernels", "index"):
        (base / name).mkdir(parents=True, exist_ok=True)
        (own / name).symlink_to((base / name).resolve(), target_is_directory=True)
    os.environ["GSOLVE_CACHE"] = str(own)
    atexit.register(shutil.rmtree, own, True)


_own_cache()

from checks import reference_table  # noqa: E402

from hashing.jit import returning_arrays  # noqa: E402

_report = []  # the compile report's module, where GSOLVE_COMPILE_REPORT names a folder


def pytest_configure(config):
    """GSOLVE_COMPILE_REPORT=DIR: every numba compile of each test process written to DIR
    (tests/compile_report.py; an environment variable, so xdist's workers and the
    processes a test starts inherit it)."""
    where = os.environ.get("GSOLVE_COMPILE_REPORT")
    if where:
        import compile_report

        compile_report.start(where)
        _report.append(compile_report)


def pytest_runtest_logstart(nodeid, location):
    for report in _report:
        report.at_test(nodeid)


@pytest.fixture(scope="module", autouse=True)
def rules_return_no_array():
    """After each test file: no rule compiled without reference counts (hashing/jit.py)
    returns an array, among all the file compiled."""
    yield
    assert not returning_arrays()[1]


@pytest.fixture
def db(tmp_path):
    return tmp_path / "db"


@pytest.fixture(scope="module")
def small(request):
    """The game variant a test module solves whole: its SMALL = (game class, variant)."""
    cls, variant = request.module.SMALL
    return cls(**variant)


@pytest.fixture(scope="module")
def table(request):
    """The reference solver's table of that variant: the module's REFERENCE = (reference
    rules class, its arguments...)."""
    return reference_table(*request.module.REFERENCE)
