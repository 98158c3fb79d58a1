"""`plan-verify replay` offline: bags made here (sqlite3 and mcap), no ROS needed."""

from __future__ import annotations

import json
import math
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from bag_factory import STANDARD_STATUSES, TOPICS, TrafficBag, example, make_bag
from rosbags.rosbag2 import Writer
from rosbags.typesys import Stores, get_typestore

from plan_verifier.cli.main import main
from plan_verifier.replay import interfaces as itf
from plan_verifier.replay.bag import BagWriter, read_bag
from plan_verifier.replay.traffic import read_traffic

ROOT = Path(__file__).resolve().parents[1]
STORAGES = ("sqlite3", "mcap")


@pytest.fixture(scope="module", params=STORAGES)
def recorded(request, tmp_path_factory) -> Path:
    """The standard traffic (approve, reject then repair, three rejections and an exhausted fourth, ...) in one storage format."""
    workdir = tmp_path_factory.mktemp(f"bag-{request.param}")
    return make_bag(workdir / "traffic", workdir, request.param)


def replay(*args: str, capsys) -> tuple[int, dict | str, str]:
    status = main(["replay", *args])
    out, err = capsys.readouterr()
    return status, (json.loads(out) if "--format" in args and out.strip() else out), err


def changed(document: dict) -> dict[str, list[tuple[str, str]]]:
    """correlation id -> [(before, now)] of the requests whose verdict changed."""
    return {task["correlation_id"]: [(r["before"]["status"], r["now"]["status"]) for r in task["requests"] if r["change"] == "verdict"]
            for task in document["tasks"] if task["change"] == "verdict"}


# --------------------------------------------------------------------------- reading bags


def test_the_bag_holds_the_recorded_answers_paired_with_their_requests(recorded):
    traffic = read_traffic(read_bag(recorded))
    assert [r.answer.status for r in traffic.requests] == STANDARD_STATUSES
    assert [r.source for r in traffic.requests].count("service") == 5
    unsafe = [r.answer for r in traffic.requests if r.request.correlation_id == "unsafe"]
    assert [(a.attempt, a.fallback) for a in unsafe] == [(1, False), (2, False), (3, True), (None, False)]
    assert traffic.states[0].position == "Pos_1" and traffic.max_attempts == 3 and traffic.unmatched_outputs == 0
    generated = traffic.requests[9]
    assert generated.request.correlation_id == "" and len(generated.answer.correlation_id) == 32


def test_type_hashes_are_those_rosidl_computes():
    """The bags' RIHS01 hashes equal the ones of the built interfaces (their type description JSON)."""
    share = Path(sys.prefix) / "share" / "plan_verifier_interfaces"
    if not share.is_dir():
        pytest.skip("plan_verifier_interfaces is not built into this environment")
    hashes = {}
    for path in [*share.glob("msg/*.json"), *share.glob("srv/*.json")]:
        hashes.update({h["type_name"]: h["hash_string"] for h in json.loads(path.read_text())["type_hashes"]})
    for typename in (itf.PLAN_REQUEST, itf.FEEDBACK, itf.APPROVED, itf.ROBOT_STATE, itf.EXECUTION_STATUS, itf.VERIFY_EVENT):
        assert itf.type_hash(typename) == hashes[typename], typename


#: The wire types of the recorded topics as bags recorded since the interfaces' first release carry them. Issue 18
#: added error-code constants only (constants are not part of the type description): same hashes, same CDR bytes, so
#: those bags still pass read_bag's hash check and decode. A change here means older bags are refused: say so.
RECORDED_HASHES = {
    itf.PLAN_REQUEST: "RIHS01_b4e0d7845ddc43764299237676aab9434ea9e5ad678a99d52ebccd3066242339",
    itf.FEEDBACK: "RIHS01_ae3de797519a69e863ca4c52c7f32a1dd58f8419d5cccf5b1c172f6757b62a1a",
    itf.APPROVED: "RIHS01_83b9f8f5cff2fdddd6359d2789fb37ba2883a8d956cf947d2d621df67af95e54",
    itf.VERIFY_EVENT: "RIHS01_07687c015d16b789d449085b1a862fef546f4f21c4b3dbc64d73544ee59f296b",
}


