#!/usr/bin/env bash
# Install everything plan_verifier needs into .venv (idempotent; re-runs only when inputs change):
# ROS 2 Kilted wheels, the core and test dependencies (pinned), the interfaces package built
# from msg/, and plan_verifier itself (editable). Python 3.11 is required (the ROS wheels are cp311).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
VENV=${PLAN_VERIFIER_VENV:-$ROOT/.venv}
PYTHON=${PYTHON:-$(command -v python3.11 || command -v python3)}

if ! "$PYTHON" -c 'import sys; sys.exit(sys.version_info[:2] != (3, 11))'; then
  echo "plan_verifier needs Python 3.11 (the ROS 2 wheels are built for it); found $("$PYTHON" --version 2>&1)" >&2
  exit 2
fi

inputs=$(cat "$ROOT"/requirements/*.txt "$ROOT"/setup.py "$ROOT"/scripts/bootstrap.sh "$ROOT"/scripts/build_interfaces.sh \
              "$ROOT"/scripts/cmake/*.cmake "$ROOT"/msg/CMakeLists.txt "$ROOT"/msg/package.xml "$ROOT"/msg/msg/* "$ROOT"/msg/srv/* | sha256sum | cut -d' ' -f1)
stamp="$VENV/.plan_verifier_bootstrap"
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$inputs" ]; then
  exit 0
fi

echo "[bootstrap] creating $VENV" >&2
t0=$(date +%s)
rm -rf "$VENV"
"$PYTHON" -m venv "$VENV"
# The venv holds the ROS wheels' package.xml files (share/*/): a colcon crawl must never treat them as packages.
touch "$VENV/COLCON_IGNORE"
PIP=("$VENV/bin/python" -m pip --disable-pip-version-check -q)
C=(-c "$ROOT/requirements/constraints.txt")
# ROS wheels first: ros-rosidl-parser pulls lark-parser 0.12, which shares the lark/ folder.
"${PIP[@]}" install "${C[@]}" -r "$ROOT/requirements/ros.txt"
"${PIP[@]}" install "${C[@]}" -r "$ROOT/requirements/build.txt" -r "$ROOT/requirements/core.txt" -r "$ROOT/requirements/dev.txt"
# Modern lark must be installed last, over lark-parser's files (never uninstall lark-parser).
"${PIP[@]}" install --force-reinstall --no-deps "lark==1.3.1"
echo "[bootstrap] building the interfaces package (msg/)" >&2
"$ROOT/scripts/build_interfaces.sh" "$VENV"
"${PIP[@]}" install --no-deps --no-build-isolation --use-pep517 -e "$ROOT"
echo "$inputs" > "$stamp"
echo "[bootstrap] ready in $(( $(date +%s) - t0 )) s: $VENV" >&2
