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


#: The example cells the Bolt tests load, one FalkorDB server each (test/graph_server.py says why).
BOLT_CELLS = ("weld_cell", "assembly_cell")


@pytest.fixture(scope="session")
def bolt_cells(tmp_path_factory):
    """{cell name: running FalkorServer} with that cell loaded through `plan-verify graph load`."""
    from graph_server import FalkorServer

    servers = {}
    try:
        for name in BOLT_CELLS:
            server = servers[name] = FalkorServer(tmp_path_factory.mktemp(f"falkordb-{name}")).start()
            loaded = server.load(name, database=name)
            assert loaded.returncode == 0, loaded.stderr
        yield servers
    finally:
        for server in servers.values():
            server.stop()
