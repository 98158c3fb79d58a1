#!/usr/bin/env bash
# Install everything (scripts/bootstrap.sh) and run the whole test suite.
# Extra arguments go to pytest, e.g. scripts/test.sh -k graph -x
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
"$ROOT/scripts/bootstrap.sh"
VENV=${PLAN_VERIFIER_VENV:-$ROOT/.venv}
cd "$ROOT"
export AMENT_PREFIX_PATH="$VENV${AMENT_PREFIX_PATH:+:$AMENT_PREFIX_PATH}"
exec "$VENV/bin/python" -m pytest "$@"
