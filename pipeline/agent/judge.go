package agent

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ralph-ci/ralph-ci/schema"
)

// judgeCLI is the optional ability of a model CLI's format: it can run
// as the semantic judge of its own agent's claims (pipeline/layers'
// semantic judge), with its vendor's small model and without the right
// to change files.
type judgeCLI interface {
	// program is the CLI's executable name ("claude").
	program() string
	// smallModel is the vendor's small model the judge runs by default.
	smallModel() string
	// judgeArgs turns the agent's argv (which runs program) into the
	// judge's: model instead of the agent's, and read-only.
	judgeArgs(argv []string, model string) []string
}

// SmallModel is the model the semantic judge of an agent of format runs
// by default ("" for a format that is no model CLI).
func SmallModel(format string) string {
	if j, ok := judgeOf(format); ok {
		return j.smallModel()
	}
	return ""
}

func judgeOf(format string) (judgeCLI, bool) {
	newFormat, ok := formats[format]
	if !ok {
		return nil, false
	}
	j, ok := newFormat(discard{}, discard{}).(judgeCLI)
	return j, ok
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }

// JudgeAgent returns the agent a that runs as the semantic judge of its
// own claims: the same CLI, with model ("" its vendor's small model,
// [SmallModel]) and no right to edit files, with a's environment. It
// returns the judge and its model, or why a has none: its format is no
// model CLI (a `command` agent), or its command does not start the CLI
// itself (a wrapper script would be run again as the judge).
func JudgeAgent(a schema.Agent, model string) (schema.Agent, string, error) {
	j, ok := judgeOf(a.Format)
	if !ok {
		return a, "", fmt.Errorf("format %q is no model CLI", a.Format)
	}
	if len(a.Command) == 0 || filepath.Base(a.Command[0]) != j.program() {
		return a, "", fmt.Errorf("its command does not start %s itself (%q)", j.program(), strings.Join(a.Command, " "))
	}
	if model == "" {
		model = j.smallModel()
	}
	a.Command = j.judgeArgs(slices.Clone(a.Command), model)
	a.Model = model
	return a, model, nil
}

// withoutFlags removes from argv the flags named in valued (each with its
// value, as "--flag value" or "--flag=value") and in bare.
func withoutFlags(argv []string, valued, bare []string) []string {
	out := argv[:1]
	for i := 1; i < len(argv); i++ {
		a := argv[i]
		name, _, hasValue := strings.Cut(a, "=")
		switch {
		case slices.Contains(bare, a):
		case slices.Contains(valued, name) && hasValue:
		case slices.Contains(valued, a):
			i++ // its value
		default:
			out = append(out, a)
		}
	}
	return out
}
