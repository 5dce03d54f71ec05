package verify

import (
	"bytes"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"cuelang.org/go/cue/format"

	"github.com/ralph-ci/ralph-ci/internal/golden"

	"github.com/ralph-ci/ralph-ci/schema"
)

// One list, one truth: the schema's #Method (the methods a config or a
// spec may name), #StageMethod and #MethodConfig (each method's options)
// are generated from the registry; a method added to it and not
// generated (go generate ./cmd/ralph-ci) fails here.
func TestMethodSchemaIsGenerated(t *testing.T) {
	golden.CheckFile(t, "../../schema/method_gen.cue", methodSchema(t))
}

// methodSchema is schema/method_gen.cue, written from the registry.
func methodSchema(t *testing.T) []byte {
	var stages []string
	for _, name := range Names() {
		if name != MultiStage { // multi_stage does not nest
			stages = append(stages, name)
		}
	}
	var b bytes.Buffer
	b.WriteString("// Code generated from pipeline/verify's registry by go generate ./cmd/ralph-ci; DO NOT EDIT.\n\npackage schema\n\n")
	b.WriteString("// #Method is one of the verification methods of pipeline/verify.\n#Method: " + disjunction(Names()) + "\n\n")
	b.WriteString("// #StageMethod is a method a stage of multi_stage may use: any other.\n#StageMethod: " + disjunction(stages) + "\n\n")
	b.WriteString("// #MethodConfig is the schema of each method's verification_config.\n#MethodConfig: {\n")
	for _, name := range Names() {
		fmt.Fprintf(&b, "\t%s: %s\n", name, methods[name].Options())
	}
	b.WriteString("}\n")
	out, err := format.Source(b.Bytes())
	if err != nil {
		t.Fatalf("generated CUE: %v\n%s", err, b.Bytes())
	}
	return out
}

// disjunction is names as CUE alternatives: "a" | "b".
func disjunction(names []string) string {
	quoted := make([]string, len(names))
	for i, n := range names {
		quoted[i] = strconv.Quote(n)
	}
	return strings.Join(quoted, " | ")
}

// Whether a method runs commands is what it declares (CommandRunner):
// external runs its own, multi_stage its stages', the others none.
func TestCommands(t *testing.T) {
	cmd := func(s string) *schema.Command { return &schema.Command{Shell: s} }
	ext := schema.VerificationConfig{Command: cmd("sh check.sh")}
	multi := schema.VerificationConfig{Stages: []schema.VerifyStage{
		{Name: "a", Method: External, Config: ext},
		{Name: "b", Method: Semantic},
		{Name: "c", Method: MultiStage, Config: schema.VerificationConfig{Stages: []schema.VerifyStage{{Method: External, Config: ext}}}},
		{Name: "d", Method: External, Config: schema.VerificationConfig{Command: cmd("make test")}},
	}}
	for _, tc := range []struct {
		method string
		cfg    schema.VerificationConfig
		want   []string
	}{
		{External, ext, []string{"sh check.sh"}},
		{MultiStage, multi, []string{"sh check.sh", "make test"}},
		{StringMatch, ext, nil},
		{Semantic, ext, nil},
		{"unknown", ext, nil},
	} {
		var got []string
		for _, c := range Commands(tc.method, tc.cfg) {
			got = append(got, c.Command.Shell)
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("Commands(%s) = %q, want %q", tc.method, got, tc.want)
		}
	}
}
