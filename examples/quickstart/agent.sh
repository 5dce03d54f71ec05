#!/bin/sh
# A scripted, offline stand-in for a coding agent. ralph-ci gives it the
# prompt on stdin and RALPH_SPEC / RALPH_STAGE / RALPH_ITERATION in the
# environment. It does the spec's work once (later rotations find nothing
# to change), reports each acceptance criterion of the prompt done, echoes
# the promise the prompt asks for, and reports DONE.
set -eu
prompt=$(cat)
promise=$(printf '%s\n' "$prompt" | sed -n 's/^<promise>\(.*\)<\/promise>$/\1/p' | head -n 1)

write() { # write FILE TEXT, only when the content differs
	mkdir -p "$(dirname "$1")"
	if [ ! -f "$1" ] || [ "$(cat "$1")" != "$2" ]; then
		printf '%s\n' "$2" >"$1"
		echo "wrote $1"
	fi
}

case "$RALPH_SPEC:$RALPH_STAGE" in
specs/greeting.spec.md:coder) write out/greeting.txt "Hello, Ralph" ;;
specs/farewell.spec.md:coder) write out/farewell.txt "Goodbye, Ralph" ;;
*:reviewer) echo "reviewed $RALPH_SPEC: looks right" ;;
esac

echo "iteration $RALPH_ITERATION of $RALPH_SPEC ($RALPH_STAGE) is complete."
printf '%s\n' "$prompt" | sed -n '/^## Acceptance Criteria$/,/^$/s/^- \[ \] /- [x] /p'
if [ -n "$promise" ]; then
	echo "<promise>$promise</promise>"
fi
echo "RALPH_STATUS: DONE"
