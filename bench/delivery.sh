#!/usr/bin/env bash
# A delivery rotation against git's floor (issue 34): ralph-ci run
# --deliver pr, its state travelling with its work, against the four
# commands a script would run after each agent call (git status, add,
# commit, push). Both push to a git smart-HTTP origin on 127.0.0.1 that
# asks for the token (bench/gitorigin, git http-backend behind basic auth
# x-access-token), as a private GitHub repository does. Prints:
#
#   git processes per delivery rotation, counted: a git first on ralph-ci's
#   PATH notes every command ralph-ci starts (it finds git on the PATH at
#   its first use), in a run of ROTATIONS+1 rotations minus a run of 1,
#   divided by ROTATIONS (the job's start left out)      goal: <= 8
#   CPU per delivery rotation (user + system of ralph-ci and every process
#   it waited for, the agent and git included; same difference), against
#   the script's CPU per iteration (the same agent, then the four
#   commands), the median of the repeats' own ratios   goal: <= 1.3x
#
# Each run is a fresh depth-1 checkout with the token, as a CI job's; the
# agent appends a line to work.txt (every rotation has work to deliver).
# Usage: bench/delivery.sh [ROTATIONS] [REPEATS]   (defaults 20 and 5)
# RALPH_BIN=path measures that binary instead of building this tree;
# BASE_BIN=path (an older build) is measured beside it, its runs
# interleaved with the others, and the ratio of the two printed: the
# script's own CPU moves by a quarter between runs on a busy machine, so
# a change of a few ms shows only in such pairs.
# Needs python3 (the CPU of a process tree).
set -euo pipefail
N=${1:-20}
R=${2:-5}
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"
export GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1
token=bench-token-0123456789
agent='cat >/dev/null; echo "$RALPH_ITERATION" >> work.txt; echo RALPH_STATUS: CONTINUE'

