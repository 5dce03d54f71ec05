package main

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/ralph-ci/ralph-ci/cmd/ralph-ci/internal/cli"
	"github.com/ralph-ci/ralph-ci/internal/docgen"
	"github.com/ralph-ci/ralph-ci/internal/golden"
	"github.com/ralph-ci/ralph-ci/pipeline/deliver"
)

//go:generate go test ../../pipeline/agent ../../pipeline/verify ../../pipeline/deliver -run 'SchemaIsGenerated|RunnerTableIsGenerated' -update
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
	action = withDeliverInput(t, action)
	actionPage, err := docgen.ActionPage(action)
	if err != nil {
		t.Fatal(err)
	}
	pages := map[string]string{
		"action.md":   actionPage,
		"commands.md": docgen.CommandsPage(cli.NewRootCommand(&cli.GlobalOptions{})),
	}
	for name, page := range pages {
		golden.CheckFile(t, "../../docs/reference/"+name, []byte(page))
	}
}

// deliverInputLine is the description of action.yml's deliver input,
// generated from pipeline/deliver's registry of modes: each mode, what it
// does and what the job's token needs for it.
func deliverInputLine() string {
	var modes []string
	for _, m := range deliver.Modes() {
		var needs []string
		for _, p := range m.Permissions {
			needs = append(needs, p.Scope+": "+p.Access)
		}
		modes = append(modes, fmt.Sprintf("`%s` (%s; needs %s)", m.Name, m.Does, strings.Join(needs, ", ")))
	}
	gated := deliver.NamesOf(func(m deliver.Mode) bool { return m.Gate == deliver.GateDeliveredState })
	text := "How the work and the loop's state leave the job (delivery.mode; docs/delivery.md): " + deliver.OrList(modes) +
		". check: with `" + strings.Join(gated, "` or `") + "`, also require the state delivered for the pull request's head branch to hold every spec verified 3/3 at its head."
	return "    description: " + strconv.Quote(text)
}

// withDeliverInput is action.yml with its deliver input's description as
// the registry says (TestReferenceIsFresh fails while it differs, and
// -update writes it).
func withDeliverInput(t *testing.T, action []byte) []byte {
	t.Helper()
	lines := bytes.Split(action, []byte("\n"))
	for i := 0; i+1 < len(lines); i++ {
		if string(lines[i]) != "  deliver:" {
			continue
		}
		want := deliverInputLine()
		if string(lines[i+1]) == want {
			return action
		}
		lines[i+1] = []byte(want)
		out := bytes.Join(lines, []byte("\n"))
		golden.CheckFile(t, "../../action.yml", out)
		return out
	}
	t.Fatal("action.yml: no deliver input")
	return nil
}
