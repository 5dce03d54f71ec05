package main

import (
	"os"
	"testing"

	"github.com/ralph-ci/ralph-ci/internal/docgen"
	"github.com/ralph-ci/ralph-ci/internal/golden"
)

//go:generate go test ../../pipeline/agent ../../pipeline/verify -run 'SchemaIsGenerated|RunnerTableIsGenerated' -update
//go:generate go test . ../../schema ../../pipeline/exitcode -run TestReferenceIsFresh -update

// The pages of docs/reference are generated from the truth (action.yml
// and the command tree here; the CUE schemas and exitcode.Uses, with the
// README's exit-code table, in the tests of those packages): this test fails when one is
// stale, and -update (go generate ./cmd/ralph-ci) writes them again.
func TestReferenceIsFresh(t *testing.T) {
	action, err := os.ReadFile("../../action.yml")
	if err != nil {
		t.Fatal(err)
	}
	actionPage, err := docgen.ActionPage(action)
	if err != nil {
		t.Fatal(err)
	}
	pages := map[string]string{
		"action.md":   actionPage,
		"commands.md": docgen.CommandsPage(newRootCommand(&globalOptions{})),
	}
	for name, page := range pages {
		golden.CheckFile(t, "../../docs/reference/"+name, []byte(page))
	}
}
