package state

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/ralph-ci/ralph-ci/pipeline/status"
)

func TestSaveLoadRoundTrip(t *testing.T) {
	d := newDir(t)
	want := sampleState(7)
	if err := Save(d, want); err != nil {
		t.Fatal(err)
	}
	got, err := Load(d)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("round trip:\n got %+v\nwant %+v", got, want)
	}
}

func TestSaveSortsSpecsAndWritesPinnedFields(t *testing.T) {
	d := newDir(t)
	in := State{Iteration: 3, Specs: []SpecState{
		{Path: "specs/z.spec.md"},
		{Path: "specs/a.spec.md", Counting: Counting{DoneCount: 2, LastStatus: status.Done, ChangedFiles: []string{"a.go"}}},
		{Path: "specs/m.spec.md"},
	}}
	if err := Save(d, in); err != nil {
		t.Fatal(err)
	}
	if in.Specs[0].Path != "specs/z.spec.md" || in.Specs[0].ChangedFiles != nil {
		t.Fatal("Save modified the caller's state")
	}
	data, err := os.ReadFile(d.StatePath())
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	for _, field := range []string{`"version": 1`, `"iteration": 3`, `"specs"`, `"path"`, `"done_count": 2`,
		`"last_status": "DONE"`, `"last_hash"`, `"modified_files"`, `"changed_files": []`, `"rotations"`, `"stuck_count"`} {
		if !strings.Contains(text, field) {
			t.Errorf("state.json lacks %s:\n%s", field, text)
		}
	}
	a, m, z := strings.Index(text, "a.spec"), strings.Index(text, "m.spec"), strings.Index(text, "z.spec")
	if !(a < m && m < z) {
		t.Errorf("specs not sorted by path:\n%s", text)
	}
	got, err := Load(d)
	if err != nil {
		t.Fatal(err)
	}
	if got.Spec("specs/a.spec.md").DoneCount != 2 || got.Spec("specs/nope.md") != nil {
		t.Errorf("Spec lookup wrong: %+v", got)
	}
}

func TestLoadMissingIsEmpty(t *testing.T) {
	got, err := Load(newDir(t))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, State{Version: 1}) {
		t.Fatalf("got %+v", got)
	}
	// Even without a .ralph directory at all.
	if _, err := Load(At(t.TempDir())); err != nil {
		t.Fatal(err)
	}
}

