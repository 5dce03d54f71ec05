#!/usr/bin/env bash
# Per-rotation cost of ralph-ci against shell loops calling the same
# trivial agent (issue 3's benchmark). Prints one comparable table:
#
#   small repo:  ralph-ci run  vs  a bare shell loop          (target <= 1.25x)
#   20k files:   ralph-ci run  vs  a shell loop + git status  (target <= 1.0x)
#
# Usage: bench/rotation.sh [ROTATIONS] [REPEATS]   (defaults 200 and 5)
# RALPH_BIN=path measures that binary instead of building this tree;
# BASE_BIN=path (an older build) measures that one too, interleaved run by run so that the
# machine's load hits both alike, on a row of its own ("old").
# Each number is the median over REPEATS runs of ROTATIONS rotations. The
# ralph-ci figure is per rotation in steady state: the time of a run of
# ROTATIONS+1 rotations minus that of a run of 1, divided by ROTATIONS, so
# the one-off start (schema, lock, first snapshot, watches) is left out;
# the "with start" column keeps it in.
set -euo pipefail
N=${1:-200}
R=${2:-5}
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"
if [ -n "${BASE_BIN:-}" ]; then cp "$BASE_BIN" "$work/old"; fi
agent='cat >/dev/null; echo RALPH_STATUS: CONTINUE'

setup() { # setup DIR FILES
	mkdir -p "$1/specs"
	echo "# bench" >"$1/specs/a.spec.md"
	cat >"$1/ralph.yaml" <<YAML
agents:
  coder: {command: [sh, -c, '$agent']}
stages: {coder: {max_iterations: 1000000}, reviewer: {enabled: false}, tester: {enabled: false}, qa: {enabled: false}}
specs: {default_tier: auto}
YAML
	printf '.ralph/\n' >"$1/.gitignore"
	if [ "$2" -gt 0 ]; then
		(cd "$1" && for d in $(seq 0 99); do mkdir -p "src/d$d"; for f in $(seq 1 $(($2 / 100))); do echo "$d $f" >"src/d$d/f$f.txt"; done; done)
	fi
	git -C "$1" init -q && git -C "$1" add -A && git -C "$1" commit -qm init
	git -C "$1" status --porcelain >/dev/null # warm the index
}

now() { date +%s%N; }
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

run_ralph() { # DIR ROTATIONS [BIN] -> ns for the whole run
	# Each run starts without state, as a CI job does. The previous run's
	# .ralph is moved aside, not deleted, until the end: on ext4 without a
	# journal every new file skips the inodes deleted in the last minute,
	# so deleting it here would slow this run's history logs.
	if [ -d "$1/.ralph" ]; then mv "$1/.ralph" "$(mktemp -d "$work/old.XXXXXX")/"; fi
	t0=$(now)
	"${3:-$bin}" -C "$1" run --max-rotations "$2" >/dev/null 2>&1 || true
	echo $(($(now) - t0))
}

time_ralph() { # DIR -> "steady with-start" ns per rotation, and the
	# same for $work/old in $work/old.times when BASE_BIN is set
	: >"$work/old.times"
	for _ in $(seq "$R"); do
		one=$(run_ralph "$1" 1)
		many=$(run_ralph "$1" $((N + 1)))
		echo "$(((many - one) / N)) $((many / (N + 1)))"
		if [ -n "${BASE_BIN:-}" ]; then
			one=$(run_ralph "$1" 1 "$work/old")
			many=$(run_ralph "$1" $((N + 1)) "$work/old")
			echo "$(((many - one) / N)) $((many / (N + 1)))" >>"$work/old.times"
		fi
	done | sort -n | awk '{a[NR]=$0} END {print a[int((NR+1)/2)]}'
}
old_times() { sort -n "$work/old.times" | awk '{a[NR]=$0} END {print a[int((NR+1)/2)]}'; }

time_loop() { # DIR WITH_GIT -> ns per iteration
	for _ in $(seq "$R"); do
		t0=$(now)
		(cd "$1" && for _ in $(seq "$N"); do
			printf 'prompt' | sh -c "$agent" >/dev/null
			if [ "$2" = 1 ]; then git status --porcelain >/dev/null; fi
		done)
		echo $((($(now) - t0) / N))
	done | median
}

setup "$work/small" 0
setup "$work/big" 20000

read -r small_r small_s <<<"$(time_ralph "$work/small")"
read -r small_or small_os <<<"$(old_times)"
small_l=$(time_loop "$work/small" 0)
read -r big_r big_s <<<"$(time_ralph "$work/big")"
read -r big_or big_os <<<"$(old_times)"
big_l=$(time_loop "$work/big" 1)

ms() { awk -v n="$1" 'BEGIN {printf "%.2f ms", n / 1e6}'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.2fx", a / b}'; }
printf '%-30s %10s %12s %11s %7s %8s\n' "case ($N rotations, median of $R)" ralph-ci "(with start)" "shell loop" ratio target
printf '%-30s %10s %12s %11s %7s %8s\n' "small repo, bare loop" "$(ms "$small_r")" "$(ms "$small_s")" "$(ms "$small_l")" "$(ratio "$small_r" "$small_l")" "<=1.25x"
printf '%-30s %10s %12s %11s %7s %8s\n' "20k files, loop + git status" "$(ms "$big_r")" "$(ms "$big_s")" "$(ms "$big_l")" "$(ratio "$big_r" "$big_l")" "<=1.00x"
if [ -n "${BASE_BIN:-}" ]; then
	printf '%-30s %10s %12s %11s %7s\n' "small repo, old" "$(ms "$small_or")" "$(ms "$small_os")" "$(ms "$small_l")" "$(ratio "$small_or" "$small_l")"
	printf '%-30s %10s %12s %11s %7s\n' "20k files, old" "$(ms "$big_or")" "$(ms "$big_os")" "$(ms "$big_l")" "$(ratio "$big_or" "$big_l")"
fi
