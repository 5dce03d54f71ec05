# shellcheck shell=bash
# Sourced by bench/rotation.sh and bench/scale.sh: the repository root in
# $here, a scratch folder $work removed on exit, a git identity for the
# commits of the fixtures, and the ralph-ci to measure in $bin: a copy of
# RALPH_BIN=path when it is set, else a build of this tree made as the
# release and the Action's source build make it (static, CGO_ENABLED=0,
# -trimpath -s -w): a plain `go build` with a C compiler around links
# the dynamic loader, about 2 ms more CPU at each start of ralph-ci (every
# agent and verification command's shepherd is one). BASE_BIN=path
# (an older build) is what each script measures beside it, interleaved,
# so that the machine's load hits both alike.
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
work=$(mktemp -d)
trap 'chmod -R u+w "$work" 2>/dev/null; rm -rf "$work"' EXIT
export GIT_AUTHOR_NAME=bench GIT_AUTHOR_EMAIL=bench@example.com GIT_COMMITTER_NAME=bench GIT_COMMITTER_EMAIL=bench@example.com
if [ -n "${RALPH_BIN:-}" ]; then
	cp "$RALPH_BIN" "$work/ralph-ci"
else
	(cd "$here" && CGO_ENABLED=0 go build -trimpath -ldflags='-s -w' -o "$work/ralph-ci" ./cmd/ralph-ci)
fi
# shellcheck disable=SC2034 # used by the scripts that source this file
bin=$work/ralph-ci
