#!/usr/bin/env bash
# Performance at scale (issue 18), side by side in one run. Every figure is
# CPU time (user + system, ralph-ci and the processes it waits for) as
# min / median / max over REPEATS runs; paired cases run interleaved so
# that the machine's load hits both alike.
#
#   rotation  CPU per rotation at 1, 100, 1000 (and SPECS_MAX) specs: a run of
#             K+1 rotations minus a run of 1, divided by K (start left out)
#   startup   `run` (1 rotation) and `check` at 1000 specs vs `cue vet` of the
#             same front matters against #FrontMatter (CPU and peak RSS)
#   prompt    per-rotation CPU and prompt bytes after REJ rejected claims vs
#             on a fresh spec, and the prompt after 50 identical rejections
#             vs the first rotation's
#   output    a rotation whose agent writes OUT_MIB MiB in 57-byte lines vs
#             the same command with `sh > file`
#   merge     `report merge` of 50 shard reports of 200 specs vs a Python union
#
# Usage: bench/scale.sh [REPEATS] [SPECS_MAX] [REJ] [OUT_MIB]
# (defaults 3, 1000, 1000, 128; the issue's figures are 10000, 5000, 512).
# RALPH_BIN=path measures that binary instead of building this tree (to
# measure an older version with the same script). SECTION="output merge"
# runs only the named sections (default: all). BASE_BIN=path adds, in the
# rotation and output sections, the same runs of that binary (an older
# build), interleaved with this one's so that the machine's load hits both alike;
# OUT_SECRET=1 runs them with a secret in the environment, so the output
# is masked as in CI (where GITHUB_TOKEN always is).
# The rotation lines start from a state.json holding every spec (as after
# a first pass over all of them), so each save writes the whole matrix.
# The Go benchmarks beside it: go test -run X -bench . ./pipeline/project/
# ./pipeline/state/ (load and reload of the specs, state.json encoding).
# Needs python3 and, for the startup line, the cue CLI (go install
# cuelang.org/go/cmd/cue@VERSION, VERSION as in go.mod).
set -euo pipefail
R=${1:-3}
SPECS_MAX=${2:-1000}
REJ=${3:-1000}
OUT_MIB=${4:-128}
K=${K:-20} # rotations measured per run (env K)
SECTION=${SECTION:-rotation startup prompt output merge}
want() { case " ${SECTION//,/ } " in *" $1 "*) return 0 ;; esac; return 1; }
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"
cue=$(command -v cue || echo "$(go env GOPATH)/bin/cue")

