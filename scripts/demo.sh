#!/usr/bin/env bash
# The main job, end to end: install everything (scripts/bootstrap.sh), start the plan_verifier
# lifecycle node on the example weld cell (config/cells/weld_cell.yaml), verify an example JSON
# plan (approved) and an example TDL program (rejected, with feedback) through its ~/verify
# service, print both results and the approved YAML, and stop the node.
# Exit status 0 when both verdicts are as expected.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
VENV=${PLAN_VERIFIER_VENV:-$ROOT/.venv}
if [ "${PLAN_VERIFIER_SKIP_BOOTSTRAP:-0}" != 1 ]; then
  "$ROOT/scripts/bootstrap.sh"
fi
PY="$VENV/bin/python"
export AMENT_PREFIX_PATH="$VENV${AMENT_PREFIX_PATH:+:$AMENT_PREFIX_PATH}"
export ROS_AUTOMATIC_DISCOVERY_RANGE=${ROS_AUTOMATIC_DISCOVERY_RANGE:-LOCALHOST}
export RCUTILS_COLORIZED_OUTPUT=0 PYTHONUNBUFFERED=1
WORK=$(mktemp -d "${TMPDIR:-/tmp}/plan_verifier_demo.XXXXXX")
NS="/demo_$$"
SERVICE="$NS/plan_verifier/verify"
cd "$ROOT"

# The node is started with the arguments the launch file passes (plan_verifier.ros.launch_spec).
mapfile -t ROS_ARGS < <("$PY" - "$WORK" "$NS" <<'PYTHON'
import sys
from plan_verifier.ros.launch_spec import ros_arguments
work, ns = sys.argv[1], sys.argv[2]
overrides = {"autostart": True, "cell": "weld_cell", "audit_log_dir": f"{work}/logs/verification", "actions_output_path": f"{work}/actions.yaml"}
print("\n".join(ros_arguments("config/verifier.yaml", overrides=overrides, namespace=ns)))
PYTHON
)
echo "== starting the verifier node $NS/plan_verifier on the weld cell (log: $WORK/node.log)"
"$PY" -m plan_verifier.ros.node "${ROS_ARGS[@]}" >"$WORK/node.log" 2>&1 &
NODE=$!
stop_node() {
  if kill -0 "$NODE" 2>/dev/null; then
    kill -INT "$NODE"
    wait "$NODE" 2>/dev/null || true
  fi
}
trap stop_node EXIT

call() {
  local status=0
  "$PY" -m plan_verifier.cli.main call "$@" --service "$SERVICE" --timeout 60 || status=$?  # the first waits for configure (workers warming up)
  return "$status"
}

echo
echo "== 1. JSON plan examples/weld_seam_1.json through $SERVICE"
json_status=0
call examples/weld_seam_1.json --correlation-id demo-weld-seam-1 --emit-yaml "$WORK/approved.yaml" 2>&1 || json_status=$?

echo
echo "== 2. TDL program examples/pick_and_place_unsafe.tdl through $SERVICE"
tdl_status=0
call examples/pick_and_place_unsafe.tdl --correlation-id demo-pick-and-place 2>&1 || tdl_status=$?

echo
echo "== approved YAML of plan 1 (also published on $NS/plan_verifier/approved_actions)"
if [ -f "$WORK/approved.yaml" ]; then cat "$WORK/approved.yaml"; else echo "(none: plan 1 was not approved)"; fi

stop_node
trap - EXIT
echo
echo "== node stopped; audit log: $(cat "$WORK"/logs/verification/verify_*.jsonl | wc -l) records in $WORK/logs/verification"
if [ "$json_status" -eq 0 ] && [ "$tdl_status" -eq 1 ]; then
  echo "demo OK: the JSON plan was approved, the TDL program was rejected with feedback"
else
  echo "demo FAILED: expected exit statuses 0 and 1, got $json_status and $tdl_status (node log: $WORK/node.log)" >&2
  exit 1
fi
