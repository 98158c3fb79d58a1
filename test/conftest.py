"""Shared test fixtures and paths."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
TEST_DIR = ROOT / "test"
CORPUS = TEST_DIR / "corpus" / "tdl"
FIXTURES = TEST_DIR / "fixtures"
CONFIG = ROOT / "config"


@pytest.fixture(scope="session")
def corpus_dir() -> Path:
    return CORPUS
