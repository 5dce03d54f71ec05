#!/bin/sh
# agent.sh, written by ralph-ci init --agent command: replace its body with
# the call to your agent. The prompt arrives on stdin; ralph-ci reads the
# last line of the output as the status (RALPH_STATUS: DONE, CONTINUE,
# ROTATE or STUCK) and a claim of done needs the stage's promise too:
# <promise>IMPLEMENTATION_COMPLETE</promise>. See docs/agents.md.
cat >/dev/null
echo "agent.sh: call your agent here (see docs/agents.md)" >&2
echo "RALPH_STATUS: STUCK"
