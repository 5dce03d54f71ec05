package deliver

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"cuelang.org/go/cue/format"

	"github.com/ralph-ci/ralph-ci/internal/golden"
)

// A mode answers every question the program asks of it, and its answers
// hold together: a new mode that leaves one at its zero value, or says it
// pushes without needing to write the repository, fails here.
func TestModesAnswerEveryQuestion(t *testing.T) {
	seen := map[string]bool{}
	for _, m := range Modes() {
		if m.Name == "" || seen[m.Name] || strings.TrimSpace(m.Does) == "" {
			t.Errorf("a mode with an empty or repeated name %q, or no words for what it does", m.Name)
		}
		seen[m.Name] = true
		for q, a := range map[string]int8{"Where": int8(m.Where), "Commits": int8(m.Commits), "Pushes": int8(m.Pushes),
			"PullRequest": int8(m.PullRequest), "State": int8(m.State), "Shards": int8(m.Shards), "Gate": int8(m.Gate), "CI": int8(m.CI)} {
			if a == 0 {
				t.Errorf("%s: %s is unanswered", m.Name, q)
			}
		}
		if len(m.Permissions) == 0 {
			t.Errorf("%s: Permissions is unanswered", m.Name)
		}
		for _, why := range incoherent(m) {
			t.Errorf("%s: %s", m.Name, why)
		}
	}
}

// incoherent lists the answers of m that contradict each other.
func incoherent(m Mode) []string {
	var out []string
	need := func(ok bool, why string) {
		if !ok {
			out = append(out, why)
		}
	}
	pushes, inGit := m.Pushes == Yes, m.State == StateInGit
	need((m.Where == WorkTree) == (m.Commits == No), "a mode commits exactly when it works on a branch")
	need(!pushes || m.Commits == Yes, "a mode that pushes commits")
	need(pushes == (m.Where == PullRequestHead || m.Where == OwnBranch), "a mode pushes exactly when it works on a branch of origin's")
	need(!inGit || pushes, "the state travels in git only with a push")
	need(m.Shards != ShardsThroughGit || inGit, "shards meet through git: their mode carries the state there")
	need(m.Gate != GateDeliveredState || inGit, "the gate reads a delivered state only where the mode delivers one")
	need((m.CI == CIAfterPush) == pushes, "a mode starts CI exactly when it pushes")
	need(m.PullRequest != OpensForOwnBranch || pushes, "a pull request is opened for a pushed branch")
	need(grants(m, "contents", "write") == pushes, "contents: write exactly when it pushes")
	need(!inGit || grants(m, "statuses", "write"), "a state in git is bound by a status: statuses: write")
	need(m.CI != CIAfterPush || grants(m, "actions", "write"), "dispatching delivery.ci_workflows needs actions: write")
	need(m.PullRequest != OpensForOwnBranch || grants(m, "pull-requests", "write"), "opening a pull request needs pull-requests: write")
	return out
}

func grants(m Mode, scope, access string) bool {
	for _, p := range m.Permissions {
		if p.Scope == scope && p.Access == access {
			return true
		}
	}
	return false
}

// The checks of TestModesAnswerEveryQuestion catch a mode that forgets:
// one that pushes, says it starts no CI and asks for no permission.
func TestIncoherentModesAreCaught(t *testing.T) {
	broken := modeBranch
	broken.CI = NoCI
	broken.Permissions = nil
	if got := incoherent(broken); len(got) != 3 {
		t.Errorf("incoherent(branch without CI nor permissions) = %q, want 3 reasons", got)
	}
	for _, m := range Modes() {
		if got := incoherent(m); len(got) > 0 {
			t.Errorf("%s: %q", m.Name, got)
		}
	}
}

// One list, one truth: the schema's #DeliveryMode is generated from the
// registry; a mode added and not generated (go generate ./cmd/ralph-ci)
// fails here.
func TestModeSchemaIsGenerated(t *testing.T) {
	golden.CheckFile(t, "../../schema/mode_gen.cue", modeSchema(t))
}

// modeSchema is schema/mode_gen.cue, written from the registry.
func modeSchema(t *testing.T) []byte {
	var b bytes.Buffer
	b.WriteString("// Code generated from pipeline/deliver's registry by go generate ./cmd/ralph-ci; DO NOT EDIT.\n\npackage schema\n\n")
	b.WriteString("// #DeliveryMode is how the loop's work and state leave a CI job:\n")
	quoted := make([]string, 0, len(modes))
	for _, m := range modes {
		fmt.Fprintf(&b, "// `%s`: %s;\n", m.Name, m.Does)
		quoted = append(quoted, strconv.Quote(m.Name))
	}
	b.WriteString("#DeliveryMode: " + strings.Join(quoted, " | ") + "\n")
	out, err := format.Source(b.Bytes())
	if err != nil {
		t.Fatalf("generated CUE: %v\n%s", err, b.Bytes())
	}
	return out
}

func TestModeNamed(t *testing.T) {
	for _, name := range ModeNames() {
		if m, err := ModeNamed(name); err != nil || m.Name != name {
			t.Errorf("ModeNamed(%q) = %v, %v", name, m.Name, err)
		}
	}
	_, err := ModeNamed("push")
	if err == nil || !strings.Contains(err.Error(), `"push": want none, commit, pr or branch`) {
		t.Errorf("ModeNamed(push): %v", err)
	}
}
