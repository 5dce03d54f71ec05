package engine

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/rs/zerolog"

	"github.com/ralph-ci/ralph-ci/pipeline/discovery"
	"github.com/ralph-ci/ralph-ci/pipeline/plan"
	"github.com/ralph-ci/ralph-ci/pipeline/state"
	"github.com/ralph-ci/ralph-ci/schema"
)

// The guard's baseline before each rotation: recorded when the stage
// starts, kept while nothing changes, moved when a person edits a guarded
// file between rotations; after a rotation the files are hashed again.
func TestBaselineVerifier(t *testing.T) {
	root := t.TempDir()
	write := func(s string) {
		if err := os.WriteFile(filepath.Join(root, "check.sh"), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("exit 0")
	e := &engine{root: root, log: zerolog.Nop()}
	sp := plan.Spec{Spec: discovery.Spec{Path: "a.spec.md", Hash: "h"}}
	stage := plan.Stage{Name: "coder", Criteria: schema.Criteria{VerificationMethod: "external",
		VerificationConfig: schema.VerificationConfig{Command: &schema.Command{Shell: "sh check.sh"}}}}
	var ss state.SpecState
	if !e.baselineVerifier(context.Background(), sp, stage, &ss) || ss.VerifierKey != "coder@h@check.sh" || len(ss.VerifierHashes) != 1 {
		t.Fatalf("stage start: %+v", ss.VerifierGuard)
	}
	base := ss.VerifierHashes["check.sh"]
	if e.baselineVerifier(context.Background(), sp, stage, &ss) {
		t.Error("nothing changed, yet the baseline moved")
	}
	write("exit 1") // a person's edit between rotations
	if !e.baselineVerifier(context.Background(), sp, stage, &ss) || ss.VerifierHashes["check.sh"] == base || ss.VerifierSeen["check.sh"] != ss.VerifierHashes["check.sh"] {
		t.Errorf("edit between rotations: %+v", ss.VerifierGuard)
	}
	write("exit 0") // the rotation's own edit
	if now, _ := e.guardAfter(sp, stage, ss); now["check.sh"] != base {
		t.Errorf("after the rotation: %v", now)
	}
	if now, _ := e.guardAfter(sp, stage, state.SpecState{}); now != nil {
		t.Errorf("nothing guarded: %v", now)
	}
	// An interrupted rotation's edit, seen when it runs again, stays held
	// against it.
	ss.VerifierSeen = map[string]string{"check.sh": ss.VerifierHashes["check.sh"]}
	kept := ss.VerifierHashes["check.sh"]
	write("exit 0 # tampered")
	e.resuming = true
	if e.baselineVerifier(context.Background(), sp, stage, &ss) || ss.VerifierHashes["check.sh"] != kept {
		t.Errorf("resumed rotation: %+v", ss.VerifierGuard)
	}
}

// After a rotation the guard sees the items of the baseline and the ones
// guarded now (Go test files per test and by their test configuration), and
// names a new test file that can stop the others, even in a stage that
// may change tests.
func TestGuardAfter(t *testing.T) {
	root := t.TempDir()
	for name, body := range map[string]string{
		"check.sh": "go test ./...", "calc/calc_test.go": "package calc\n",
		"calc/main_test.go": "package calc\n\nfunc TestMain(m *testing.M) { os.Exit(0) }\n",
	} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(root, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	e := &engine{root: root, log: zerolog.Nop()}
	stage := plan.Stage{Name: "coder", Criteria: schema.Criteria{VerificationMethod: "external",
		VerificationConfig: schema.VerificationConfig{Command: &schema.Command{Shell: "sh check.sh"}}}}
	ss := state.SpecState{VerifierGuard: state.VerifierGuard{VerifierHashes: map[string]string{"check.sh": "x", "calc/calc_test.go": "y", "gone_test.go": "z"}}}
	now, stops := e.guardAfter(plan.Spec{}, stage, ss)
	if len(now) != 7 || now["gone_test.go"] != "" || now["calc/main_test.go (tests)"] == "" || now["calc/main_test.go (test configuration)"] == "" {
		t.Errorf("hashes after: %v", now)
	}
	if len(stops) != 1 || stops["calc/main_test.go"] == "" {
		t.Errorf("stops: %v", stops)
	}
	stage.Criteria.AllowTestChanges = true
	if now, stops := e.guardAfter(plan.Spec{}, stage, ss); len(stops) != 1 || stops["calc/main_test.go"] == "" || len(now) != 7 || now["calc/main_test.go (tests that may change)"] == "" {
		t.Errorf("tests allowed: %v %v", now, stops)
	}
}
