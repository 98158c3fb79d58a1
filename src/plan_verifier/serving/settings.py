"""The node's parameters: one table with type, default, description, when each is read, and its check.

The ROS node declares exactly these parameters (with these descriptions) and
`config/verifier.yaml` sets exactly these keys; a test holds the three
together. Each parameter is read at one stage (`ParamSpec.stage`), which
decides when it may be changed (the nav2 convention):

* `start`: read once when the process starts (`autostart`, `executor_threads`);
  declared read-only;
* `configure`: read by the configure transition (the robot, the cell graph,
  the audit log, ...); writable only while the node is unconfigured, so a
  lifecycle manager can fix a wrong value, configure again, and the value
  shown is always the one in force;
* `live`: read by every request (`level`, `max_plan_attempts`,
  `verify_timeout_s`, `repair_rejected`); writable at any time.

Every value is validated when the process starts, before any transition
(`Settings.from_values`: a bad parameter file stops the process with exit
status 2 and a message naming the key), and again whenever one is set (the
node refuses a bad change with the reason).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Mapping

from plan_verifier.options import GRADERS, LLM_DEFAULT_MODEL, LLM_DEFAULT_TIMEOUT_S, GraderOptions, VerifyOptions
from plan_verifier.pipeline import LEVELS, PROFILES

Check = Callable[[Any], "str | None"]


#: When a parameter is read (and so when it may change); see the module documentation.
STAGES = ("start", "configure", "live")


@dataclass(frozen=True)
class ParamSpec:
    name: str
    default: Any  # its Python type is the parameter type (str, int, float, bool)
    description: str
    stage: str = "configure"
    constraints: str = ""
    check: Check | None = None
    #: (min, max) for numeric parameters, declared as the ROS range too.
    bounds: tuple[float, float] | None = None

    @property
    def read_only(self) -> bool:
        """Declared read-only in ROS: only the parameters read when the process starts."""
        return self.stage == "start"

    def problem(self, value: Any) -> str | None:
        """Why `value` is not acceptable, or None."""
        expected = type(self.default)
        if expected is float and isinstance(value, int) and not isinstance(value, bool):
            value = float(value)
        if type(value) is not expected:
            return f"{self.name} must be a {expected.__name__}, not {type(value).__name__}"
        if self.bounds is not None and not (self.bounds[0] <= value <= self.bounds[1]):
            return f"{self.name} must be between {self.bounds[0]:g} and {self.bounds[1]:g}, not {value}"
        return self.check(value) if self.check else None


def _one_of(name: str, allowed: tuple[str, ...]) -> Check:
    def check(value: str) -> str | None:
        return None if value in allowed else f"{name} must be one of {', '.join(allowed)}, not {value!r}"

    return check


def _fingerprint(value: str) -> str | None:
    text = value.strip()
    if not text or (len(text) == 64 and all(c in "0123456789abcdef" for c in text)):
        return None
    return f"graph_fingerprint must be empty or a cell fingerprint (64 lowercase hexadecimal digits), not {value!r}"


def _non_empty(name: str) -> Check:
    def check(value: str) -> str | None:
        return None if value.strip() else f"{name} must not be empty"

    return check


#: Values of the service_introspection parameter (rclpy's OFF, METADATA, CONTENTS; "off" would be a YAML boolean).
INTROSPECTION = ("disabled", "metadata", "contents")

PARAMETERS: tuple[ParamSpec, ...] = (
    ParamSpec("robot", "ur10e", "Robot spec: a shipped name (config/robots/NAME.yaml), a YAML file path, a URDF file path, or "
              "robot_description: the URDF (and SRDF) published on robot_description / robot_description_semantic, as MoveIt "
              "reads them (a YAML whose urdf: is robot_description adds tools, home and payload to them).",
              check=_non_empty("robot")),
    ParamSpec("cell", "weld_cell", "Cell graph file for the embedded backend: a shipped name (config/cells/NAME.yaml) or a path. "
              "Ignored when graph_uri is set; empty = no graph (TDL checks only, JSON plans are rejected with R-GRF-000)."),
    ParamSpec("graph_uri", "", "Neo4j/Bolt URI of the cell graph (bolt://host:7687); empty = use the cell file. "
              "The password comes only from the environment variable PLAN_VERIFIER_GRAPH_PASSWORD."),
    ParamSpec("graph_user", "neo4j", "User name for graph_uri."),
    ParamSpec("graph_database", "", "Database (graph) name for graph_uri; empty = the server's default."),
    ParamSpec("graph_timeout_s", 5.0, "Timeout of one graph round trip; a slower graph counts as unavailable (R-GRF-000).",
              bounds=(0.1, 120.0)),
    ParamSpec("graph_fingerprint", "", "The cell the graph must hold: its fingerprint (sha256 of the cell's content, as "
              "`plan-verify graph load` prints it); empty = any cell. A graph that answers without positions, or with another "
              "cell, is unavailable (R-GRF-000, reason tool_output_invalid), never a source of plan findings.", check=_fingerprint),
    ParamSpec("level", "STANDARD", "Default check level for requests that do not name one.", stage="live",
              constraints="BASIC | STANDARD | FULL", check=_one_of("level", LEVELS)),
    ParamSpec("profile", "default", "Rule profile: strict requires a DEFINE section and approves only PASS.",
              constraints="default | strict", check=_one_of("profile", PROFILES)),
    ParamSpec("max_plan_attempts", 3, "Attempts per correlation id; the rejection that uses up the last one fires ~/fallback (seed 003).",
              stage="live", bounds=(1, 100)),
    ParamSpec("autostart", False, "Configure and activate on start (for use without a lifecycle manager).", stage="start"),
    ParamSpec("audit_log_dir", "logs/verification", "Directory of the audit log verify_YYYYMMDD.jsonl (one fsync'ed JSON line per answered request).",
              check=_non_empty("audit_log_dir")),
    ParamSpec("actions_output_path", "actions.yaml", "Where the latest approved YAML is written (atomically); empty = do not write a file."),
    ParamSpec("robot_state_db", "", "Seed 003 robot_state.db (SQLite, current_position/current_tool) read for the start state "
              "when neither the request nor ~/robot_state gives it; empty = not used."),
    ParamSpec("joint_states_topic", "joint_states", "sensor_msgs/JointState topic whose latest fresh message is where the "
              "execution level starts (the robot's real joints); relative, so /joint_states in the root namespace and the "
              "robot's own in a namespace; empty = not subscribed (start position, else home_joints_deg)."),
    ParamSpec("joint_states_max_age_s", 1.0, "A /joint_states message older than this (by its header stamp, else its arrival, on the "
              "node's clock) is not used as the start.", bounds=(0.001, 3600.0)),
    ParamSpec("robot_description_timeout_s", 10.0, "With robot: robot_description, how long configure waits for the URDF on "
              "robot_description (transient local, as robot_state_publisher publishes it); the SRDF on "
              "robot_description_semantic is taken when it is there by then.", bounds=(0.1, 600.0)),
    ParamSpec("joint_state_names", "", "The robot's joint names in /joint_states, comma-separated in the spec's joint order; "
              "empty = each spec joint's ros_name, else its name (only a message naming no joint is read by position, when "
              "it has exactly the robot's joints)."),
    ParamSpec("diagnostics_period_s", 1.0, "Period of the /diagnostics status.", bounds=(0.1, 60.0)),
    ParamSpec("request_queue_depth", 100, "Queue depth of the ~/verify service and the ~/plan_requests subscription.",
              bounds=(1, 10_000)),
    ParamSpec("executor_threads", 4, "Threads of the multi-threaded executor; requests use at most verification_workers of "
              "them, so lifecycle transitions, parameters and diagnostics are always served.", stage="start", bounds=(2, 64)),
    ParamSpec("verification_workers", 2, "Worker processes that verify plans, each with its own verifier warmed at configure; "
              "this many plans are verified at once, each beside the executor, so a long verification never holds up "
              "other requests, transitions or diagnostics.", bounds=(1, 32)),
    ParamSpec("verify_timeout_s", 30.0, "Time budget of one verification: a plan not verified within it is answered "
              "ERROR_TOO_LARGE (too large to verify in time; not approved, no attempt spent) and its worker is replaced.",
              stage="live", bounds=(0.1, 3600.0)),
    ParamSpec("repair_rejected", True, "Repair each rejected plan (contract §8: plan-verify repair, every candidate verified by "
              "the same pipeline) and put the repair in the answer's report_json as \"repair\" for the planner's next attempt; "
              "the node never runs a repaired plan. Up to 400 steps, at most 10 s and half of what is left of verify_timeout_s.",
              stage="live"),
    ParamSpec("max_tracked_tasks", 10_000, "How many correlation ids the attempt counter remembers (least recently used are forgotten).",
              bounds=(1, 10_000_000)),
    ParamSpec("drain_timeout_s", 10.0, "On deactivate, cleanup and shutdown, how long to wait for the verifications already "
              "running; those still running then are stopped and answered ERROR_CANCELLED before the transition succeeds.",
              bounds=(0.0, 600.0)),
    ParamSpec("semantic_grader", "rule_check", "Grader of the semantic stage (level FULL, requests with an instruction): rule_check "
              "(deterministic, no model) or llm (rule_check plus an OpenAI-compatible model at llm_url, which can only add findings).",
              constraints="rule_check | llm", check=_one_of("semantic_grader", GRADERS)),
    ParamSpec("llm_url", "", "Chat-completions endpoint of the llm grader (http://host:port/v1/chat/completions); "
              "the API key comes only from the environment variable PLAN_VERIFIER_LLM_API_KEY."),
    ParamSpec("llm_model", LLM_DEFAULT_MODEL, "Model name sent to llm_url.", check=_non_empty("llm_model")),
    ParamSpec("llm_timeout_s", LLM_DEFAULT_TIMEOUT_S, "Timeout of one llm request; on timeout the semantic stage is UNKNOWN "
              "and the deterministic verdict stands.", bounds=(0.1, 300.0)),
    ParamSpec("service_introspection", "disabled", "Service introspection of ~/verify: 'contents' publishes every request and response "
              "on ~/verify/_service_event (so a recorded bag can replay service calls), 'metadata' only who called when.",
              constraints="disabled | metadata | contents", check=_one_of("service_introspection", INTROSPECTION)),
)

SPECS: Mapping[str, ParamSpec] = {p.name: p for p in PARAMETERS}


class SettingsError(ValueError):
    """One or more parameters are invalid; the message names them."""


@dataclass(frozen=True)
class Settings:
    robot: str
    cell: str
    graph_uri: str
    graph_user: str
    graph_database: str
    graph_timeout_s: float
    graph_fingerprint: str
    level: str
    profile: str
    max_plan_attempts: int
    autostart: bool
    audit_log_dir: str
    actions_output_path: str
    robot_state_db: str
    joint_states_topic: str
    joint_states_max_age_s: float
    robot_description_timeout_s: float
    joint_state_names: str
    diagnostics_period_s: float
    request_queue_depth: int
    executor_threads: int
    verification_workers: int
    verify_timeout_s: float
    repair_rejected: bool
    max_tracked_tasks: int
    drain_timeout_s: float
    semantic_grader: str
    llm_url: str
    llm_model: str
    llm_timeout_s: float
    service_introspection: str

    def verifier_options(self) -> VerifyOptions:
        """The Verifier options these settings select (the semantic grader)."""
        return VerifyOptions(grader=GraderOptions(self.semantic_grader, self.llm_url or None, self.llm_model, self.llm_timeout_s))

    @classmethod
    def from_values(cls, values: Mapping[str, Any]) -> "Settings":
        """Defaults for missing keys; SettingsError listing every bad or unknown key."""
        problems = [f"unknown parameter {name!r}" for name in values if name not in SPECS]
        merged = {}
        for spec in PARAMETERS:
            value = values.get(spec.name, spec.default)
            problem = spec.problem(value)
            if problem:
                problems.append(problem)
            merged[spec.name] = float(value) if isinstance(spec.default, float) and isinstance(value, int) else value
        if not problems and merged["executor_threads"] <= merged["verification_workers"]:
            problems.append(f"executor_threads ({merged['executor_threads']}) must be more than verification_workers "
                            f"({merged['verification_workers']}): one thread stays free for lifecycle transitions, parameters "
                            "and diagnostics")
        if problems:
            raise SettingsError("; ".join(problems))
        return cls(**merged)

    @property
    def graph_source(self) -> str:
        """Which backend the settings select: neo4j, embedded or none."""
        if self.graph_uri.strip():
            return "neo4j"
        return "embedded" if self.cell.strip() else "none"
