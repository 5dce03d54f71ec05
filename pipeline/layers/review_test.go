package layers

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ralph-ci/ralph-ci/schema"
)

func TestReviewDueAndNext(t *testing.T) {
	for _, tc := range []struct {
		i             int
		prev, stage   string
		stages, every int
		due           bool
		next          int
	}{
		{0, "", "coder", 4, 5, true, 1},         // every 5th (0)
		{1, "coder", "reviewer", 4, 5, true, 2}, // phase boundary
		{3, "tester", "qa", 4, 5, true, 5},      // final task and boundary
		{4, "qa", "qa", 4, 5, false, 5},         // a verification pass
		{5, "qa", "qa", 4, 5, true, 10},         // every 5th
		{1, "coder", "coder", 1, 5, false, 5},   // single stage
		{2, "coder", "coder", 1, 2, true, 4},
	} {
		if got := ReviewDue(tc.i, tc.prev, tc.stage, tc.stages, tc.every); got != tc.due {
			t.Errorf("%+v: due %v", tc, got)
		}
		if got := NextReview(tc.i, tc.stages, tc.every); got != tc.next {
			t.Errorf("%+v: next %d", tc, got)
		}
	}
}

func TestReviewSignalFindingsAndPath(t *testing.T) {
	for _, tc := range []struct {
		out, signal, findings string
		pathB                 bool
	}{
		{"all good\nREVIEW_PASS", "REVIEW_PASS", "all good", false},
		{"REVIEW_PASS\nbut then\nREVIEW_FAIL\n\n", "REVIEW_FAIL", "REVIEW_PASS\nbut then", false},
		{"## Findings\nx\n## Feedback for Revision\nfix a.go:3\n**REVIEW_FAIL**", "REVIEW_FAIL", "fix a.go:3", false},
		{"REVIEW_FAIL\nI am not sure", "", "REVIEW_FAIL\nI am not sure", false},
		{"", "", "", false},
		{"SPEC_ISSUE: the spec contradicts itself\nREVIEW_FAIL", "REVIEW_FAIL", "SPEC_ISSUE: the spec contradicts itself", true},
		{"needs a person\n  path: b\nREVIEW_FAIL", "REVIEW_FAIL", "needs a person\n  path: b", true},
	} {
		if got := ReviewSignal(tc.out); got != tc.signal {
			t.Errorf("%q: signal %q", tc.out, got)
		}
		if got := ReviewFindings(tc.out); got != tc.findings {
			t.Errorf("%q: findings %q", tc.out, got)
		}
		if got := PathB(tc.out); got != tc.pathB {
			t.Errorf("%q: path B %v", tc.out, got)
		}
	}
	if s := Summary("- one\n\n* two\nthree\nfour"); s != "one; two; three" {
		t.Errorf("summary %q", s)
	}
	if s := Summary(""); s != "none" {
		t.Errorf("summary %q", s)
	}
	if f := ReviewFindings(strings.Repeat("x", 2*MaxFindings)); len(f) > MaxFindings+4 {
		t.Errorf("findings not capped: %d", len(f))
	}
}

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
