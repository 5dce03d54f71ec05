package verify

import (
	"slices"
	"testing"

	"github.com/ralph-ci/ralph-ci/schema"
)

// One list, one truth: the methods the schema accepts (#Method) are the
// methods the registry runs.
func TestMethodsEqualTheSchema(t *testing.T) {
	s, err := schema.Compiled()
	if err != nil {
		t.Fatal(err)
	}
	want, err := s.Enum("#Method")
	if err != nil {
		t.Fatal(err)
	}
	if got := Names(); !slices.Equal(got, want) {
		t.Errorf("the registry has %q, schema's #Method %q: add the method to both", got, want)
	}
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