# cpu CMD...: runs CMD, prints "cpu_seconds peak_kib" (getrusage of the
# waited-for process tree, microsecond resolution).
cpu() {
	python3 -c 'import os, subprocess, sys
p = subprocess.Popen(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
_, _, ru = os.wait4(p.pid, 0)
print("%.6f %d" % (ru.ru_utime + ru.ru_stime, ru.ru_maxrss))' "$@"
}
# stats: reads numbers, prints "min / median / max".
stats() { sort -g | awk '{a[NR]=$1} END {printf "%s / %s / %s", a[1], a[int((NR+1)/2)], a[NR]}'; }
median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
ms() { awk '{printf "%.2f\n", $1 * 1000}'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {if (b > 0) printf "%.2fx", a / b; else print "-"}'; }
row() { printf '%-44s %-30s %-30s %8s  %s\n' "$@"; }

spec() { # spec I: a spec file with a full front matter
	cat <<MD
---
id: s$1
title: Spec $1
completion:
  outcome: "feature $1 works"
  acceptance_criteria: ["feature $1 exists", "it is tested"]
  coder: {promise: DONE_$1, description: "feature $1 is written", verification_method: string_match}
contracts:
  - verification: auto
    acceptance_criteria: ["feature $1 works"]
---
# Spec $1

Build feature $1.
MD
}

setup() { # setup DIR SPECS AGENT
	mkdir -p "$1/specs"
	for i in $(seq -w 1 "$2"); do spec "$i" >"$1/specs/s$i.spec.md"; done
	cat >"$1/ralph.yaml" <<YAML
agents:
  coder: {command: [sh, -c, '$3']}
stages: {coder: {max_iterations: 1000000}, reviewer: {enabled: false}, tester: {enabled: false}, qa: {enabled: false}}
specs: {default_tier: auto}
YAML
	printf '.ralph/\n' >"$1/.gitignore"
	git -C "$1" init -q && git -C "$1" add -A && git -C "$1" commit -qm init
}

seed() { # seed DIR: a state in which every spec had a rotation
	python3 - "$1" <<'PY'
import hashlib, json, os, sys
root = sys.argv[1]
specs = []
for name in sorted(os.listdir(os.path.join(root, "specs"))):
    rel = "specs/" + name
    digest = hashlib.sha256(open(os.path.join(root, rel), "rb").read()).hexdigest()
    specs.append({"path": rel, "done_count": 0, "last_status": "CONTINUE", "last_hash": digest,
                  "modified_files": False, "changed_files": [], "rotations": 1, "stuck_count": 0})
os.makedirs(os.path.join(root, ".ralph"), exist_ok=True)
json.dump({"version": 1, "iteration": len(specs), "specs": specs, "current": specs[0]["path"]},
          open(os.path.join(root, ".ralph", "state.json"), "w"), indent=2)
PY
}

fresh() { # fresh DIR STATE: DIR's .ralph replaced by a copy of STATE ("" = none)
	# The previous .ralph is moved aside, not deleted, until the end (as in
	# rotation.sh): on ext4 without a journal every new file skips the
	# inodes deleted in the last minute, so deleting a state that holds
	# REJ history logs would slow the next run's file creations and
	# charge the prompt line's later rotations for it.
	if [ -d "$1/.ralph" ]; then mv "$1/.ralph" "$(mktemp -d "$work/old.XXXXXX")/"; fi
	if [ -n "$2" ]; then cp -a "$2" "$1/.ralph"; fi
}

per_rotation() { # per_rotation DIR STATE [BASE_OUT] -> R lines of CPU ms per rotation
	# With BASE_OUT, BASE_BIN's runs are interleaved with these and its
	# lines written to BASE_OUT.
	for _ in $(seq "$R"); do
		for b in "$bin" ${3:+"$BASE_BIN"}; do
			fresh "$1" "$2"
			read -r one _ < <(cpu "$b" -C "$1" run --max-rotations 1)
			fresh "$1" "$2"
			read -r many _ < <(cpu "$b" -C "$1" run --max-rotations $((K + 1)))
			line=$(awk -v a="$many" -v b="$one" -v k="$K" 'BEGIN {printf "%.2f", (a - b) / k * 1000}')
			if [ "$b" = "$bin" ]; then echo "$line"; else echo "$line" >>"$3"; fi
		done
	done
}

continue_agent='cat >/dev/null; echo RALPH_STATUS: CONTINUE'
echo "machine: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg); $R repeats; CPU ms min / median / max"
row "case" "ralph-ci" "baseline" "ratio" "goal"

# --- CPU per rotation by number of specs.
if want rotation; then
base=""
for n in 1 100 1000 $([ "$SPECS_MAX" -gt 1000 ] && echo "$SPECS_MAX"); do
	setup "$work/n$n" "$n" "$continue_agent"
	seed "$work/n$n" && mv "$work/n$n/.ralph" "$work/state$n"
	: >"$work/brot$n"
	per_rotation "$work/n$n" "$work/state$n" ${BASE_BIN:+"$work/brot$n"} >"$work/rot$n"
	med=$(median <"$work/rot$n")
	[ -n "$base" ] || base=$med
	goal=""
	[ "$n" = 1000 ] && goal="<=2x the 1-spec cost"
	[ "$n" = 10000 ] && goal="<=2x the 1-spec cost"
	row "CPU per rotation, $n specs" "$(stats <"$work/rot$n") ms" "(1 spec: $base ms)" "$(ratio "$med" "$base")" "$goal"
	if [ -n "${BASE_BIN:-}" ]; then
		bmed=$(median <"$work/brot$n")
		[ -n "${bbase:-}" ] || bbase=$bmed
		row "  the same, BASE_BIN" "$(stats <"$work/brot$n") ms" "(1 spec: $bbase ms)" "$(ratio "$bmed" "$bbase")" "this/BASE_BIN $(ratio "$med" "$bmed")"
	fi
done
fi # rotation

# --- run startup and check vs cue vet on the same front matters.
if want startup; then
if [ -x "$cue" ]; then
	d=$work/n1000
	[ -d "$d" ] || setup "$d" 1000 "$continue_agent"
	mkdir -p "$work/fm"
	for f in "$d"/specs/*.spec.md; do awk 'NR>1 && /^---$/ {exit} NR>1' "$f" >"$work/fm/$(basename "$f" .spec.md).yaml"; done
	: >"$work/run" && : >"$work/check" && : >"$work/cue"
	for _ in $(seq "$R"); do
		fresh "$d" ""
		cpu "$bin" -C "$d" run --max-rotations 1 >>"$work/run"
		cpu "$bin" -C "$d" check >>"$work/check"
		(cd "$work/fm" && cpu "$cue" vet -c=false -d '#FrontMatter' "$here/schema/frontmatter.cue" "$here/schema/config.cue" ./*.yaml) >>"$work/cue"
	done
	cuemed=$(cut -d' ' -f1 "$work/cue" | median)
	for c in run check; do
		med=$(cut -d' ' -f1 "$work/$c" | median)
		row "$c at 1000 specs (CPU ms)" "$(cut -d' ' -f1 "$work/$c" | ms | stats)" "$(cut -d' ' -f1 "$work/cue" | ms | stats) cue vet" "$(ratio "$med" "$cuemed")" "<=1x cue vet"
		row "$c at 1000 specs (peak RSS MiB)" "$(cut -d' ' -f2 "$work/$c" | awk '{print int($1/1024)}' | stats)" "$(cut -d' ' -f2 "$work/cue" | awk '{print int($1/1024)}' | stats) cue vet" "$(ratio "$(cut -d' ' -f2 "$work/$c" | median)" "$(cut -d' ' -f2 "$work/cue" | median)")" ""
	done
else
	echo "startup: skipped (no cue CLI at $cue)"
fi
fi # startup

# --- prompts after many rejections: the agent claims DONE without its
# promise, so every claim is rejected; it records the prompt's size.
if want prompt; then
rej_agent='wc -c >>prompt-sizes; echo RALPH_STATUS: DONE'
setup "$work/rej" 1 "$rej_agent"
echo "loop: {same_rejections: 1000000}" >>"$work/rej/ralph.yaml" # rejected for ever, never stuck
echo "prompt-sizes" >>"$work/rej/.gitignore" && git -C "$work/rej" commit -qam ignore
per_rotation "$work/rej" "" >"$work/rej0"
first=$(head -n 1 "$work/rej/prompt-sizes")
fresh "$work/rej" ""
n0=$(wc -l <"$work/rej/prompt-sizes")
"$bin" -C "$work/rej" run --max-rotations "$REJ" >/dev/null 2>&1 || true
p50=$(sed -n "$((n0 + 51))p" "$work/rej/prompt-sizes") # after 50 identical rejections
cp -a "$work/rej/.ralph" "$work/rej-state"
per_rotation "$work/rej" "$work/rej-state" >"$work/rejN"
last=$(tail -n 1 "$work/rej/prompt-sizes")
row "CPU per rotation after $REJ rejections" "$(stats <"$work/rejN") ms" "$(stats <"$work/rej0") ms first $K" "$(ratio "$(median <"$work/rejN")" "$(median <"$work/rej0")")" "flat"
row "prompt after $REJ rejections (bytes)" "$last" "$first first" "$(ratio "$last" "$first")" "flat"
if [ -n "$p50" ]; then
	row "prompt after 50 identical rejections (bytes)" "$p50" "$first first" "+$((p50 - first))" "<= +600 bytes"
fi
fi # prompt

# --- output throughput: 57-byte lines.
if want output; then
line=$(printf 'x%.0s' $(seq 56))
out_cmd="yes $line | head -c $((OUT_MIB << 20))"
setup "$work/out" 1 "cat >/dev/null; $out_cmd; echo RALPH_STATUS: CONTINUE"
secret=()
[ -z "${OUT_SECRET:-}" ] || secret=(env BENCH_SECRET_TOKEN=bench-secret-0123456789)
: >"$work/outr" && : >"$work/outs" && : >"$work/outb"
for _ in $(seq "$R"); do
	fresh "$work/out" ""
	cpu "${secret[@]}" "$bin" -C "$work/out" run --max-rotations 1 | cut -d' ' -f1 >>"$work/outr"
	cpu sh -c "$out_cmd >'$work/out.log'" | cut -d' ' -f1 >>"$work/outs"
	rm -f "$work/out.log"
	if [ -n "${BASE_BIN:-}" ]; then
		fresh "$work/out" ""
		cpu "${secret[@]}" "$BASE_BIN" -C "$work/out" run --max-rotations 1 | cut -d' ' -f1 >>"$work/outb"
	fi
done
masked=""
[ -z "${OUT_SECRET:-}" ] || masked=", masked"
row "output of $OUT_MIB MiB in 57-byte lines$masked" "$(ms <"$work/outr" | stats) ms" "$(ms <"$work/outs" | stats) ms sh >" "$(ratio "$(median <"$work/outr")" "$(median <"$work/outs")")" "<=1.5x"
if [ -n "${BASE_BIN:-}" ]; then
	row "  the same, BASE_BIN$masked" "$(ms <"$work/outb" | stats) ms" "$(ms <"$work/outs" | stats) ms sh >" "$(ratio "$(median <"$work/outb")" "$(median <"$work/outs")")" ""
fi
fi # output

# --- report merge of 50 shards of 200 specs vs a Python union.
if want merge; then
mkdir -p "$work/shards"
python3 "$here/bench/shards.py" "$work/shards" 50 200
cat >"$work/union.py" <<'PY'
import json, sys
out, seen = None, {}
for p in sys.argv[2:]:
    r = json.load(open(p))
    if r.get("version") != 1:
        sys.exit(p + ": bad version")
    out = out or r
    for s in r["specs"]:
        seen[s["path"]] = s
out["specs"] = list(seen.values())
json.dump(out, open(sys.argv[1], "w"), indent=2)
PY
: >"$work/mr" && : >"$work/mp"
for _ in $(seq "$R"); do
	cpu "$bin" report merge --json "$work/merged.json" "$work"/shards/*.json | cut -d' ' -f1 >>"$work/mr"
	cpu python3 "$work/union.py" "$work/union.json" "$work"/shards/*.json | cut -d' ' -f1 >>"$work/mp"
done
[ "$(jq '.specs | length' "$work/merged.json")" = 10000 ] || { echo "report merge did not merge" >&2; exit 1; }
row "report merge, 50 shards x 200 specs" "$(ms <"$work/mr" | stats) ms" "$(ms <"$work/mp" | stats) ms python" "$(ratio "$(median <"$work/mr")" "$(median <"$work/mp")")" "<=2x"
fi # merge
