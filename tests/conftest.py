"""Shared fixtures: every test solves into its own temporary database root."""

import pytest


@pytest.fixture
def db(tmp_path):
    return tmp_path / "db"
