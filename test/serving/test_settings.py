"""The parameter table, config/verifier.yaml and validation agree."""

from __future__ import annotations

import dataclasses

import pytest
import yaml

from plan_verifier.serving.settings import PARAMETERS, SPECS, Settings, SettingsError
from conftest import CONFIG

ROS_OWN = {"use_sim_time"}  # declared by rclpy itself


def config_values() -> dict:
    data = yaml.safe_load((CONFIG / "verifier.yaml").read_text(encoding="utf-8"))
    return data["/**"]["ros__parameters"]


def test_config_file_sets_exactly_the_declared_parameters_with_their_defaults():
    values = config_values()
    assert set(values) - ROS_OWN == set(SPECS)
    assert {k: v for k, v in values.items() if k not in ROS_OWN} == {p.name: p.default for p in PARAMETERS}


def test_every_parameter_is_described_and_every_settings_field_is_a_parameter():
    assert all(p.description.endswith(".") and len(p.description) > 20 for p in PARAMETERS)
    assert [f.name for f in dataclasses.fields(Settings)] == [p.name for p in PARAMETERS]


def test_each_parameter_is_read_at_one_stage():
    """Read-only: only what the process reads at start; the rest is read at configure (writable while unconfigured) or live."""
    assert {p.name for p in PARAMETERS if p.read_only} == {p.name for p in PARAMETERS if p.stage == "start"} == {"autostart", "executor_threads"}
    assert {p.name for p in PARAMETERS if p.stage == "live"} == {"level", "max_plan_attempts", "verify_timeout_s", "repair_rejected"}
    assert {"robot", "cell", "graph_uri", "graph_user", "graph_database", "graph_timeout_s", "graph_fingerprint"} <= {
        p.name for p in PARAMETERS if p.stage == "configure"}


def test_defaults_are_valid():
    settings = Settings.from_values({})
    assert settings.max_plan_attempts == 3 and settings.graph_source == "embedded"


@pytest.mark.parametrize("values, message", [
    ({"level": "EXTREME"}, "level must be one of BASIC, STANDARD, FULL"),
    ({"max_plan_attempts": 0}, "max_plan_attempts must be between 1 and 100"),
    ({"max_plan_attempts": "3"}, "max_plan_attempts must be a int"),
    ({"profile": "lenient"}, "profile must be one of"),
    ({"robot": " "}, "robot must not be empty"),
    ({"diagnostics_period_s": 0.0}, "diagnostics_period_s must be between"),
    ({"no_such_thing": 1}, "unknown parameter 'no_such_thing'"),
    ({"graph_fingerprint": "abc"}, "graph_fingerprint must be empty or a cell fingerprint"),
    ({"verification_workers": 4}, r"executor_threads \(4\) must be more than verification_workers \(4\)"),
    ({"verify_timeout_s": 0.0}, "verify_timeout_s must be between"),
])
def test_bad_values_are_named(values, message):
    with pytest.raises(SettingsError, match=message):
        Settings.from_values(values)


def test_every_problem_is_reported_at_once():
    with pytest.raises(SettingsError) as info:
        Settings.from_values({"level": "x", "executor_threads": 1})
    assert "level" in str(info.value) and "executor_threads" in str(info.value)


def test_integers_are_accepted_for_float_parameters():
    assert Settings.from_values({"graph_timeout_s": 2}).graph_timeout_s == 2.0


@pytest.mark.parametrize("values, source", [({"graph_uri": "bolt://h:7687"}, "neo4j"), ({"cell": ""}, "none"), ({}, "embedded")])
def test_graph_source(values, source):
    assert Settings.from_values(values).graph_source == source
