package agent

import (
	"slices"

	"github.com/ralph-ci/ralph-ci/internal/box"
)

// sandboxed is an ability of a format whose CLI sandboxes its own tools
// in a way that cannot run inside ralph-ci's box: Codex's sandbox
// (bubblewrap) maps user ids and mounts, which a boxed process, with no
// capability and no_new_privs, may not. Where the box stands in for it,
// boxedArgs sets the CLI's own sandbox aside.
type sandboxed interface {
	boxedArgs(argv []string) []string
}

// boxedArgv is argv as it runs in h's box: the CLI's own sandbox set
// aside when the format has one (sandboxed) and a box stands in for it.
func (h *Host) boxedArgv(format string, argv []string) []string {
	if h == nil || h.Boxes.Kind() == box.Off || len(argv) == 0 {
		return argv
	}
	newFormat, ok := formats[format]
	if !ok {
		return argv
	}
	s, ok := newFormat(discard{}, discard{}).(sandboxed)
	if !ok {
		return argv
	}
	return s.boxedArgs(slices.Clone(argv))
}