def test_interface_changes_keep_recorded_bags_decodable():
    assert {typename: itf.type_hash(typename) for typename in RECORDED_HASHES} == RECORDED_HASHES


# --------------------------------------------------------------------------- regressions


def test_replay_with_the_same_setup_finds_no_regression(recorded, capsys):
    status, document, err = replay(str(recorded), "--cell", "weld_cell", "--format", "json", capsys=capsys)
    assert status == 0, err
    assert document["summary"] == {"requests": 11, "same": 11, "findings": 0, "verdict": 0, "new": 0, "verifications": 10, "distinct": 6}
    assert document["storage"] in STORAGES and document["notes"] == []


def test_approvals_verified_from_the_robots_joints_replay_from_those_joints(tmp_path, capsys):
    """A node that started from /joint_states records those joints in its approvals; replay starts there, so the
    approved steps (their verified joint targets) hash the same."""
    bag = TrafficBag(tmp_path / "joints", tmp_path)
    try:
        names = list(bag.service.joint_names)  # what the robot's driver publishes (the spec's ros_name)
        bag.service.observe_joint_state(names, [math.radians(v) for v in (175, -95, 95, -90, -90, 5)], stamp_ns=bag.tick())
        bag.topic_request(example("pick_and_place.tdl"), correlation_id="joints-topic")
        bag.service_request(example("pick_and_place.tdl"), correlation_id="joints-service")
    finally:
        bag.close()
    status, document, err = replay(str(tmp_path / "joints"), "--cell", "weld_cell", "--format", "json", capsys=capsys)
    assert status == 0, err
    assert document["summary"]["requests"] == 2 and document["summary"]["same"] == 2, document


def test_a_tighter_velocity_limit_changes_exactly_the_fast_tdl_plans(recorded, tmp_path, capsys):
    spec = yaml.safe_load((ROOT / "config" / "robots" / "ur10e.yaml").read_text())
    spec["limits"] = {"velocity_mm_s": {"min": 10, "max": 150, "recommended_min": 50, "recommended_max": 100}}
    robot = tmp_path / "ur10e_slow.yaml"
    robot.write_text(yaml.safe_dump(spec))
    status, document, _ = replay(str(recorded), "--cell", "weld_cell", "--robot", str(robot), "--format", "json", capsys=capsys)
    assert status == 1
    generated = document["tasks"][5]["correlation_id"]
    assert changed(document) == {"pick": [("PASS", "FAIL")], generated: [("PASS", "FAIL")]}
    unsafe = next(t for t in document["tasks"] if t["correlation_id"] == "unsafe")
    assert unsafe["change"] == "findings"  # rejected before and after, for more reasons now
    assert {f["rule_id"] for f in unsafe["requests"][0]["added"]} == {"R-SAF-002"}


def test_removing_an_edge_from_the_cell_changes_exactly_the_plans_that_use_it(recorded, tmp_path, capsys):
    cell = yaml.safe_load((ROOT / "config" / "cells" / "weld_cell.yaml").read_text())
    cell["moves"] = [m for m in cell["moves"] if m != ["Safe_Pos_1", "Pos_1"]]
    path = tmp_path / "weld_cell_cut.yaml"
    path.write_text(yaml.safe_dump(cell))
    status, document, _ = replay(str(recorded), "--cell", str(path), "--format", "json", capsys=capsys)
    assert status == 1
    assert changed(document) == {"weld-1": [("PASS", "FAIL")]}
    now = document["tasks"][0]["requests"][0]["now"]
    assert [f["rule_id"] for f in now["findings"]] == ["R-GRF-002"]
    assert any("checked against graph" in note for note in document["notes"])


