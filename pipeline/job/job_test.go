package job

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"github.com/ralph-ci/ralph-ci/pipeline/exitcode"
	"github.com/ralph-ci/ralph-ci/schema"
)

// TestDeliveryModeOf: the flag wins over the config; an unknown mode is a
// usage error.
func TestDeliveryModeOf(t *testing.T) {
	cfg := &schema.Config{}
	cfg.Delivery.Mode = "commit"
	for flag, want := range map[string]string{"": "commit", "pr": "pr", "none": "none", "branch": "branch"} {
		if got, err := deliveryMode(flag, cfg); err != nil || got.Name != want {
			t.Errorf("deliveryMode(%q) = %q, %v; want %q", flag, got.Name, err, want)
		}
	}
	var ue *exitcode.UsageError
	if _, err := deliveryMode("push", cfg); !errors.As(err, &ue) || !strings.Contains(err.Error(), `--deliver "push": want none, commit, pr or branch`) {
		t.Errorf("deliveryMode(push): %v, want a usage error", err)
	}
}

// TestShown: where things stand is printed, and a code other than 0 comes
// back already shown.
func TestShown(t *testing.T) {
	var stdout bytes.Buffer
	j := &Session{Stdout: &stdout, Log: zerolog.Nop()}
	if err := j.Shown([]string{"a\tapproved"}, exitcode.OK, "all approved"); err != nil {
		t.Errorf("OK: %v", err)
	}
	err := j.Shown([]string{"b\tpending"}, exitcode.AwaitHuman, "b waits")
	var ce *exitcode.Error
	if !errors.As(err, &ce) || ce.Code != exitcode.AwaitHuman || !ce.Printed {
		t.Errorf("AwaitHuman: %#v, want exit 6, printed", err)
	}
	if stdout.String() != "a\tapproved\nb\tpending\n" {
		t.Errorf("stdout %q", stdout.String())
	}
}

// TestLoadPrintsProblems: a config with a problem is a usage error shown
// once: file:line on stdout and, on GitHub Actions, an annotation.
func TestLoadPrintsProblems(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "ralph.yaml"), []byte("agents:\n  coder: {comand: [sh]}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout bytes.Buffer
	j := &Session{Dir: dir, Stdout: &stdout, Log: zerolog.Nop()}
	j.Env.Actions.Actions = true
	_, err := j.Load()
	var ce *exitcode.Error
	if !errors.As(err, &ce) || ce.Code != exitcode.Usage || !ce.Printed {
		t.Fatalf("Load: %#v, want exit 2, printed", err)
	}
	if out := stdout.String(); !strings.Contains(out, "ralph.yaml:2:") || !strings.Contains(out, "::error file=") {
		t.Errorf("stdout %q: want the problem and its annotation", out)
	}
}
