package main

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/ralph-ci/ralph-ci/internal/docgen"
	"github.com/ralph-ci/ralph-ci/internal/golden"
	"github.com/ralph-ci/ralph-ci/pipeline/exitcode"
	"github.com/ralph-ci/ralph-ci/schema"
)

//go:generate go test -run TestReferenceIsFresh -update .

// The pages of docs/reference are generated from the truth (the CUE
// schemas, action.yml, the command tree, exitcode.Uses), as is the README's
// exit-code table: this test fails when one is stale, and -update (go
// generate ./cmd/ralph-ci) writes them again.
func TestReferenceIsFresh(t *testing.T) {
	v, err := schema.Fresh()
	if err != nil {
		t.Fatal(err)
	}
	action, err := os.ReadFile("../../action.yml")
	if err != nil {
		t.Fatal(err)
	}
	actionPage, err := docgen.ActionPage(action)
	if err != nil {
		t.Fatal(err)
	}
	pages := map[string]string{
		"config.md":      docgen.ConfigPage(v),
		"frontmatter.md": docgen.FrontMatterPage(v),
		"action.md":      actionPage,
		"commands.md":    docgen.CommandsPage(newRootCommand(&globalOptions{})),
		"exit-codes.md":  docgen.ExitCodesPage(exitcode.Uses),
	}
	for name, page := range pages {
		golden.CheckFile(t, "../../docs/reference/"+name, []byte(page))
		for _, line := range strings.Split(page, "\n") {
			if strings.HasPrefix(line, "| `") && strings.HasSuffix(line, "|  |") {
				t.Errorf("%s: a row without a description (give the field a doc comment in its .cue file): %s", name, line)
			}
		}
	}
	checkSection(t, "../../README.md", "exit codes", docgen.ExitCodeTable(exitcode.Uses))
}

// checkSection compares the part of the file at path between the markers
// of the generated section name with want (with -update, writes it).
func checkSection(t *testing.T, path, name, want string) {
	t.Helper()
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	begin := []byte("<!-- generated: " + name + " -->\n")
	end := []byte("<!-- end of generated: " + name + " -->")
	i, j := bytes.Index(src, begin), bytes.Index(src, end)
	if i < 0 || j < i {
		t.Fatalf("%s: no section between %q and %q", path, strings.TrimSpace(string(begin)), end)
	}
	got := string(src[i+len(begin) : j])
	if got == want {
		return
	}
	if !golden.Updating() {
		t.Errorf("%s: the generated %s are stale: run go generate ./cmd/ralph-ci", path, name)
		return
	}
	out := append(append(append([]byte{}, src[:i+len(begin)]...), want...), src[j:]...)
	if err := os.WriteFile(path, out, 0o644); err != nil {
		t.Fatal(err)
	}
}