def test_text_table_lists_each_correlation_id_and_the_changes(recorded, tmp_path, capsys):
    cell = yaml.safe_load((ROOT / "config" / "cells" / "weld_cell.yaml").read_text())
    cell["moves"] = [m for m in cell["moves"] if m != ["Safe_Pos_1", "Pos_1"]]
    path = tmp_path / "cut.yaml"
    path.write_text(yaml.safe_dump(cell))
    status, out, _ = replay(str(recorded), "--cell", str(path), capsys=capsys)
    assert status == 1
    lines = out.splitlines()
    assert lines[0].startswith(f"replay of {recorded} (") and "11 requests (6 topic, 5 service)" in lines[0]
    weld = next(line for line in lines if line.startswith("weld-1 "))
    assert weld.split()[-2:] == ["VERDICT", "CHANGED"]
    assert "    request 1 (topic): PASS -> FAIL" in lines
    assert lines[-1] == "summary: 11 requests: 10 same, 1 verdicts changed, 0 findings changed, 0 without an earlier answer"
    _, only, _ = replay(str(recorded), "--cell", str(path), "--changes-only", capsys=capsys)
    assert not any(line.startswith("unsafe ") for line in only.splitlines())


def test_accept_writes_a_baseline_that_later_replays_compare_with(recorded, tmp_path, capsys):
    bag = tmp_path / "bag"
    shutil.copytree(recorded, bag)
    cell = yaml.safe_load((ROOT / "config" / "cells" / "weld_cell.yaml").read_text())
    cell["moves"] = [m for m in cell["moves"] if m != ["Safe_Pos_1", "Pos_1"]]
    cut = tmp_path / "cut.yaml"
    cut.write_text(yaml.safe_dump(cell))
    status, _, err = replay(str(bag), "--cell", str(cut), "--accept", capsys=capsys)
    assert status == 0 and f"baseline {bag}.baseline.json" in err
    baseline = json.loads(Path(f"{bag}.baseline.json").read_text())
    assert baseline["answers"][0]["status"] == "FAIL" and baseline["robot"] == "ur10e"

    status, document, _ = replay(str(bag), "--cell", str(cut), "--format", "json", capsys=capsys)
    assert status == 0 and document["compared_with"].startswith(f"the baseline {bag}.baseline.json")
    assert document["summary"]["same"] == 11
    status, document, _ = replay(str(bag), "--cell", "weld_cell", "--format", "json", capsys=capsys)
    assert status == 1 and changed(document) == {"weld-1": [("FAIL", "PASS")]}


def test_a_baseline_of_other_requests_is_refused(recorded, tmp_path, capsys):
    other = TrafficBag(tmp_path / "other", tmp_path)
    other.topic_request(example("weld_seam_1.json"), correlation_id="only")
    other.close()
    assert replay(str(tmp_path / "other"), "--cell", "weld_cell", "--accept", capsys=capsys)[0] == 0
    status, _, err = replay(str(recorded), "--cell", "weld_cell", "--baseline", f"{tmp_path / 'other'}.baseline.json", capsys=capsys)
    assert status == 2 and "belongs to other requests" in err and len(err.strip().splitlines()) == 1


def test_parallel_replay_gives_the_serial_answers(tmp_path, capsys):
    bag = TrafficBag(tmp_path / "many", tmp_path)
    program = example("pick_and_place.tdl")
    for i in range(70):  # distinct plans: above the threshold where workers are used
        bag.topic_request(program.replace("velocity=200", f"velocity={120 + 15 * i}"), correlation_id=f"task-{i}")
    bag.close()
    serial = replay(str(tmp_path / "many"), "--jobs", "1", "--format", "json", capsys=capsys)
    parallel = replay(str(tmp_path / "many"), "--jobs", "2", "--format", "json", capsys=capsys)
    assert serial == parallel and serial[0] == 0
    assert serial[1]["summary"]["distinct"] == 70
    assert {t["requests"][0]["now"]["status"] for t in serial[1]["tasks"]} == {"PASS", "PARTIAL", "FAIL"}


# --------------------------------------------------------------------------- bags that cannot be used: one line, exit 2


