package layers

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ralph-ci/ralph-ci/pipeline/status"
	"github.com/ralph-ci/ralph-ci/schema"
)

// The guard's baseline before a rotation: recorded when the stage
// starts; a change made between rotations is adopted; a change the loop
// made stays held against its claims, also when it changed the spec's
// hash and when its rotation was interrupted and runs again.
func TestRebase(t *testing.T) {
	key := GuardKey("coder", "h1", []string{"check.sh", "t/a_test.go"})
	if key != "coder@h1@check.sh,t/a_test.go" {
		t.Errorf("GuardKey = %q", key)
	}
	seen := map[string]string{"check.sh": "aa"}
	for _, tc := range []struct {
		name     string
		stage    string
		recorded string
		resumed  bool
		now      map[string]string
		want     Rebasing
	}{
		{"the stage starts", "coder", "", false, seen, RebaseNew},
		{"another stage", "tester", key, false, seen, RebaseNew},
		{"the spec changed (by the loop, maybe): the baseline stands", "coder", key, false, seen, RebaseKeep},
		{"unchanged", "coder", key, false, map[string]string{"check.sh": "aa"}, RebaseKeep},
		{"changed between rotations", "coder", key, false, map[string]string{"check.sh": "bb"}, RebaseMoved},
		{"a guarded item appeared between rotations", "coder", key, false, map[string]string{"check.sh": "aa", "lib.sh": "cc"}, RebaseMoved},
		{"changed by an interrupted rotation run again", "coder", key, true, map[string]string{"check.sh": "bb"}, RebaseKeep},
	} {
		if got := Rebase(tc.stage, tc.recorded, tc.resumed, seen, tc.now); got != tc.want {
			t.Errorf("%s: Rebase = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// Adopting a change made between rotations moves only the items it
// touched: a test the loop deleted earlier stays held against it.
func TestAdopt(t *testing.T) {
	base := map[string]string{"check.sh": "aa", "a_test.go": "tt"}
	seen := map[string]string{"check.sh": "aa", "a_test.go": ""} // the loop deleted the test
	now := map[string]string{"check.sh": "bb", "a_test.go": "", "b_test.go": "nn"}
	got := Adopt(base, seen, now)
	want := map[string]string{"check.sh": "bb", "a_test.go": "tt", "b_test.go": "nn"}
	if len(got) != len(want) {
		t.Fatalf("Adopt = %v", got)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("Adopt[%s] = %q, want %q", k, got[k], v)
		}
	}
}

// Layer "verifier guard": a claim made after a rotation changed a guarded
// file is rejected, naming the files; unchanged files pass; nothing
// guarded is no layer at all.
func TestGuard(t *testing.T) {
	base := map[string]string{"check.sh": "aa", "t/a_test.go": "cc"}
	for _, tc := range []struct {
		name   string
		base   map[string]string
		now    map[string]string
		ok     bool
		layers string
		detail string
	}{
		{"nothing guarded", nil, nil, true, "", ""},
		{"unchanged", base, map[string]string{"check.sh": "aa", "t/a_test.go": "cc"}, true, "verifier_guard:pass", "unchanged: check.sh, t/a_test.go"},
		{"a script edited", base, map[string]string{"check.sh": "bb", "t/a_test.go": "cc"}, false, "verifier_guard:fail",
			"the verification files changed since the coder stage started: check.sh; restore them, or set allow_verifier_changes: true in the spec if the change is intended"},
		{"a test deleted", base, map[string]string{"check.sh": "aa", "t/a_test.go": ""}, false, "verifier_guard:fail", "started: t/a_test.go;"},
	} {
		v := Verdict{Status: status.Done}
		ok := v.Guard("coder", tc.base, tc.now)
		if ok != tc.ok || names(v.Layers) != tc.layers || (!ok && v.Status != status.Rejected) {
			t.Errorf("%s: ok %v, layers %q, status %q", tc.name, ok, names(v.Layers), v.Status)
		}
		if len(v.Layers) > 0 && !strings.Contains(v.Layers[0].Detail, tc.detail) {
			t.Errorf("%s: detail %q, want %q", tc.name, v.Layers[0].Detail, tc.detail)
		}
	}
}

func TestDiffering(t *testing.T) {
	a := map[string]string{"x": "1", "y": "2", "z": "3"}
	b := map[string]string{"x": "1", "y": "9", "w": "0"}
	if got := strings.Join(Differing(a, b), ","); got != "w,y,z" {
		t.Errorf("Differing = %q, want w,y,z", got)
	}
	if got := Differing(a, a); len(got) != 0 {
		t.Errorf("Differing(a, a) = %q", got)
	}
}

// The files a stage's verification runs: the script a command names
// (after an interpreter too), the guard list, under working_dir; not the
// work products a command names as arguments, nor a missing script.
func TestGuardedFiles(t *testing.T) {
	root := t.TempDir()
	for _, f := range []string{"check.sh", "scripts/verify.py", "tests/a_test.go", "sub/run.sh"} {
		p := filepath.Join(root, f)
		_ = os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte("x"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	isFile := func(rel string) bool {
		fi, err := os.Stat(filepath.Join(root, filepath.FromSlash(rel)))
		return err == nil && fi.Mode().IsRegular()
	}
	ext := func(cfg schema.VerificationConfig) schema.Criteria {
		return schema.Criteria{VerificationMethod: "external", VerificationConfig: cfg}
	}
	sh := func(s string) *schema.Command { return &schema.Command{Shell: s} }
	for _, tc := range []struct {
		name string
		crit schema.Criteria
		want string
	}{
		{"sh script", ext(schema.VerificationConfig{Command: sh("sh check.sh")}), "check.sh"},
		{"direct script and interpreter with flags", ext(schema.VerificationConfig{Command: sh("./check.sh && python3 -u scripts/verify.py --x")}), "check.sh,scripts/verify.py"},
		{"argv", ext(schema.VerificationConfig{Command: &schema.Command{Argv: []string{"bash", "check.sh"}}}), "check.sh"},
		{"work products named as arguments are not scripts", ext(schema.VerificationConfig{Command: sh("test -f check.sh")}), ""},
		{"guard list", ext(schema.VerificationConfig{Command: sh("go test ./..."), Guard: []string{"tests/a_test.go"}}), "tests/a_test.go"},
		{"working_dir", ext(schema.VerificationConfig{Command: sh("sh run.sh"), WorkingDir: "sub"}), "sub/run.sh"},
		{"allow_verifier_changes", ext(schema.VerificationConfig{Command: sh("sh check.sh"), AllowVerifierChanges: true, Guard: []string{"tests/a_test.go"}}), ""},
		{"missing script", ext(schema.VerificationConfig{Command: sh("sh nope.sh")}), ""},
		{"multi_stage external stages", schema.Criteria{VerificationMethod: "multi_stage", VerificationConfig: schema.VerificationConfig{Stages: []schema.VerifyStage{
			{Method: "external", Config: schema.VerificationConfig{Command: sh("sh check.sh")}},
			{Method: "semantic", Config: schema.VerificationConfig{Guard: []string{"ignored"}}},
		}}}, "check.sh"},
		{"string_match guards nothing", schema.Criteria{VerificationMethod: "string_match"}, ""},
	} {
		if got := strings.Join(GuardedFiles(tc.crit, isFile), ","); got != tc.want {
			t.Errorf("%s: %q", tc.name, got)
		}
	}
}
