package shards

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ralph-ci/ralph-ci/pipeline/state"
)

// TestIntegrate: the shards' saved folders are folded in the order they
// were saved (the later shard wins a spec two shards hold), a spec
// verified where files it has not seen changed drops to 2/3, and the
// project's folder holds the merged state.
func TestIntegrate(t *testing.T) {
	root := t.TempDir()
	save := func(name string, specs ...state.SpecState) string {
		dir := filepath.Join(root, name)
		if err := state.Dir(dir).Ensure(); err != nil {
			t.Fatal(err)
		}
		if err := state.Save(state.Dir(dir), state.State{Version: state.Version, Iteration: len(specs), Specs: specs}); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	t0 := time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC)
	base := Folder{Dir: save("base", spec("PROMPT.md", 1, 1))}
	late := Folder{Name: "1-of-2", Dir: save("late", spec("a", 3, 4)), Time: t0.Add(time.Minute)}
	early := Folder{Name: "2-of-2", Dir: save("early", spec("a", 1, 2), spec("b", 3, 3)), Time: t0, Changed: []string{"a.go"}}
	dst := filepath.Join(root, "dst")
	folded, placed, err := Integrate(dst, base, []Folder{late, early})
	if err != nil {
		t.Fatal(err)
	}
	if len(folded) != 2 || folded[0].Name != "2-of-2" || folded[1].Name != "1-of-2" {
		t.Fatalf("folded %+v, want the early shard first", folded)
	}
	st, err := state.Load(state.Dir(dst))
	if err != nil {
		t.Fatal(err)
	}
	var desc []string
	for _, ss := range st.Specs {
		desc = append(desc, ss.Path+":"+ss.Shard)
	}
	if got := strings.Join(desc, " "); got != "PROMPT.md: a:1-of-2 b:2-of-2" {
		t.Errorf("specs %s", got)
	}
	for _, p := range placed {
		if p.Path == "b" && !p.Dropped {
			t.Errorf("b, verified in a shard that had not seen a.go change, kept 3/3: %+v", placed)
		}
	}
}
