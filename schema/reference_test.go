package schema_test

import (
	"strings"
	"testing"

	"github.com/ralph-ci/ralph-ci/internal/docgen"
	"github.com/ralph-ci/ralph-ci/internal/golden"
	"github.com/ralph-ci/ralph-ci/schema"
)

// The configuration and front-matter references are generated from these
// .cue files: a change to them that is not regenerated (go generate
// ./cmd/ralph-ci), or a field without a doc comment, fails here, in the
// package whose tests a schema change runs.
func TestReferenceIsFresh(t *testing.T) {
	v, err := schema.Fresh()
	if err != nil {
		t.Fatal(err)
	}
	for name, page := range map[string]string{"config.md": docgen.ConfigPage(v), "frontmatter.md": docgen.FrontMatterPage(v)} {
		golden.CheckFile(t, "../docs/reference/"+name, []byte(page))
		for _, line := range strings.Split(page, "\n") {
			if strings.HasPrefix(line, "| `") && strings.HasSuffix(line, "|  |") {
				t.Errorf("%s: a row without a description (give the field a doc comment in its .cue file): %s", name, line)
			}
		}
	}
}
