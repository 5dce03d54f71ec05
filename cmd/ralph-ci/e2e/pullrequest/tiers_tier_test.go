package pullrequest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ralph-ci/ralph-ci/cmd/ralph-ci/internal/e2e"

	fake "github.com/ralph-ci/ralph-ci/internal/ghfake"
)

// Which specs have a checkpoint on a pull request, end to end through the
// ralph-ci binary: a pull request may raise a spec's tier but not lower it.
// A spec is verify when it is verify on the head or was on the base
// commit (its file there read through the contents API of the fake
// GitHub, resolved with the base config's specs.default_tier).

// specC has no contracts: it takes specs.default_tier (verify unless the
// config says otherwise). It is verify on the base and the head, so that
// check has a verify-tier spec on the head and reaches the gate.
const specC = "specs/c.spec.md"

// autoA is specs/a.spec.md with every contract flipped to auto.
var autoA = strings.Replace(e2e.PRRepoFiles[e2e.SpecA], "  - name: totals\n", "  - name: totals\n    verification: auto\n", 1)

const lowered = "the pull request tried to lower the spec's tier: a pull request may raise a spec's tier but not lower it, so it stays verify and keeps its human checkpoint"

func TestTierOnPullRequest(t *testing.T) {
	if testing.Short() {
		t.Skip("runs ralph-ci as a subprocess")
	}
	bin := e2e.RalphBinary(t)
	t.Run("a pull request that flips a verify spec to auto still needs its checkpoint", func(t *testing.T) {
		t.Parallel()
		w := newPRWorld(t, bin, map[string]string{e2e.SpecA: autoA, specC: "# C\n"})
		w.Srv.SetFile(w.Srv.BaseSHA, e2e.SpecA, e2e.PRRepoFiles[e2e.SpecA])
		w.Srv.SetFile(w.Srv.BaseSHA, specC, "# C\n")
		_, stderr := w.Ralph(6, "run")
		e2e.Contains(t, "the log", stderr, `"spec":"`+e2e.SpecA+`","base":"`+fake.BaseSHA+`","head_tier":"auto","base_tier":"verify"`, lowered)
		stdout, _ := w.Ralph(6, "check")
		e2e.Contains(t, "check", stdout, e2e.SpecA+"\tcheckpoint=pending", specC+"\tcheckpoint=pending")
		cpA, _ := w.CheckpointOf(e2e.SpecA)
		w.Srv.React(cpA.ID, e2e.Alice, "+1")
		stdout, _ = w.Ralph(6, "check")
		e2e.Contains(t, "check", stdout, e2e.SpecA+"\tcheckpoint=passed", specC+"\tcheckpoint=pending")
		cpC, _ := w.CheckpointOf(specC)
		w.Srv.React(cpC.ID, e2e.Alice, "+1")
		stdout, _ = w.Ralph(0, "check")
		e2e.Contains(t, "check", stdout, e2e.SpecA+"\tcheckpoint=passed", specC+"\tcheckpoint=passed")
	})
	t.Run("lowering every verify-tier spec cannot skip the gate", func(t *testing.T) {
		t.Parallel()
		// The head has no verify-tier spec at all (a flipped to auto, b
		// auto); only the base says a is verify.
		w := newPRWorld(t, bin, map[string]string{e2e.SpecA: autoA})
		w.Srv.SetFile(w.Srv.BaseSHA, e2e.SpecA, e2e.PRRepoFiles[e2e.SpecA])
		stdout, stderr := w.Ralph(6, "check")
		e2e.Contains(t, "check", stdout, e2e.SpecA+"\tcheckpoint=pending")
		e2e.Contains(t, "the log", stderr, lowered)
	})
	t.Run("the pull request's specs.default_tier cannot lower a spec without contracts", func(t *testing.T) {
		t.Parallel()
		cfg := e2e.PRRepoFiles["ralph.yaml"] + "specs: {default_tier: auto}\n"
		// specs/d.spec.md is new and declares no contracts: the base's
		// default (verify), not the pull request's.
		w := newPRWorld(t, bin, map[string]string{"ralph.yaml": cfg, specC: "# C\n", "specs/d.spec.md": "# D\n"})
		w.Srv.SetFile(w.Srv.BaseSHA, e2e.SpecA, e2e.PRRepoFiles[e2e.SpecA])
		w.Srv.SetFile(w.Srv.BaseSHA, specC, "# C\n")
		stdout, stderr := w.Ralph(6, "check")
		e2e.Contains(t, "check", stdout, specC+"\ttier=auto", e2e.SpecA+"\tcheckpoint=pending", specC+"\tcheckpoint=pending", "specs/d.spec.md\tcheckpoint=pending")
		e2e.Contains(t, "the log", stderr, `"spec":"`+specC+`","base":"`+fake.BaseSHA+`","head_tier":"auto","base_tier":"verify"`,
			`"spec":"specs/d.spec.md","base":"`+fake.BaseSHA+`","head_tier":"auto","base_tier":"verify"`, lowered)
	})
	t.Run("a new spec that declares auto stays auto", func(t *testing.T) {
		t.Parallel()
		// specs/b.spec.md is not on the base and declares an auto
		// contract; the base's default would be verify.
		w := newPRWorld(t, bin)
		stdout, stderr := w.Ralph(6, "check")
		e2e.Contains(t, "check", stdout, e2e.SpecA+"\tcheckpoint=pending")
		if strings.Contains(stdout, "specs/b.spec.md\tcheckpoint=") || strings.Contains(stderr, `"spec":"specs/b.spec.md"`) {
			t.Fatalf("the new auto spec got a checkpoint:\n%s\n%s", stdout, stderr)
		}
		if w.Srv.Seen("GET", contentsPath+`specs/b\.spec\.md$`) != 1 {
			t.Error("specs/b.spec.md was not looked for on the base")
		}
		if w.Srv.Seen("GET", contentsPath+`specs/a\.spec\.md$`) != 0 {
			t.Error("a verify spec was read from the base: raising needs no base")
		}
	})
	t.Run("a base that cannot be read fails closed", func(t *testing.T) {
		t.Parallel()
		w := newPRWorld(t, bin)
		const failClosed = "the spec's tier on the pull request's base commit is unknown: it is treated as verify (fail closed), so it keeps its human checkpoint"
		// A token that may not read the contents (403).
		w.Srv.Inject(fake.Fault{Method: "GET", Path: contentsPath + `specs/b\.spec\.md$`, Code: 403, Count: 1})
		stdout, stderr := w.Ralph(6, "check")
		e2e.Contains(t, "check", stdout, "specs/b.spec.md\tcheckpoint=pending")
		e2e.Contains(t, "the log", stderr, `"spec":"specs/b.spec.md"`, "cannot read specs/b.spec.md on the base commit (the job needs `contents: read`)", failClosed)
		// An invalid spec file on the base.
		w.Srv.SetFile(w.Srv.BaseSHA, "specs/b.spec.md", "---\ncontracts: nope\n---\n")
		stdout, stderr = w.Ralph(6, "check")
		e2e.Contains(t, "check", stdout, "specs/b.spec.md\tcheckpoint=pending")
		e2e.Contains(t, "the log", stderr, "specs/b.spec.md on the base commit is invalid", failClosed)
		// An unreadable base config: a new spec without contracts, auto
		// by the pull request's default, cannot know the base's default.
		w.Srv.RemoveFile(w.Srv.BaseSHA, "specs/b.spec.md")
		w.Srv.Inject(fake.Fault{Method: "GET", Path: contentsPath + `ralph\.yaml$`, Code: 403, Count: 1})
		for name, content := range map[string]string{"specs/d.spec.md": "# D\n", "ralph.yaml": e2e.PRRepoFiles["ralph.yaml"] + "specs: {default_tier: auto}\n"} {
			if err := os.WriteFile(filepath.Join(w.Dir, name), []byte(content), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		stdout, stderr = w.Ralph(6, "check")
		e2e.Contains(t, "check", stdout, "specs/d.spec.md\tcheckpoint=pending")
		e2e.Contains(t, "the log", stderr, "the base's config (its specs.default_tier) could not be read", failClosed)
		if strings.Contains(stdout, "specs/b.spec.md\tcheckpoint=") {
			t.Errorf("the new auto spec got a checkpoint once the base was readable:\n%s", stdout)
		}
	})
}
