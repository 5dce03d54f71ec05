#!/usr/bin/env bash
# Runs a command while every core is held busy, as on a CI runner shared
# with other jobs (issue 35: the test suite must pass on a loaded 2-core
# machine, where wall-clock bounds break and slow packages reach go
# test's 10-minute default timeout). It prints the command's wall time and
# exit code, and exits with that code.
#
# Usage: bench/load.sh COMMAND [ARGS...]
#   bench/load.sh go test ./...
#   bench/load.sh go test -count=1 -run 'TestShepherdTimeout' ./pipeline/agent
# LOAD_WORKERS=N  CPU burners (default: one per core, nproc)
#
# The burners are stress-ng's CPU stressors when stress-ng is installed
# (Debian: apt-get install stress-ng), else shell loops; they run at the
# command's own priority (no nice), stop when the command ends or the
# script is interrupted, and leave nothing behind.
set -euo pipefail
[ $# -gt 0 ] || { sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }
workers=${LOAD_WORKERS:-$(nproc)}
pids=()
# shellcheck disable=SC2317 # called by the EXIT trap
stop() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
}
trap stop EXIT
trap 'exit 130' INT TERM
if command -v stress-ng >/dev/null 2>&1; then
	stress-ng --cpu "$workers" --quiet &
	pids+=($!)
	how="stress-ng --cpu $workers"
else
	for _ in $(seq "$workers"); do
		sh -c 'while :; do :; done' &
		pids+=($!)
	done
	how="$workers shell loops"
fi
echo "load: $how on $(nproc) cores; running: $*" >&2
start=$(date +%s)
rc=0
"$@" || rc=$?
echo "load: $* took $(($(date +%s) - start))s under $how, exit $rc" >&2
exit "$rc"
