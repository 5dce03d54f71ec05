package agent

import (
	"strconv"
	"strings"
	"testing"

	"github.com/ralph-ci/ralph-ci/internal/golden"
)

// One list, one truth: the schema's #Format (the formats an agent of the
// config may name) is generated from the registry; a format added to it
// and not generated (go generate ./cmd/ralph-ci) fails here.
func TestFormatSchemaIsGenerated(t *testing.T) {
	quoted := make([]string, 0, len(formats))
	for _, name := range FormatNames() {
		quoted = append(quoted, strconv.Quote(name))
	}
	golden.CheckFile(t, "../../schema/format_gen.cue", []byte(`// Code generated from pipeline/agent's registry by go generate ./cmd/ralph-ci; DO NOT EDIT.

package schema

// #Format is how an agent CLI's output is read: one of the formats of
// pipeline/agent.
#Format: `+strings.Join(quoted, " | ")+"\n"))
}
