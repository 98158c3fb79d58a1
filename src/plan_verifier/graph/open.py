"""One factory for the graph port, used by the CLI and the ROS node alike."""

from __future__ import annotations

from pathlib import Path

from plan_verifier.graph.port import GraphPort
from plan_verifier.resources import ConfigError


def open_graph(
    *,
    cell: str | Path | None = None,
    uri: str | None = None,
    user: str | None = None,
    database: str | None = None,
    timeout_s: float = 5.0,
    strategy: str = "snapshot",
    cache_ttl_s: float = 10.0,
) -> GraphPort | None:
    """The graph the settings name, or None when they name none.

    `cell` (a shipped cell name or a YAML path) selects the embedded backend;
    `uri` (bolt://host:7687) the Neo4j backend, with the password read from
    $PLAN_VERIFIER_GRAPH_PASSWORD. Empty strings count as not given. Nothing
    is read yet: a server that is down shows up at the first snapshot, as
    R-GRF-000. Raises ConfigError for a missing/invalid cell file, a
    malformed URI, or both sources at once.
    """
    cell = str(cell).strip() if cell is not None else ""
    uri = (uri or "").strip()
    if cell and uri:
        raise ConfigError("give either a cell file or a graph URI, not both")
    if uri:
        from plan_verifier.graph.neo4j_backend import Neo4jGraph

        return Neo4jGraph(uri, user=(user or "").strip() or "neo4j", database=(database or "").strip() or None,
                          timeout_s=timeout_s, strategy=strategy, cache_ttl_s=cache_ttl_s)
    if cell:
        from plan_verifier.graph.embedded import EmbeddedGraph

        return EmbeddedGraph.from_file(cell)
    return None
