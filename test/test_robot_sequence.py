"""The approved-actions format's typed model: what it writes is what it reads back, and what it cannot read it says."""

from __future__ import annotations

import pytest
import yaml

from plan_verifier.robot_sequence import (ActionStep, FormatError, RobotSequence, Verification, VerifiedMotion, ViaPoint,
                                          steps_sha256)

MOTION = VerifiedMotion((170, -90, 90, -90, -90, 0.5), 1.25, "linear", (ViaPoint(0.5, (175, -90, 90, -90, -90, 0.25)),))


def _sequence(verified: VerifiedMotion | None = MOTION) -> RobotSequence:
    steps = (ActionStep.build({"id": 1, "command": "MoveLinear", "args": {"target_pose": {"PosX": [500, 0, 400, 0, 180, 0]}},
                               "verified": {"joints_deg": [0] * 6, "duration_s": 9}}, verified),
             ActionStep.build({"id": 2, "name": "Weld", "action": "routine", "target": "tack_weld", "extra": [1, "two"]}))
    sequence = RobotSequence("Robot Sequence", "", steps)
    verification = Verification(sha256=sequence.steps_sha256(), verifier_id="plan_verifier/x", correlation_id="c", robot="ur10e",
                                timestamp="T", verdict="PASS", plan_format="tdl", start_joints_deg=(180, -90, 90, -90, -90, 0),
                                start_joints_source="home", cycle_time_s=1.25)
    return RobotSequence(sequence.name, sequence.description, sequence.steps, verification)


def test_written_then_read_gives_the_same_model() -> None:
    written = _sequence()
    text = written.to_yaml()
    read = RobotSequence.read(text)
    assert read.steps[0].verified == MOTION and read.steps[0].command == "MoveLinear" and read.steps[1].command is None
    assert read.steps[0].fields["verified"] == MOTION.to_yaml()  # this verification's block replaced the old one, last
    assert list(read.steps[0].fields) == ["id", "command", "args", "verified"]
    assert read.steps[1].fields == written.steps[1].fields and not read.steps[1].has_verified
    assert read.verification == written.verification and read.steps_sha256() == written.steps_sha256()
    assert list(yaml.safe_load(text)["RobotSequence"]) == ["name", "description", "steps", "verification"]


def test_steps_written_back_unapproved_carry_no_verification() -> None:
    text = RobotSequence("n", "d", _sequence().steps).to_yaml()
    assert "verification" not in yaml.safe_load(text)["RobotSequence"]
    assert RobotSequence.read(text).verification is None


def test_without_a_simulation_the_verification_has_no_start() -> None:
    block = Verification(sha256="s", robot="ur10e").to_yaml()
    assert list(block) == ["verifier_id", "correlation_id", "robot", "graph_fingerprint", "timestamp", "verdict", "plan_format", "sha256"]


@pytest.mark.parametrize("block, why", [
    ("home", "not a mapping"),
    ({"joints_deg": "home", "duration_s": 1}, "not a mapping with joints_deg"),
    ({"joints_deg": [], "duration_s": 1}, "not a mapping with joints_deg"),
    ({"joints_deg": [1, float("nan")], "duration_s": 1}, "not a mapping with joints_deg"),
    ({"joints_deg": [1, True], "duration_s": 1}, "not a mapping with joints_deg"),
    ({"joints_deg": [1, 2], "duration_s": "1"}, "not a mapping with joints_deg"),
    ({"joints_deg": [1, 2], "duration_s": -1}, "duration_s is negative"),
    ({"joints_deg": [1, 2], "duration_s": 1, "path": 3}, "path is not a string"),
    ({"joints_deg": [1, 2], "duration_s": 1, "via": {"t_s": 0}}, "via is not a list"),
    ({"joints_deg": [1, 2], "duration_s": 1, "via": [{"t_s": 0.5}]}, "via point 1"),
    (None, "not a mapping"),
])
def test_a_verified_block_that_cannot_be_read_says_why(block, why) -> None:
    with pytest.raises(FormatError, match=why):
        VerifiedMotion.from_yaml(block)
    step = ActionStep.from_yaml({"id": 1, "command": "MoveJoint", "verified": block})
    assert step.has_verified and step.verified is None and why in step.unreadable


def test_a_verified_block_without_path_or_via_reads() -> None:
    assert VerifiedMotion.from_yaml({"joints_deg": [1, 2.5], "duration_s": 0}) == VerifiedMotion((1.0, 2.5), 0.0)


@pytest.mark.parametrize("text, why", [
    ("RobotSequence: [", "cannot read the actions YAML: "),
    ("steps: []", "no RobotSequence with steps"),
    ("RobotSequence: {steps: {a: 1}}", "no RobotSequence with steps"),
    ("RobotSequence: {steps: [{id: 1}, 3]}", "step 2 is not a mapping"),
])
def test_what_is_not_an_actions_file_is_refused(text, why) -> None:
    with pytest.raises(FormatError, match=why):
        RobotSequence.read(text)


def test_a_verification_of_the_wrong_types_reads_as_unknown_values() -> None:
    read = Verification.from_yaml({"sha256": 5, "robot": "ur10e", "start_joints_deg": [1, "x"], "cycle_time_s": float("inf")})
    assert read == Verification(sha256=None, robot="ur10e")
    assert Verification.from_yaml("no") is None


def test_the_hash_is_of_the_steps_as_written() -> None:
    sequence = _sequence()
    assert sequence.steps_sha256() == steps_sha256(yaml.safe_load(sequence.to_yaml())["RobotSequence"]["steps"])
    assert sequence.steps_sha256() != _sequence(None).steps_sha256()  # the verified block is inside the hash
