package pullrequest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ralph-ci/ralph-ci/cmd/ralph-ci/internal/e2e"

	fake "github.com/ralph-ci/ralph-ci/internal/ghfake"
)

// Who may approve a checkpoint on a pull request, end to end through the
// ralph-ci binary: the github section comes from the config on the pull
// request's base commit (read through the contents API of the fake
// GitHub), never from the pull request's own, unless the config file lies
// outside the repository's checkout.

// prConfig is PRRepoFiles' config with another github section.
func prConfig(github string) string {
	return strings.Replace(e2e.PRRepoFiles["ralph.yaml"], "github: {approvers: [carol]}\n", github, 1)
}

const contentsPath = `^/repos/Codertocat/Hello-World/contents/`

// configContents are the contents requests for a config (the spec files
// are read from the base too, for their tiers: tiers_tier_test.go).
const configContents = contentsPath + `(ci/)?ralph\.(yaml|yml|json|cue)$`

func TestTrustOnPullRequest(t *testing.T) {
	if testing.Short() {
		t.Skip("runs ralph-ci as a subprocess")
	}
	bin := e2e.RalphBinary(t)
	t.Run("a pull request that makes its author an approver cannot approve itself", func(t *testing.T) {
		t.Parallel()
		w := newPRWorld(t, bin, map[string]string{"ralph.yaml": prConfig("github: {approvers: [carol, Codertocat], ignore_pr_author: false, required_permission: admin}\n")})
		_, stderr := w.Ralph(6, "run")
		e2e.Contains(t, "the log", stderr, `"config":"ralph.yaml"`, `"base":"`+fake.BaseSHA+`"`,
			`"ignored":["github.approvers: [carol Codertocat] (base: [carol])","github.required_permission: \"admin\" (base: \"write\")","github.ignore_pr_author: false (base: true)"]`,
			"the pull request's own github settings are ignored: who may approve its checkpoints is read from the config on the pull request's base commit, so that a pull request cannot approve itself")
		cp := w.Checkpoint()
		w.Srv.AddComment(e2e.PRAuthor, "yes")
		w.Srv.React(cp.ID, e2e.PRAuthor, "+1")
		stdout, stderr := w.Ralph(6, "check")
		e2e.Contains(t, "check", stdout, e2e.SpecA+"\tcheckpoint=pending")
		why := `"author":"Codertocat","reason":"the pull request's author (github.ignore_pr_author); the pull request's own config would let it count, but a pull request may not decide who approves it: the github section is read from the config on its base commit"`
		e2e.Contains(t, "the log", stderr, `"kind":"reply",`+why, `"kind":"reaction",`+why)
		if r := w.Record(); r.Status != "pending" {
			t.Fatalf("the author approved their own pull request: %+v", r)
		}
		// A collaborator with write permission (the base's
		// required_permission; the pull request asked for admin) still
		// approves, and so does the base's approver.
		w.Srv.AddComment(e2e.Alice, "yes")
		stdout, _ = w.Ralph(0, "check")
		e2e.Contains(t, "check", stdout, e2e.SpecA+"\tcheckpoint=passed")
		e2e.Contains(t, "the checkpoint comment", w.Checkpoint().Body, "Approved by @alice for commit "+w.HeadSHA[:7])
		w.WantStatus("success")
	})
	t.Run("an approver of the base config counts, though the pull request removes them", func(t *testing.T) {
		t.Parallel()
		w := newPRWorld(t, bin, map[string]string{"ralph.yaml": prConfig("")})
		w.Ralph(6, "run")
		w.Srv.AddComment(e2e.Carol, "yes") // no permission; in the base's github.approvers
		stdout, stderr := w.Ralph(0, "check")
		e2e.Contains(t, "check", stdout, e2e.SpecA+"\tcheckpoint=passed")
		e2e.Contains(t, "the log", stderr, `"ignored":["github.approvers: [] (base: [carol])"]`)
		e2e.Contains(t, "the checkpoint comment", w.Checkpoint().Body, "Approved by @carol")
	})
	t.Run("no config on the base: the defaults", func(t *testing.T) {
		t.Parallel()
		w := newPRWorld(t, bin)
		w.Srv.RemoveFile(w.Srv.BaseSHA, "ralph.yaml")
		before := w.Srv.Seen("GET", configContents)
		_, stderr := w.Ralph(6, "run")
		// The config was found at the root: its other names are looked
		// for too (a pull request may not shed the base's settings by
		// renaming the file).
		for _, name := range []string{"ralph.yaml", "ralph.cue", "ralph.yml", "ralph.json"} {
			if w.Srv.Seen("GET", contentsPath+strings.ReplaceAll(name, ".", `\.`)+"$") != 1 {
				t.Errorf("%s was not looked for once on the base", name)
			}
		}
		if n := w.Srv.Seen("GET", configContents) - before; n != 4 {
			t.Errorf("%d contents requests, want 4", n)
		}
		e2e.Contains(t, "the log", stderr, "no config on the pull request's base commit: who may approve follows the defaults",
			`"ignored":["github.approvers: [carol] (base: [])"]`)
		w.Srv.AddComment(e2e.Carol, "yes")
		w.Srv.AddComment(e2e.PRAuthor, "yes")
		_, stderr = w.Ralph(6, "check")
		e2e.Contains(t, "the log", stderr,
			`"author":"carol","reason":"permission \"none\" is below github.required_permission \"write\" and not in github.approvers; the pull request's own config would let it count`,
			`"author":"Codertocat","reason":"the pull request's author (github.ignore_pr_author)"`)
		w.Srv.AddComment(e2e.Alice, "yes")
		w.Ralph(0, "check")
	})
	t.Run("an invalid or unreadable base config fails closed", func(t *testing.T) {
		t.Parallel()
		w := newPRWorld(t, bin, map[string]string{"ralph.yaml": prConfig("github: {ignore_pr_author: false}\n")})
		w.Srv.SetFile(w.Srv.BaseSHA, "ralph.yaml", prConfig("github: {approvers: carol}\n")) // not a list
		_, stderr := w.Ralph(6, "run")
		e2e.Contains(t, "the log", stderr, `"config":"ralph.yaml"`, "the config ralph.yaml on the pull request's base commit is invalid: using the defaults for who may approve",
			`"ignored":["github.ignore_pr_author: false (base: true)"]`)
		w.Srv.AddComment(e2e.PRAuthor, "yes")
		w.Srv.AddComment(e2e.Carol, "yes")
		_, stderr = w.Ralph(6, "check")
		e2e.Contains(t, "the log", stderr, `"author":"Codertocat","reason":"the pull request's author (github.ignore_pr_author); the pull request's own config would let it count`,
			`"author":"carol","reason":"permission \"none\"`)

		// A token that may not read the contents (403, not retried): the
		// defaults too.
		w.Srv.SetFile(w.Srv.BaseSHA, "ralph.yaml", e2e.PRRepoFiles["ralph.yaml"])
		w.Srv.Inject(fake.Fault{Method: "GET", Path: contentsPath, Code: 403, Count: 1})
		w.Srv.AddComment(e2e.Carol, "yes")
		_, stderr = w.Ralph(6, "check")
		e2e.Contains(t, "the log", stderr, "cannot read the config on the pull request's base commit (the job needs `contents: read`): using the defaults",
			`"author":"carol","reason":"permission \"none\"`)
		// Readable again: carol, the base's approver, counts.
		w.Srv.AddComment(e2e.Carol, "yes")
		w.Ralph(0, "check")
	})
	t.Run("a config outside the repository is trusted as given", func(t *testing.T) {
		t.Parallel()
		w := newPRWorld(t, bin)
		w.Srv.RemoveFile(w.Srv.BaseSHA, "ralph.yaml") // would give the defaults
		w.Ralph(6, "run")
		// The base branch checked out beside the head, as
		// examples/workflows/ralph-check.yml does: another git checkout.
		base := filepath.Join(w.Dir, ".ralph-base")
		if err := os.MkdirAll(base, 0o755); err != nil {
			t.Fatal(err)
		}
		e2e.Git(t, base, "init", "-q")
		if err := os.WriteFile(filepath.Join(base, "ralph.yaml"), []byte(prConfig("github: {approvers: [carol]}\n")), 0o644); err != nil {
			t.Fatal(err)
		}
		// A config inside the repository, named with --config, is read
		// from the base at its path (and only there): absent, the
		// defaults, so carol does not count.
		if err := os.MkdirAll(filepath.Join(w.Dir, "ci"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(w.Dir, "ci", "ralph.yaml"), []byte(prConfig("github: {approvers: [carol]}\n")), 0o644); err != nil {
			t.Fatal(err)
		}
		w.Srv.AddComment(e2e.Carol, "yes")
		before := w.Srv.Seen("GET", configContents)
		_, stderr := w.Ralph(6, "check", "--config", "ci/ralph.yaml")
		if w.Srv.Seen("GET", contentsPath+`ci/ralph\.yaml$`) != 1 || w.Srv.Seen("GET", configContents)-before != 1 {
			t.Error("ci/ralph.yaml was not read (alone) from the base")
		}
		e2e.Contains(t, "the log", stderr, `"author":"carol","reason":"permission \"none\"`)

		w.Srv.AddComment(e2e.Carol, "yes")
		before = w.Srv.Seen("GET", configContents)
		stdout, stderr := w.Ralph(0, "check", "--config", ".ralph-base/ralph.yaml")
		e2e.Contains(t, "check", stdout, e2e.SpecA+"\tcheckpoint=passed")
		e2e.Contains(t, "the log", stderr, `"config":".ralph-base/ralph.yaml"`, "the config lies outside the repository's checkout, so it did not come from the pull request: its github section (who may approve) is used as given")
		if n := w.Srv.Seen("GET", configContents) - before; n != 0 {
			t.Errorf("%d contents requests for a trusted config", n)
		}
		e2e.Contains(t, "the checkpoint comment", w.Checkpoint().Body, "Approved by @carol")

		// A file outside the repository's directory is trusted as well.
		outside := filepath.Join(t.TempDir(), "ralph.yaml")
		if err := os.WriteFile(outside, []byte(prConfig("github: {approvers: [carol]}\n")), 0o644); err != nil {
			t.Fatal(err)
		}
		before = w.Srv.Seen("GET", configContents)
		w.Ralph(0, "check", "--config", outside)
		if n := w.Srv.Seen("GET", configContents) - before; n != 0 {
			t.Errorf("%d contents requests for a config outside the repository", n)
		}
	})
}
