package project

import (
	"slices"
	"testing"

	"github.com/ralph-ci/ralph-ci/internal/ghorigin"
	"github.com/ralph-ci/ralph-ci/pipeline/plan"
	"github.com/ralph-ci/ralph-ci/schema"
)

// TestRediscoverAndKeepVerify: a pull request that points specs.dirs
// elsewhere hides no spec: discovered again with the base's section, the
// base's spec is back; the same section changes nothing; a tier raised to
// verify stays verify in every later load.
func TestRediscoverAndKeepVerify(t *testing.T) {
	root := t.TempDir()
	ghorigin.WriteFiles(t, root, map[string]string{
		"ralph.yaml":          "agents:\n  coder: {command: [sh, agent.sh]}\nspecs: {dirs: [elsewhere], default_tier: auto}\n",
		"elsewhere/.keep":     "",
		"specs/a.spec.md":     "# A\n",
		"elsewhere/x.spec.md": "# X\n",
	})
	p, err := Load(root, "")
	if err != nil {
		t.Fatal(err)
	}
	if again, err := p.Rediscover(p.Config.Specs); again || err != nil {
		t.Fatalf("the same section: again %v, %v", again, err)
	}
	base := schema.Specs{Dirs: []string{"specs"}, Prompt: p.Config.Specs.Prompt}
	if again, err := p.Rediscover(base); !again || err != nil || len(p.Specs) != 1 || p.Specs[0].Path != "specs/a.spec.md" {
		t.Fatalf("the base's section: again %v, %v, specs %+v", again, err, p.Specs)
	}
	p.Specs = slices.Clone(p.Specs)
	p.Specs[0].Tier = plan.TierVerify // raised by the channel
	p.KeepVerify()
	ghorigin.WriteFiles(t, root, map[string]string{"specs/a.spec.md": "# A, changed by the agent\n"})
	p.Loader.Unchanged = nil
	later, _, err := p.Loader.Load()
	if err != nil || len(later) != 1 || later[0].Tier != plan.TierVerify {
		t.Fatalf("a later load: %+v, %v; want specs/a.spec.md still verify", later, err)
	}
}
