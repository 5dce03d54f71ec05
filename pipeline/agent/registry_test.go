package agent

import (
	"slices"
	"testing"

	"github.com/ralph-ci/ralph-ci/schema"
)

// One list, one truth: the output formats the schema accepts (#Format)
// are the formats the registry reads.
func TestFormatsEqualTheSchema(t *testing.T) {
	s, err := schema.Compiled()
	if err != nil {
		t.Fatal(err)
	}
	want, err := s.Enum("#Format")
	if err != nil {
		t.Fatal(err)
	}
	if got := FormatNames(); !slices.Equal(got, want) {
		t.Errorf("the registry has %q, schema's #Format %q: add the format to both", got, want)
	}
}
