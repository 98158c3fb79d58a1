#!/usr/bin/env bash
# Build the plan_verifier_interfaces package (msg/) with rosidl and install it into a venv.
# Usage: scripts/build_interfaces.sh VENV
# Needs: the ros-* build wheels from requirements/ros.txt in VENV, cmake >= 3.19, gcc/g++.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
VENV=$(cd "${1:?usage: build_interfaces.sh VENV}" && pwd)
BUILD="$ROOT/build/plan_verifier_interfaces"
LOG="$ROOT/build/plan_verifier_interfaces.log"
mkdir -p "$ROOT/build"
touch "$ROOT/build/COLCON_IGNORE"  # a CMake build tree, never a colcon package
rm -rf "$BUILD"
export CMAKE_PREFIX_PATH="$VENV" AMENT_PREFIX_PATH="$VENV" PATH="$VENV/bin:$PATH"
{
  cmake -S "$ROOT/msg" -B "$BUILD" \
    -DCMAKE_INSTALL_PREFIX="$VENV" \
    -DPython3_EXECUTABLE="$VENV/bin/python" \
    -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=OFF \
    -DCMAKE_PROJECT_INCLUDE="$ROOT/scripts/cmake/pypi_ros_fix.cmake"
  cmake --build "$BUILD" -j"$(nproc)"
  cmake --install "$BUILD"
} >"$LOG" 2>&1 || { echo "building msg/ failed; last lines of $LOG:" >&2; tail -40 "$LOG" >&2; exit 1; }