def _one_line_error(capsys, *args: str) -> str:
    status = main(["replay", *args])
    out, err = capsys.readouterr()
    assert status == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
    return err


@pytest.mark.parametrize("storage", STORAGES)
def test_corrupt_and_truncated_bags(tmp_path, capsys, storage):
    bag = make_bag(tmp_path / "bag", tmp_path, storage)
    (data,) = [p for p in bag.iterdir() if p.suffix in (".db3", ".mcap")]
    original = data.read_bytes()
    data.write_bytes(original[: len(original) // 2])
    assert "corrupt or truncated bag" in _one_line_error(capsys, str(bag))
    data.write_bytes(b"\x00garbage" * 4000)
    assert "corrupt or truncated bag" in _one_line_error(capsys, str(bag))


def test_a_bag_without_metadata_is_read_through_its_storage_file(tmp_path, capsys):
    bag = make_bag(tmp_path / "bag", tmp_path, "mcap")
    (bag / "metadata.yaml").unlink()
    assert "no metadata.yaml" in _one_line_error(capsys, str(bag), "--cell", "weld_cell")
    (data,) = bag.glob("*.mcap")
    assert main(["replay", str(data), "--cell", "weld_cell"]) == 0


def test_unknown_message_type_on_a_verifier_topic(tmp_path, capsys):
    store = get_typestore(Stores.ROS2_KILTED)
    with Writer(tmp_path / "bag", version=9) as writer:
        connection = writer.add_connection(TOPICS.plan_requests, "std_msgs/msg/String", typestore=store)
        writer.write(connection, 1, store.serialize_cdr(store.types["std_msgs/msg/String"](data="GOAL x() {}"), "std_msgs/msg/String"))
    err = _one_line_error(capsys, str(tmp_path / "bag"))
    assert "unknown message type" in err and "std_msgs/msg/String" in err


def test_another_definition_of_our_type_is_an_unknown_type(tmp_path, capsys):
    with Writer(tmp_path / "bag", version=9) as writer:
        writer.add_connection(TOPICS.plan_requests, itf.PLAN_REQUEST, msgdef="string plan\n", rihs01="RIHS01_" + "0" * 64)
    assert "another definition" in _one_line_error(capsys, str(tmp_path / "bag"))


def test_missing_topics(tmp_path, capsys):
    with BagWriter(tmp_path / "states", "sqlite3") as bag:
        bag.add_topic("/robot_state", itf.ROBOT_STATE)
        bag.write("/robot_state", 1, itf.new(itf.ROBOT_STATE, position="Home", tool="none"))
    assert "missing topic" in _one_line_error(capsys, str(tmp_path / "states"))
    with BagWriter(tmp_path / "requests_only", "mcap") as bag:
        bag.add_topic(TOPICS.plan_requests, itf.PLAN_REQUEST)
        bag.write(TOPICS.plan_requests, 1, itf.new(itf.PLAN_REQUEST, plan=example("pick_and_place.tdl"), correlation_id="x"))
    assert "no recorded answers" in _one_line_error(capsys, str(tmp_path / "requests_only"))
    assert main(["replay", str(tmp_path / "requests_only"), "--accept"]) == 0  # a baseline can start from requests alone
    assert "1 without an earlier answer" in capsys.readouterr().out
    assert "no such bag" in _one_line_error(capsys, str(tmp_path / "nothing"))


def test_several_nodes_need_a_choice(tmp_path, capsys):
    with BagWriter(tmp_path / "two", "sqlite3") as bag:
        for node in ("/a/plan_verifier", "/b/plan_verifier"):
            bag.add_topic(f"{node}/plan_requests", itf.PLAN_REQUEST)
    assert "choose one with --node" in _one_line_error(capsys, str(tmp_path / "two"))


def test_offline_replay_does_not_import_rclpy(recorded):
    code = ("import sys; from plan_verifier.cli.main import main; "
            f"status = main(['replay', {str(recorded)!r}, '--cell', 'weld_cell']); "
            "assert 'rclpy' not in sys.modules, 'rclpy imported'; sys.exit(status)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
