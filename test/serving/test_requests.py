"""Request metadata checks: client bugs are BAD_REQUEST, plan problems are left to the report."""

from __future__ import annotations

import pytest
from conftest import ROOT

from plan_verifier.serving.requests import ErrorCode, RequestError, VerifyRequest, check_request, safe_correlation_id


def test_empty_fields_take_defaults_and_an_id_is_generated():
    checked = check_request(VerifyRequest(plan="GOAL Main() { End(); }"))
    assert (checked.plan_format, checked.level, checked.instruction, checked.start_position, checked.start_tool) == ("auto", None, None, None, None)
    assert checked.generated_id and len(checked.correlation_id) == 32
    assert check_request(VerifyRequest(plan="")).correlation_id != checked.correlation_id


def test_values_are_normalised():
    checked = check_request(VerifyRequest(plan="x", correlation_id=" t-1 ", plan_format="JSON", level="full", start_position=" Home "))
    assert (checked.correlation_id, checked.plan_format, checked.level, checked.start_position, checked.generated_id) == ("t-1", "json", "FULL", "Home", False)


@pytest.mark.parametrize("plan", ["", " ", "x" * (5 << 20), "\ufffd\ufffd"])
def test_the_plan_itself_is_never_a_bad_request(plan):
    assert check_request(VerifyRequest(plan=plan)).plan == plan


@pytest.mark.parametrize("fields, message", [
    ({"plan_format": "xml"}, "unknown plan_format 'xml'"),
    ({"level": "PARANOID"}, "unknown level 'PARANOID'"),
    ({"correlation_id": "a" * 129}, "correlation_id is longer than 128"),
    ({"correlation_id": "bad\ufffdid"}, "not UTF-8"),
    ({"correlation_id": "line\nbreak"}, "control characters"),
    ({"start_position": "Home\x00"}, "start_position is not a usable name"),
    ({"start_tool": "\ufffd"}, "start_tool is not a usable name"),
    ({"instruction": "x" * (64 * 1024 + 1)}, "instruction is longer"),
    ({"attempt": -1}, "attempt must be 0"),
])
def test_bad_metadata_is_a_bad_request(fields, message):
    with pytest.raises(RequestError, match=message) as info:
        check_request(VerifyRequest(plan="GOAL Main() { End(); }", **fields))
    assert info.value.code is ErrorCode.BAD_REQUEST


def test_error_codes_match_the_service_definition():
    text = (ROOT / "msg" / "srv" / "VerifyPlan.srv").read_text()
    for code in ErrorCode:
        assert f"uint8 ERROR_{code.name}={code.value}" in text


@pytest.mark.parametrize("raw, echoed", [
    (" ok ", "ok"),
    ("task-8", "task-8"),
    ("bad\nid", "bad\\nid"),
    ("bell\x07", "bell\\x07"),
    ("not\ufffdutf8", "not\\ufffdutf8"),
    ("t" * 129, "t" * 128),
    ("\x00" * 100, "\\x00" * 32),
])
def test_refused_correlation_ids_are_echoed_escaped_and_cut(raw, echoed):
    """An answer can always be matched to its request: a usable id as it is, an unusable one escaped (printable) and cut."""
    assert safe_correlation_id(raw) == echoed
    assert safe_correlation_id(raw).isprintable() and len(safe_correlation_id(raw)) <= 128
