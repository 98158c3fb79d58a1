"""The optional llm grader: seed 000's two-stage review over a chat-completions API.

Any OpenAI-compatible endpoint works (OpenAI, vLLM, llama.cpp, Ollama ...):
`review` POSTs the seed's quick prompt, and the detailed prompt when the
quick answer's confidence is below 80, with the standard library only. The
API key, if the server needs one, comes from `PLAN_VERIFIER_LLM_API_KEY`.

The model is an extra opinion, never the last word (seed 004 §0.1, §4.2):
its issues become R-SEM-006 findings next to the deterministic rules'
findings, which always stand, so it can add a finding and never remove one.
When the model cannot answer — a timeout, a refused connection, an answer
that is not the JSON the prompt asks for — the review says why (seed 004
§4.4: `tool_timeout`, `tool_failure`, `tool_output_invalid`) and R-SEM-000
reports it, which makes the outcome UNKNOWN.
"""

from __future__ import annotations

import json
import os
import re
import threading
import urllib.error
import urllib.request
from dataclasses import dataclass
from typing import Any

from plan_verifier.options import LLM_API_KEY_ENV, LLM_DEFAULT_MODEL, LLM_DEFAULT_TIMEOUT_S, GraderOptions
from plan_verifier.semantic import prompts

#: Answers larger than this are not a verdict (and are not read further).
MAX_ANSWER_BYTES = 1 << 20
_SECTIONS = ("object_validation", "action_validation", "spatial_validation", "temporal_validation", "safety_validation")
_FENCE = re.compile(r"^```(?:json)?\s*|\s*```$", re.IGNORECASE)


class LlmError(Exception):
    """The model gave no usable answer; `reason_code` is seed 004's name for why."""

    def __init__(self, reason_code: str, message: str) -> None:
        super().__init__(message)
        self.reason_code = reason_code


@dataclass(frozen=True)
class ChatClient:
    """One chat-completions endpoint. `url` is the full endpoint or a base ending in /v1."""

    url: str
    model: str = LLM_DEFAULT_MODEL
    timeout_s: float = LLM_DEFAULT_TIMEOUT_S

    @property
    def endpoint(self) -> str:
        url = self.url.rstrip("/")
        return url if url.endswith("/chat/completions") else url + "/chat/completions"

    def complete(self, prompt: str) -> str:
        """The assistant message for one user prompt, within `timeout_s` overall."""
        body = json.dumps({"model": self.model, "temperature": 0,
                           "messages": [{"role": "user", "content": prompt}]}).encode("utf-8")
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        key = os.environ.get(LLM_API_KEY_ENV)
        if key:
            headers["Authorization"] = f"Bearer {key}"
        request = urllib.request.Request(self.endpoint, data=body, headers=headers, method="POST")
        result: dict[str, Any] = {}
        worker = threading.Thread(target=self._post, args=(request, result), daemon=True)
        worker.start()
        worker.join(self.timeout_s)
        if worker.is_alive() or isinstance(result.get("error"), TimeoutError):
            raise LlmError("tool_timeout", f"no answer from {self.endpoint} within {self.timeout_s:g} s")
        if "error" in result:
            raise result["error"]
        return _message(result["body"])

    def _post(self, request: urllib.request.Request, result: dict[str, Any]) -> None:
        """Runs in a worker thread so that a slow server cannot hold the verification past the deadline."""
        try:
            with urllib.request.urlopen(request, timeout=self.timeout_s) as response:
                result["body"] = response.read(MAX_ANSWER_BYTES + 1)
        except TimeoutError as exc:  # socket.timeout is TimeoutError
            result["error"] = exc
        except urllib.error.HTTPError as exc:
            result["error"] = LlmError("tool_failure", f"{self.endpoint} answered HTTP {exc.code} {exc.reason}")
        except urllib.error.URLError as exc:
            if isinstance(exc.reason, TimeoutError):
                result["error"] = exc.reason
            else:
                result["error"] = LlmError("tool_failure", f"cannot reach {self.endpoint}: {exc.reason}")
        except Exception as exc:  # noqa: BLE001 - any transport failure is a tool failure, reported not raised
            result["error"] = LlmError("tool_failure", f"request to {self.endpoint} failed: {exc.__class__.__name__}: {exc}")


def _message(body: bytes) -> str:
    if len(body) > MAX_ANSWER_BYTES:
        raise LlmError("tool_output_invalid", "answer too large to be a chat completion")
    try:
        data = json.loads(body.decode("utf-8"))
        content = data["choices"][0]["message"]["content"]
    except (UnicodeDecodeError, json.JSONDecodeError, KeyError, IndexError, TypeError) as exc:
        raise LlmError("tool_output_invalid", f"not a chat-completions answer ({exc.__class__.__name__})") from None
    if not isinstance(content, str):
        raise LlmError("tool_output_invalid", "the answer has no text content")
    return content


