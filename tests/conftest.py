"""Shared fixtures: every test solves into its own temporary database root; a game test
module names the variant it solves whole and its reference rules, and gets both here."""

import pytest
from checks import reference_table

from hashing.jit import returning_arrays


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