func TestLoadCorrupt(t *testing.T) {
	for name, content := range map[string]string{
		"empty":      "",
		"garbage":    "not json at all",
		"truncated":  `{"version": 1, "iteration": 4, "specs": [{"path": "a`,
		"no version": `{"iteration": 4, "specs": []}`,
		"wrong type": `{"version": 1, "iteration": "four"}`,
		"duplicate":  `{"version": 1, "specs": [{"path": "a"}, {"path": "a"}]}`,
		"empty path": `{"version": 1, "specs": [{"path": ""}]}`,
	} {
		t.Run(name, func(t *testing.T) {
			d := newDir(t)
			if err := os.WriteFile(d.StatePath(), []byte(content), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := Load(d)
			var ce *CorruptError
			if !errors.As(err, &ce) {
				t.Fatalf("want *CorruptError, got %T %v", err, err)
			}
			msg := err.Error()
			for _, want := range []string{"delete " + d.StatePath() + " to start over", "replace it with " + filepath.Join(d.Path(), ".state.json.spare")} {
				if !strings.Contains(msg, want) {
					t.Errorf("error %q does not mention %q", msg, want)
				}
			}
			if data, _ := os.ReadFile(d.StatePath()); string(data) != content {
				t.Error("corrupt file was modified")
			}
		})
	}
}

func TestLoadNewerVersion(t *testing.T) {
	for _, content := range []string{
		`{"version": 2, "iteration": 4, "specs": []}`,
		`{"version": 2, "iteration": {"global": 4}, "specs": {"a": 1}}`, // changed layout
	} {
		d := newDir(t)
		if err := os.WriteFile(d.StatePath(), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := Load(d)
		var ve *VersionError
		if !errors.As(err, &ve) || ve.Found != 2 {
			t.Fatalf("want *VersionError for version 2, got %T %v", err, err)
		}
		if !strings.Contains(err.Error(), "upgrade ralph-ci") || !strings.Contains(err.Error(), d.StatePath()) {
			t.Errorf("unclear message: %v", err)
		}
	}
}

func TestSaveRejectsInvalidState(t *testing.T) {
	d := newDir(t)
	err := Save(d, State{Specs: []SpecState{{Path: "a"}, {Path: "a"}}})
	if err == nil || !strings.Contains(err.Error(), "twice") {
		t.Fatalf("want duplicate error, got %v", err)
	}
	if _, err := os.Stat(d.StatePath()); !os.IsNotExist(err) {
		t.Fatal("an invalid state was written")
	}
}

func TestReset(t *testing.T) {
	in := State{Version: 1, Iteration: 12, Specs: []SpecState{
		{Path: "a", Counting: Counting{DoneCount: 3, LastStatus: status.Done, LastHash: "h1", ModifiedFiles: true,
			ChangedFiles: []string{"x.go"}, Rotations: 5, StuckCount: 2}},
		{Path: "b", Counting: Counting{DoneCount: 1, LastStatus: status.Never, Rotations: 0},
			// what the loop decided: stuck by the breaker; its guard's baseline stays
			Staging:       Staging{Excluded: "stuck: rejected 3 times", Reason: "tests changed", Stage: "tester"},
			Spending:      Spending{RejectKey: "k", RejectRepeats: 3, StuckBy: "breaker"},
			VerifierGuard: VerifierGuard{VerifierKey: "coder@h@t_test.go", VerifierHashes: map[string]string{"t_test.go": "1"}}},
	}}
	got := Reset(in)
	want := State{Version: 1, Iteration: 0, Specs: []SpecState{
		{Path: "a", Counting: Counting{DoneCount: 0, LastStatus: status.Done, LastHash: "h1", ModifiedFiles: true,
			ChangedFiles: []string{"x.go"}, Rotations: 5, StuckCount: 0}},
		{Path: "b", Counting: Counting{DoneCount: 0, LastStatus: status.Never},
			Staging:       Staging{Reason: "tests changed", Stage: "tester"},
			VerifierGuard: VerifierGuard{VerifierKey: "coder@h@t_test.go", VerifierHashes: map[string]string{"t_test.go": "1"}}},
	}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Reset:\n got %+v\nwant %+v", got, want)
	}
	if in.Iteration != 12 || in.Specs[0].DoneCount != 3 || in.Specs[1].StuckBy == "" {
		t.Fatal("Reset modified its input")
	}
}

// TestResetSpecs: reset SPEC does to that spec what reset does to all,
// and keeps the iteration, the other specs and a pending rotation of
// another spec; an unknown path names the ones the state holds.
func TestResetSpecs(t *testing.T) {
	stuck := func(path string) SpecState {
		return SpecState{Path: path, Counting: Counting{DoneCount: 2, LastHash: "h"},
			Staging:  Staging{Excluded: "stuck", Stage: "tester"},
			Spending: Spending{RejectKey: "k", RejectRepeats: 3, StuckBy: "breaker"}}
	}
	in := State{Version: 1, Iteration: 7, Specs: []SpecState{stuck("a"), stuck("b")}, Pending: &Rotation{Iteration: 8, Spec: "b"}}
	got, err := ResetSpecs(in, []string{"a"})
	if err != nil {
		t.Fatal(err)
	}
	want := State{Version: 1, Iteration: 7, Specs: []SpecState{{Path: "a", Counting: Counting{LastHash: "h"}, Staging: Staging{Stage: "tester"}}, stuck("b")}, Pending: in.Pending}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("ResetSpecs:\n got %+v\nwant %+v", got, want)
	}
	if in.Specs[0].StuckBy == "" {
		t.Fatal("ResetSpecs modified its input")
	}
	if got, _ := ResetSpecs(in, []string{"b"}); got.Pending != nil {
		t.Error("the pending rotation of a reset spec is kept")
	}
	if _, err := ResetSpecs(in, []string{"c"}); err == nil || !strings.Contains(err.Error(), "reset c: no spec of that path in the state (the specs it holds: a, b)") {
		t.Errorf("unknown spec: %v", err)
	}
}

func TestDirPaths(t *testing.T) {
	d := At("/repo")
	for got, want := range map[string]string{
		d.Path():                        "/repo/.ralph",
		d.StatePath():                   "/repo/.ralph/state.json",
		d.Guardrails():                  "/repo/.ralph/guardrails.md",
		d.RunFile():                     "/repo/.ralph/run.json",
		d.CurrentLog():                  "/repo/.ralph/current.log",
		d.StatusFile():                  "/repo/.ralph/status",
		d.Handoff("api.spec-d4e5f6"):    "/repo/.ralph/handoffs/api.spec-d4e5f6.md",
		d.HistoryLog("api.spec-abc", 3): "/repo/.ralph/history/api.spec-abc/003.log",
		d.HistoryLog("k", 999):          "/repo/.ralph/history/k/999.log",
		d.HistoryLog("k", 1000):         "/repo/.ralph/history/k/1000.log",
	} {
		if got != filepath.FromSlash(want) {
			t.Errorf("got %s, want %s", got, want)
		}
	}
	rel, err := d.Rel(d.HistoryLog("api.spec-d4e5f6", 3))
	if err != nil || rel != "history/api.spec-d4e5f6/003.log" {
		t.Errorf("Rel = %q, %v", rel, err)
	}
	if d.Resolve(rel) != d.HistoryLog("api.spec-d4e5f6", 3) {
		t.Errorf("Resolve(%q) = %s", rel, d.Resolve(rel))
	}
	if _, err := d.Rel("/repo/src/x.go"); err == nil {
		t.Error("Rel accepted a path outside .ralph")
	}
}

func TestEnsureAndReadOptional(t *testing.T) {
	d := At(t.TempDir())
	if err := d.Ensure(); err != nil {
		t.Fatal(err)
	}
	if err := d.EnsureHistory("k-123456"); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{d.Path(), d.HandoffsDir(), d.HistoryDir("k-123456")} {
		if fi, err := os.Stat(p); err != nil || !fi.IsDir() {
			t.Errorf("%s not created: %v", p, err)
		}
	}
	if data, err := ReadOptional(d.Guardrails()); data != nil || err != nil {
		t.Errorf("missing file: %q, %v", data, err)
	}
	if err := os.WriteFile(d.Guardrails(), []byte("note"), 0o644); err != nil {
		t.Fatal(err)
	}
	if data, err := ReadOptional(d.Guardrails()); string(data) != "note" || err != nil {
		t.Errorf("existing file: %q, %v", data, err)
	}
}

// The spec of the last rotation survives a save and load: a resumed run
// keeps its focus where an uninterrupted one would.
func TestSaveKeepsCurrent(t *testing.T) {
	dir := Dir(t.TempDir())
	in := State{Version: Version, Iteration: 2, Current: "specs/b.spec.md", Specs: []SpecState{{Path: "specs/b.spec.md", Counting: Counting{LastStatus: status.Continue}}}}
	if err := Save(dir, in); err != nil {
		t.Fatal(err)
	}
	out, err := Load(dir)
	if err != nil || out.Current != in.Current {
		t.Fatalf("current = %q, %v; want %q", out.Current, err, in.Current)
	}
}

func TestVerifiedStartOverAndSpecOrNew(t *testing.T) {
	var st State
	ss := st.SpecOrNew("specs/a.spec.md")
	if st.SpecOrNew("specs/a.spec.md") != ss || len(st.Specs) != 1 {
		t.Fatal("SpecOrNew added the spec twice")
	}
	*ss = SpecState{Path: ss.Path, Counting: Counting{DoneCount: 3, LastHash: "h", StuckCount: 1}, Staging: Staging{StagesDone: true, Stage: "qa", StageIterations: 2}}
	for name, tc := range map[string]struct {
		edit func(*SpecState)
		hash string
		want bool
	}{
		"3/3, last stage passed, same content": {func(*SpecState) {}, "h", true},
		"content changed since":                {func(*SpecState) {}, "other", false},
		"2/3":                                  {func(s *SpecState) { s.DoneCount = 2 }, "h", false},
		"last stage not passed":                {func(s *SpecState) { s.StagesDone = false }, "h", false},
		"out of the loop":                      {func(s *SpecState) { s.Excluded = "stuck" }, "h", false},
	} {
		c := *ss
		tc.edit(&c)
		if got := c.Verified(tc.hash); got != tc.want {
			t.Errorf("%s: Verified = %v", name, got)
		}
	}
	if (*SpecState)(nil).Verified("h") {
		t.Error("a spec without state is not verified")
	}
	ss.Excluded = "kept"
	ss.StartOver()
	if ss.DoneCount != 0 || ss.Stage != "" || ss.StageIterations != 0 || ss.StagesDone || ss.StuckCount != 0 || ss.LastHash != "h" || ss.Excluded != "kept" {
		t.Errorf("StartOver: %+v", *ss)
	}
}

func TestLinkCurrentLog(t *testing.T) {
	d := newDir(t)
	if err := d.EnsureHistory("k"); err != nil {
		t.Fatal(err)
	}
	for n, content := range []string{"first rotation\n", "second\n"} {
		log := d.HistoryLog("k", n+1)
		f, err := os.Create(log)
		if err != nil {
			t.Fatal(err)
		}
		if err := d.LinkCurrentLog(log); err != nil {
			t.Fatal(err)
		}
		// Written after the link, as the agent's output is: current.log
		// shows it as it comes.
		if _, err := f.WriteString(content); err != nil {
			t.Fatal(err)
		}
		_ = f.Close()
		if got, _ := os.ReadFile(d.CurrentLog()); string(got) != content {
			t.Fatalf("current.log = %q, want %q", got, content)
		}
	}
	if got, _ := os.ReadFile(d.HistoryLog("k", 1)); string(got) != "first rotation\n" {
		t.Errorf("the first log became %q: relinking current.log must not touch it", got)
	}
	entries, _ := os.ReadDir(d.Path())
	for _, e := range entries {
		if isTempName(e.Name()) {
			t.Errorf("temporary file left behind: %s", e.Name())
		}
	}
	if err := d.LinkCurrentLog(d.HistoryLog("k", 9)); err == nil {
		t.Error("linking a missing log succeeded")
	}
}