def parse_json_answer(content: str) -> dict[str, Any]:
    """The JSON object the prompt asks for, tolerating code fences and text around it."""
    text = _FENCE.sub("", content.strip())
    candidates = [text]
    if "{" in text and "}" in text:
        candidates.append(text[text.index("{"): text.rindex("}") + 1])
    for candidate in candidates:
        try:
            value = json.loads(candidate)
        except json.JSONDecodeError:
            continue
        if isinstance(value, dict):
            return value
    raise LlmError("tool_output_invalid", "the model's answer is not a JSON object")


def _verdict(data: dict[str, Any], key: str) -> tuple[str, float]:
    verdict = data.get(key)
    confidence = data.get("confidence")
    if not isinstance(verdict, str) or verdict.strip().upper() not in ("PASS", "FAIL"):
        raise LlmError("tool_output_invalid", f"'{key}' must be PASS or FAIL, got {verdict!r}")
    if isinstance(confidence, bool) or not isinstance(confidence, (int, float)) or not 0 <= confidence <= 100:
        raise LlmError("tool_output_invalid", f"'confidence' must be a number from 0 to 100, got {confidence!r}")
    return verdict.strip().upper(), float(confidence)


@dataclass(frozen=True, slots=True)
class ReviewIssue:
    """One aspect the model says the plan gets wrong."""

    section: str  # quick | object | action | spatial | temporal | safety
    message: str
    confidence: float  # the model's confidence / 100
    suggestion: str | None = None


@dataclass(frozen=True, slots=True)
class Review:
    verdict: str | None  # PASS | FAIL | None (no usable answer)
    confidence: float
    issues: tuple[ReviewIssue, ...] = ()
    unavailable: tuple[str, str] | None = None  # (seed 004 reason code, message)


def quick_issues(data: dict[str, Any]) -> tuple[str, float, list[ReviewIssue]]:
    verdict, confidence = _verdict(data, "verdict")
    reason = str(data.get("brief_reason") or "no reason given")
    issues = [ReviewIssue("quick", f"LLM review: {reason}", confidence / 100)] if verdict == "FAIL" else []
    return verdict, confidence, issues


def detailed_issues(data: dict[str, Any]) -> tuple[str, float, list[ReviewIssue]]:
    verdict, confidence = _verdict(data, "overall_verdict")
    analysis = data.get("detailed_analysis") or {}
    if not isinstance(analysis, dict):
        raise LlmError("tool_output_invalid", "'detailed_analysis' must be an object")
    suggestions = [str(s) for s in data.get("suggestions") or [] if s]
    suggestion = suggestions[0] if suggestions else None
    issues_found = [str(s) for s in data.get("issues_found") or [] if s]
    issues: list[ReviewIssue] = []
    if verdict == "FAIL":
        for section in _SECTIONS:
            part = analysis.get(section)
            if isinstance(part, dict) and str(part.get("status", "")).upper() == "FAIL":
                name = section.split("_")[0]
                details = str(part.get("details") or "no details given")
                issues.append(ReviewIssue(name, f"LLM review ({name}): {details}", confidence / 100, suggestion))
        if not issues:
            reason = "; ".join(issues_found) or "the model rejected the plan without naming an issue"
            issues.append(ReviewIssue("detailed", f"LLM review: {reason}", confidence / 100, suggestion))
    return verdict, confidence, issues


def review(instruction: str, plan_source: str, options: GraderOptions) -> Review:
    """Seed 000's two stages: the quick check, and the detailed analysis when the quick answer is unsure."""
    if not options.llm_url:
        return Review(None, 0.0, unavailable=("tool_failure", "LLM grader: llm grader selected but no llm_url configured"))
    client = ChatClient(options.llm_url, options.llm_model, options.llm_timeout_s)
    values = {"natural_language": instruction, "tdl_code": plan_source}
    try:
        verdict, confidence, issues = quick_issues(parse_json_answer(client.complete(prompts.QUICK.format(**values))))
        if confidence < prompts.DETAILED_BELOW:
            verdict, confidence, issues = detailed_issues(parse_json_answer(client.complete(prompts.DETAILED.format(**values))))
    except LlmError as exc:
        return Review(None, 0.0, unavailable=(exc.reason_code, f"LLM grader: {exc}"))
    return Review(verdict, confidence / 100, tuple(issues))
