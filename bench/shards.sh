#!/usr/bin/env bash
# Wall time to verify 8 independent specs with 1, 2 and 4 shards of a
# matrix (issue 14's benchmark): the shards run as concurrent processes,
# each from a fresh clone of a bare origin, delivering to one branch
# (rebasing onto each other's pushes), then the integration runs from a
# fresh clone. Prints, per shard count, the shards' wall time, the
# integration's, the total and the agent calls (rotations), against one
# whole run without a matrix.
#
# The scripted agent sleeps SLEEP seconds per rotation; each spec takes 4
# rotations (one that writes its own file, then three DONE without
# changes), so a whole run is about 32 x SLEEP. The integration verifies
# again every spec whose shard saw other shards' work land after it: the
# price of keeping every spec 3/3 on one commit.
#
# Usage: bench/shards.sh [SLEEP]   (default 0.2; the whole script then
# takes under a minute on 2 cores)
set -euo pipefail
SLEEP=${1:-0.2}
here=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1
export GIT_AUTHOR_NAME=bench GIT_AUTHOR_EMAIL=bench@example.com GIT_COMMITTER_NAME=bench GIT_COMMITTER_EMAIL=bench@example.com
for v in $(env | grep -E '^(GITHUB_|RUNNER_|RALPH_)' | cut -d= -f1); do unset "$v"; done

(cd "$here" && CGO_ENABLED=0 go build -trimpath -ldflags='-s -w' -o "$work/ralph-ci" ./cmd/ralph-ci)

# origin DIR: a bare origin whose main holds 8 specs and the agent.
origin() {
	local seed="$1.seed"
	git init -q --bare --initial-branch=main "$1"
	git init -q --initial-branch=main "$seed"
	mkdir -p "$seed/specs"
	for i in 1 2 3 4 5 6 7 8; do echo "# spec $i" >"$seed/specs/s$i.spec.md"; done
	cat >"$seed/agent.sh" <<'SH'
cat >/dev/null
slug=$(echo "$RALPH_SPEC" | tr '/.' '__')
n=$(($(ls "$CALLS" | grep -c "^$slug\.") + 1))
: >"$CALLS/$slug.$n"
sleep "$SLEEP"
if [ "$n" = 1 ]; then
  echo "work of $RALPH_SPEC" >"$slug.txt"
  echo "RALPH_STATUS: CONTINUE"
else
  echo "<promise>IMPLEMENTATION_COMPLETE</promise>"
  echo "RALPH_STATUS: DONE"
fi
SH
	cat >"$seed/ralph.yaml" <<'YAML'
agents:
  coder: {command: [sh, agent.sh], timeout: 5m}
stages: {reviewer: {enabled: false}, tester: {enabled: false}, qa: {enabled: false}}
specs: {default_tier: auto}
YAML
	printf '.ralph/\n' >"$seed/.gitignore"
	git -C "$seed" add -A && git -C "$seed" commit -qm init && git -C "$seed" push -q "$1" main
}

# job ORIGIN: a fresh depth-1 clone, as a CI job gets.
job() {
	local dir
	dir=$(mktemp -d "$work/job.XXXXXX")
	git clone -q --depth=1 "file://$1" "$dir"
	echo "$dir"
}

now() { date +%s%N; }
secs() { awk -v ns="$1" 'BEGIN { printf "%.1f", ns / 1e9 }'; }

export SLEEP
printf '8 specs, agent %ss per rotation\n\n' "$SLEEP"
printf '%-16s %8s %12s %8s %10s %8s\n' setup shards integration total rotations speed-up

# The baseline: one whole run, no matrix.
o="$work/whole.git"
origin "$o"
export CALLS="$work/whole.calls"
mkdir -p "$CALLS"
t0=$(now)
"$work/ralph-ci" -C "$(job "$o")" run --deliver pr --log-format json >/dev/null 2>&1 || { echo "the whole run failed"; exit 1; }
base=$(($(now) - t0))
printf '%-16s %8s %12s %8s %10s %8s\n' "whole run" - - "$(secs "$base")" "$(ls "$CALLS" | wc -l)" 1.00

for n in 1 2 4; do
	o="$work/s$n.git"
	origin "$o"
	export CALLS="$work/s$n.calls"
	mkdir -p "$CALLS"
	dirs=()
	for k in $(seq "$n"); do dirs+=("$(job "$o")"); done
	t0=$(now)
	pids=()
	for k in $(seq "$n"); do
		"$work/ralph-ci" -C "${dirs[$((k - 1))]}" run --deliver pr --shard "$k-of-$n" --log-format json >"$work/s$n.$k.log" 2>&1 &
		pids+=($!)
	done
	for p in "${pids[@]}"; do wait "$p" || { echo "a shard of $n failed:"; tail -5 "$work"/s$n.*.log; exit 1; }; done
	t1=$(now)
	"$work/ralph-ci" -C "$(job "$o")" run --deliver pr --integrate --log-format json >"$work/s$n.integrate.log" 2>&1 || { echo "the integration of $n failed:"; tail -5 "$work/s$n.integrate.log"; exit 1; }
	t2=$(now)
	printf '%-16s %8s %12s %8s %10s %8s\n' "$n shard(s)" "$(secs $((t1 - t0)))" "$(secs $((t2 - t1)))" "$(secs $((t2 - t0)))" \
		"$(ls "$CALLS" | wc -l)" "$(awk -v a="$base" -v b="$((t2 - t0))" 'BEGIN { printf "%.2f", a / b }')"
done