# cpu CMD...: runs CMD, prints its CPU seconds (getrusage of the waited-for
# process tree).
cpu() {
	python3 -c 'import os, subprocess, sys
p = subprocess.Popen(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
_, status, ru = os.wait4(p.pid, 0)
print("%.6f" % (ru.ru_utime + ru.ru_stime))' "$@"
}
median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

# The origin, served over HTTP with the token.
(cd "$here" && go build -o "$work/gitorigin" ./bench/gitorigin)
git init -q --bare -b main "$work/srv/origin.git"
git -C "$work/srv/origin.git" config http.receivepack true
"$work/gitorigin" -root "$work/srv" -backend "$(git --exec-path)/git-http-backend" -token "$token" >"$work/url" &
server=$!
trap 'kill $server 2>/dev/null; chmod -R u+w "$work" 2>/dev/null; rm -rf "$work"' EXIT
for _ in $(seq 100); do [ -s "$work/url" ] && break; sleep 0.1; done
server_url=$(head -n 1 "$work/url")
url=$server_url/origin.git
header="AUTHORIZATION: basic $(printf 'x-access-token:%s' "$token" | base64)"
auth=(-c "http.extraheader=$header")

mkdir -p "$work/seed/specs"
echo "# bench" >"$work/seed/specs/a.spec.md"
cat >"$work/seed/ralph.yaml" <<YAML
agents:
  coder: {command: [sh, -c, '$agent']}
stages: {coder: {max_iterations: 1000000}, reviewer: {enabled: false}, tester: {enabled: false}, qa: {enabled: false}}
specs: {default_tier: auto}
YAML
printf '.ralph/\n' >"$work/seed/.gitignore"
git -C "$work/seed" init -q -b main
git -C "$work/seed" add -A
git -C "$work/seed" commit -qm init
git -C "$work/seed" "${auth[@]}" push -q "$url" main

# A git that notes each command ralph-ci starts, then runs the real one.
real_git=$(command -v git)
mkdir -p "$work/bin"
cat >"$work/bin/git" <<SH
#!/bin/sh
echo "\$*" >>"$work/gitlog"
exec "$real_git" "\$@"
SH
chmod +x "$work/bin/git"

checkout() { # checkout DIR: a fresh job's checkout, the loop's branches gone from origin
	git -C "$work/srv/origin.git" update-ref -d refs/heads/ralph-ci/main 2>/dev/null || true
	git -C "$work/srv/origin.git" update-ref -d refs/ralph-ci/state/ralph-ci/main 2>/dev/null || true
	git -C "$work/srv/origin.git" update-ref -d refs/heads/script 2>/dev/null || true
	rm -rf "$1"
	git "${auth[@]}" clone -q --depth 1 "$url" "$1"
}
ralph() { # ralph ROTATIONS [PATH [BIN]]: ralph-ci run in a fresh checkout
	checkout "$work/job"
	(cd "$work/job" && PATH=${2:-$PATH} GITHUB_TOKEN=$token GITHUB_SERVER_URL=$server_url \
		cpu "${3:-$bin}" run --deliver pr --max-rotations "$1")
}
script() { # script ITERATIONS: the agent then status, add, commit, push
	checkout "$work/job"
	cat >"$work/script.sh" <<SH
cd "$work/job"
for i in \$(seq $1); do
	printf prompt | RALPH_ITERATION=\$i sh -c '$agent' >/dev/null
	git status --porcelain >/dev/null
	git add -A
	git commit -qm "iteration \$i"
	git -c "http.extraheader=$header" push -q origin HEAD:refs/heads/script
done
SH
	cpu sh "$work/script.sh"
}

# git processes per rotation, counted.
: >"$work/gitlog"
ralph 1 "$work/bin:$PATH" >/dev/null
one=$(wc -l <"$work/gitlog")
: >"$work/gitlog"
ralph $((N + 1)) "$work/bin:$PATH" >/dev/null
many=$(wc -l <"$work/gitlog")
[ "$(git -C "$work/srv/origin.git" rev-list --count refs/heads/ralph-ci/main)" = $((N + 2)) ] || {
	echo "ralph-ci did not deliver one commit per rotation" >&2
	exit 1
}
per=$(awk -v a="$many" -v b="$one" -v n="$N" 'BEGIN {printf "%.1f", (a - b) / n}')

# CPU per rotation, interleaved with the script's so that the machine's
# load hits both alike.
# rotation BIN: CPU seconds per rotation of BIN (a run of N+1 rotations
# minus a run of 1, divided by N).
rotation() {
	local a b
	a=$(ralph 1 "$PATH" "$1")
	b=$(ralph $((N + 1)) "$PATH" "$1")
	awk -v a="$a" -v b="$b" -v n="$N" 'BEGIN {printf "%.6f\n", (b - a) / n}'
}
for _ in $(seq "$R"); do
	rotation "$bin" >>"$work/ralph.cpu"
	if [ -n "${BASE_BIN:-}" ]; then
		rotation "$BASE_BIN" >>"$work/base.cpu"
	fi
	s=$(script "$N")
	awk -v s="$s" -v n="$N" 'BEGIN {printf "%.6f\n", s / n}' >>"$work/script.cpu"
done
# A ratio is the median of each repeat's own ratio (ralph-ci's runs and
# the script's run one after the other): the machine's speed drifts by a
# quarter between repeats here, and a ratio of two medians taken at
# different moments moves with it.
# ratios A B: each repeat's A/B (files of one number a repeat), sorted.
ratios() { paste "$1" "$2" | awk '{print $1 / $2}' | sort -g; }
ms() { median <"$1" | awk '{printf "%.2f", $1 * 1000}'; } # ms FILE: the median, in ms
ratios "$work/ralph.cpu" "$work/script.cpu" >"$work/pairs"

echo "machine: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg); $N rotations, median of $R; origin over HTTP with the token"
printf '%-42s %10s %10s %7s  %s\n' case ralph-ci script ratio goal
printf '%-42s %10s %10s %7s  %s\n' "git processes per delivery rotation" "$per" 4 "" "<= 8"
printf '%-42s %10s %10s %7s  %s\n' "CPU per delivery rotation (ms)" "$(ms "$work/ralph.cpu")" "$(ms "$work/script.cpu")" \
	"$(median <"$work/pairs" | awk '{printf "%.2fx", $1}')" "<= 1.3x"
printf '%-42s %10s %10s %7s  %s\n' "  the repeats' ratios, lowest to highest" "" "" "" "$(awk '{printf "%s%.2f", (NR > 1 ? " " : ""), $1}' "$work/pairs")"
if [ -n "${BASE_BIN:-}" ]; then
	printf '%-42s %10s %10s %7s  %s\n' "  the same, BASE_BIN" "$(ms "$work/base.cpu")" "$(ms "$work/script.cpu")" \
		"$(ratios "$work/base.cpu" "$work/script.cpu" | median | awk '{printf "%.2fx", $1}')" \
		"this/BASE_BIN $(ratios "$work/ralph.cpu" "$work/base.cpu" | median | awk '{printf "%.3f", $1}')"
fi
