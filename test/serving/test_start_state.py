"""Start state: request fields, else ~/robot_state, else robot_state.db, else the cell."""

from __future__ import annotations

import sqlite3

import pytest

from plan_verifier.serving.start_state import StartStateSource, StateDbError, read_state_db


def make_db(path, rows, table="robot_state"):
    with sqlite3.connect(path) as db:
        db.execute(f"CREATE TABLE {table} (id INTEGER PRIMARY KEY, current_position TEXT, current_tool TEXT, updated TEXT)")
        db.executemany(f"INSERT INTO {table} (current_position, current_tool) VALUES (?, ?)", rows)
    return path


def test_nothing_known_leaves_the_cell_in_charge():
    choice = StartStateSource().resolve(None, None)
    assert (choice.position, choice.tool, choice.position_source, choice.tool_source) == (None, None, "cell", "cell")


def test_request_fields_win_field_by_field(tmp_path):
    source = StartStateSource(make_db(tmp_path / "robot_state.db", [("Pos_1", "Welder")]))
    source.observe("Safe_Pos_2", "Camera")
    choice = source.resolve("Home", None)
    assert (choice.position, choice.position_source) == ("Home", "request")
    assert (choice.tool, choice.tool_source) == ("Camera", "robot_state")


def test_latest_robot_state_is_used_before_the_database(tmp_path):
    source = StartStateSource(make_db(tmp_path / "robot_state.db", [("Pos_1", "Welder")]))
    source.observe("Safe_Pos_1", "none")
    source.observe("Safe_Pos_2", "Camera")
    choice = source.resolve(None, None)
    assert choice.to_dict() == {"position": "Safe_Pos_2", "position_source": "robot_state", "tool": "Camera", "tool_source": "robot_state"}


def test_database_fills_what_is_still_missing(tmp_path):
    source = StartStateSource(make_db(tmp_path / "robot_state.db", [("Pos_1", "Welder")]))
    source.observe("Safe_Pos_1", "")
    choice = source.resolve(None, None)
    assert (choice.position, choice.position_source, choice.tool, choice.tool_source) == ("Safe_Pos_1", "robot_state", "Welder", "robot_state_db")


def test_database_is_read_again_for_every_verification(tmp_path):
    path = make_db(tmp_path / "robot_state.db", [("Home", "none")])
    source = StartStateSource(path)
    assert source.resolve(None, None).position == "Home"
    with sqlite3.connect(path) as db:
        db.execute("UPDATE robot_state SET current_position = 'Pos_1', current_tool = 'Welder'")
    assert (source.resolve(None, None).position, source.resolve(None, None).tool) == ("Pos_1", "Welder")


def test_table_is_found_by_its_columns_and_an_empty_tool_means_none(tmp_path):
    path = make_db(tmp_path / "state.db", [("Home", None)], table="state")
    assert read_state_db(path) == ("Home", "none")


@pytest.mark.parametrize("setup, message", [
    (lambda p: None, "does not exist"),
    (lambda p: p.write_bytes(b"this is not sqlite" * 100), "robot state database"),
    (lambda p: sqlite3.connect(p).execute("CREATE TABLE other (x TEXT)").connection.commit(), "no table with columns"),
    (lambda p: make_db(p, []), "empty"),
])
def test_an_unreadable_database_is_an_error_not_a_guess(tmp_path, setup, message):
    path = tmp_path / "robot_state.db"
    setup(path)
    with pytest.raises(StateDbError, match=message):
        StartStateSource(path).resolve(None, None)


def test_an_unreadable_database_is_not_consulted_when_the_request_says_everything(tmp_path):
    choice = StartStateSource(tmp_path / "missing.db").resolve("Home", "none")
    assert (choice.position, choice.tool) == ("Home", "none")
